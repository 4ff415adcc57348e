/* A tiny DOM builder shared by the link widget and the inspector (no framework needed). */
(() => {
  /**
   * el('button', { type: 'button', onclick: fn, text: 'Save' }, [children]) → an element.
   * `text` sets textContent (never HTML), `on…` adds a listener, anything else is an attribute.
   */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach((name) => {
      var value = attrs[name];
      if (value === undefined || value === null || value === false) return;
      if (name === 'text') node.textContent = value;
      else if (name.slice(0, 2) === 'on') node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : value);
    });
    (children || []).forEach((child) => {
      if (child === null || child === undefined || child === false) return;
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return node;
  }
  window.CrmSandboxDom = { el: el };
})();
