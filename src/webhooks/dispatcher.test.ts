import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock/clock.js';
import type { EmittedEvent } from '../events/event-factory.js';
import type { PostOutcome } from '../model/transport.js';
import { Random } from '../shared/random.js';
import { Dispatcher } from './dispatcher.js';

const CONNECTION = 'c'.repeat(32);
const START = Date.parse('2025-01-01T00:00:00Z');

/** A dispatcher on a virtual clock whose receiver answers only when the test says, one POST at a time. */
function setup(options: { pendingLimit?: number; logLimit?: number; webhook?: boolean } = {}) {
  const clock = new VirtualClock(START, (error) => {
    throw error;
  });
  const posts: Array<{ body: string; answer: (outcome: PostOutcome) => void }> = [];
  let webhook = options.webhook ?? false;
  const dispatcher = new Dispatcher({
    clock,
    transport: (_url, _headers, body) => new Promise((resolve) => posts.push({ body, answer: resolve })),
    retryScheduleMs: [1_000],
    attemptTimeoutMs: 1_000,
    signingNow: () => clock.now(),
    logLimit: options.logLimit ?? 100,
    ...(options.pendingLimit === undefined ? {} : { pendingLimit: options.pendingLimit }),
    target: () => ({
      accessToken: `access_${'a'.repeat(40)}`,
      webhook: webhook ? { webhookId: 'w', connectionId: CONNECTION, webhookUrl: 'http://127.0.0.1:9/hook', createdTime: '' } : undefined,
    }),
    random: new Random(1),
  });
  let count = 0;
  const emit = () => {
    const eventId = `event-${count++}`;
    const emitted = {
      eventId,
      connectionId: CONNECTION,
      createdAt: clock.now(),
      event: { type: 'STATUS_CHANGE' },
      body: JSON.stringify({ eventId }),
    } as unknown as EmittedEvent;
    dispatcher.enqueue(emitted);
    return eventId;
  };
  const states = () => dispatcher.list(CONNECTION).map((delivery) => `${delivery.eventId} ${delivery.state}`);
  const addWebhook = () => {
    webhook = true;
    dispatcher.webhookCreated(CONNECTION);
  };
  return { clock, dispatcher, posts, emit, states, addWebhook };
}

describe('the pending delivery cap', () => {
  it('drops the oldest waiting event as failed, with the reason naming the cap and its flag', () => {
    const { dispatcher, emit, states } = setup({ pendingLimit: 3 });
    for (let i = 0; i < 5; i++) emit();
    expect(states()).toEqual(['event-0 failed', 'event-1 failed', 'event-2 pending', 'event-3 pending', 'event-4 pending']);
    expect(dispatcher.get('event-0')!.failureReason).toBe(
      "dropped: the connection had more than 3 deliveries waiting (the sandbox's cap: pendingDeliveryLimit, --pending-delivery-limit)",
    );
    expect(dispatcher.unfinished(CONNECTION)).toEqual(['event-2', 'event-3', 'event-4']);
  });

  it('never drops the event in flight; a retrying head makes room and the next one goes out', async () => {
    const { clock, dispatcher, posts, emit, states } = setup({ pendingLimit: 2, webhook: true });
    emit();
    emit();
    expect(states()).toEqual(['event-0 delivering', 'event-1 pending']);
    emit();
    // event-0 is in flight: the oldest waiting behind it goes.
    expect(states()).toEqual(['event-0 delivering', 'event-1 failed', 'event-2 pending']);
    posts[0]!.answer({ status: 503 });
    await clock.settle();
    expect(states()).toEqual(['event-0 retrying', 'event-1 failed', 'event-2 pending']);
    emit();
    // Retrying is waiting too: it goes, and event-2 is attempted at once.
    expect(states()).toEqual(['event-0 failed', 'event-1 failed', 'event-2 delivering', 'event-3 pending']);
    expect(posts.map((post) => JSON.parse(post.body).eventId)).toEqual(['event-0', 'event-2']);
    // Its retry timer was cancelled with it.
    expect(dispatcher.get('event-0')!.nextAttemptTime).toBeNull();
    expect(clock.nextDue()).toBeUndefined();
  });

  it('keeps the log bounded when every finished delivery is a dropped one', () => {
    const { dispatcher, emit } = setup({ pendingLimit: 10, logLimit: 5 });
    for (let i = 0; i < 1_000; i++) emit();
    const deliveries = dispatcher.list(CONNECTION);
    expect(deliveries.filter((delivery) => delivery.state === 'failed').map((delivery) => delivery.eventId)).toEqual([
      'event-985',
      'event-986',
      'event-987',
      'event-988',
      'event-989',
    ]);
    expect(deliveries.filter((delivery) => delivery.state === 'pending')).toHaveLength(10);
  });

  it('keeps every event without a cap, and sends what waited once a webhook comes', () => {
    const { dispatcher, posts, emit, addWebhook } = setup();
    for (let i = 0; i < 50; i++) emit();
    expect(dispatcher.unfinished(CONNECTION)).toHaveLength(50);
    addWebhook();
    expect(posts.map((post) => JSON.parse(post.body).eventId)).toEqual(['event-0']);
  });
});

describe('the delivery log limit', () => {
  it("is counted per tenant: one tenant's deliveries never evict another's", async () => {
    const clock = new VirtualClock(START, (error) => {
      throw error;
    });
    const tenants: Record<string, string> = { ['a'.repeat(32)]: 'tenant-a', ['b'.repeat(32)]: 'tenant-b' };
    const dispatcher = new Dispatcher({
      clock,
      transport: async () => ({ status: 200 }),
      retryScheduleMs: [],
      attemptTimeoutMs: 1_000,
      signingNow: () => clock.now(),
      logLimit: 3,
      tenantOf: (connectionId) => tenants[connectionId],
      target: (connectionId) => ({
        accessToken: `access_${'a'.repeat(40)}`,
        webhook: { webhookId: 'w', connectionId, webhookUrl: 'http://127.0.0.1:2/hook', createdTime: '' },
      }),
      random: new Random(1),
    });
    const emit = (connectionId: string, eventId: string) =>
      dispatcher.enqueue({
        eventId,
        connectionId,
        createdAt: clock.now(),
        event: { type: 'STATUS_CHANGE' },
        body: JSON.stringify({ eventId }),
      } as unknown as EmittedEvent);
    for (let i = 0; i < 3; i++) emit('a'.repeat(32), `a-${i}`);
    await clock.settle();
    for (let i = 0; i < 50; i++) emit('b'.repeat(32), `b-${i}`);
    await clock.settle();
    expect(dispatcher.list('a'.repeat(32)).map((delivery) => `${delivery.eventId} ${delivery.state}`)).toEqual([
      'a-0 succeeded',
      'a-1 succeeded',
      'a-2 succeeded',
    ]);
    expect(dispatcher.list('b'.repeat(32)).map((delivery) => delivery.eventId)).toEqual(['b-47', 'b-48', 'b-49']);
  });
});

describe('momentJson', () => {
  it('writes each delivery as JSON.stringify writes it as listed, in every state, from the text the log sent; as it was at its moment', async () => {
    const { clock, dispatcher, posts, emit } = setup({ pendingLimit: 3, webhook: true });
    const seen = new Set<string>();
    const writesAsStringify = () => {
      const moments = dispatcher.moments(CONNECTION);
      expect(moments.map((moment) => dispatcher.momentJson(moment))).toEqual(dispatcher.list(CONNECTION).map((delivery) => JSON.stringify(delivery)));
      for (const moment of moments) seen.add(moment.state);
      return moments;
    };
    for (let i = 0; i < 4; i++) emit();
    // event-0 in flight, event-1 dropped by the cap (failed, with its reason), the others pending.
    writesAsStringify();
    posts[0]!.answer({ status: 503 });
    await clock.settle();
    // event-0 retrying, with the time of its next attempt.
    writesAsStringify();
    dispatcher.setChaos(CONNECTION, { delay: '250ms' });
    // Time moves while attempts are in flight (advance waits for them): each post is answered as it comes.
    let answering = true;
    const answerer = (async () => {
      for (let next = 1; answering; await new Promise((resolve) => setImmediate(resolve))) {
        if (posts.length <= next) continue;
        writesAsStringify();
        posts[next++]!.answer({ status: 200 });
      }
    })();
    const earlier = writesAsStringify();
    await clock.advance(2_000);
    answering = false;
    await answerer;
    writesAsStringify();
    // Moments read before hold what was then, whatever came after.
    expect(earlier.find((moment) => moment.state === 'retrying')).toBeDefined();
    expect(earlier.map((moment) => JSON.parse(dispatcher.momentJson(moment)).state)).toEqual(earlier.map((moment) => moment.state));
    expect([...seen].sort()).toEqual(['delivering', 'failed', 'pending', 'retrying', 'succeeded']);
    expect(dispatcher.list(CONNECTION).some((delivery) => delivery.attempts.some((attempt) => attempt.chaos?.delayMs === 250))).toBe(true);
  });
});
