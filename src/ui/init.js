/*
 * crm-sandbox link widget loader. A frontend loads it from the sandbox's URL:
 *
 *   <script src="http://127.0.0.1:4010/link/init.js"></script>
 *   CrmSandboxLink.init({ onSuccess: (publicToken) => …, onClose: () => …, onLoad: () => … });
 *   CrmSandboxLink.open({ linkToken, integrationId });   // integrationId is optional
 *
 * It opens the widget (/link/widget) in a modal iframe. The widget answers through
 * postMessage; only messages from the sandbox's origin and from that iframe are taken.
 */
(() => {
  var script = document.currentScript;
  var sandboxOrigin = new URL(script?.src ? script.src : location.href).origin;
  var handlers = {};
  var overlay = null;
  var frame = null;
  var returnFocus = null;

  function call(name, value) {
    var handler = handlers[name];
    if (typeof handler === 'function') handler(value);
  }

  function teardown() {
    window.removeEventListener('message', onMessage);
    if (overlay?.parentNode) overlay.parentNode.removeChild(overlay);
    overlay = null;
    frame = null;
    if (returnFocus && typeof returnFocus.focus === 'function') returnFocus.focus();
    returnFocus = null;
  }

  function onMessage(event) {
    if (!frame || event.origin !== sandboxOrigin || event.source !== frame.contentWindow) return;
    var data = event.data;
    if (data?.source !== 'crm-sandbox-link') return;
    if (data.type === 'success' && typeof data.publicToken === 'string') {
      teardown();
      call('onSuccess', data.publicToken);
    } else if (data.type === 'close') {
      teardown();
      call('onClose');
    }
  }

  var link = {
    /** True once init() has run: open() may be called. */
    state: { isLoaded: false },

    /** Sets the callbacks: onSuccess(publicToken), onClose(), onLoad(). */
    init: (options) => {
      options = options || {};
      handlers = { onSuccess: options.onSuccess, onClose: options.onClose, onLoad: options.onLoad };
      link.state.isLoaded = true;
      setTimeout(() => {
        call('onLoad');
      }, 0);
    },

    /** Opens the widget for a link token; with integrationId it skips the picker. */
    open: (options) => {
      options = options || {};
      if (typeof options.linkToken !== 'string' || options.linkToken === '') {
        throw new TypeError('CrmSandboxLink.open: linkToken (a string from POST /link/token) is required');
      }
      if (overlay) return;
      var params = new URLSearchParams({ linkToken: options.linkToken, origin: location.origin });
      if (options.integrationId) params.set('integrationId', options.integrationId);
      returnFocus = document.activeElement;
      overlay = document.createElement('div');
      overlay.setAttribute('data-crm-sandbox-link', '');
      overlay.style.cssText = 'position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;background:rgba(15,23,42,.55)';
      frame = document.createElement('iframe');
      frame.title = 'Link your account';
      frame.src = `${sandboxOrigin}/link/widget#${params.toString()}`;
      frame.style.cssText = 'width:min(420px,100vw);height:min(620px,100vh);border:0;border-radius:12px;background:#fff;box-shadow:0 20px 50px rgba(0,0,0,.35)';
      overlay.appendChild(frame);
      window.addEventListener('message', onMessage);
      document.body.appendChild(overlay);
      frame.focus();
    },

    /** Closes the widget as if the user had closed it (onClose is called). */
    close: () => {
      if (!overlay) return;
      teardown();
      call('onClose');
    },
  };

  window.CrmSandboxLink = link;
})();
