import { el } from './dom.js';
import { type Connection, state, time } from './page.js';
import { drawEditor, isEngagement } from './records.js';
import { act, api, refresh } from './session.js';
import { ENGAGEMENT_VIEWS, OBJECT_TYPES, STATUSES } from './vocabulary.js';

/** The selected connection's cards: its summary and status, its deliveries, its unified records and its records. */

/** The frame of the selected connection: drawn once per selection, so its forms keep input. */
export function layoutDetail(): void {
  const detail = document.getElementById('detail');
  if (!detail) return;
  detail.textContent = '';
  if (!state.selectedId) {
    detail.appendChild(el('div', { class: 'card' }, [el('p', { class: 'muted', text: 'Pick a connection to see its webhook, records and deliveries.' })]));
    return;
  }
  const typeSelect = el(
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
    [
      ...OBJECT_TYPES.map((type) => el('option', { value: type, text: type, selected: type === state.recordType })),
      ...(isEngagement()
        ? [
            el(
              'optgroup',
              { label: 'Engagement objects (read only)' },
              Object.keys(ENGAGEMENT_VIEWS).map((type) => el('option', { value: type, text: type, selected: type === state.recordType })),
            ),
          ]
        : []),
    ],
  );
  const statusSelect = el(
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
          onsubmit: (event: SubmitEvent) => {
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

export function drawSummary(target: HTMLElement, c: Connection | undefined): void {
  if (!c) return;
  const webhook = c.webhook;
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
