import { el } from './dom.js';
import { cell, describeError, draw, drawn, type Row, state, time, type UnifiedObject } from './page.js';
import { api, refresh } from './session.js';
import { columnsOf, PAGE_SIZE, RECORD_BASE } from './vocabulary.js';

/** The Unified records card: what the app reads from the service's unified API, newest first or searched, each record's JSON on demand. */

/** A page of a unified list: its records under the object's listKey, and the cursor of the next. */
type UnifiedPage = Record<string, unknown> & { nextPageCursor: string | null };

/**
 * The unified records of the selected connection: the objects its integration serves (read
 * once per selection), then the pages shown of the picked one, each read again on every poll
 * through GET /sandbox/connections/{id}/unified/{type}, which answers what GET /crm/{objects}
 * does. An error (409 while the connection syncs) is shown in place of the pages it stopped.
 */
export function refreshUnified(id: string): Promise<void> {
  const objects = state.unifiedObjects
    ? Promise.resolve(state.unifiedObjects)
    : api<{ objects: UnifiedObject[] }>('GET', `/sandbox/connections/${id}/unified`).then((answer) => {
        if (id === state.selectedId) state.unifiedObjects = answer.objects;
        return answer.objects;
      });
  return objects.then((list) => {
    if (id !== state.selectedId) return undefined;
    // At first the type the Records card shows, when the connection serves it.
    const has = (type: string | null) => list.some((object) => object.objectType === type);
    if (!has(state.unifiedType)) state.unifiedType = has(state.recordType) ? state.recordType : list.length ? list[0]!.objectType : null;
    const type = state.unifiedType;
    draw('unified-picker', { objects: list, type: type }, drawUnifiedPicker);
    const object = list.filter((candidate) => candidate.objectType === type)[0];
    if (!object) {
      draw('unified', { none: true }, drawUnified);
      return undefined;
    }
    const search = state.unifiedSearch;
    return unifiedPages(id, type!, state.unifiedPages, search).then((read) => {
      if (id !== state.selectedId || type !== state.unifiedType || search !== state.unifiedSearch) return;
      draw('unified', { object: object, pages: read.pages, error: read.error, open: state.unifiedOpen, search: search }, drawUnified);
    });
  });
}

/**
 * The first `count` pages of a unified list, newest first (with the records holding `search`, if
 * any), each after the cursor of the one before; stops at the page whose nextPageCursor is null.
 */
function unifiedPages(id: string, type: string, count: number, search: string): Promise<{ pages: UnifiedPage[]; error?: string }> {
  const pages: UnifiedPage[] = [];
  const filter = `&order=newest${search ? `&search=${encodeURIComponent(search)}` : ''}`;
  function after(cursor: string): Promise<{ pages: UnifiedPage[] }> {
    const query = `?limit=${PAGE_SIZE}${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    return api<UnifiedPage>('GET', `/sandbox/connections/${id}/unified/${encodeURIComponent(type)}${query}`).then((page) => {
      pages.push(page);
      return pages.length < count && page.nextPageCursor !== null ? after(page.nextPageCursor) : { pages: pages };
    });
  }
  return after('').catch((error) => ({ pages: pages, error: describeError(error) }));
}

function drawUnifiedPicker(target: HTMLElement, data: { objects: UnifiedObject[]; type: string | null }): void {
  if (!data.objects.length) return;
  const picker = el(
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
  let pending: ReturnType<typeof setTimeout> | undefined;
  const search = el('input', {
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
    el('div', { class: 'row' }, [el('label', { for: 'unified-type', text: 'Object' }), picker, el('label', { for: 'unified-search', text: 'Search' }), search]),
  );
}

/** The columns of a unified page: the type's own, else the first scalar fields its records have. */
function unifiedColumns(type: string, records: Row[]): readonly string[] {
  const own = columnsOf(type);
  if (own) return own;
  const keys: string[] = [];
  for (const record of records) {
    for (const key of Object.keys(record)) {
      const value = record[key];
      if (keys.indexOf(key) === -1 && RECORD_BASE.indexOf(key) === -1 && (value === null || typeof value !== 'object')) keys.push(key);
    }
  }
  return keys.slice(0, 3);
}

type UnifiedData =
  | { none: true }
  | { none?: undefined; object: UnifiedObject; pages: UnifiedPage[]; error: string | undefined; open: Record<string, boolean>; search: string };

function drawUnified(target: HTMLElement, data: UnifiedData): void {
  if (data.none) {
    target.appendChild(el('p', { class: 'muted', text: "This connection's integration serves no unified CRM objects: its records are its engagement lists." }));
    return;
  }
  const object = data.object;
  let records: Row[] = [];
  for (const page of data.pages) records = records.concat((page[object.listKey] as Row[] | undefined) || []);
  const last = data.pages[data.pages.length - 1];
  const more = !data.error && last && last.nextPageCursor !== null;
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  target.appendChild(
    el('p', {
      id: 'unified-status',
      class: 'muted mono',
      role: 'status',
      text: `GET ${object.path}, newest first${data.search ? `, with "${data.search}"` : ''} · ${plural(records.length, 'record')} in ${plural(data.pages.length, 'page')}${
        data.error ? '' : more ? ' · more after' : ' · the last page'
      }`,
    }),
  );
  if (data.error) target.appendChild(el('p', { class: 'error', id: 'unified-error', text: data.error }));
  if (records.length) {
    const columns = unifiedColumns(object.objectType, records);
    const rows: HTMLElement[] = [];
    for (const record of records) {
      const open = !!data.open[record.id];
      rows.push(
        el('tr', { 'data-unified-id': record.id }, [
          el('td', { class: 'mono', text: record.id }),
          ...columns.map((column) => el('td', { text: cell(record[column]) })),
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
        ]),
      );
      if (open)
        rows.push(
          el('tr', { id: `unified-detail-${record.id}`, class: 'unified-detail' }, [
            el('td', { colspan: columns.length + 3 }, [el('pre', { class: 'unified-json', text: JSON.stringify(record, null, 2) })]),
          ]),
        );
    }
    target.appendChild(
      el('table', { id: 'unified-table' }, [
        el('caption', { class: 'visually-hidden', text: `Unified ${object.objectType} records, ${plural(data.pages.length, 'page')}` }),
        el('thead', {}, [
          el(
            'tr',
            {},
            ['id', ...columns, 'modified', 'JSON'].map((name) => el('th', { scope: 'col', text: name })),
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
