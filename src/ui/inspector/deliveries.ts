import { type Child, el } from './dom.js';
import { type Attempt, type Delivery, type DeliveryDetail, say, state, time } from './page.js';
import { act, api, refresh } from './session.js';
import { MAX_ROWS } from './vocabulary.js';

/** The Events and deliveries card: each event's delivery, why the unfinished ones wait, its attempts, Retry now and Redeliver. */

function what(delivery: Delivery): string {
  const data = delivery.event.data;
  return delivery.type === 'STATUS_CHANGE' ? `STATUS_CHANGE ${data.status}` : `${data.objectType} ${data.eventType}`;
}

function answerOf(attempt: Attempt | undefined): string {
  if (!attempt) return '';
  return `${attempt.status === null ? attempt.error : String(attempt.status)} · ${attempt.durationMs} ms`;
}

/** `28 min`, `4 s`: how long until an ISO time (from now, in this browser). */
function timeLeft(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.parse(iso) - Date.now()) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}

/** A retrying delivery's story so far: `failed 3 times (last answer 401); next attempt in 28 min`. */
function retryStory(d: Delivery): string {
  const last = d.attempts[d.attempts.length - 1];
  const times = d.attempts.length === 1 ? 'once' : `${d.attempts.length} times`;
  const answer = last ? ` (last answer ${last.status === null ? last.error : last.status})` : '';
  return `failed ${times}${answer}${d.nextAttemptTime ? `; next attempt in ${timeLeft(d.nextAttemptTime)}` : ''}`;
}

/**
 * Why each unfinished delivery waits, by eventId: one connection's events go out in order, so
 * every event after the oldest unfinished one waits behind it (`behind 3f2a91c0… which failed 3
 * times; next attempt in 28 min`), and that one waits on its retry, its send or a webhook.
 */
function whyWaiting(deliveries: Delivery[], hasWebhook: boolean): { why: Record<string, string>; head: Delivery | null } {
  const why: Record<string, string> = {};
  let head: Delivery | null = null;
  for (const d of deliveries) {
    if (d.state === 'succeeded' || d.state === 'failed') continue;
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
      continue;
    }
    const holder = head.state === 'retrying' ? ` which ${retryStory(head)}` : head.state === 'delivering' ? ', which is being sent' : '';
    why[d.eventId] = `behind ${head.eventId.slice(0, 8)}…${holder}`;
  }
  return { why: why, head: head };
}

/** "Retry now": the event the others wait behind is sent again at once; says what the receiver answered. */
function retryNow(connectionId: string): void {
  act(api<{ deliveries: Delivery[] }>('POST', `/sandbox/connections/${connectionId}/deliveries/retry`), 'Retried').then(
    (answer) => {
      const retried = answer.deliveries.map((d) => `${d.eventId.slice(0, 8)}… ${d.state} (${answerOf(d.attempts[d.attempts.length - 1])})`);
      const text = retried.length ? `Retried now: ${retried.join(', ')}` : 'Nothing waits on a retry.';
      const box = document.getElementById('delivery-message');
      if (box) box.textContent = text;
      say(text);
    },
    () => {},
  );
}

export function drawDeliveries(target: HTMLElement): void {
  // Newest first, and at most MAX_ROWS of them: a long log stays quick to draw.
  const deliveries = state.deliveries.slice(-MAX_ROWS).reverse();
  if (state.deliveries.length > MAX_ROWS) {
    target.appendChild(el('p', { class: 'muted', text: `The newest ${MAX_ROWS} of ${state.deliveries.length} events.` }));
  }
  if (!deliveries.length) {
    target.appendChild(el('p', { class: 'muted', text: 'No events yet.' }));
    return;
  }
  const connection = state.connections.filter((c) => c.connectionId === state.selectedId)[0];
  const waiting = whyWaiting(state.deliveries, !!connection?.webhook);
  const behind = Object.keys(waiting.why).length - 1;
  const head = waiting.head;
  if (head && head.state === 'retrying') {
    target.appendChild(
      el('div', { class: 'row retry-now' }, [
        el('p', {
          id: 'retry-summary',
          class: 'muted',
          text: `${what(head)} (${head.eventId.slice(0, 8)}…) ${retryStory(head)}${behind > 0 ? `; ${behind} event${behind === 1 ? ' waits' : 's wait'} behind it` : ''}.`,
        }),
        el('button', {
          type: 'button',
          id: 'retry-now',
          class: 'primary',
          onclick: () => retryNow(state.selectedId!),
          text: 'Retry now',
        }),
      ]),
    );
  }
  const rows: HTMLElement[] = [];
  for (const d of deliveries) {
    const last = d.attempts[d.attempts.length - 1];
    const open = !!state.expanded[d.eventId];
    const canRedeliver = d.state !== 'pending' && d.state !== 'delivering';
    const why = waiting.why[d.eventId];
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
    if (open) rows.push(el('tr', { id: `detail-${d.eventId}`, class: 'delivery-detail' }, [el('td', { colspan: 6 }, [drawDetail(state.details[d.eventId])])]));
  }
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
  const message = el('p', { id: 'delivery-message', role: 'status', class: 'muted' });
  target.appendChild(message);
}

/** An opened delivery: its attempts with their signed headers, and the body exactly as sent. */
function drawDetail(detail: DeliveryDetail | undefined): HTMLElement {
  if (!detail) return el('p', { class: 'muted', text: 'Loading…' });
  const items: Child[] = [
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
