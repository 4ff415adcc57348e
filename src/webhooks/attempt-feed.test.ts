import { describe, expect, it } from 'vitest';
import { type Clock, RealClock, VirtualClock } from '../clock/clock.js';
import type { EmittedEvent } from '../events/event-factory.js';
import type { ServiceEvent } from '../model/events.js';
import type { PostOutcome } from '../model/transport.js';
import { Random } from '../shared/random.js';
import { FEED_LIMIT } from './attempt-feed.js';
import { Dispatcher } from './dispatcher.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const START = Date.parse('2025-01-01T00:00:00Z');

/** A dispatcher of two tenants (A's connection is tenant ka's, B's kb's), on `clock`, whose receiver answers `status`. */
function setup(clock: Clock, status: () => number = () => 204) {
  const dispatcher = new Dispatcher({
    clock,
    transport: (): Promise<PostOutcome> => Promise.resolve({ status: status() }),
    retryScheduleMs: [1_000, 2_000],
    attemptTimeoutMs: 1_000,
    signingNow: () => clock.now(),
    logLimit: 100_000,
    tenantOf: (connectionId) => (connectionId === A ? 'ka' : 'kb'),
    target: (connectionId) => ({
      accessToken: `access_${'0'.repeat(40)}`,
      webhook: { webhookId: 'w', connectionId, webhookUrl: 'http://127.0.0.1:9/hook', createdTime: '' },
    }),
    random: new Random(1),
  });
  let count = 0;
  const emit = (connectionId = A) => {
    const event: ServiceEvent = { eventId: `event-${count}`, type: 'OBJECT_CHANGE', data: { objectType: 'Contact', eventType: 'CREATE', record: {} } } as never;
    const emitted: EmittedEvent = { eventId: `event-${count++}`, connectionId, createdAt: clock.now(), event, body: JSON.stringify(event) };
    dispatcher.enqueue(emitted);
  };
  return { dispatcher, emit };
}

const virtual = () =>
  new VirtualClock(START, (error) => {
    throw error;
  });

describe('the attempt feed', () => {
  it('records nothing until a tenant first reads it; then each attempt in order, with the event in a line and the state after it', async () => {
    const clock = virtual();
    let status = 503;
    const { dispatcher, emit } = setup(clock, () => status);
    emit();
    await clock.settle();
    // Not read yet: nothing kept.
    expect(await dispatcher.readAttempts('ka', 0)).toEqual({ attempts: [], next: 0, missed: 0 });
    await clock.advance(1_000);
    status = 204;
    await clock.advance(2_000);
    const { attempts, next, missed } = await dispatcher.readAttempts('ka', 0);
    expect(missed).toBe(0);
    expect(next).toBe(2);
    expect(
      attempts.map(({ seq, eventId, state, attempt, nextAttemptTime, maxAttempts, event }) => ({
        seq,
        eventId,
        state,
        status: attempt.status,
        nextAttemptTime,
        maxAttempts,
        event,
      })),
    ).toEqual([
      {
        seq: 1,
        eventId: 'event-0',
        state: 'retrying',
        status: 503,
        nextAttemptTime: '2025-01-01T00:00:03.000Z',
        maxAttempts: 3,
        event: { type: 'OBJECT_CHANGE', objectType: 'Contact', eventType: 'CREATE' },
      },
      {
        seq: 2,
        eventId: 'event-0',
        state: 'succeeded',
        status: 204,
        nextAttemptTime: null,
        maxAttempts: 3,
        event: { type: 'OBJECT_CHANGE', objectType: 'Contact', eventType: 'CREATE' },
      },
    ]);
    // After the newest: nothing; past it (a reset, another server), from the newest on.
    expect((await dispatcher.readAttempts('ka', 2)).attempts).toEqual([]);
    expect(await dispatcher.readAttempts('ka', 99)).toEqual({ attempts: [], next: 2, missed: 0 });
  });

  it('keeps tenants apart, filters by connection, and counts what left the ring unread', async () => {
    const clock = virtual();
    const { dispatcher, emit } = setup(clock);
    await dispatcher.readAttempts('ka', 0);
    emit(A);
    emit(B);
    await clock.settle();
    // kb never read its feed: its attempt is not kept, and ka sees only its own.
    expect((await dispatcher.readAttempts('ka', 0)).attempts.map((attempt) => attempt.connectionId)).toEqual([A]);
    expect((await dispatcher.readAttempts('kb', 0)).attempts).toEqual([]);
    expect((await dispatcher.readAttempts('ka', 0, { connectionId: B })).attempts).toEqual([]);
    for (let i = 0; i < FEED_LIMIT + 10; i++) emit(A);
    await clock.settle();
    const read = await dispatcher.readAttempts('ka', 1);
    expect(read.missed).toBe(10);
    expect(read.attempts).toHaveLength(FEED_LIMIT);
    expect(read.attempts[0]!.seq).toBe(12);
  });

  it('on a real clock, a read with nothing new waits for the next attempt (or its time), and answers at once when there is one', async () => {
    const clock = new RealClock((error) => {
      throw error;
    });
    try {
      const { dispatcher, emit } = setup(clock);
      const { next } = await dispatcher.readAttempts('ka', 0);
      const waiting = dispatcher.readAttempts('ka', next, { waitMs: 20_000 });
      let answered = false;
      void waiting.then(() => (answered = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answered).toBe(false);
      emit(A);
      const { attempts } = await waiting;
      expect(attempts.map((attempt) => attempt.attempt.status)).toEqual([204]);
      // Nothing comes: the wait ends at its time with nothing.
      expect((await dispatcher.readAttempts('ka', attempts[0]!.seq, { waitMs: 30 })).attempts).toEqual([]);
    } finally {
      clock.close();
    }
  });
});
