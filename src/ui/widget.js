/*
 * The link widget, inside the iframe that init.js opens. Steps: pick an integration → sandbox
 * sign-in (organisation) → confirm → a public token, posted to the opening page's origin only.
 * It holds nothing but the link token: its two routes are authenticated by that token.
 */
(() => {
  var params = new URLSearchParams(location.hash.slice(1));
  var linkToken = params.get('linkToken') || '';
  var parentOrigin = params.get('origin') || '';
  var preselected = params.get('integrationId') || '';
  var step = document.getElementById('step');
  var announce = document.getElementById('announce');
  var state = { integrations: [], integration: null, orgName: 'Sandbox Org', nativeOrgId: '' };

  /**
   * Posts to the opening page, and only to the origin it said it has. A page without an origin
   * of its own (file://, about:blank reports "null") cannot be targeted by name: then only the
   * parent window itself can receive it.
   */
  function tell(message) {
    if (window.parent === window || !parentOrigin) return;
    message.source = 'crm-sandbox-link';
    window.parent.postMessage(message, parentOrigin === 'null' ? '*' : parentOrigin);
  }

  function close() {
    tell({ type: 'close' });
  }

  var el = window.CrmSandboxDom.el;

  /** Shows a step: its title gets focus, so a screen reader reads where the user is. */
  function show(title, children) {
    step.textContent = '';
    var heading = el('h1', { id: 'step-title', tabindex: '-1', text: title });
    step.appendChild(heading);
    children.forEach((child) => {
      if (child) step.appendChild(child);
    });
    heading.focus();
    announce.textContent = title;
  }

  function showError(error) {
    var explain = {
      INVALID_LINK_TOKEN: 'This link is not valid. Ask the application for a new one.',
      LINK_TOKEN_USED: 'This link has already been used to connect an account. Ask the application for a new one.',
      LINK_TOKEN_EXPIRED: 'This link has expired. Ask the application for a new one.',
    };
    show('Something went wrong', [
      el('div', { role: 'alert', class: 'error' }, [
        el('p', { text: explain[error.errorCode] || error.message }),
        el('p', { class: 'muted', text: (error.errorCode ? `${error.errorCode}: ` : '') + error.message }),
      ]),
      el('div', { class: 'actions' }, [el('button', { type: 'button', class: 'primary', onclick: close, text: 'Close' })]),
    ]);
  }

  function request(method, path, body) {
    return fetch(path, {
      method: method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    })
      .then((response) =>
        response.json().then((json) => {
          if (!response.ok) throw json;
          return json;
        }),
      )
      .catch((error) => {
        throw error?.message ? error : { message: `The sandbox did not answer: ${String(error)}` };
      });
  }

  function showPicker() {
    var groups = [
      ['crm', 'CRM'],
      ['engagement', 'Sales engagement'],
    ].map((group) => {
      var items = state.integrations.filter((it) => it.category === group[0]);
      return el('section', { 'aria-labelledby': `group-${group[0]}` }, [
        el('h2', { id: `group-${group[0]}`, text: group[1] }),
        el(
          'ul',
          { class: 'choices' },
          items.map((it) =>
            el('li', {}, [
              el('button', {
                type: 'button',
                class: 'choice',
                'data-integration': it.integrationId,
                onclick: () => {
                  state.integration = it;
                  showSignIn();
                },
                text: it.name,
              }),
            ]),
          ),
        ),
      ]);
    });
    show('Choose your system', [el('p', { class: 'muted', text: 'Pick the CRM or engagement tool to connect.' })].concat(groups));
  }

  function showSignIn() {
    var org = el('input', { id: 'org-name', name: 'orgName', type: 'text', autocomplete: 'organization', required: true });
    org.value = state.orgName;
    var orgId = el('input', { id: 'org-id', name: 'nativeOrgId', type: 'text', autocomplete: 'off' });
    orgId.value = state.nativeOrgId;
    var form = el(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          state.orgName = org.value.trim();
          state.nativeOrgId = orgId.value.trim();
          showConfirm();
        },
      },
      [
        el('p', { class: 'muted', text: 'Sandbox sign-in: no password. The organisation is simulated from the sandbox\u2019s seed.' }),
        el('label', { for: 'org-name', text: 'Organisation name' }),
        org,
        el('label', { for: 'org-id', text: 'Organisation id (optional)' }),
        orgId,
        el('div', { class: 'actions' }, [
          preselected ? null : el('button', { type: 'button', onclick: showPicker, text: 'Back' }),
          el('button', { type: 'submit', class: 'primary', text: 'Sign in' }),
        ]),
      ],
    );
    show(`Sign in to ${state.integration.name}`, [form]);
  }

  function showConfirm() {
    var connect = el('button', { type: 'button', class: 'primary', text: 'Connect', onclick: submit });
    function submit() {
      connect.disabled = true;
      connect.textContent = 'Connecting…';
      var body = { linkToken: linkToken, integrationId: state.integration.integrationId };
      if (state.orgName) body.orgName = state.orgName;
      if (state.nativeOrgId) body.nativeOrgId = state.nativeOrgId;
      request('POST', '/link/widget/public-token', body).then((answer) => {
        show('Connected', [el('p', { role: 'status', text: `${state.integration.name} is connected. You can close this window.` })]);
        tell({ type: 'success', publicToken: answer.publicToken });
      }, showError);
    }
    show('Allow access', [
      el('p', { text: `The application asks to read and change your ${state.integration.name} data, and to be told when it changes.` }),
      el('dl', { class: 'summary' }, [
        el('dt', { text: 'System' }),
        el('dd', { text: state.integration.name }),
        el('dt', { text: 'Organisation' }),
        el('dd', { text: state.orgName || '(generated)' }),
      ]),
      el('div', { class: 'actions' }, [el('button', { type: 'button', onclick: showSignIn, text: 'Back' }), connect]),
    ]);
  }

  document.getElementById('close').addEventListener('click', close);
  // A modal keeps the keyboard inside: Tab past the last control comes back to the first.
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') return close();
    if (event.key !== 'Tab') return;
    var controls = Array.prototype.filter.call(document.querySelectorAll('button, input, [tabindex="0"]'), (node) => !node.disabled);
    var first = controls[0];
    var last = controls[controls.length - 1];
    if (event.shiftKey && (document.activeElement === first || document.activeElement.id === 'step-title')) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  });

  if (!linkToken) {
    showError({ errorCode: 'INVALID_LINK_TOKEN', message: 'no link token was given to the widget' });
    return;
  }
  request('GET', `/link/widget/session?linkToken=${encodeURIComponent(linkToken)}`).then((session) => {
    state.integrations = session.integrations;
    var chosen = session.integrations.filter((it) => it.integrationId === preselected)[0];
    if (chosen) {
      state.integration = chosen;
      showSignIn();
    } else {
      preselected = '';
      showPicker();
    }
  }, showError);
})();
