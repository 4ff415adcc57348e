import { el } from './dom.js';
import { type ApiFailure, app, cell, describeError, draw, state } from './page.js';
import { api, type View } from './session.js';

/** The Scenarios and Request journal tabs, used when the sandbox has them: their list as a table, and a form that runs a scenario. */

function layout(): void {
  const path = state.tab === 'scenarios' ? '/sandbox/scenarios' : '/sandbox/requests';
  const title = state.tab === 'scenarios' ? 'Scenarios' : 'Request journal';
  app.appendChild(
    el('section', { id: `view-${state.tab}`, role: 'tabpanel', 'aria-labelledby': `tab-${state.tab}`, class: 'page' }, [
      el('div', { class: 'card' }, [el('h2', { text: title }), el('p', { class: 'muted mono', text: `GET ${path}` }), el('div', { id: 'optional-view' })]),
      state.tab === 'scenarios' ? scenarioRunner() : null,
    ]),
  );
}

function refreshOptional(): Promise<void> {
  const path = state.tab === 'scenarios' ? '/sandbox/scenarios' : '/sandbox/requests';
  return api<Record<string, unknown>>('GET', path).then(
    (answer) => {
      draw('optional-view', { available: true, answer: answer }, drawOptional);
    },
    (error: ApiFailure) => {
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
function scenarioRunner(): HTMLElement {
  const name = el('input', { id: 'scenario-name', type: 'text', autocomplete: 'off', required: true });
  const connection = el('select', { id: 'scenario-connection' }, [
    el('option', { value: '', text: 'a new link' }),
    ...state.connections.map((c) =>
      el('option', { value: c.connectionId, text: `${c.connectionId.slice(0, 8)}… ${c.integrationId}`, selected: c.connectionId === state.selectedId }),
    ),
  ]);
  const webhook = el('input', { id: 'scenario-webhook', type: 'url', placeholder: 'http://127.0.0.1:3000/webhooks' });
  const report = el('pre', { id: 'scenario-report', hidden: true });
  const message = el('p', { id: 'scenario-message', role: 'status', class: 'muted' });
  return el(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'scenario-run-title',
      onsubmit: (event: SubmitEvent) => {
        event.preventDefault();
        const body: { connectionId?: string; webhookUrl?: string } = {};
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

/** A "Pick" button that puts a scenario's name in the runner's form. */
function pickButton(scenario: string): HTMLElement {
  return el('td', {}, [
    el('button', {
      type: 'button',
      onclick: () => {
        const input = document.getElementById('scenario-name') as HTMLInputElement;
        input.value = scenario;
        input.focus();
      },
      text: `Pick ${scenario}`,
    }),
  ]);
}

function drawOptional(target: HTMLElement, data: { available: true; answer: Record<string, unknown> } | { available: false; path: string }): void {
  if (!data.available) {
    target.appendChild(el('p', { class: 'muted', role: 'status', text: `Not available in this sandbox: GET ${data.path} answered 404.` }));
    return;
  }
  const answer = data.answer;
  const list = Object.keys(answer)
    .map((key) => answer[key])
    .filter(Array.isArray)[0] as Record<string, unknown>[] | undefined;
  if (list?.length && typeof list[0] === 'object') {
    const first = list[0]!;
    const keys = Object.keys(first)
      .filter((key) => typeof first[key] !== 'object')
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
            el('tr', {}, [
              ...keys.map((key) => el('td', { class: 'mono', text: cell(item[key]) })),
              ...(state.tab === 'scenarios' && typeof item.name === 'string' ? [pickButton(item.name)] : []),
            ]),
          ),
        ),
      ]),
    );
  } else {
    target.appendChild(el('pre', { text: JSON.stringify(answer, null, 2) }));
  }
}

export const journalView: View = { layout, refresh: refreshOptional };
