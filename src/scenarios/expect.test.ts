import { describe, expect, it } from 'vitest';
import type { ServiceEvent } from '../model/events.js';
import type { Delivery, DeliveryState } from '../webhooks/delivery.js';
import { checkDeliveries, checkEvents, checkReceiver } from './expect.js';

let next = 0;
function delivery(event: ServiceEvent['data'], state: DeliveryState = 'succeeded', statuses: number[] = state === 'succeeded' ? [200] : []): Delivery {
  const eventId = String(++next).padStart(32, '0');
  const type = 'status' in event ? 'STATUS_CHANGE' : 'OBJECT_CHANGE';
  return {
    eventId,
    connectionId: 'c',
    type,
    state,
    createdTime: '2025-01-01T00:00:00.000Z',
    nextAttemptTime: null,
    failureReason: null,
    attempts: statuses.map((status, index) => ({
      attempt: index + 1,
      time: '2025-01-01T00:00:00.000Z',
      webhookUrl: 'http://127.0.0.1:1/x',
      timestamp: '1735689600',
      status,
      error: null,
      durationMs: 0,
      trigger: 'schedule' as const,
    })),
    event: { eventId, type, data: event } as ServiceEvent,
  };
}
const status = (value: 'NEW_CONNECTION' | 'INITIAL_SYNCED' | 'READY', state?: DeliveryState) => delivery({ status: value }, state);
const created = (state?: DeliveryState) => delivery({ objectType: 'Contact', eventType: 'CREATE', record: {} as never }, state);

describe('checkEvents', () => {
  it('holds once every expected event is there and delivered', () => {
    const window = [status('NEW_CONNECTION'), created()];
    const verdict = checkEvents([{ status: 'NEW_CONNECTION' }, { objectType: 'Contact' }], window, new Set());
    expect(verdict).toMatchObject({ ok: true, final: true, consumed: window.map((item) => item.eventId) });
  });

  it('waits for events still to come and for retries, but not for what can never change', () => {
    const none = checkEvents([{ status: 'NEW_CONNECTION' }], [], new Set());
    expect(none).toMatchObject({ ok: false, final: false, message: 'expected 1 event(s) since the last check, got 0: none' });
    expect(checkEvents([{ status: 'NEW_CONNECTION' }], [status('NEW_CONNECTION', 'retrying')], new Set())).toMatchObject({ ok: false, final: false });
    expect(checkEvents([{ status: 'NEW_CONNECTION' }], [status('NEW_CONNECTION', 'failed')], new Set())).toMatchObject({ ok: false, final: true });
    // One too many, or one that does not match: no amount of waiting helps.
    expect(checkEvents([{ status: 'NEW_CONNECTION' }], [status('NEW_CONNECTION'), created()], new Set())).toMatchObject({ ok: false, final: true });
    const wrong = checkEvents([{ status: 'READY' }], [status('NEW_CONNECTION')], new Set());
    expect(wrong).toMatchObject({ ok: false, final: true });
    expect(wrong.message).toBe('event 1 should be READY, but status is NEW_CONNECTION, not READY; events: STATUS_CHANGE NEW_CONNECTION (succeeded)');
  });

  it('lets early events (those that fell due while an earlier expectation waited) match, or wait for a later check', () => {
    const synced = status('INITIAL_SYNCED');
    const ready = status('READY');
    const contact = created();
    const early = new Set([synced.eventId, ready.eventId]);
    // Not one too many: they stay for a later check.
    const first = checkEvents([{ objectType: 'Contact' }], [synced, ready, contact], early);
    expect(first).toMatchObject({ ok: true, consumed: [contact.eventId] });
    // And they match the check that names them.
    expect(checkEvents([{ status: 'INITIAL_SYNCED' }], [synced, ready], early)).toMatchObject({ ok: true, consumed: [synced.eventId] });
    // Without the early mark, the same events are one too many.
    expect(checkEvents([{ objectType: 'Contact' }], [synced, ready, contact], new Set())).toMatchObject({ ok: false, final: true });
  });
});

describe('checkDeliveries and checkReceiver', () => {
  it('are final once a finished delivery decides them', () => {
    expect(checkDeliveries({ state: 'succeeded' }, [status('NEW_CONNECTION'), created('retrying')])).toMatchObject({ ok: false, final: false });
    expect(checkDeliveries({ state: 'succeeded' }, [status('NEW_CONNECTION'), created('failed')])).toMatchObject({ ok: false, final: true });
    expect(checkDeliveries({ state: 'failed', count: 1 }, [created('failed'), created('failed')])).toMatchObject({ ok: false, final: true });
    expect(checkDeliveries({ state: 'retrying', count: 1 }, [created('pending')])).toMatchObject({ ok: false, final: false });
    expect(checkReceiver({ status: '2xx' }, [delivery({ status: 'READY' }, 'retrying', [503])])).toMatchObject({ ok: false, final: false });
    expect(checkReceiver({ status: '2xx' }, [delivery({ status: 'READY' }, 'failed', [401])])).toMatchObject({ ok: false, final: true });
    expect(checkReceiver({ status: '2xx' }, [])).toMatchObject({ ok: false, final: false });
  });
});
