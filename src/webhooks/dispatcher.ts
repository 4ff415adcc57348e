import type { Clock, Timer } from '../clock/clock.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import type { Webhook } from '../model/connection.js';
import type { ServiceEvent } from '../model/events.js';
import type { EmittedEvent } from '../events/event-factory.js';
import { Random, type RandomState } from '../shared/random.js';
import { chaosDelay, chaosDuplicates, resolveChaos, type AttemptChaos, type Chaos, type ChaosSettings } from './chaos.js';
import type { HttpTransport } from './transport.js';
import { signedHeaders } from './signed-headers.js';

/**
 * pending → delivering → succeeded | retrying (→ delivering …) | failed.
 * `pending`: waiting for a webhook, or behind an earlier event of the same connection.
 */
export type DeliveryState = 'pending' | 'delivering' | 'succeeded' | 'retrying' | 'failed';

export interface DeliveryAttempt {
  /** 1 for the first attempt. */
  attempt: number;
  /** Sandbox time the attempt started (ISO-8601). */
  time: string;
  webhookUrl: string;
  /** The `x-service-timestamp` sent. */
  timestamp: string;
  /** The receiver's HTTP status, or null when there was none (network error, timeout). */
  status: number | null;
  /** Why it failed without a status: `ECONNREFUSED`, `timeout after 10000ms`, … */
  error: string | null;
  /** Real milliseconds the request took (a network measure, even on a virtual clock). */
  durationMs: number;
  /** `schedule` for the automatic attempts, `redeliver` for one asked for by hand, `chaos` for a duplicate chaos sent. */
  trigger: 'schedule' | 'redeliver' | 'chaos';
  /** What delivery chaos did to this attempt; absent when it did nothing. */
  chaos?: AttemptChaos;
}

/** An event and the story of its delivery, as the delivery log shows it. */
export interface Delivery {
  eventId: string;
  connectionId: string;
  type: ServiceEvent['type'];
  state: DeliveryState;
  createdTime: string;
  /** When the next automatic attempt is due, while retrying. */
  nextAttemptTime: string | null;
  /** Why it is failed: `no 2xx answer after 8 attempts`, `webhook deleted before delivery`; null otherwise. */
  failureReason: string | null;
  attempts: DeliveryAttempt[];
  event: ServiceEvent;
}

/**
 * An event as the log keeps it: its signed body, not the event object too. The object (and the
 * record in it) is parsed back from the body when a delivery's `event` is read: a full log
 * (10,000 events) then holds each event once, as text.
 */
type LoggedEvent = Omit<EmittedEvent, 'event'> & { type: ServiceEvent['type'] };

interface Entry {
  emitted: LoggedEvent;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** Automatic attempts made so far; the retry schedule is counted on these. */
  scheduledAttempts: number;
  nextAttemptAt: number | null;
  failureReason: string | null;
  timer: Timer | undefined;
  /** What chaos did to the automatic attempt the timer will make (kept for snapshots). */
  nextChaos?: AttemptChaos | undefined;
  /** The log of the connection's tenant, which the log limit is counted on. */
  shard: LogShard;
}

/**
 * One tenant's part of the delivery log: the log limit is counted per tenant, so one tenant's
 * deliveries never evict another's (as one journal ring per tenant, docs/decisions/0121).
 */
interface LogShard {
  /** The tenant's entries, oldest first. */
  entries: Map<string, Entry>;
  /** How many of them are succeeded or failed, and how many of those succeeded. */
  finished: number;
  succeeded: number;
}

interface Queue {
  /** The connection's undelivered events, oldest first. Only the head is ever attempted. */
  items: Entry[];
  /** An automatic attempt in flight, which holds the queue back even if its entry left it. */
  inFlight: Entry | undefined;
}

export interface DispatcherOptions {
  clock: Clock;
  transport: HttpTransport;
  /** Delays before each retry; the number of retries is its length. */
  retryScheduleMs: readonly number[];
  attemptTimeoutMs: number;
  /** The time each attempt's `x-service-timestamp` states, ms: the sandbox clock's, or the real time. */
  signingNow: () => number;
  /**
   * Most finished (succeeded or failed) deliveries kept in the log, per tenant; the oldest
   * succeeded ones go first. Unfinished ones are always kept: they still have work to do.
   */
  logLimit: number;
  /** The tenant a connection belongs to (its API key), on which the log limit is counted. Default: one for all. */
  tenantOf?: (connectionId: string) => string | undefined;
  /**
   * Most deliveries a connection keeps waiting (pending, retrying or in flight): over it the
   * oldest one not in flight is dropped, marked failed with a reason. `Infinity`: no cap. Default: no cap.
   */
  pendingLimit?: number;
  /** The connection's accessToken and current webhook, if it still exists. */
  target: (connectionId: string) => { accessToken: string; webhook: Webhook | undefined } | undefined;
  /** Root of the chaos streams: each connection draws its chaos from its own fork. */
  random: Random;
  /** Chaos for every connection that has none of its own (`serve --delivery-chaos`). */
  defaultChaos?: ChaosSettings | undefined;
  /** Called after each attempt is recorded (state persistence watches it). */
  onAttempt?: () => void;
}

/** A connection's chaos as a snapshot keeps it. */
export interface ChaosRecord {
  connectionId: string;
  settings: ChaosSettings;
  outageUntil: number | null;
  stream: RandomState | null;
}

/** How an attempt relates to its delivery: it decides the queue's next step, only records, or repeats an accepted one. */
type AttemptKind = 'schedule' | 'manual' | 'duplicate';

const iso = (ms: number) => new Date(ms).toISOString();

/** One delivery as a snapshot keeps it: enough to go on with its schedule after a restore. */
export interface DeliveryRecord {
  eventId: string;
  connectionId: string;
  createdAt: number;
  /** The exact JSON text sent and signed. */
  body: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  scheduledAttempts: number;
  nextAttemptAt: number | null;
  failureReason: string | null;
  /** Still in its connection's queue (not yet succeeded or failed). */
  queued: boolean;
  /** What chaos did to the automatic attempt already scheduled. */
  nextChaos?: AttemptChaos | undefined;
}

/**
 * Delivers events to webhooks: one connection's events strictly in order (a failing event
 * holds back later ones until it succeeds or is marked failed), each attempt signed afresh,
 * retried on the schedule, every attempt logged.
 */
export class Dispatcher {
  private readonly options: DispatcherOptions;
  private readonly log = new Map<string, Entry>();
  private readonly shards = new Map<string, LogShard>();
  private readonly queues = new Map<string, Queue>();
  /** Aborts the attempts in flight when the sandbox closes. */
  private readonly closing = new AbortController();
  private readonly chaos = new Map<string, Chaos>();
  private readonly chaosStreams = new Map<string, Random>();
  private readonly defaultChaos: Chaos | null;

  constructor(options: DispatcherOptions) {
    this.options = options;
    this.defaultChaos = options.defaultChaos ? resolveChaos(options.defaultChaos, options.clock.now()) : null;
  }

  /** Sets a connection's delivery chaos (`{}` for none); it applies from the next attempt on. */
  setChaos(connectionId: string, settings: ChaosSettings): ChaosSettings {
    const chaos = resolveChaos(settings, this.options.clock.now());
    if (chaos) this.chaos.set(connectionId, chaos);
    else this.chaos.delete(connectionId);
    this.pump(connectionId);
    return chaos?.settings ?? {};
  }

  /** The chaos a connection's deliveries are under (its own, else the default). */
  chaosOf(connectionId: string): ChaosSettings {
    return (this.chaos.get(connectionId) ?? this.defaultChaos)?.settings ?? {};
  }

  /** Per-connection chaos and where each chaos stream stands, for snapshots. */
  exportChaos(): ChaosRecord[] {
    return [...this.chaos].map(([connectionId, chaos]) => ({
      connectionId,
      settings: chaos.settings,
      outageUntil: chaos.outageUntil,
      stream: this.chaosStreams.get(connectionId)?.state() ?? null,
    }));
  }

  /** Takes over a snapshot's chaos (on a fresh dispatcher, before its deliveries). */
  importChaos(records: readonly ChaosRecord[]): void {
    for (const record of records) {
      const chaos = resolveChaos(record.settings, this.options.clock.now());
      if (!chaos) continue;
      this.chaos.set(record.connectionId, { ...chaos, outageUntil: record.outageUntil });
      if (record.stream) this.chaosStreams.set(record.connectionId, Random.fromState(record.stream));
    }
  }

  private activeChaos(connectionId: string): Chaos | null {
    return this.chaos.get(connectionId) ?? this.defaultChaos;
  }

  private chaosStream(connectionId: string): Random {
    let random = this.chaosStreams.get(connectionId);
    if (!random) {
      random = this.options.random.fork(`chaos:${connectionId}`);
      this.chaosStreams.set(connectionId, random);
    }
    return random;
  }

  enqueue(emitted: EmittedEvent): void {
    const entry: Entry = {
      emitted: { eventId: emitted.eventId, connectionId: emitted.connectionId, createdAt: emitted.createdAt, type: emitted.event.type, body: emitted.body },
      state: 'pending',
      attempts: [],
      scheduledAttempts: 0,
      nextAttemptAt: null,
      failureReason: null,
      timer: undefined,
      shard: this.shardOf(emitted.connectionId),
    };
    this.add(entry);
    const queue = this.queueOf(emitted.connectionId);
    queue.items.push(entry);
    if (queue.items.length > (this.options.pendingLimit ?? Infinity)) this.dropOldest(queue);
    this.pump(emitted.connectionId);
  }

  /**
   * A bounded queue: the oldest event not in flight makes room for the new one, as a webhook
   * delete drops what waits (marked failed, with the reason). Refusing the record write that
   * made the event instead would fail a write for the sake of its notification.
   */
  private dropOldest(queue: Queue): void {
    const victim = queue.items.find((entry) => entry.state !== 'delivering');
    if (!victim) return;
    victim.timer?.cancel();
    victim.timer = undefined;
    victim.nextAttemptAt = null;
    victim.nextChaos = undefined;
    this.setState(victim, 'failed');
    victim.failureReason = `dropped: the connection had more than ${this.options.pendingLimit} deliveries waiting (the sandbox's cap: pendingDeliveryLimit, --pending-delivery-limit)`;
    removeFrom(queue.items, victim);
    this.evict(victim.shard);
  }

  /** A webhook was created: send what waited for it. */
  webhookCreated(connectionId: string): void {
    this.pump(connectionId);
  }

  /** The webhook is gone: what was waiting for it is dropped (marked failed), nothing more is sent. */
  webhookDeleted(connectionId: string): void {
    const queue = this.queues.get(connectionId);
    if (!queue) return;
    for (const entry of queue.items) {
      entry.timer?.cancel();
      entry.timer = undefined;
      entry.nextAttemptAt = null;
      // An attempt in flight finishes and keeps its outcome; the rest is dropped.
      if (entry.state !== 'delivering') {
        this.setState(entry, 'failed');
        entry.failureReason = 'webhook deleted before delivery';
      }
    }
    queue.items = [];
  }

  /** The connection is gone: drop its queue and its log. */
  connectionRemoved(connectionId: string): void {
    this.webhookDeleted(connectionId);
    this.queues.delete(connectionId);
    this.chaos.delete(connectionId);
    this.chaosStreams.delete(connectionId);
    for (const [eventId, entry] of this.log) if (entry.emitted.connectionId === connectionId) this.remove(eventId, entry);
  }

  /** Aborts the attempts in flight: a closed sandbox waits for no receiver. */
  close(): void {
    this.closing.abort();
  }

  /** The deliveries of a connection (or all), oldest first. */
  list(connectionId?: string): Delivery[] {
    const out: Delivery[] = [];
    for (const entry of this.log.values()) {
      if (connectionId === undefined || entry.emitted.connectionId === connectionId) out.push(snapshot(entry));
    }
    return out;
  }

  /**
   * The eventIds of a connection's deliveries still to finish (queued, retrying or in flight),
   * oldest first: cheap to ask often, unlike `list()`, which copies every delivery.
   */
  unfinished(connectionId: string): string[] {
    const queue = this.queues.get(connectionId);
    if (!queue) return [];
    const ids = queue.items.map((entry) => entry.emitted.eventId);
    if (queue.inFlight && !isFinished(queue.inFlight.state) && !ids.includes(queue.inFlight.emitted.eventId)) ids.unshift(queue.inFlight.emitted.eventId);
    return ids;
  }

  get(eventId: string): Delivery | undefined {
    const entry = this.log.get(eventId);
    return entry && snapshot(entry);
  }

  /** The exact JSON text sent (and signed) for an event still in the log. */
  bodyOf(eventId: string): string | undefined {
    return this.log.get(eventId)?.emitted.body;
  }

  /**
   * Sends an event again now, as a new attempt of the same event. A retrying event has its next
   * attempt brought forward; a succeeded or failed one gets one extra attempt. Resolves once
   * the attempt is done.
   */
  async redeliver(eventId: string): Promise<Delivery> {
    const entry = this.log.get(eventId);
    if (!entry) throw ApiError.notFound('Delivery', eventId, 'eventId');
    const target = this.options.target(entry.emitted.connectionId);
    if (!target?.webhook) {
      throw new ApiError(409, ErrorCode.WEBHOOK_NOT_FOUND, 'the connection has no webhook to deliver to; create one first');
    }
    if (entry.state === 'delivering' || entry.state === 'pending') {
      const why = entry.state === 'delivering' ? 'is being delivered right now' : 'is queued behind earlier events of its connection';
      throw new ApiError(409, ErrorCode.DELIVERY_IN_PROGRESS, `event ${eventId} ${why}`, { state: entry.state });
    }
    if (entry.state === 'retrying') {
      entry.timer?.cancel();
      entry.timer = undefined;
      await this.options.clock.track(this.attempt(entry, 'schedule', 'redeliver'));
    } else {
      await this.options.clock.track(this.attempt(entry, 'manual', 'redeliver'));
    }
    return snapshot(entry);
  }

  /** The whole log in order, for a snapshot. */
  exportState(): DeliveryRecord[] {
    const queued = new Set<Entry>();
    for (const queue of this.queues.values()) for (const entry of queue.items) queued.add(entry);
    return [...this.log.values()].map((entry) => ({
      eventId: entry.emitted.eventId,
      connectionId: entry.emitted.connectionId,
      createdAt: entry.emitted.createdAt,
      body: entry.emitted.body,
      state: entry.state,
      attempts: entry.attempts.map((attempt) => ({ ...attempt })),
      scheduledAttempts: entry.scheduledAttempts,
      nextAttemptAt: entry.nextAttemptAt,
      failureReason: entry.failureReason,
      queued: queued.has(entry),
      ...(entry.nextChaos ? { nextChaos: entry.nextChaos } : {}),
    }));
  }

  /**
   * Rebuilds the log and queues of a snapshot (on a fresh dispatcher) and goes on: retries at
   * their scheduled time (at once if it has passed), queues pumped. An attempt that was in
   * flight when the snapshot was taken never finished: it is made again.
   */
  importState(records: readonly DeliveryRecord[]): void {
    for (const record of records) {
      const entry: Entry = {
        emitted: {
          eventId: record.eventId,
          connectionId: record.connectionId,
          createdAt: record.createdAt,
          type: (JSON.parse(record.body) as ServiceEvent).type,
          body: record.body,
        },
        state: record.state,
        attempts: record.attempts.map((attempt) => ({ ...attempt })),
        scheduledAttempts: record.scheduledAttempts,
        nextAttemptAt: record.nextAttemptAt,
        failureReason: record.failureReason,
        timer: undefined,
        nextChaos: record.nextChaos,
        shard: this.shardOf(record.connectionId),
      };
      if (entry.state === 'delivering') {
        if (record.queued) {
          entry.state = 'pending';
          entry.scheduledAttempts = Math.max(0, entry.scheduledAttempts - 1);
        } else {
          entry.state = 'failed';
          entry.failureReason = 'redelivery interrupted by a restart';
        }
      }
      this.add(entry);
      if (!record.queued) continue;
      this.queueOf(record.connectionId).items.push(entry);
      if (entry.state === 'retrying') {
        const at = entry.nextAttemptAt ?? this.options.clock.now();
        entry.timer = this.options.clock.setTimer(at - this.options.clock.now(), () => {
          entry.timer = undefined;
          return this.attempt(entry, 'schedule', 'schedule', entry.nextChaos);
        });
      }
    }
    for (const connectionId of this.queues.keys()) this.pump(connectionId);
  }

  private queueOf(connectionId: string): Queue {
    let queue = this.queues.get(connectionId);
    if (!queue) {
      queue = { items: [], inFlight: undefined };
      this.queues.set(connectionId, queue);
    }
    return queue;
  }

  /**
   * Starts the head of a connection's queue if nothing holds it back; under `reorder` chaos,
   * every waiting event of the connection, each on its own.
   */
  private pump(connectionId: string): void {
    const queue = this.queues.get(connectionId);
    if (!queue || !this.options.target(connectionId)?.webhook) return;
    const chaos = this.activeChaos(connectionId);
    if (chaos?.reorder) {
      for (const entry of queue.items) if (entry.state === 'pending' && !entry.timer) this.start(entry, chaos);
      return;
    }
    const head = queue.items[0];
    if (!head || queue.inFlight || head.state !== 'pending' || head.timer) return;
    this.start(head, chaos);
  }

  /** The first automatic attempt of an event, after the chaos delay if there is one. */
  private start(entry: Entry, chaos: Chaos | null): void {
    const delayMs = chaos ? chaosDelay(chaos, this.chaosStream(entry.emitted.connectionId)) : 0;
    if (delayMs === 0 && !chaos?.reorder) {
      void this.options.clock.track(this.attempt(entry, 'schedule', 'schedule'));
      return;
    }
    this.later(entry, delayMs, { delayMs });
  }

  /** An automatic attempt `delayMs` from now. */
  private later(entry: Entry, delayMs: number, chaos: AttemptChaos): void {
    entry.nextAttemptAt = this.options.clock.now() + delayMs;
    entry.nextChaos = Object.keys(chaos).length > 0 ? chaos : undefined;
    entry.timer = this.options.clock.setTimer(delayMs, () => {
      entry.timer = undefined;
      return this.attempt(entry, 'schedule', 'schedule', entry.nextChaos);
    });
  }

  /**
   * One POST. `schedule` attempts belong to the queue (they hold it, count towards the retry
   * schedule and decide what comes next); `manual` ones only record their outcome; a `duplicate`
   * (chaos) repeats an accepted one and leaves the delivery succeeded.
   */
  private async attempt(entry: Entry, kind: AttemptKind, trigger: DeliveryAttempt['trigger'], chaos: AttemptChaos = {}): Promise<void> {
    const connectionId = entry.emitted.connectionId;
    const target = this.options.target(connectionId);
    const webhook = target?.webhook;
    if (!target || !webhook) return;
    const queue = this.queueOf(connectionId);
    if (kind === 'schedule') {
      queue.inFlight = entry;
      entry.scheduledAttempts++;
    }
    this.setState(entry, 'delivering');
    entry.nextAttemptAt = null;
    entry.nextChaos = undefined;

    const startedAt = this.options.clock.now();
    const timestamp = String(Math.floor(this.options.signingNow() / 1000));
    const headers = signedHeaders(target.accessToken, connectionId, entry.emitted.body, timestamp);
    const outageUntil = this.activeChaos(connectionId)?.outageUntil;
    const outage = outageUntil != null && startedAt < outageUntil;
    if (outage) chaos = { ...chaos, outage: true };
    // Real elapsed time: it measures the network, which a virtual clock does not govern.
    const started = performance.now();
    const outcome = outage
      ? { error: 'chaos: simulated outage' }
      : await this.options.transport(webhook.webhookUrl, headers, entry.emitted.body, this.options.attemptTimeoutMs, this.closing.signal);
    // The connection was deleted meanwhile: its log and queue are gone, and so is this attempt.
    if (this.log.get(entry.emitted.eventId) !== entry) return;
    const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    entry.attempts.push({
      attempt: entry.attempts.length + 1,
      time: iso(startedAt),
      webhookUrl: webhook.webhookUrl,
      timestamp,
      status: outcome.status ?? null,
      error: outcome.error ?? null,
      durationMs: Math.round(performance.now() - started),
      trigger,
      ...(Object.keys(chaos).length > 0 ? { chaos } : {}),
    });
    if (kind === 'schedule') queue.inFlight = undefined;
    // A duplicate repeats an event the receiver already accepted: whatever its answer, the delivery stays succeeded.
    if (kind === 'duplicate') {
      this.setState(entry, 'succeeded');
      return;
    }

    const queued = queue.items[0] === entry || queue.items.includes(entry);
    if (ok) {
      this.setState(entry, 'succeeded');
      entry.failureReason = null;
      if (queued) removeFrom(queue.items, entry);
      const chaosNow = this.activeChaos(connectionId);
      if (kind === 'schedule' && chaosNow && chaosDuplicates(chaosNow, this.chaosStream(connectionId))) {
        // The duplicate goes out before the next event, holding the queue as the original did.
        queue.inFlight = entry;
        await this.attempt(entry, 'duplicate', 'chaos', { duplicate: true });
        queue.inFlight = undefined;
      }
    } else if (queued && kind === 'schedule' && entry.scheduledAttempts <= this.options.retryScheduleMs.length) {
      const retryMs = this.options.retryScheduleMs[entry.scheduledAttempts - 1]!;
      const chaosNow = this.activeChaos(connectionId);
      const delayMs = chaosNow ? chaosDelay(chaosNow, this.chaosStream(connectionId)) : 0;
      this.setState(entry, 'retrying');
      this.later(entry, retryMs + delayMs, delayMs > 0 ? { delayMs } : {});
    } else {
      this.setState(entry, 'failed');
      entry.failureReason = `no 2xx answer after ${entry.attempts.length} attempt${entry.attempts.length === 1 ? '' : 's'}`;
      if (queued) removeFrom(queue.items, entry);
    }
    this.evict(entry.shard);
    this.options.onAttempt?.();
    this.pump(connectionId);
  }

  private setState(entry: Entry, state: DeliveryState): void {
    const { shard } = entry;
    shard.finished += Number(isFinished(state)) - Number(isFinished(entry.state));
    shard.succeeded += Number(state === 'succeeded') - Number(entry.state === 'succeeded');
    entry.state = state;
  }

  /** The log part of a connection's tenant. */
  private shardOf(connectionId: string): LogShard {
    const tenant = this.options.tenantOf?.(connectionId) ?? '';
    let shard = this.shards.get(tenant);
    if (!shard) {
      shard = { entries: new Map(), finished: 0, succeeded: 0 };
      this.shards.set(tenant, shard);
    }
    return shard;
  }

  private add(entry: Entry): void {
    const { shard } = entry;
    if (isFinished(entry.state)) shard.finished++;
    if (entry.state === 'succeeded') shard.succeeded++;
    shard.entries.set(entry.emitted.eventId, entry);
    this.log.set(entry.emitted.eventId, entry);
  }

  private remove(eventId: string, entry: Entry): void {
    const { shard } = entry;
    if (isFinished(entry.state)) shard.finished--;
    if (entry.state === 'succeeded') shard.succeeded--;
    shard.entries.delete(eventId);
    this.log.delete(eventId);
  }

  /** Keeps a tenant's finished deliveries within the limit: its oldest succeeded first, then its oldest failed. */
  private evict(shard: LogShard): void {
    while (shard.finished > this.options.logLimit) {
      // Counted, so a log of failed deliveries (a connection without a webhook) is not scanned for a succeeded one each time.
      const victim = (shard.succeeded > 0 ? oldest(shard, 'succeeded') : undefined) ?? oldest(shard, 'failed');
      if (!victim) return;
      this.remove(victim.emitted.eventId, victim);
    }
  }
}

function oldest(shard: LogShard, state: DeliveryState): Entry | undefined {
  for (const entry of shard.entries.values()) if (entry.state === state) return entry;
  return undefined;
}

const isFinished = (state: DeliveryState) => state === 'succeeded' || state === 'failed';

/** Removes an entry from a queue: the head in order, anywhere under `reorder` chaos. */
function removeFrom(items: Entry[], entry: Entry): void {
  if (items[0] === entry) items.shift();
  else items.splice(items.indexOf(entry), 1);
}

function snapshot(entry: Entry): Delivery {
  let event: ServiceEvent | undefined;
  return {
    eventId: entry.emitted.eventId,
    connectionId: entry.emitted.connectionId,
    type: entry.emitted.type,
    state: entry.state,
    createdTime: iso(entry.emitted.createdAt),
    nextAttemptTime: entry.nextAttemptAt === null ? null : iso(entry.nextAttemptAt),
    failureReason: entry.failureReason,
    attempts: entry.attempts.map((attempt) => ({ ...attempt })),
    // Parsed when read, once per snapshot: listing states and attempts parses nothing.
    get event(): ServiceEvent {
      return (event ??= JSON.parse(entry.emitted.body) as ServiceEvent);
    },
  };
}
