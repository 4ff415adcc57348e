import { el } from './dom.js';
import { cell, type RecordsPage, type Row, setMessage, state, time } from './page.js';
import { act, api, refresh } from './session.js';
import { columnsOf, ENGAGEMENT_INTEGRATIONS, ENGAGEMENT_VIEWS, READ_ONLY } from './vocabulary.js';

/** The Records card: a page of the chosen type's records, each to edit or delete, and the create/edit form. */

/** Whether the selected connection is an engagement platform's. */
export function isEngagement(): boolean {
  const connection = state.connections.filter((c) => c.connectionId === state.selectedId)[0];
  return Boolean(connection) && ENGAGEMENT_INTEGRATIONS.indexOf(connection!.integrationId) !== -1;
}

/** A page of the chosen type: CRM records from the control API, engagement objects from their unified list (with the connection's accessToken). */
export function recordsPage(id: string, query: string): Promise<RecordsPage> {
  const view = ENGAGEMENT_VIEWS[state.recordType];
  if (!view) return api<RecordsPage>('GET', `/sandbox/connections/${id}/records/${state.recordType}${query}`);
  const token = state.accessTokens[id]
    ? Promise.resolve(state.accessTokens[id])
    : api<{ connection: { accessToken: string } }>('GET', `/sandbox/connections/${id}`).then(
        (answer) => (state.accessTokens[id] = answer.connection.accessToken),
      );
  return token.then((accessToken) =>
    api<Record<string, unknown>>('GET', `/engagement/${view.list}${query}&accessToken=${encodeURIComponent(accessToken)}`).then((answer) => ({
      records: answer[view.list] as Row[],
      nextPageCursor: answer.nextPageCursor as string | null,
    })),
  );
}

function recordsPath(): string {
  return `/sandbox/connections/${state.selectedId}/records/${state.recordType}`;
}

export function drawRecords(target: HTMLElement, data: { page: RecordsPage; type: string; at: number }): void {
  const page = data.page;
  const view = ENGAGEMENT_VIEWS[data.type];
  const columns = view ? view.columns : columnsOf(data.type)!;
  target.appendChild(
    el('table', { id: 'records-table' }, [
      el('caption', { class: 'visually-hidden', text: `${data.type} records, page ${data.at}` }),
      el('thead', {}, [
        el(
          'tr',
          {},
          ['id', ...columns, 'modified', 'actions'].map((name) => el('th', { scope: 'col', text: name })),
        ),
      ]),
      el(
        'tbody',
        {},
        page.records.map((record) =>
          el('tr', { 'data-record-id': record.id }, [
            el('td', { class: 'mono', text: record.id }),
            ...columns.map((column) => el('td', { text: cell(record[column]) })),
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
          ]),
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
          state.cursors.push(page.nextPageCursor!);
          refresh();
        },
        text: 'Next page',
      }),
    ]),
  );
}

function edit(record: Row): void {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (READ_ONLY.indexOf(key) === -1) fields[key] = record[key];
  }
  state.editing = { id: record.id, fields: fields };
  drawEditor();
  document.getElementById('record-fields')!.focus();
}

/** The create/edit form: fields as JSON, exactly what the control API takes. */
export function drawEditor(): void {
  const target = document.getElementById('editor');
  if (!target) return;
  target.textContent = '';
  const view = ENGAGEMENT_VIEWS[state.recordType];
  if (view) {
    target.appendChild(
      el('p', {
        class: 'muted',
        text: `Read from GET /engagement/${view.list}. Write them through the unified engagement routes or the passthrough; contacts and accounts are also the CRM records above.`,
      }),
    );
    return;
  }
  const editing = state.editing;
  const area = el('textarea', { id: 'record-fields', rows: 6, spellcheck: 'false', 'aria-describedby': 'record-fields-help' });
  area.value = editing ? JSON.stringify(editing.fields, null, 2) : '{}';
  target.appendChild(
    el(
      'form',
      {
        onsubmit: (event: SubmitEvent) => {
          event.preventDefault();
          let fields: unknown;
          try {
            fields = JSON.parse(area.value || '{}');
          } catch (error) {
            setMessage(`The fields are not valid JSON: ${(error as Error).message}`, true);
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
            act(api<{ record: Row }>('POST', recordsPath(), fields), 'Created').then(
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
