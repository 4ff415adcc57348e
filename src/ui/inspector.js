/*
 * The inspector at /sandbox/ui. It sees only one API token's connections, through the sandbox's
 * own API: the service's endpoints, the control API and the inspector routes. The token comes
 * from `?token=` (then taken out of the address), this tab's sessionStorage, or, on a loopback
 * address, the default key when the server accepts it; else a form asks for it once. It polls
 * once a second and redraws only what changed, so forms keep their input and focus.
 */
(() => {
  var el = window.CrmSandboxDom.el;
  var TOKEN_KEY = 'crm-sandbox.apiToken';
  /** The key a sandbox accepts when none is configured (DEFAULT_API_KEY). */
  var DEFAULT_KEY = 'sandbox-api-key';
  /** The addresses of this machine: where the default key is tried before asking for one. */
  var LOOPBACK = /^(localhost|[\w-]+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/;
  var POLL_MS = 1000;
  var PAGE_SIZE = 10;
  var MAX_ROWS = 100;
  var OBJECT_TYPES = ['Contact', 'Account', 'Deal', 'Lead', 'User', 'Note', 'Task', 'Event', 'EventAttendee', 'Email'];
  var STATUSES = ['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY'];
  /** The columns shown per record type, beside the id. */
  var COLUMNS = {
    Contact: ['firstName', 'lastName', 'email'],
    Account: ['name', 'industry', 'website'],
    Deal: ['name', 'stage', 'amount'],
    Lead: ['firstName', 'lastName', 'email'],
    User: ['firstName', 'lastName', 'email'],
    Note: ['content'],
    Task: ['subject', 'status', 'dueDate'],
    Event: ['subject', 'type', 'startDateTime'],
    EventAttendee: ['status', 'associatedObjectType', 'email'],
    Email: ['subject', 'from', 'messageDate'],
  };
  /** Fields every record has: not among a record type's columns when they are picked from its records. */
  var RECORD_BASE = ['id', 'nativeId', 'createdTime', 'modifiedTime', 'associations', 'additional'];
  /**
   * The unified engagement objects an engagement connection (Outreach, Salesloft, Apollo) also
   * shows, read only, through GET /engagement/{list} with its accessToken: their list path, the
   * key of their records in its answer, and their columns.
   */
  var ENGAGEMENT_VIEWS = {
    'Engagement contacts': { list: 'contacts', columns: ['firstName', 'lastName', 'jobTitle'] },
    'Engagement sequences': { list: 'sequences', columns: ['name', 'isEnabled', 'numSteps', 'scheduledCount'] },
    'Engagement actions': { list: 'actions', columns: ['type', 'status', 'dueDate'] },
    'Engagement tasks': { list: 'tasks', columns: ['type', 'status', 'body', 'dueDate'] },
    'Engagement calls': { list: 'calls', columns: ['direction', 'disposition', 'durationSeconds'] },
    'Engagement emails': { list: 'emails', columns: ['to', 'subject', 'isBounced'] },
  };
  var ENGAGEMENT_INTEGRATIONS = ['outreach', 'salesloft', 'apollo'];
  /** Fields the sandbox sets itself: left out of the edit form. */
  var READ_ONLY = ['id', 'nativeId', 'createdTime', 'modifiedTime', 'expectedRevenue', 'associations', 'additional'];

  var app = document.getElementById('app');
  var announce = document.getElementById('announce');
  var live = document.getElementById('live');
  var tabs = document.getElementById('tabs');
  var forget = document.getElementById('forget');

  var state = {
    token: sessionStorage.getItem(TOKEN_KEY) || '',
    tab: 'connections',
    connections: [],
    selectedId: null,
    recordType: 'Contact',
    cursors: [''],
    page: null,
    deliveries: [],
    expanded: {},
    details: {},
    editing: null,
    /** The unified objects of the selected connection (GET /sandbox/connections/{id}/unified), the one shown, how many of its pages, and the records opened to their JSON. */
    unifiedObjects: null,
    unifiedType: null,
    unifiedPages: 1,
    unifiedOpen: {},
    /** The unified records' search box. */
    unifiedSearch: '',
    /** accessTokens of the connections whose engagement objects were read, by connectionId. */
    accessTokens: {},
  };
  /** The JSON last drawn per section: a poll redraws a section only when its data changed. */
  var drawn = {};
  var timer = null;
  var polling = false;

  function say(text) {
    announce.textContent = '';
    announce.textContent = text;
  }

  /** One API call with the token; a rejected token sends the user back to the token form. */
  function api(method, path, body) {
    var headers = { 'service-api-token': state.token };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) }).then((response) =>
      response.text().then((text) => {
        var json = text ? JSON.parse(text) : {};
        if (!response.ok) {
          json.status = response.status;
          if (response.status === 401 && json.errorCode === 'INVALID_API_TOKEN') signOut(json.message);
          throw json;
        }
        return json;
      }),
    );
  }

  function describeError(error) {
    if (!error) return 'unknown error';
    var field = error.metadata?.field ? ` (field: ${error.metadata.field})` : '';
    return (error.status ? `${error.status} ` : '') + (error.errorCode ? `${error.errorCode}: ` : '') + (error.message || String(error)) + field;
  }

  function time(iso) {
    return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
  }

  // --- Token ---------------------------------------------------------------------------------

  function signOut(message) {
    sessionStorage.removeItem(TOKEN_KEY);
    state.token = '';
    stopPolling();
    showTokenForm(message);
  }

  function showTokenForm(message) {
    tabs.hidden = true;
    forget.hidden = true;
    live.textContent = '';
    app.textContent = '';
    var input = el('input', { id: 'api-token', type: 'password', autocomplete: 'off', required: true });
    var form = el(
      'form',
      {
        class: 'card token-form',
        onsubmit: (event) => {
          event.preventDefault();
          state.token = input.value.trim();
          sessionStorage.setItem(TOKEN_KEY, state.token);
          start();
        },
      },
      [
        el('h2', { text: 'Open the inspector' }),
        el('p', { class: 'muted', text: 'The inspector shows what one API token sees. The token stays in this tab only (session storage).' }),
        el('p', {
          class: 'muted',
          id: 'token-hint',
          text: `The server's first lines name the keys it accepts (without --api-key: ${DEFAULT_KEY}). /sandbox/ui?token=KEY opens the inspector with KEY.`,
        }),
        message ? el('p', { role: 'alert', class: 'error', text: message }) : null,
        el('label', { for: 'api-token', text: 'API token (service-api-token)' }),
        input,
        el('div', { class: 'actions' }, [el('button', { type: 'submit', class: 'primary', text: 'Open inspector' })]),
      ],
    );
    app.appendChild(form);
    input.focus();
  }

  forget.addEventListener('click', () => {
    signOut();
  });

  // --- Tabs ----------------------------------------------------------------------------------

  var TAB_NAMES = ['connections', 'scenarios', 'requests', 'client-check'];
  TAB_NAMES.forEach((name, index) => {
    var tab = document.getElementById(`tab-${name}`);
    tab.addEventListener('click', () => {
      selectTab(name);
    });
    tab.addEventListener('keydown', (event) => {
      var step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
      if (!step) return;
      var next = TAB_NAMES[(index + step + TAB_NAMES.length) % TAB_NAMES.length];
      selectTab(next);
      document.getElementById(`tab-${next}`).focus();
    });
  });

  function selectTab(name) {
    state.tab = name;
    TAB_NAMES.forEach((other) => {
      var tab = document.getElementById(`tab-${other}`);
      tab.setAttribute('aria-selected', String(other === name));
      tab.tabIndex = other === name ? 0 : -1;
    });
    drawn = {};
    layout();
    refresh();
  }

  // --- Layout --------------------------------------------------------------------------------

  function start() {
    tabs.hidden = false;
    forget.hidden = false;
    drawn = {};
    layout();
    refresh();
    stopPolling();
    timer = setInterval(refresh, POLL_MS);
  }

  function stopPolling() {
    if (timer) clearInterval(timer);
    timer = null;
  }

  function layout() {
    app.textContent = '';
    if (state.tab === 'connections') {
      app.appendChild(
        el('div', { id: 'view-connections', role: 'tabpanel', 'aria-labelledby': 'tab-connections', class: 'page columns' }, [
          el('section', { class: 'card', 'aria-labelledby': 'connections-title' }, [
            el('h2', { id: 'connections-title', text: 'Connections' }),
            el('div', { id: 'connections' }),
          ]),
          el('div', { id: 'detail' }),
        ]),
      );
      layoutDetail();
    } else if (state.tab === 'client-check') {
      app.appendChild(
        el('section', { id: 'view-client-check', role: 'tabpanel', 'aria-labelledby': 'tab-client-check', class: 'page' }, [
          el('div', { class: 'card' }, [
            el('h2', { text: "Client check: how this API token's client behaves" }),
            el('p', { class: 'muted mono', text: 'GET /sandbox/client-check' }),
            el('div', { id: 'client-check-view' }),
          ]),
        ]),
      );
    } else {
      const path = state.tab === 'scenarios' ? '/sandbox/scenarios' : '/sandbox/requests';
      const title = state.tab === 'scenarios' ? 'Scenarios' : 'Request journal';
      app.appendChild(
        el('section', { id: `view-${state.tab}`, role: 'tabpanel', 'aria-labelledby': `tab-${state.tab}`, class: 'page' }, [
          el('div', { class: 'card' }, [el('h2', { text: title }), el('p', { class: 'muted mono', text: `GET ${path}` }), el('div', { id: 'optional-view' })]),
          state.tab === 'scenarios' ? scenarioRunner() : null,
        ]),
      );
    }
  }

  /** The frame of the selected connection: drawn once per selection, so its forms keep input. */
  function layoutDetail() {
    var detail = document.getElementById('detail');
    if (!detail) return;
    detail.textContent = '';
    if (!state.selectedId) {
      detail.appendChild(el('div', { class: 'card' }, [el('p', { class: 'muted', text: 'Pick a connection to see its webhook, records and deliveries.' })]));
      return;
    }
    var typeSelect = el(
      'select',
      {
        id: 'record-type',
        onchange: () => {
          state.recordType = typeSelect.value;
          state.cursors = [''];
          state.editing = null;
          drawEditor();
          refresh();
        },
      },
      OBJECT_TYPES.map((type) => el('option', { value: type, text: type, selected: type === state.recordType })).concat(
        isEngagement()
          ? [
              el(
                'optgroup',
                { label: 'Engagement objects (read only)' },
                Object.keys(ENGAGEMENT_VIEWS).map((type) => el('option', { value: type, text: type, selected: type === state.recordType })),
              ),
            ]
          : [],
      ),
    );
    var statusSelect = el(
      'select',
      { id: 'status-select' },
      STATUSES.map((status) => el('option', { value: status, text: status })),
    );
    detail.appendChild(
      el('section', { class: 'card', 'aria-labelledby': 'detail-title' }, [
        el('h2', { id: 'detail-title', text: 'Connection' }),
        el('div', { id: 'summary' }),
        el(
          'form',
          {
            class: 'row',
            onsubmit: (event) => {
              event.preventDefault();
              act(api('POST', `/sandbox/connections/${state.selectedId}/status`, { status: statusSelect.value }), `Status set to ${statusSelect.value}`);
            },
          },
          [el('label', { for: 'status-select', text: 'Move status to' }), statusSelect, el('button', { type: 'submit', text: 'Set status' })],
        ),
      ]),
    );
    detail.appendChild(
      el('section', { class: 'card', 'aria-labelledby': 'deliveries-title' }, [
        el('h2', { id: 'deliveries-title', text: 'Events and deliveries' }),
        el('div', { id: 'deliveries' }),
      ]),
    );
    detail.appendChild(
      el('section', { class: 'card', 'aria-labelledby': 'unified-title' }, [
        el('h2', { id: 'unified-title', text: 'Unified records' }),
        el('p', {
          class: 'muted',
          text: "What your app reads from the service's unified API (GET /crm/…, with this connection's accessToken): the newest first, or those with the text searched for.",
        }),
        el('div', { id: 'unified-picker' }),
        el('div', { id: 'unified' }),
      ]),
    );
    detail.appendChild(
      el('section', { class: 'card', 'aria-labelledby': 'records-title' }, [
        el('h2', { id: 'records-title', text: 'Records' }),
        el('div', { class: 'row' }, [el('label', { for: 'record-type', text: 'Type' }), typeSelect]),
        el('div', { id: 'records' }),
        el('div', { id: 'editor' }),
      ]),
    );
    drawEditor();
  }

  // --- Data ----------------------------------------------------------------------------------

  /** One poll: fetches what the current view shows and redraws what changed. */
  function refresh() {
    if (polling || !state.token) return Promise.resolve();
    polling = true;
    var work = state.tab === 'connections' ? refreshConnections() : state.tab === 'client-check' ? refreshClientCheck() : refreshOptional();
    return work
      .then(
        () => {
          live.textContent = `live · ${new Date().toLocaleTimeString()}`;
        },
        (error) => {
          live.textContent = `not updated: ${describeError(error)}`;
        },
      )
      .then(() => {
        polling = false;
      });
  }

  function refreshConnections() {
    return api('GET', '/sandbox/connections').then((answer) => {
      state.connections = answer.connections;
      if (state.selectedId && !answer.connections.some((c) => c.connectionId === state.selectedId)) select(null);
      draw('connections', { list: state.connections, selected: state.selectedId }, drawConnections);
      if (!state.selectedId) return undefined;
      var id = state.selectedId;
      var cursor = state.cursors[state.cursors.length - 1];
      var query = `?limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      return Promise.all([recordsPage(id, query), api('GET', `/sandbox/connections/${id}/deliveries`)]).then((answers) => {
        if (id !== state.selectedId) return undefined;
        state.page = answers[0];
        state.deliveries = answers[1].deliveries;
        var connection = state.connections.filter((c) => c.connectionId === id)[0];
        draw('summary', connection, drawSummary);
        draw('records', { page: state.page, type: state.recordType, at: state.cursors.length }, drawRecords);
        var open = Object.keys(state.expanded).filter((eventId) => state.expanded[eventId]);
        return Promise.all(
          open.map((eventId) =>
            api('GET', `/sandbox/deliveries/${eventId}`).then(
              (answer) => {
                state.details[eventId] = answer.delivery;
              },
              () => {
                delete state.details[eventId];
              },
            ),
          ),
        ).then(() => {
          // While an event waits on a retry, the second too: "next attempt in …" counts down.
          var counting = state.deliveries.some((d) => d.state === 'retrying');
          draw(
            'deliveries',
            { deliveries: state.deliveries, details: state.details, expanded: state.expanded, now: counting ? Math.floor(Date.now() / 1000) : 0 },
            drawDeliveries,
          );
          return refreshUnified(id);
        });
      });
    });
  }

  /**
   * The unified records of the selected connection: the objects its integration serves (read
   * once per selection), then the pages shown of the picked one, each read again on every poll
   * through GET /sandbox/connections/{id}/unified/{type}, which answers what GET /crm/{objects}
   * does. An error (409 while the connection syncs) is shown in place of the pages it stopped.
   */
  function refreshUnified(id) {
    var objects = state.unifiedObjects
      ? Promise.resolve(state.unifiedObjects)
      : api('GET', `/sandbox/connections/${id}/unified`).then((answer) => {
          if (id === state.selectedId) state.unifiedObjects = answer.objects;
          return answer.objects;
        });
    return objects.then((list) => {
      if (id !== state.selectedId) return undefined;
      // At first the type the Records card shows, when the connection serves it.
      var has = (type) => list.some((object) => object.objectType === type);
      if (!has(state.unifiedType)) state.unifiedType = has(state.recordType) ? state.recordType : list.length ? list[0].objectType : null;
      var type = state.unifiedType;
      draw('unified-picker', { objects: list, type: type }, drawUnifiedPicker);
      var object = list.filter((candidate) => candidate.objectType === type)[0];
      if (!object) {
        draw('unified', { none: true }, drawUnified);
        return undefined;
      }
      var search = state.unifiedSearch;
      return unifiedPages(id, type, state.unifiedPages, search).then((read) => {
        if (id !== state.selectedId || type !== state.unifiedType || search !== state.unifiedSearch) return;
        draw('unified', { object: object, pages: read.pages, error: read.error, open: state.unifiedOpen, search: search }, drawUnified);
      });
    });
  }

  /**
   * The first `count` pages of a unified list, newest first (with the records holding `search`, if
   * any), each after the cursor of the one before; stops at the page whose nextPageCursor is null.
   */
  function unifiedPages(id, type, count, search) {
    var pages = [];
    var filter = `&order=newest${search ? `&search=${encodeURIComponent(search)}` : ''}`;
    function after(cursor) {
      var query = `?limit=${PAGE_SIZE}${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      return api('GET', `/sandbox/connections/${id}/unified/${encodeURIComponent(type)}${query}`).then((page) => {
        pages.push(page);
        return pages.length < count && page.nextPageCursor !== null ? after(page.nextPageCursor) : { pages: pages };
      });
    }
    return after('').catch((error) => ({ pages: pages, error: describeError(error) }));
  }

  function drawUnifiedPicker(target, data) {
    if (!data.objects.length) return;
    var picker = el(
      'select',
      {
        id: 'unified-type',
        onchange: () => {
          state.unifiedType = picker.value;
          state.unifiedPages = 1;
          state.unifiedOpen = {};
          drawn['unified-picker'] = null;
          refresh();
        },
      },
      data.objects.map((object) =>
        el('option', { value: object.objectType, text: `${object.objectType} (${object.path})`, selected: object.objectType === data.type }),
      ),
    );
    var pending = null;
    var search = el('input', {
      id: 'unified-search',
      type: 'search',
      value: state.unifiedSearch,
      placeholder: 'a name, an email, an id…',
      // Read a moment after the last key, not at each one.
      oninput: () => {
        clearTimeout(pending);
        pending = setTimeout(() => {
          state.unifiedSearch = search.value.trim();
          state.unifiedPages = 1;
          state.unifiedOpen = {};
          refresh();
        }, 250);
      },
    });
    target.appendChild(
      el('div', { class: 'row' }, [
        el('label', { for: 'unified-type', text: 'Object' }),
        picker,
        el('label', { for: 'unified-search', text: 'Search' }),
        search,
      ]),
    );
  }

  /** The columns of a unified page: the type's own, else the first scalar fields its records have. */
  function unifiedColumns(type, records) {
    if (COLUMNS[type]) return COLUMNS[type];
    var keys = [];
    records.forEach((record) => {
      Object.keys(record).forEach((key) => {
        var value = record[key];
        if (keys.indexOf(key) === -1 && RECORD_BASE.indexOf(key) === -1 && (value === null || typeof value !== 'object')) keys.push(key);
      });
    });
    return keys.slice(0, 3);
  }

  function drawUnified(target, data) {
    if (data.none) {
      target.appendChild(
        el('p', { class: 'muted', text: "This connection's integration serves no unified CRM objects: its records are its engagement lists." }),
      );
      return;
    }
    var object = data.object;
    var records = [];
    data.pages.forEach((page) => {
      records = records.concat(page[object.listKey] || []);
    });
    var last = data.pages[data.pages.length - 1];
    var more = !data.error && last && last.nextPageCursor !== null;
    target.appendChild(
      el('p', {
        id: 'unified-status',
        class: 'muted mono',
        role: 'status',
        text: `GET ${object.path}, newest first${data.search ? `, with "${data.search}"` : ''} · ${records.length} record${records.length === 1 ? '' : 's'} in ${data.pages.length} page${data.pages.length === 1 ? '' : 's'}${
          data.error ? '' : more ? ' · more after' : ' · the last page'
        }`,
      }),
    );
    if (data.error) target.appendChild(el('p', { class: 'error', id: 'unified-error', text: data.error }));
    if (records.length) {
      const columns = unifiedColumns(object.objectType, records);
      const rows = [];
      records.forEach((record) => {
        var open = !!data.open[record.id];
        rows.push(
          el(
            'tr',
            { 'data-unified-id': record.id },
            [el('td', { class: 'mono', text: record.id })].concat(
              columns.map((column) => el('td', { text: record[column] === null || record[column] === undefined ? '' : String(record[column]) })),
              [
                el('td', { class: 'mono time', text: time(record.modifiedTime) }),
                el('td', {}, [
                  el('button', {
                    type: 'button',
                    id: `unified-json-${record.id}`,
                    'aria-expanded': String(open),
                    'aria-controls': `unified-detail-${record.id}`,
                    'aria-label': `${open ? 'Hide' : 'Show'} the JSON of ${record.id}`,
                    onclick: () => {
                      state.unifiedOpen[record.id] = !open;
                      refresh();
                    },
                    text: open ? 'Hide' : 'JSON',
                  }),
                ]),
              ],
            ),
          ),
        );
        if (open)
          rows.push(
            el('tr', { id: `unified-detail-${record.id}`, class: 'unified-detail' }, [
              el('td', { colspan: columns.length + 3 }, [el('pre', { class: 'unified-json', text: JSON.stringify(record, null, 2) })]),
            ]),
          );
      });
      target.appendChild(
        el('table', { id: 'unified-table' }, [
          el('caption', {
            class: 'visually-hidden',
            text: `Unified ${object.objectType} records, ${data.pages.length} page${data.pages.length === 1 ? '' : 's'}`,
          }),
          el('thead', {}, [
            el(
              'tr',
              {},
              ['id'].concat(columns, ['modified', 'JSON']).map((name) => el('th', { scope: 'col', text: name })),
            ),
          ]),
          el('tbody', {}, rows),
        ]),
      );
    } else if (!data.error) {
      target.appendChild(
        el('p', { class: 'muted', text: data.search ? `No ${object.objectType} record has "${data.search}".` : `No ${object.objectType} records.` }),
      );
    }
    if (more)
      target.appendChild(
        el('div', { class: 'row' }, [
          el('button', {
            type: 'button',
            id: 'unified-more',
            onclick: () => {
              state.unifiedPages++;
              refresh();
            },
            text: `More (the next ${PAGE_SIZE})`,
          }),
        ]),
      );
  }

  function draw(section, data, render) {
    var json = JSON.stringify(data);
    var target = document.getElementById(section);
    if (!target || drawn[section] === json) return;
    drawn[section] = json;
    var focused = document.activeElement?.id;
    target.textContent = '';
    render(target, data);
    // A redraw must not lose the keyboard user's place: controls have stable ids.
    var again = focused && document.getElementById(focused);
    if (again && again !== document.activeElement && target.contains(again)) again.focus();
  }

  /** Runs a change, says how it went, and polls at once so the page shows its effect. */
  function act(promise, done) {
    return promise.then(
      (answer) => {
        say(done);
        setMessage('', false);
        return refresh().then(() => answer);
      },
      (error) => {
        setMessage(describeError(error), true);
        throw error;
      },
    );
  }

  function setMessage(text, isError) {
    var box = document.getElementById('editor-message');
    if (!box) {
      if (text) say(text);
      return;
    }
    box.textContent = text;
    box.className = isError ? 'error' : 'muted';
    if (text) say(text);
  }

  function select(connectionId) {
    state.selectedId = connectionId;
    state.cursors = [''];
    state.page = null;
    state.deliveries = [];
    state.expanded = {};
    state.details = {};
    state.editing = null;
    state.unifiedObjects = null;
    state.unifiedPages = 1;
    state.unifiedOpen = {};
    state.unifiedSearch = '';
    // Engagement objects are an engagement connection's only.
    if (ENGAGEMENT_VIEWS[state.recordType] && !isEngagement()) state.recordType = 'Contact';
    drawn = {};
    layoutDetail();
  }

  // --- Drawing -------------------------------------------------------------------------------

  function drawConnections(target) {
    if (!state.connections.length) {
      target.appendChild(el('p', { class: 'muted', text: 'No connections yet. Link an account through the widget, or POST /link/exchange.' }));
      return;
    }
    target.appendChild(
      el('table', {}, [
        el('thead', {}, [
          el(
            'tr',
            {},
            ['Connection', 'Integration', 'Org', 'Status', 'Created'].map((name) => el('th', { scope: 'col', text: name })),
          ),
        ]),
        el(
          'tbody',
          {},
          state.connections.map((c) => {
            var selected = c.connectionId === state.selectedId;
            var open = () => {
              if (state.selectedId === c.connectionId) return;
              select(c.connectionId);
              drawn.connections = null;
              refresh();
            };
            // The whole row opens it with a click; its button, with the keyboard.
            return el('tr', { 'data-connection-id': c.connectionId, class: selected ? 'selected clickable' : 'clickable', onclick: open }, [
              el('td', {}, [
                el('button', {
                  type: 'button',
                  id: `open-${c.connectionId}`,
                  class: 'mono',
                  'aria-pressed': String(selected),
                  'aria-label': `Open connection ${c.connectionId}`,
                  onclick: open,
                  text: `${c.connectionId.slice(0, 8)}…`,
                }),
              ]),
              el('td', { text: c.integrationId }),
              el('td', {}, [el('div', { text: c.orgName }), el('div', { class: 'muted mono', text: c.nativeOrgId })]),
              el('td', { class: `status-${c.status}`, text: c.status }),
              el('td', { class: 'mono time', text: time(c.createdTime) }),
            ]);
          }),
        ),
      ]),
    );
  }

  function drawSummary(target, c) {
    if (!c) return;
    var webhook = c.webhook;
    target.appendChild(
      el('dl', { class: 'summary' }, [
        el('dt', { text: 'connectionId' }),
        el('dd', { class: 'mono', text: c.connectionId }),
        el('dt', { text: 'Integration' }),
        el('dd', { text: c.integrationId }),
        el('dt', { text: 'Org' }),
        el('dd', {}, [`${c.orgName} · `, el('span', { class: 'mono', text: c.nativeOrgId }), ' · ', el('span', { class: 'mono', text: c.nativeOrgURL })]),
        el('dt', { text: 'Status' }),
        el('dd', { class: `status-${c.status}`, text: c.status }),
        el('dt', { text: 'Created' }),
        el('dd', { class: 'mono', text: time(c.createdTime) }),
        el('dt', { text: 'Webhook' }),
        el(
          'dd',
          { id: 'webhook' },
          webhook
            ? [
                el('span', { class: 'mono', text: webhook.webhookUrl }),
                el('div', { class: 'muted mono', text: `webhookId ${webhook.webhookId} · created ${time(webhook.createdTime)}` }),
              ]
            : [el('span', { class: 'muted', text: 'none yet: events wait until one is created' })],
        ),
      ]),
    );
  }

  function drawRecords(target, data) {
    var page = data.page;
    var view = ENGAGEMENT_VIEWS[data.type];
    var columns = view ? view.columns : COLUMNS[data.type];
    target.appendChild(
      el('table', { id: 'records-table' }, [
        el('caption', { class: 'visually-hidden', text: `${data.type} records, page ${data.at}` }),
        el('thead', {}, [
          el(
            'tr',
            {},
            ['id'].concat(columns, ['modified', 'actions']).map((name) => el('th', { scope: 'col', text: name })),
          ),
        ]),
        el(
          'tbody',
          {},
          page.records.map((record) =>
            el(
              'tr',
              { 'data-record-id': record.id },
              [el('td', { class: 'mono', text: record.id })].concat(
                columns.map((column) => el('td', { text: record[column] === null || record[column] === undefined ? '' : String(record[column]) })),
                [
                  el('td', { class: 'mono time', text: time(record.modifiedTime) }),
                  view
                    ? el('td', { class: 'muted', text: 'read only' })
                    : el('td', {}, [
                        el('div', { class: 'row' }, [
                          el('button', {
                            type: 'button',
                            id: `edit-${record.id}`,
                            'aria-label': `Edit ${record.id}`,
                            onclick: () => {
                              edit(record);
                            },
                            text: 'Edit',
                          }),
                          el('button', {
                            type: 'button',
                            id: `delete-${record.id}`,
                            class: 'danger',
                            'aria-label': `Delete ${record.id}`,
                            onclick: () => {
                              if (!window.confirm(`Delete ${record.id}? This emits a DELETE event.`)) return;
                              act(api('DELETE', `${recordsPath()}/${encodeURIComponent(record.id)}`), `Deleted ${record.id}`);
                            },
                            text: 'Delete',
                          }),
                        ]),
                      ]),
                ],
              ),
            ),
          ),
        ),
      ]),
    );
    if (!page.records.length) target.appendChild(el('p', { class: 'muted', text: `No ${data.type} records.` }));
    target.appendChild(
      el('div', { class: 'row' }, [
        el('button', {
          type: 'button',
          id: 'previous-page',
          disabled: state.cursors.length === 1,
          onclick: () => {
            state.cursors.pop();
            refresh();
          },
          text: 'Previous page',
        }),
        el('span', { class: 'muted', text: `Page ${data.at}` }),
        el('button', {
          type: 'button',
          id: 'next-page',
          disabled: !page.nextPageCursor,
          onclick: () => {
            state.cursors.push(page.nextPageCursor);
            refresh();
          },
          text: 'Next page',
        }),
      ]),
    );
  }

  /** Whether the selected connection is an engagement platform's. */
  function isEngagement() {
    var connection = state.connections.filter((c) => c.connectionId === state.selectedId)[0];
    return Boolean(connection) && ENGAGEMENT_INTEGRATIONS.indexOf(connection.integrationId) !== -1;
  }

  /** A page of the chosen type: CRM records from the control API, engagement objects from their unified list (with the connection's accessToken). */
  function recordsPage(id, query) {
    var view = ENGAGEMENT_VIEWS[state.recordType];
    if (!view) return api('GET', `/sandbox/connections/${id}/records/${state.recordType}${query}`);
    var token = state.accessTokens[id]
      ? Promise.resolve(state.accessTokens[id])
      : api('GET', `/sandbox/connections/${id}`).then((answer) => (state.accessTokens[id] = answer.connection.accessToken));
    return token.then((accessToken) =>
      api('GET', `/engagement/${view.list}${query}&accessToken=${encodeURIComponent(accessToken)}`).then((answer) => ({
        records: answer[view.list],
        nextPageCursor: answer.nextPageCursor,
      })),
    );
  }

  function recordsPath() {
    return `/sandbox/connections/${state.selectedId}/records/${state.recordType}`;
  }

  function edit(record) {
    var fields = {};
    Object.keys(record).forEach((key) => {
      if (READ_ONLY.indexOf(key) === -1) fields[key] = record[key];
    });
    state.editing = { id: record.id, fields: fields };
    drawEditor();
    document.getElementById('record-fields').focus();
  }

  /** The create/edit form: fields as JSON, exactly what the control API takes. */
  function drawEditor() {
    var target = document.getElementById('editor');
    if (!target) return;
    target.textContent = '';
    if (ENGAGEMENT_VIEWS[state.recordType]) {
      target.appendChild(
        el('p', {
          class: 'muted',
          text: `Read from GET /engagement/${ENGAGEMENT_VIEWS[state.recordType].list}. Write them through the unified engagement routes or the passthrough; contacts and accounts are also the CRM records above.`,
        }),
      );
      return;
    }
    var editing = state.editing;
    var area = el('textarea', { id: 'record-fields', rows: 6, spellcheck: 'false', 'aria-describedby': 'record-fields-help' });
    area.value = editing ? JSON.stringify(editing.fields, null, 2) : '{}';
    target.appendChild(
      el(
        'form',
        {
          onsubmit: (event) => {
            event.preventDefault();
            var fields;
            try {
              fields = JSON.parse(area.value || '{}');
            } catch (error) {
              setMessage(`The fields are not valid JSON: ${error.message}`, true);
              return;
            }
            if (editing) {
              act(api('PATCH', `${recordsPath()}/${encodeURIComponent(editing.id)}`, fields), `Updated ${editing.id}`).then(
                () => {
                  state.editing = null;
                  drawEditor();
                },
                () => {},
              );
            } else {
              act(api('POST', recordsPath(), fields), 'Created').then(
                (answer) => {
                  setMessage(`Created ${answer.record.id}`, false);
                },
                () => {},
              );
            }
          },
        },
        [
          el('h3', { text: editing ? `Edit ${editing.id}` : `Create a ${state.recordType}` }),
          el('label', { for: 'record-fields', text: editing ? 'Fields to change (JSON)' : 'Fields (JSON; left-out fields are generated)' }),
          area,
          el('p', { id: 'record-fields-help', class: 'muted', text: 'Each change emits its OBJECT_CHANGE event to the webhook.' }),
          el('p', { id: 'editor-message', class: 'muted', role: 'status' }),
          el('div', { class: 'actions' }, [
            editing
              ? el('button', {
                  type: 'button',
                  onclick: () => {
                    state.editing = null;
                    drawEditor();
                  },
                  text: 'Cancel',
                })
              : null,
            el('button', { type: 'submit', class: 'primary', text: editing ? 'Save changes' : 'Create record' }),
          ]),
        ],
      ),
    );
  }

  function what(delivery) {
    var data = delivery.event.data;
    return delivery.type === 'STATUS_CHANGE' ? `STATUS_CHANGE ${data.status}` : `${data.objectType} ${data.eventType}`;
  }

  function answerOf(attempt) {
    if (!attempt) return '';
    return `${attempt.status === null ? attempt.error : String(attempt.status)} · ${attempt.durationMs} ms`;
  }

  /** `28 min`, `4 s`: how long until an ISO time (from now, in this browser). */
  function timeLeft(iso) {
    var seconds = Math.max(0, Math.round((Date.parse(iso) - Date.now()) / 1000));
    if (seconds < 60) return `${seconds} s`;
    if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
    return `${Math.round(seconds / 360) / 10} h`;
  }

  /** A retrying delivery's story so far: `failed 3 times (last answer 401); next attempt in 28 min`. */
  function retryStory(d) {
    var last = d.attempts[d.attempts.length - 1];
    var times = d.attempts.length === 1 ? 'once' : `${d.attempts.length} times`;
    var answer = last ? ` (last answer ${last.status === null ? last.error : last.status})` : '';
    return `failed ${times}${answer}${d.nextAttemptTime ? `; next attempt in ${timeLeft(d.nextAttemptTime)}` : ''}`;
  }

  /**
   * Why each unfinished delivery waits, by eventId: one connection's events go out in order, so
   * every event after the oldest unfinished one waits behind it (`behind 3f2a91c0… which failed 3
   * times; next attempt in 28 min`), and that one waits on its retry, its send or a webhook.
   */
  function whyWaiting(deliveries, hasWebhook) {
    var why = {};
    var head = null;
    deliveries.forEach((d) => {
      if (d.state === 'succeeded' || d.state === 'failed') return;
      if (!head) {
        head = d;
        why[d.eventId] =
          d.state === 'retrying'
            ? retryStory(d)
            : d.state === 'delivering'
              ? 'being sent now'
              : hasWebhook
                ? 'next to go'
                : 'waiting for a webhook (POST /connection/webhook)';
        return;
      }
      var holder = head.state === 'retrying' ? ` which ${retryStory(head)}` : head.state === 'delivering' ? ', which is being sent' : '';
      why[d.eventId] = `behind ${head.eventId.slice(0, 8)}…${holder}`;
    });
    return { why: why, head: head };
  }

  /** "Retry now": the event the others wait behind is sent again at once; says what the receiver answered. */
  function retryNow(connectionId) {
    act(api('POST', `/sandbox/connections/${connectionId}/deliveries/retry`), 'Retried').then(
      (answer) => {
        var retried = answer.deliveries.map((d) => `${d.eventId.slice(0, 8)}… ${d.state} (${answerOf(d.attempts[d.attempts.length - 1])})`);
        var text = retried.length ? `Retried now: ${retried.join(', ')}` : 'Nothing waits on a retry.';
        var box = document.getElementById('delivery-message');
        if (box) box.textContent = text;
        say(text);
      },
      () => {},
    );
  }

  function drawDeliveries(target) {
    // Newest first, and at most MAX_ROWS of them: a long log stays quick to draw.
    var deliveries = state.deliveries.slice(-MAX_ROWS).reverse();
    if (state.deliveries.length > MAX_ROWS) {
      target.appendChild(el('p', { class: 'muted', text: `The newest ${MAX_ROWS} of ${state.deliveries.length} events.` }));
    }
    if (!deliveries.length) {
      target.appendChild(el('p', { class: 'muted', text: 'No events yet.' }));
      return;
    }
    var connection = state.connections.filter((c) => c.connectionId === state.selectedId)[0];
    var waiting = whyWaiting(state.deliveries, !!connection?.webhook);
    var behind = Object.keys(waiting.why).length - 1;
    if (waiting.head && waiting.head.state === 'retrying') {
      target.appendChild(
        el('div', { class: 'row retry-now' }, [
          el('p', {
            id: 'retry-summary',
            class: 'muted',
            text: `${what(waiting.head)} (${waiting.head.eventId.slice(0, 8)}…) ${retryStory(waiting.head)}${behind > 0 ? `; ${behind} event${behind === 1 ? ' waits' : 's wait'} behind it` : ''}.`,
          }),
          el('button', {
            type: 'button',
            id: 'retry-now',
            class: 'primary',
            onclick: () => retryNow(state.selectedId),
            text: 'Retry now',
          }),
        ]),
      );
    }
    var rows = [];
    deliveries.forEach((d) => {
      var last = d.attempts[d.attempts.length - 1];
      var open = !!state.expanded[d.eventId];
      var canRedeliver = d.state !== 'pending' && d.state !== 'delivering';
      var why = waiting.why[d.eventId];
      rows.push(
        el('tr', { 'data-event-id': d.eventId }, [
          el('td', { class: 'mono time', text: time(d.createdTime) }),
          el('td', { class: 'what', text: what(d) }),
          el('td', { class: `state state-${d.state}` }, [d.state, why ? el('div', { class: 'muted why', text: why }) : null]),
          el('td', { class: 'attempts', text: String(d.attempts.length) }),
          el('td', { class: 'answer mono', text: answerOf(last) }),
          el('td', {}, [
            el('div', { class: 'row' }, [
              el('button', {
                type: 'button',
                id: `details-${d.eventId}`,
                'aria-expanded': String(open),
                'aria-controls': `detail-${d.eventId}`,
                onclick: () => {
                  state.expanded[d.eventId] = !open;
                  refresh();
                },
                text: open ? 'Hide' : 'Details',
              }),
              el('button', {
                type: 'button',
                id: `redeliver-${d.eventId}`,
                disabled: !canRedeliver,
                'aria-label': `Redeliver event ${d.eventId}`,
                onclick: () => {
                  act(api('POST', `/sandbox/deliveries/${d.eventId}/redeliver`), `Redelivered ${d.eventId}`).catch(() => {});
                },
                text: 'Redeliver',
              }),
            ]),
          ]),
        ]),
      );
      if (open)
        rows.push(el('tr', { id: `detail-${d.eventId}`, class: 'delivery-detail' }, [el('td', { colspan: 6 }, [drawDetail(d, state.details[d.eventId])])]));
    });
    target.appendChild(
      el('table', {}, [
        el('thead', {}, [
          el(
            'tr',
            {},
            ['Emitted', 'Event', 'State', 'Attempts', 'Last answer', 'Actions'].map((name) => el('th', { scope: 'col', text: name })),
          ),
        ]),
        el('tbody', {}, rows),
      ]),
    );
    var message = el('p', { id: 'delivery-message', role: 'status', class: 'muted' });
    target.appendChild(message);
  }

  function drawDetail(_delivery, detail) {
    if (!detail) return el('p', { class: 'muted', text: 'Loading…' });
    var items = [
      el('p', {
        class: 'mono',
        text:
          'eventId ' +
          detail.eventId +
          (detail.nextAttemptTime ? ` · next attempt ${time(detail.nextAttemptTime)}` : '') +
          (detail.failureReason ? ` · ${detail.failureReason}` : ''),
      }),
    ];
    if (!detail.attempts.length) items.push(el('p', { class: 'muted', text: 'No attempt yet.' }));
    else {
      items.push(
        el('table', { class: 'attempts-table' }, [
          el('thead', {}, [
            el(
              'tr',
              {},
              ['#', 'Time', 'URL', 'Answer', 'Duration', 'Error', 'Trigger', 'Signed headers'].map((name) => el('th', { scope: 'col', text: name })),
            ),
          ]),
          el(
            'tbody',
            {},
            detail.attempts.map((a) =>
              el('tr', {}, [
                el('td', { text: String(a.attempt) }),
                el('td', { class: 'mono time', text: time(a.time) }),
                el('td', { class: 'mono', text: a.webhookUrl }),
                el('td', { class: 'mono attempt-status', text: a.status === null ? '—' : String(a.status) }),
                el('td', { text: `${a.durationMs} ms` }),
                el('td', { text: a.error || '' }),
                el('td', { text: a.trigger }),
                el('td', {}, [
                  el('pre', {
                    class: 'headers',
                    text: Object.keys(a.headers)
                      .map((name) => `${name}: ${a.headers[name]}`)
                      .join('\n'),
                  }),
                ]),
              ]),
            ),
          ),
        ]),
      );
    }
    items.push(el('h3', { text: 'Body (exactly as sent and signed)' }), el('pre', { class: 'event-body', text: detail.body }));
    return el('div', {}, items);
  }

  // --- Scenarios and the request journal: used when the sandbox has them -------------------

  function refreshOptional() {
    var path = state.tab === 'scenarios' ? '/sandbox/scenarios' : '/sandbox/requests';
    return api('GET', path).then(
      (answer) => {
        draw('optional-view', { available: true, answer: answer }, drawOptional);
      },
      (error) => {
        if (error && error.status === 404) {
          draw('optional-view', { available: false, path: path }, drawOptional);
          return;
        }
        throw error;
      },
    );
  }

  /**
   * Runs a scenario (POST /sandbox/scenarios/{name}/run) on the connection picked here, or on a
   * new link, and shows the report it answers. Drawn once, so its inputs survive the polls.
   */
  function scenarioRunner() {
    var name = el('input', { id: 'scenario-name', type: 'text', autocomplete: 'off', required: true });
    var connection = el(
      'select',
      { id: 'scenario-connection' },
      [el('option', { value: '', text: 'a new link' })].concat(
        state.connections.map((c) =>
          el('option', { value: c.connectionId, text: `${c.connectionId.slice(0, 8)}… ${c.integrationId}`, selected: c.connectionId === state.selectedId }),
        ),
      ),
    );
    var webhook = el('input', { id: 'scenario-webhook', type: 'url', placeholder: 'http://127.0.0.1:3000/webhooks' });
    var report = el('pre', { id: 'scenario-report', hidden: true });
    var message = el('p', { id: 'scenario-message', role: 'status', class: 'muted' });
    return el(
      'form',
      {
        class: 'card',
        'aria-labelledby': 'scenario-run-title',
        onsubmit: (event) => {
          event.preventDefault();
          var body = {};
          if (connection.value) body.connectionId = connection.value;
          if (webhook.value) body.webhookUrl = webhook.value;
          message.textContent = `Running ${name.value}…`;
          message.className = 'muted';
          api('POST', `/sandbox/scenarios/${encodeURIComponent(name.value)}/run`, body).then(
            (answer) => {
              message.textContent = `Ran ${name.value}`;
              report.hidden = false;
              report.textContent = JSON.stringify(answer, null, 2);
            },
            (error) => {
              message.textContent = describeError(error);
              message.className = 'error';
            },
          );
        },
      },
      [
        el('h3', { id: 'scenario-run-title', text: 'Run a scenario' }),
        el('label', { for: 'scenario-name', text: 'Scenario name' }),
        name,
        el('label', { for: 'scenario-connection', text: 'Connection' }),
        connection,
        el('label', { for: 'scenario-webhook', text: 'Webhook URL (optional)' }),
        webhook,
        el('div', { class: 'actions' }, [el('button', { type: 'submit', class: 'primary', text: 'Run' })]),
        message,
        report,
      ],
    );
  }

  function drawOptional(target, data) {
    if (!data.available) {
      target.appendChild(el('p', { class: 'muted', role: 'status', text: `Not available in this sandbox: GET ${data.path} answered 404.` }));
      return;
    }
    var answer = data.answer;
    var list = Object.keys(answer)
      .map((key) => answer[key])
      .filter(Array.isArray)[0];
    if (list?.length && typeof list[0] === 'object') {
      const keys = Object.keys(list[0])
        .filter((key) => typeof list[0][key] !== 'object')
        .slice(0, 7);
      target.appendChild(
        el('table', {}, [
          el('thead', {}, [
            el(
              'tr',
              {},
              keys.map((key) => el('th', { scope: 'col', text: key })),
            ),
          ]),
          el(
            'tbody',
            {},
            list.map((item) =>
              el(
                'tr',
                {},
                keys
                  .map((key) => el('td', { class: 'mono', text: item[key] === undefined || item[key] === null ? '' : String(item[key]) }))
                  .concat(
                    state.tab === 'scenarios' && typeof item.name === 'string'
                      ? [
                          el('td', {}, [
                            el('button', {
                              type: 'button',
                              onclick: () => {
                                var input = document.getElementById('scenario-name');
                                input.value = item.name;
                                input.focus();
                              },
                              text: `Pick ${item.name}`,
                            }),
                          ]),
                        ]
                      : [],
                  ),
              ),
            ),
          ),
        ]),
      );
    } else {
      target.appendChild(el('pre', { text: JSON.stringify(answer, null, 2) }));
    }
  }

  // --- Client check: the report of GET /sandbox/client-check, when the server runs with it ---

  function refreshClientCheck() {
    return api('GET', '/sandbox/client-check').then(
      (report) => {
        draw('client-check-view', { available: true, report: report }, drawClientCheck);
      },
      (error) => {
        if (error && error.status === 404) {
          draw('client-check-view', { available: false, message: error.message }, drawClientCheck);
          return;
        }
        throw error;
      },
    );
  }

  var VERDICTS = { pass: ['PASS', 'state-succeeded'], fail: ['FAIL', 'state-failed'], 'not-exercised': ['NOT EXERCISED', 'muted'] };

  function drawClientCheck(target, data) {
    if (!data.available) {
      target.appendChild(el('p', { class: 'muted', role: 'status', text: `Not available: ${data.message}` }));
      return;
    }
    var report = data.report;
    var count = (status) => report.rules.filter((rule) => rule.status === status).length;
    var failed = count('fail');
    target.appendChild(
      el('p', {
        id: 'client-check-headline',
        role: 'status',
        class: failed ? 'state-failed' : 'state-succeeded',
        text:
          (failed ? `${failed} of ${report.rules.length} rules failed` : 'No rule failed') +
          ', ' +
          count('not-exercised') +
          ' not exercised; ' +
          report.requests +
          (report.requests === 1 ? ' request' : ' requests') +
          ' since ' +
          time(report.startedAt),
      }),
    );
    var settings = report.settings;
    var cases = report.hardCases;
    target.appendChild(
      el('p', {
        class: 'muted',
        text:
          'Hard cases: ' +
          cases.rateLimited +
          ' answers 429 (Retry-After ' +
          settings.retryAfter +
          '), ' +
          cases.unavailable +
          ' answers 503, pages of at most ' +
          settings.pageSize +
          (settings.deleteConnectionAfter ? `, connections deleted ${settings.deleteConnectionAfter} after linking` : '') +
          (settings.faults ? '' : ' (no 429s or 503s)') +
          '; seed ' +
          settings.seed,
      }),
    );
    target.appendChild(
      el('table', { id: 'client-check-rules' }, [
        el('thead', {}, [
          el('tr', {}, [el('th', { scope: 'col', text: 'Result' }), el('th', { scope: 'col', text: 'Rule' }), el('th', { scope: 'col', text: 'Evidence' })]),
        ]),
        el(
          'tbody',
          {},
          report.rules.map((rule) => {
            var verdict = VERDICTS[rule.status] || [rule.status, ''];
            var evidence = [el('div', { text: rule.summary })];
            if (rule.status === 'fail') {
              evidence.push(
                el(
                  'ul',
                  {},
                  rule.evidence.map((item) =>
                    el('li', {
                      class: 'mono',
                      text: `${item.since} ${item.status ? `[${item.status}] ` : ''}${item.request ? `${item.request}: ` : ''}${item.detail}`,
                    }),
                  ),
                ),
              );
              if (rule.failures > rule.evidence.length)
                evidence.push(el('div', { class: 'muted', text: `… and ${rule.failures - rule.evidence.length} more` }));
              evidence.push(el('div', { text: `Fix: ${rule.hint}` }));
            }
            return el('tr', { 'data-rule': rule.rule }, [
              el('td', { class: verdict[1], text: verdict[0] }),
              el('td', {}, [el('div', { class: 'mono', text: rule.rule }), el('div', { class: 'muted', text: rule.title })]),
              el('td', {}, evidence),
            ]);
          }),
        ),
      ]),
    );
    target.appendChild(
      el('div', { class: 'actions' }, [
        el('button', {
          type: 'button',
          id: 'client-check-restart',
          onclick: () => {
            api('DELETE', '/sandbox/client-check').then(
              () => {
                say('Client check started over');
                drawn = {};
                return refresh();
              },
              (error) => {
                say(describeError(error));
              },
            );
          },
          text: 'Start over',
        }),
      ]),
    );
  }

  /**
   * The token to open with: `?token=` (kept for the tab, and taken out of the address so it is not
   * shared or bookmarked), the tab's, or on this machine the default key if the server takes it.
   */
  function boot() {
    var params = new URLSearchParams(location.search);
    var given = params.get('token');
    if (given !== null) {
      params.delete('token');
      const rest = params.toString();
      history.replaceState(null, '', location.pathname + (rest ? `?${rest}` : '') + location.hash);
      if (given.trim()) {
        state.token = given.trim();
        sessionStorage.setItem(TOKEN_KEY, state.token);
      }
    }
    if (state.token) return start();
    // The server says in the page whether it takes the default key (no request made to find out).
    var taken = document.querySelector('meta[name="crm-sandbox-default-key"]');
    if (!taken || !LOOPBACK.test(location.hostname)) {
      return showTokenForm(taken ? undefined : `This server does not take the default key ${DEFAULT_KEY}: give one of its --api-key values.`);
    }
    state.token = taken.getAttribute('content');
    sessionStorage.setItem(TOKEN_KEY, state.token);
    return start();
  }

  boot();
})();
