import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock/clock.js';
import type { EmittedEvent } from '../events/event-factory.js';
import type { ServiceEvent } from '../model/events.js';
import type { PostOutcome } from '../model/transport.js';
import { ApiError } from '../shared/errors.js';
import { Random } from '../shared/random.js';
import type { ChaosSettings } from './chaos.js';
import { DeliveryChaos } from './delivery-chaos.js';
import { type DeliveryEntry, DeliveryLog } from './delivery-log.js';
import { DeliveryMachine } from './delivery-machine.js';
import { Dispatcher } from './dispatcher.js';
import { RetryPolicy } from './retry-policy.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const START = Date.parse('2025-01-01T00:00:00Z');
const WEBHOOK_URL = 'http://127.0.0.1:9/hook';

/** One POST the fake receiver got: when (ms after START), which event, and how to answer it if the script did not. */
interface Post {
  at: number;
  eventId: string;
  connectionId: string;
  answer: (outcome: PostOutcome) => void;
}

/** What the receiver answers a POST at once; undefined leaves it in flight until the test answers it. */
type Script = (post: Post, nth: number) => PostOutcome | undefined;

const event = (eventId: string, connectionId: string, createdAt: number): EmittedEvent => {
  const body: ServiceEvent = { eventId, type: 'STATUS_CHANGE', data: { status: 'READY' } };
  return { eventId, connectionId, createdAt, event: body, body: JSON.stringify(body) };
};

/**
 * The state machine with its real log, policy and chaos, on a virtual clock, posting to a fake
 * receiver that answers as `script` says: the code under test, without a network.
 */
function harness(options: { schedule?: number[]; chaos?: ChaosSettings; script?: Script; pendingLimit?: number } = {}) {
  const clock = new VirtualClock(START, (error) => {
    throw error;
  });
  const posts: Post[] = [];
  const webhooks = new Set([A, B]);
  const log = new DeliveryLog({ limit: 100 });
  const chaos = new DeliveryChaos(new Random(7), options.chaos, clock.now());
  const machine = new DeliveryMachine({
    clock,
    transport: (_url, headers, body) =>
      new Promise((resolve) => {
        const post: Post = {
          at: clock.now() - START,
          eventId: (JSON.parse(body) as ServiceEvent).eventId,
          connectionId: headers['x-service-connection-id']!,
          answer: resolve,
        };
        posts.push(post);
        const outcome = options.script?.(post, posts.filter((other) => other.eventId === post.eventId).length);
        if (outcome) resolve(outcome);
      }),
    attemptTimeoutMs: 1_000,
    signingNow: () => clock.now(),
    pendingLimit: options.pendingLimit ?? Infinity,
    target: (connectionId) => ({
      accessToken: `access_${'0'.repeat(40)}`,
      webhook: webhooks.has(connectionId) ? { webhookId: 'w', connectionId, webhookUrl: WEBHOOK_URL, createdTime: '' } : undefined,
    }),
    log,
    chaos,
    retries: new RetryPolicy(options.schedule ?? [1_000, 5_000]),
  });
  let count = 0;
  const entries = new Map<string, DeliveryEntry>();
  const emit = (connectionId = A) => {
    const entry = log.open(event(`event-${count++}`, connectionId, clock.now()));
    entries.set(entry.emitted.eventId, entry);
    machine.enqueue(entry);
    return entry.emitted.eventId;
  };
  const state = (eventId: string) => log.get(eventId)!;
  const states = (connectionId = A) => log.list(connectionId).map((delivery) => `${delivery.eventId} ${delivery.state}`);
  const sent = () => posts.map((post) => `${post.eventId}@${post.at}`);
  const deleteWebhook = (connectionId = A) => {
    webhooks.delete(connectionId);
    machine.webhookDeleted(connectionId);
  };
  const redeliver = (eventId: string) => machine.redeliver(entries.get(eventId)!);
  return { clock, machine, posts, emit, state, states, sent, deleteWebhook, redeliver, webhooks };
}

const ok: Script = () => ({ status: 200 });
const failing: Script = () => ({ status: 503 });
/** 503 to the first `n` attempts of every event, then 200. */
const failFirst =
  (n: number): Script =>
  (_post, nth) => ({ status: nth <= n ? 503 : 200 });

/** Lets the answers given run their course while other POSTs stay in flight (which `clock.settle()` would wait for). */
const flush = () => new Promise((resolve) => setImmediate(resolve));

/** The 409 (or other ApiError) a call rejects with, as `status errorCode`. */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return `${error.status} ${error.errorCode}`;
    throw error;
  }
  return 'accepted';
}

describe('the delivery state machine', () => {
  it("sends one connection's events in order, each once the one before it is accepted; connections do not wait for each other", async () => {
    const { posts, emit, states, sent } = harness();
    emit(A);
    emit(A);
    emit(B);
    expect(sent()).toEqual(['event-0@0', 'event-2@0']);
    expect(states(A)).toEqual(['event-0 delivering', 'event-1 pending']);
    posts[0]!.answer({ status: 200 });
    await flush();
    expect(states(A)).toEqual(['event-0 succeeded', 'event-1 delivering']);
    expect(sent()).toEqual(['event-0@0', 'event-2@0', 'event-1@0']);
    posts[1]!.answer({ status: 204 });
    posts[2]!.answer({ status: 200 });
    await flush();
    expect([...states(A), ...states(B)]).toEqual(['event-0 succeeded', 'event-1 succeeded', 'event-2 succeeded']);
  });

  it("writes each attempt's time as toISOString writes it, whatever its milliseconds (the text of its second is kept)", async () => {
    const schedule = [7, 93, 900, 59_000, 3_540_000];
    const { clock, emit, state } = harness({ schedule, script: failing });
    emit();
    await clock.advance(schedule.reduce((sum, ms) => sum + ms, 0));
    let at = START;
    const expected = [0, ...schedule].map((ms) => new Date((at += ms)).toISOString());
    expect(state('event-0').attempts.map((attempt) => attempt.time)).toEqual(expected);
    expect(expected.slice(1, 5)).toEqual(['2025-01-01T00:00:00.007Z', '2025-01-01T00:00:00.100Z', '2025-01-01T00:00:01.000Z', '2025-01-01T00:01:00.000Z']);
  });

  it("retries a failing event at the schedule's times, holding the later ones back until it is accepted", async () => {
    const { clock, emit, state, states, sent } = harness({ schedule: [1_000, 5_000], script: failFirst(2) });
    emit();
    emit();
    await clock.settle();
    expect(states()).toEqual(['event-0 retrying', 'event-1 pending']);
    expect(state('event-0').nextAttemptTime).toBe('2025-01-01T00:00:01.000Z');
    await clock.advance(999);
    expect(sent()).toEqual(['event-0@0']);
    await clock.advance(1);
    expect(sent()).toEqual(['event-0@0', 'event-0@1000']);
    expect(state('event-0').nextAttemptTime).toBe('2025-01-01T00:00:06.000Z');
    await clock.advance(5_000);
    expect(sent()).toEqual(['event-0@0', 'event-0@1000', 'event-0@6000', 'event-1@6000']);
    expect(state('event-0').attempts.map((attempt) => `${attempt.attempt} ${attempt.trigger} ${attempt.status}`)).toEqual([
      '1 schedule 503',
      '2 schedule 503',
      '3 schedule 200',
    ]);
    expect(states()).toEqual(['event-0 succeeded', 'event-1 retrying']);
  });

  it('fails an event after its last retry, saying how many attempts it had, and goes on with the next', async () => {
    const { clock, emit, state, states, sent } = harness({ schedule: [1_000], script: (post) => ({ status: post.eventId === 'event-0' ? 500 : 200 }) });
    emit();
    emit();
    await clock.advance(1_000);
    expect(sent()).toEqual(['event-0@0', 'event-0@1000', 'event-1@1000']);
    expect(states()).toEqual(['event-0 failed', 'event-1 succeeded']);
    expect(state('event-0')).toMatchObject({ failureReason: 'no 2xx answer after 2 attempts', nextAttemptTime: null });
    expect(clock.nextDue()).toBeUndefined();
  });

  it('redelivers a succeeded or failed event as one more attempt of the same event, outside the schedule', async () => {
    const answers: number[] = [200, 503, 503, 200];
    const { clock, emit, state, redeliver, sent } = harness({ schedule: [], script: () => ({ status: answers.shift()! }) });
    emit();
    await clock.settle();
    expect(state('event-0').state).toBe('succeeded');
    await redeliver('event-0');
    // A redelivery that gets no 2xx leaves the event failed, whatever it was before.
    expect(state('event-0')).toMatchObject({ state: 'failed', failureReason: 'no 2xx answer after 2 attempts' });
    emit();
    await clock.settle();
    expect(state('event-1')).toMatchObject({ state: 'failed', failureReason: 'no 2xx answer after 1 attempt' });
    await redeliver('event-1');
    expect(state('event-1')).toMatchObject({ state: 'succeeded', failureReason: null });
    expect(state('event-1').attempts.map((attempt) => attempt.trigger)).toEqual(['schedule', 'redeliver']);
    expect(sent()).toEqual(['event-0@0', 'event-0@0', 'event-1@0', 'event-1@0']);
  });

  it('redelivers a retrying event by bringing its next attempt forward: it counts on the schedule, and the old timer is gone', async () => {
    const { clock, emit, state, redeliver, sent } = harness({ schedule: [1_000, 5_000], script: failing });
    emit();
    await clock.advance(400);
    expect(state('event-0')).toMatchObject({ state: 'retrying', nextAttemptTime: '2025-01-01T00:00:01.000Z' });
    await redeliver('event-0');
    expect(state('event-0').attempts.map((attempt) => `${attempt.attempt} ${attempt.trigger}`)).toEqual(['1 schedule', '2 redeliver']);
    // The second automatic attempt failed: the next wait is the schedule's second delay, from now.
    expect(state('event-0')).toMatchObject({ state: 'retrying', nextAttemptTime: '2025-01-01T00:00:05.400Z' });
    await clock.advance(4_999);
    expect(sent()).toEqual(['event-0@0', 'event-0@400']);
    await clock.advance(1);
    expect(sent()).toEqual(['event-0@0', 'event-0@400', 'event-0@5400']);
    expect(state('event-0')).toMatchObject({ state: 'failed', failureReason: 'no 2xx answer after 3 attempts' });
  });

  it('refuses a redelivery with a 409 while the event is queued or in flight, or when there is no webhook', async () => {
    const { posts, emit, redeliver, deleteWebhook, state } = harness();
    emit();
    emit();
    expect(await refusal(redeliver('event-0'))).toBe('409 DELIVERY_IN_PROGRESS');
    expect(await refusal(redeliver('event-1'))).toBe('409 DELIVERY_IN_PROGRESS');
    posts[0]!.answer({ status: 200 });
    await flush();
    posts[1]!.answer({ status: 200 });
    await flush();
    deleteWebhook();
    expect(await refusal(redeliver('event-0'))).toBe('409 WEBHOOK_NOT_FOUND');
    expect(state('event-0').attempts).toHaveLength(1);
  });

  it('drops what waits when the webhook is deleted mid-queue; the attempt in flight keeps its outcome; nothing more is sent', async () => {
    const { clock, machine, posts, emit, states, deleteWebhook, state } = harness({
      script: (post) => (post.eventId === 'event-0' ? undefined : { status: 503 }),
    });
    emit(A);
    emit(A);
    emit(A);
    emit(B);
    await flush();
    expect(states(B)).toEqual(['event-3 retrying']);
    deleteWebhook(A);
    deleteWebhook(B);
    expect(states(A)).toEqual(['event-0 delivering', 'event-1 failed', 'event-2 failed']);
    expect(state('event-1').failureReason).toBe('webhook deleted before delivery');
    // The retry that was due is cancelled with the rest.
    expect(states(B)).toEqual(['event-3 failed']);
    expect(clock.nextDue()).toBeUndefined();
    posts[0]!.answer({ status: 200 });
    await flush();
    expect(states(A)).toEqual(['event-0 succeeded', 'event-1 failed', 'event-2 failed']);
    expect(machine.unfinished(A)).toEqual([]);
    expect(posts.map((post) => post.eventId)).toEqual(['event-0', 'event-3']);
  });

  it('retries now what a connection waits on: the retrying head at once, counted on the schedule; once accepted, the events behind it follow at once', async () => {
    let up = false;
    const { clock, machine, emit, states, state, sent } = harness({ schedule: [1_000, 60_000, 3_600_000], script: () => ({ status: up ? 204 : 401 }) });
    emit();
    emit();
    emit();
    await clock.advance(1_000);
    // Two failed attempts: the head waits a minute for its third, the others wait behind it, never tried.
    expect(states()).toEqual(['event-0 retrying', 'event-1 pending', 'event-2 pending']);
    expect(sent()).toEqual(['event-0@0', 'event-0@1000']);
    up = true;
    const retried = await machine.retryNow(A);
    await clock.settle();
    expect(retried.map((entry) => entry.emitted.eventId)).toEqual(['event-0']);
    expect(sent()).toEqual(['event-0@0', 'event-0@1000', 'event-0@1000', 'event-1@1000', 'event-2@1000']);
    expect(states()).toEqual(['event-0 succeeded', 'event-1 succeeded', 'event-2 succeeded']);
    expect(state('event-0').attempts.map((attempt) => `${attempt.attempt} ${attempt.trigger} ${attempt.status}`)).toEqual([
      '1 schedule 401',
      '2 schedule 401',
      '3 redeliver 204',
    ]);
    // The old timer is gone; nothing is waiting any more, so a second retry now does nothing.
    expect(clock.nextDue()).toBeUndefined();
    expect(await machine.retryNow(A)).toEqual([]);
  });

  it('a retry now that fails again goes on with the schedule from that attempt', async () => {
    const { clock, machine, emit, state } = harness({ schedule: [1_000, 60_000, 3_600_000], script: failing });
    emit();
    await clock.advance(0);
    await machine.retryNow(A);
    // Two automatic attempts made (the first and the one brought forward): the next waits the schedule's second delay.
    expect(state('event-0')).toMatchObject({ state: 'retrying', nextAttemptTime: '2025-01-01T00:01:00.000Z' });
  });

  it('after a 2xx to a redelivery of a finished event, the retrying head of its connection is retried at once (and its followers go)', async () => {
    let up = false;
    const { clock, emit, states, sent, redeliver, machine } = harness({ schedule: [3_600_000], script: () => ({ status: up ? 200 : 503 }) });
    emit();
    await clock.advance(0);
    await clock.advance(3_600_000);
    // event-0 failed after its two attempts; event-1 then fails its first and waits an hour for its retry, event-2 behind it.
    expect(states()).toEqual(['event-0 failed']);
    emit();
    emit();
    await clock.advance(0);
    expect(states()).toEqual(['event-0 failed', 'event-1 retrying', 'event-2 pending']);
    up = true;
    await redeliver('event-0');
    await clock.settle();
    expect(states()).toEqual(['event-0 succeeded', 'event-1 succeeded', 'event-2 succeeded']);
    expect(sent().slice(-3)).toEqual(['event-0@3600000', 'event-1@3600000', 'event-2@3600000']);
    expect(machine.unfinished(A)).toEqual([]);
  });

  it('keeps a connection within the pending cap by failing its oldest waiting event, never the one in flight', () => {
    const { emit, states, state } = harness({ pendingLimit: 2 });
    emit();
    emit();
    emit();
    expect(states()).toEqual(['event-0 delivering', 'event-1 failed', 'event-2 pending']);
    expect(state('event-1').failureReason).toMatch(/^dropped: the connection had more than 2 deliveries waiting/);
  });
});

describe('delivery chaos in the state machine', () => {
  it('duplicate: sends an accepted event again before the next one, signed afresh; the event stays succeeded whatever the duplicate gets', async () => {
    const { clock, emit, state, sent } = harness({ chaos: { duplicate: 1 }, script: (_post, nth) => ({ status: nth === 1 ? 200 : 500 }) });
    emit();
    emit();
    await clock.settle();
    expect(sent()).toEqual(['event-0@0', 'event-0@0', 'event-1@0', 'event-1@0']);
    expect(state('event-0').state).toBe('succeeded');
    expect(state('event-0').attempts.map((attempt) => ({ trigger: attempt.trigger, status: attempt.status, chaos: attempt.chaos }))).toEqual([
      { trigger: 'schedule', status: 200, chaos: undefined },
      { trigger: 'chaos', status: 500, chaos: { duplicate: true } },
    ]);
  });

  it('delay: every automatic attempt waits its drawn extra time, shown on the attempt and as the next attempt time', async () => {
    const { clock, emit, state, sent } = harness({ chaos: { delay: '2s' }, schedule: [1_000], script: failFirst(1) });
    emit();
    expect(state('event-0')).toMatchObject({ state: 'pending', nextAttemptTime: '2025-01-01T00:00:02.000Z' });
    await clock.advance(5_000);
    // The retry waits its schedule's second plus the delay.
    expect(sent()).toEqual(['event-0@2000', 'event-0@5000']);
    expect(state('event-0').attempts.map((attempt) => attempt.chaos)).toEqual([{ delayMs: 2_000 }, { delayMs: 2_000 }]);
  });

  it("reorder: a connection's events no longer wait for each other; each goes at its own drawn time", async () => {
    const { clock, emit, posts, states } = harness({ chaos: { reorder: true }, script: ok });
    const emitted = [emit(), emit(), emit(), emit(), emit()];
    await clock.advance(1_000);
    expect(states()).toEqual(emitted.map((eventId) => `${eventId} succeeded`));
    const times = posts.map((post) => post.at);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(posts.map((post) => post.eventId)).not.toEqual(emitted);
  });

  it('outage: attempts fail at once without reaching the receiver, until the retry schedule carries the event past it', async () => {
    const { clock, emit, state, posts } = harness({ chaos: { outage: '1m' }, schedule: [30_000, 60_000], script: ok });
    emit();
    // No turn of the event loop: the receiver is down, so there is nothing to wait for.
    expect(state('event-0')).toMatchObject({ state: 'retrying', nextAttemptTime: '2025-01-01T00:00:30.000Z' });
    await clock.advance(90_000);
    expect(posts.map((post) => post.at)).toEqual([90_000]);
    expect(state('event-0').attempts.map((attempt) => `${attempt.status} ${attempt.error} ${JSON.stringify(attempt.chaos)}`)).toEqual([
      'null chaos: simulated outage {"outage":true}',
      'null chaos: simulated outage {"outage":true}',
      '200 null undefined',
    ]);
    expect(state('event-0').state).toBe('succeeded');
  });

  it("draws each connection's chaos from its own stream: one connection's traffic never shifts another's delays", async () => {
    const delays = async (withB: boolean) => {
      const { clock, emit, state } = harness({ chaos: { delay: '0ms-10s' }, script: ok });
      for (let i = 0; i < 3; i++) {
        emit(A);
        if (withB) emit(B);
      }
      await clock.advance(60_000);
      return ['event-0', withB ? 'event-2' : 'event-1', withB ? 'event-4' : 'event-2'].map((eventId) => state(eventId).attempts[0]!.chaos?.delayMs);
    };
    expect(await delays(true)).toEqual(await delays(false));
  });
});

describe('the delivery engine in a snapshot', () => {
  /** An engine on its own virtual clock at `time`, posting to a receiver that answers as `answer` says (or leaves the POST in flight). */
  function engine(time: number, answer: (eventId: string, at: number) => PostOutcome | undefined) {
    const clock = new VirtualClock(time, (error) => {
      throw error;
    });
    const posts: string[] = [];
    const inFlight: Array<(outcome: PostOutcome) => void> = [];
    const dispatcher = new Dispatcher({
      clock,
      transport: (_url, _headers, body) =>
        new Promise((resolve) => {
          const { eventId } = JSON.parse(body) as ServiceEvent;
          posts.push(`${eventId}@${clock.now() - START}`);
          const outcome = answer(eventId, clock.now() - START);
          if (outcome) resolve(outcome);
          else inFlight.push(resolve);
        }),
      retryScheduleMs: [1_000, 5_000],
      attemptTimeoutMs: 1_000,
      signingNow: () => clock.now(),
      logLimit: 100,
      target: (connectionId) => ({
        accessToken: `access_${'0'.repeat(40)}`,
        webhook: { webhookId: 'w', connectionId, webhookUrl: WEBHOOK_URL, createdTime: '' },
      }),
      random: new Random(3),
    });
    return { clock, dispatcher, posts, inFlight };
  }
  /** The log without the real durations, which differ from run to run. */
  const story = (dispatcher: Dispatcher) => JSON.stringify(dispatcher.list(), (key, value: unknown) => (key === 'durationMs' ? 0 : value));
  /** event-0 fails until 1.5 s, event-2 until 3 s; the rest succeed. */
  const receiver = (eventId: string, at: number): PostOutcome => ({
    status: (eventId === 'event-0' && at < 1_500) || (eventId === 'event-2' && at < 3_000) ? 503 : 200,
  });

  it('goes on after a restore mid-retry exactly as the original: retries at their times, queues held, chaos streams where they stood', async () => {
    const original = engine(START, receiver);
    original.dispatcher.setChaos(A, { duplicate: 0.5, delay: '0ms-300ms' });
    for (let i = 0; i < 3; i++) original.dispatcher.enqueue(event(`event-${i}`, A, START));
    await original.clock.advance(700);
    expect(original.dispatcher.list().map((delivery) => delivery.state)).toEqual(['retrying', 'pending', 'pending']);

    const saved = JSON.parse(JSON.stringify(original.dispatcher.exportState()));
    const restored = engine(original.clock.now(), receiver);
    restored.dispatcher.importState(saved);
    expect(restored.dispatcher.exportState()).toEqual(saved);
    expect(story(restored.dispatcher)).toBe(story(original.dispatcher));

    const sentBefore = original.posts.length;
    await original.clock.advance(20_000);
    await restored.clock.advance(20_000);
    expect(restored.posts).toEqual(original.posts.slice(sentBefore));
    expect(restored.posts.length).toBeGreaterThan(3);
    expect(story(restored.dispatcher)).toBe(story(original.dispatcher));
    expect(restored.dispatcher.list().map((delivery) => delivery.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('makes again an automatic attempt that was in flight when the snapshot was taken; fails a redelivery that was', async () => {
    const original = engine(START, () => undefined);
    original.dispatcher.enqueue(event('event-0', A, START));
    const inAttempt = original.dispatcher.exportState();
    expect(inAttempt.deliveries[0]).toMatchObject({ state: 'delivering', scheduledAttempts: 1, queued: true });
    original.inFlight.shift()!({ status: 200 });
    await original.clock.settle();
    const redelivery = original.dispatcher.redeliver('event-0');
    const inRedelivery = original.dispatcher.exportState();
    expect(inRedelivery.deliveries[0]).toMatchObject({ state: 'delivering', queued: false });
    original.inFlight.shift()!({ status: 200 });
    await redelivery;

    const again = engine(START, () => ({ status: 200 }));
    again.dispatcher.importState(inAttempt);
    await again.clock.settle();
    expect(again.posts).toEqual(['event-0@0']);
    expect(again.dispatcher.get('event-0')!.attempts.map((attempt) => `${attempt.attempt} ${attempt.trigger} ${attempt.status}`)).toEqual(['1 schedule 200']);

    const interrupted = engine(START, () => ({ status: 200 }));
    interrupted.dispatcher.importState(inRedelivery);
    expect(interrupted.dispatcher.get('event-0')).toMatchObject({ state: 'failed', failureReason: 'redelivery interrupted by a restart' });
    expect(interrupted.posts).toEqual([]);
  });
});

describe('the outbox (a state file: docs/decisions/0031)', () => {
  /** A dispatcher with an outbox, on a virtual clock, whose receiver accepts everything but event-0 before 1 s. */
  function outbox() {
    const clock = new VirtualClock(START, (error) => {
      throw error;
    });
    const posts: string[] = [];
    const dispatcher = new Dispatcher({
      clock,
      transport: async (_url, _headers, body) => {
        const { eventId } = JSON.parse(body) as ServiceEvent;
        posts.push(`${eventId}@${clock.now() - START}`);
        return { status: eventId === 'event-0' && clock.now() - START < 1_000 ? 503 : 200 };
      },
      retryScheduleMs: [1_000],
      attemptTimeoutMs: 1_000,
      signingNow: () => clock.now(),
      logLimit: 100,
      target: (connectionId) => ({
        accessToken: `access_${'0'.repeat(40)}`,
        webhook: { webhookId: 'w', connectionId, webhookUrl: WEBHOOK_URL, createdTime: '' },
      }),
      random: new Random(3),
      outbox: true,
    });
    return { clock, dispatcher, posts };
  }

  it('attempts no event before a save holding it has completed, then each in order; events after the save wait for the next', async () => {
    const { clock, dispatcher, posts } = outbox();
    dispatcher.enqueue(event('event-0', A, START));
    dispatcher.enqueue(event('event-1', B, START));
    await clock.advance(5_000);
    expect(posts).toEqual([]);
    expect(dispatcher.list().map((delivery) => delivery.state)).toEqual(['pending', 'pending']);
    dispatcher.saved();
    await clock.settle();
    expect(posts).toEqual(['event-0@5000', 'event-1@5000']);
    dispatcher.enqueue(event('event-2', B, clock.now()));
    await clock.advance(1_000);
    expect(posts).toEqual(['event-0@5000', 'event-1@5000']);
    dispatcher.saved();
    await clock.settle();
    expect(posts).toEqual(['event-0@5000', 'event-1@5000', 'event-2@6000']);
  });

  it('holds what a restore brings in, a retry included, until the next save: the store does not hold it yet', async () => {
    const first = outbox();
    first.dispatcher.enqueue(event('event-0', A, START));
    first.dispatcher.saved();
    await first.clock.advance(100);
    expect(first.dispatcher.get('event-0')).toMatchObject({ state: 'retrying', nextAttemptTime: '2025-01-01T00:00:01.000Z' });
    const saved = first.dispatcher.exportState();

    const second = outbox();
    second.dispatcher.importState(saved);
    await second.clock.advance(2_000);
    expect(second.posts).toEqual([]);
    second.dispatcher.saved();
    await second.clock.settle();
    // Its time passed meanwhile: it goes at once.
    expect(second.posts).toEqual(['event-0@2000']);
    expect(second.dispatcher.get('event-0')!.state).toBe('succeeded');
  });

  it('with a save point (a save that completes turns later), releases only the events its snapshot held', async () => {
    const { clock, dispatcher, posts } = outbox();
    dispatcher.enqueue(event('event-1', B, START));
    const point = dispatcher.savePoint();
    // Emitted after the snapshot, while the save is still being written.
    dispatcher.enqueue(event('event-2', A, START));
    dispatcher.saved(point);
    await clock.settle();
    expect(posts).toEqual(['event-1@0']);
    expect(dispatcher.get('event-2')!.state).toBe('pending');
    // The next save holds it.
    dispatcher.saved(dispatcher.savePoint());
    await clock.settle();
    expect(posts).toEqual(['event-1@0', 'event-2@0']);
  });
});
