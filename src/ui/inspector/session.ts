import { el } from './dom.js';
import { type ApiFailure, app, describeError, forget, live, redrawAll, say, setMessage, state, type Tab, tabs } from './page.js';
import { DEFAULT_KEY, LOOPBACK, POLL_MS, TOKEN_KEY } from './vocabulary.js';

/**
 * The session: the API token (asked for, kept, forgotten), the API calls made with it, and the
 * poll that keeps the tab shown up to date. Each tab's view is registered here by the entry
 * (main.ts), so the views can call `refresh` without this module importing them.
 */

/** A tab's view: it lays out its frame once, and each poll fetches and draws what changed. */
export interface View {
  layout(): void;
  refresh(): Promise<unknown>;
}

const views = new Map<Tab, View>();
let timer: ReturnType<typeof setInterval> | null = null;
let polling = false;

export function addView(tab: Tab, view: View): void {
  views.set(tab, view);
}

/** One API call with the token; a rejected token sends the user back to the token form. */
export function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'service-api-token': state.token };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) }).then((response) =>
    response.text().then((text) => {
      const json = text ? JSON.parse(text) : {};
      if (!response.ok) {
        json.status = response.status;
        if (response.status === 401 && json.errorCode === 'INVALID_API_TOKEN') signOut(json.message);
        throw json as ApiFailure;
      }
      return json as T;
    }),
  );
}

/** One poll: fetches what the current view shows and redraws what changed. */
export function refresh(): Promise<void> {
  if (polling || !state.token) return Promise.resolve();
  polling = true;
  return views
    .get(state.tab)!
    .refresh()
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

/** Runs a change, says how it went, and polls at once so the page shows its effect. */
export function act<T>(promise: Promise<T>, done: string): Promise<T> {
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

/** Draws the frame of the tab shown. */
export function layout(): void {
  app.textContent = '';
  views.get(state.tab)!.layout();
}

// --- Token ---------------------------------------------------------------------------------

function start(): void {
  tabs.hidden = false;
  forget.hidden = false;
  redrawAll();
  layout();
  refresh();
  stopPolling();
  timer = setInterval(refresh, POLL_MS);
}

function stopPolling(): void {
  if (timer) clearInterval(timer);
  timer = null;
}

export function signOut(message?: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  state.token = '';
  stopPolling();
  showTokenForm(message);
}

function showTokenForm(message?: string): void {
  tabs.hidden = true;
  forget.hidden = true;
  live.textContent = '';
  app.textContent = '';
  const input = el('input', { id: 'api-token', type: 'password', autocomplete: 'off', required: true });
  const form = el(
    'form',
    {
      class: 'card token-form',
      onsubmit: (event: SubmitEvent) => {
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

/**
 * The token to open with: `?token=` (kept for the tab, and taken out of the address so it is not
 * shared or bookmarked), the tab's, or on this machine the default key if the server takes it.
 */
export function boot(): void {
  const params = new URLSearchParams(location.search);
  const given = params.get('token');
  if (given !== null) {
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + (rest ? `?${rest}` : '') + location.hash);
    if (given.trim()) {
      state.token = given.trim();
      sessionStorage.setItem(TOKEN_KEY, state.token);
    }
  }
  if (state.token) {
    start();
    return;
  }
  // The server says in the page whether it takes the default key (no request made to find out).
  const taken = document.querySelector('meta[name="crm-sandbox-default-key"]');
  if (!taken || !LOOPBACK.test(location.hostname)) {
    showTokenForm(taken ? undefined : `This server does not take the default key ${DEFAULT_KEY}: give one of its --api-key values.`);
    return;
  }
  state.token = taken.getAttribute('content')!;
  sessionStorage.setItem(TOKEN_KEY, state.token);
  start();
}
