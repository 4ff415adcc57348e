import { drawSummary, layoutDetail } from './connection-detail.js';
import { drawDeliveries } from './deliveries.js';
import { el } from './dom.js';
import { app, type Delivery, type DeliveryDetail, draw, drawn, redrawAll, state, time } from './page.js';
import { drawRecords, isEngagement, recordsPage } from './records.js';
import { api, refresh, type View } from './session.js';
import { refreshUnified } from './unified.js';
import { ENGAGEMENT_VIEWS, PAGE_SIZE } from './vocabulary.js';

/** The Connections tab: the token's connections, and the one picked with its cards, read again on each poll. */

function layout(): void {
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
}

function refreshConnections(): Promise<unknown> {
  return api<{ connections: typeof state.connections }>('GET', '/sandbox/connections').then((answer) => {
    state.connections = answer.connections;
    if (state.selectedId && !answer.connections.some((c) => c.connectionId === state.selectedId)) select(null);
    draw('connections', { list: state.connections, selected: state.selectedId }, drawConnections);
    if (!state.selectedId) return undefined;
    const id = state.selectedId;
    const cursor = state.cursors[state.cursors.length - 1];
    const query = `?limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    return Promise.all([recordsPage(id, query), api<{ deliveries: Delivery[] }>('GET', `/sandbox/connections/${id}/deliveries`)]).then((answers) => {
      if (id !== state.selectedId) return undefined;
      state.page = answers[0];
      state.deliveries = answers[1].deliveries;
      const connection = state.connections.filter((c) => c.connectionId === id)[0];
      draw('summary', connection, drawSummary);
      draw('records', { page: state.page, type: state.recordType, at: state.cursors.length }, drawRecords);
      const open = Object.keys(state.expanded).filter((eventId) => state.expanded[eventId]);
      return Promise.all(
        open.map((eventId) =>
          api<{ delivery: DeliveryDetail }>('GET', `/sandbox/deliveries/${eventId}`).then(
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
        const counting = state.deliveries.some((d) => d.state === 'retrying');
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

function select(connectionId: string | null): void {
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
  redrawAll();
  layoutDetail();
}

function drawConnections(target: HTMLElement): void {
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
          const selected = c.connectionId === state.selectedId;
          const open = () => {
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

export const connectionsView: View = { layout, refresh: refreshConnections };
