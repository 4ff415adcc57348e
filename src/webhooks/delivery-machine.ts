import type { Clock } from '../clock/clock.js';
import type { Webhook } from '../model/connection.js';
import type { HttpTransport, PostOutcome } from '../model/transport.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import type { AttemptChaos } from './chaos.js';
import { type AttemptTrigger, type DeliveryAttempt, isFinished } from './delivery.js';
import type { DeliveryChaos } from './delivery-chaos.js';
import type { DeliveryEntry, DeliveryLog } from './delivery-log.js';
import type { RetryPolicy } from './retry-policy.js';
import { signedHeaders } from './signed-headers.js';

/** Where a connection's events go: its accessToken (the signing key) and its webhook. */
interface Target {
  accessToken: string;
  webhook: Webhook;
}

export interface DeliveryMachineOptions {
  clock: Clock;
  transport: HttpTransport;
  attemptTimeoutMs: number;
  /** The time each attempt's `x-service-timestamp` states, ms: the sandbox clock's, or the real time. */
  signingNow: () => number;
  /**
   * Most deliveries a connection keeps waiting (pending, retrying or in flight): over it the
   * oldest one not in flight is dropped, marked failed with a reason. `Infinity`: no cap.
   */
  pendingLimit: number;
  /** The connection's accessToken and current webhook, if it still exists. */
  target: (connectionId: string) => { accessToken: string; webhook: Webhook | undefined } | undefined;
  log: DeliveryLog;
  chaos: DeliveryChaos;
  retries: RetryPolicy;
  /** Called after each attempt is recorded (state persistence watches it). */
  onAttempt?: (() => void) | undefined;
  /** Called with every attempt (chaos's duplicates too) once it is recorded and what comes next is decided. */
  attempted?: ((entry: DeliveryEntry, attempt: DeliveryAttempt) => void) | undefined;
  /**
   * An outbox (`serve --state-file`, docs/decisions/0031): no event is attempted before a save
   * of the state holding it has completed ({@link DeliveryMachine.saved}). Default: off.
   */
  outbox?: boolean | undefined;
}

interface Queue {
  /** The connection's undelivered events, oldest first. Only the head is ever attempted (unless under `reorder` chaos). */
  items: DeliveryEntry[];
  /** An automatic attempt in flight, which holds the queue back even if its entry left it. */
  inFlight: DeliveryEntry | undefined;
}

/** What a simulated outage answers in place of the receiver. */
const OUTAGE: PostOutcome = { error: 'chaos: simulated outage' };

/**
 * The ISO text of a time: its second's text made once, its milliseconds put in (a Date and its text cost 0.6-3 µs at
 * every attempt, and several attempts start each millisecond). A time that is not a whole millisecond goes the Date's way.
 */
let isoSecond = { at: Number.NaN, head: '' };
function iso(ms: number): string {
  const millis = ms % 1000;
  if (!Number.isInteger(ms) || millis < 0) return new Date(ms).toISOString();
  const at = ms - millis;
  if (at !== isoSecond.at) isoSecond = { at, head: new Date(at).toISOString().slice(0, -4) };
  return isoSecond.head + (millis < 10 ? `00${millis}Z` : millis < 100 ? `0${millis}Z` : `${millis}Z`);
}
const accepted = (outcome: PostOutcome) => outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;

/**
 * The delivery state machine: pending → delivering → succeeded | retrying (→ delivering …) |
 * failed. One connection's events go strictly in order: a failing event holds back later ones
 * until it succeeds or is failed. Each attempt is signed afresh; a redelivery is a new attempt
 * of the same event. The retry policy says when a failed attempt is made again, chaos what
 * happens to each attempt, and the log keeps what happened.
 */
export class DeliveryMachine {
  private readonly options: DeliveryMachineOptions;
  private readonly queues = new Map<string, Queue>();
  /** Aborts the attempts in flight when the sandbox closes. */
  private readonly closing = new AbortController();
  /** With an outbox: the entries no completed save holds yet, which wait (undefined: no outbox). */
  private unsaved: Set<DeliveryEntry> | undefined;

  constructor(options: DeliveryMachineOptions) {
    this.options = options;
    if (options.outbox) this.useOutbox();
  }

  /** Turns the outbox on: events queued from now on wait for {@link saved}. */
  useOutbox(): void {
    this.unsaved ??= new Set();
  }

  /** Queues a new (logged) event behind its connection's earlier ones, and sends what can go. */
  enqueue(entry: DeliveryEntry): void {
    const { connectionId } = entry.emitted;
    const queue = this.queueOf(connectionId);
    this.unsaved?.add(entry);
    queue.items.push(entry);
    if (queue.items.length > this.options.pendingLimit) this.dropOldest(queue);
    this.pump(connectionId);
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
    this.options.log.setState(victim, 'failed');
    victim.failureReason = `dropped: the connection had more than ${this.options.pendingLimit} deliveries waiting (the sandbox's cap: pendingDeliveryLimit, --pending-delivery-limit)`;
    unqueue(queue, victim);
    this.options.log.evict(victim);
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
        this.options.log.setState(entry, 'failed');
        entry.failureReason = 'webhook deleted before delivery';
      }
    }
    queue.items = [];
  }

  /** The connection is gone: drop its queue (its webhook's deletion dropped what waited in it). */
  forget(connectionId: string): void {
    this.webhookDeleted(connectionId);
    this.queues.delete(connectionId);
  }

  /** Aborts the attempts in flight: a closed sandbox waits for no receiver. */
  close(): void {
    this.closing.abort();
  }

  /** The eventIds of a connection's deliveries still to finish (queued, retrying or in flight), oldest first. */
  unfinished(connectionId: string): string[] {
    const queue = this.queues.get(connectionId);
    if (!queue) return [];
    const ids = queue.items.map((entry) => entry.emitted.eventId);
    const { inFlight } = queue;
    if (inFlight && !isFinished(inFlight.state) && !ids.includes(inFlight.emitted.eventId)) ids.unshift(inFlight.emitted.eventId);
    return ids;
  }

  /** Every entry still in a queue, for a snapshot. */
  queued(): Set<DeliveryEntry> {
    const queued = new Set<DeliveryEntry>();
    for (const queue of this.queues.values()) for (const entry of queue.items) queued.add(entry);
    return queued;
  }

  /**
   * Sends an event again now, as a new attempt of the same event: a retrying event has its next
   * attempt brought forward; a succeeded or failed one gets one extra attempt. A 409 when there
   * is no webhook, or when the event is queued or being sent. Resolves once the attempt is done.
   */
  async redeliver(entry: DeliveryEntry): Promise<void> {
    const { eventId, connectionId } = entry.emitted;
    if (!this.targetOf(connectionId)) {
      throw new ApiError(409, ErrorCode.WEBHOOK_NOT_FOUND, 'the connection has no webhook to deliver to; create one first');
    }
    if (entry.state === 'delivering' || entry.state === 'pending') {
      const why = entry.state === 'delivering' ? 'is being delivered right now' : 'is queued behind earlier events of its connection';
      throw new ApiError(409, ErrorCode.DELIVERY_IN_PROGRESS, `event ${eventId} ${why}`, { state: entry.state });
    }
    if (entry.state === 'retrying') {
      entry.timer?.cancel();
      entry.timer = undefined;
      await this.options.clock.track(this.scheduled(entry, 'redeliver'));
    } else {
      await this.options.clock.track(this.extra(entry));
    }
  }

  /**
   * "Retry now": the attempts a connection's queue waits on are made at once, as attempts asked for
   * by hand that count on the schedule, as a redelivery of a retrying event does. That is its head
   * when it is retrying (under `reorder` chaos, every retrying event); once it is accepted, the
   * events held behind it follow at once. Resolves when those attempts are done, with their entries
   * (none when nothing waits on a retry).
   */
  async retryNow(connectionId: string): Promise<DeliveryEntry[]> {
    const queue = this.queues.get(connectionId);
    if (!queue || !this.targetOf(connectionId)) return [];
    const waiting = this.options.chaos.reorders(connectionId) ? queue.items.filter(isWaitingToRetry) : queue.items.slice(0, 1).filter(isWaitingToRetry);
    if (waiting.length === 0 || (queue.inFlight && !this.options.chaos.reorders(connectionId))) return [];
    await Promise.all(
      waiting.map((entry) => {
        entry.timer?.cancel();
        entry.timer = undefined;
        return this.options.clock.track(this.scheduled(entry, 'redeliver'));
      }),
    );
    return waiting;
  }

  /**
   * Takes over a snapshot's entry (already rebuilt by the log) and goes on: a retry at its
   * scheduled time (at once if it has passed). An attempt that was in flight when the snapshot
   * was taken never finished: it is made again, or, a redelivery, failed. Call {@link pumpAll} after the last.
   */
  resume(entry: DeliveryEntry, queued: boolean): void {
    if (entry.state === 'delivering') {
      if (queued) {
        entry.state = 'pending';
        entry.scheduledAttempts = Math.max(0, entry.scheduledAttempts - 1);
      } else {
        entry.state = 'failed';
        entry.failureReason = 'redelivery interrupted by a restart';
      }
    }
    this.options.log.add(entry);
    if (!queued) return;
    this.queueOf(entry.emitted.connectionId).items.push(entry);
    // With an outbox, what a restore brought in waits for a save too (the state file holds the state from before it).
    if (this.unsaved) this.unsaved.add(entry);
    else if (entry.state === 'retrying') this.retryAtItsTime(entry);
  }

  /** A resumed retry, at its scheduled time (at once if it has passed). */
  private retryAtItsTime(entry: DeliveryEntry): void {
    const { clock } = this.options;
    const at = entry.nextAttemptAt ?? clock.now();
    entry.timer = clock.setTimer(at - clock.now(), () => {
      entry.timer = undefined;
      return this.scheduled(entry, 'schedule', entry.nextChaos);
    });
  }

  /**
   * With an outbox: the events a save about to be taken holds (those queued so far), for {@link saved} once it has
   * completed: a save that completes later, with turns of the event loop between (a whole save in pieces), releases
   * these and not those queued meanwhile.
   */
  savePoint(): ReadonlySet<DeliveryEntry> {
    return new Set(this.unsaved);
  }

  /**
   * With an outbox: a save holding every event queued so far (or those of `point`, taken as the save began) has
   * completed, so they may go (a resumed retry at its time). Without a point, call it right after the save, before
   * anything else runs.
   */
  saved(point?: ReadonlySet<DeliveryEntry>): void {
    if (!this.unsaved || this.unsaved.size === 0) return;
    const connections = new Set<string>();
    for (const entry of point ?? this.unsaved) {
      if (point) this.unsaved.delete(entry);
      // Dropped, or its connection or webhook gone meanwhile: nothing to send.
      if (!this.options.log.holds(entry) || isFinished(entry.state)) continue;
      if (entry.state === 'retrying' && !entry.timer) this.retryAtItsTime(entry);
      connections.add(entry.emitted.connectionId);
    }
    if (!point) this.unsaved.clear();
    for (const connectionId of connections) this.pump(connectionId);
  }

  /** Sends what can go in every queue (after a restore). */
  pumpAll(): void {
    for (const connectionId of this.queues.keys()) this.pump(connectionId);
  }

  /**
   * Starts the head of a connection's queue if nothing holds it back (a webhook created, chaos
   * changed, an attempt finished); under `reorder` chaos, every waiting event, each on its own.
   */
  pump(connectionId: string): void {
    const queue = this.queues.get(connectionId);
    if (!queue || !this.targetOf(connectionId)) return;
    const { unsaved } = this;
    if (this.options.chaos.reorders(connectionId)) {
      for (const entry of queue.items) if (entry.state === 'pending' && !entry.timer && !unsaved?.has(entry)) this.start(entry, true);
      return;
    }
    const head = queue.items[0];
    if (!head || queue.inFlight || head.state !== 'pending' || head.timer || unsaved?.has(head)) return;
    this.start(head, false);
  }

  private queueOf(connectionId: string): Queue {
    let queue = this.queues.get(connectionId);
    if (!queue) {
      queue = { items: [], inFlight: undefined };
      this.queues.set(connectionId, queue);
    }
    return queue;
  }

  /** The connection's target if it has a webhook (the object `target` answers, not a copy of it: this is asked twice an attempt). */
  private targetOf(connectionId: string): Target | undefined {
    const target = this.options.target(connectionId);
    return target?.webhook ? (target as Target) : undefined;
  }

  /** The first automatic attempt of an event: now, or after its chaos delay (always on a timer under `reorder`). */
  private start(entry: DeliveryEntry, reorder: boolean): void {
    const delayMs = this.options.chaos.delay(entry.emitted.connectionId);
    if (delayMs === 0 && !reorder) {
      void this.options.clock.track(this.scheduled(entry, 'schedule'));
      return;
    }
    this.later(entry, delayMs, { delayMs });
  }

  /** An automatic attempt `delayMs` from now. */
  private later(entry: DeliveryEntry, delayMs: number, chaos: AttemptChaos): void {
    const { clock } = this.options;
    entry.nextAttemptAt = clock.now() + delayMs;
    entry.nextChaos = Object.keys(chaos).length > 0 ? chaos : undefined;
    entry.timer = clock.setTimer(delayMs, () => {
      entry.timer = undefined;
      return this.scheduled(entry, 'schedule', entry.nextChaos);
    });
  }

  /**
   * An automatic attempt (or a retry brought forward by a redelivery): it holds its connection's
   * queue while in flight, counts on the retry schedule, and decides what comes next.
   */
  private scheduled(entry: DeliveryEntry, trigger: AttemptTrigger, chaos: AttemptChaos = {}): Promise<void> {
    const target = this.targetOf(entry.emitted.connectionId);
    if (!target) return Promise.resolve();
    const queue = this.queueOf(entry.emitted.connectionId);
    queue.inFlight = entry;
    entry.scheduledAttempts++;
    return this.attempt(entry, target, trigger, chaos, (ok) => this.afterScheduled(entry, queue, ok));
  }

  private afterScheduled(entry: DeliveryEntry, queue: Queue, ok: boolean): Promise<void> | undefined {
    const { connectionId } = entry.emitted;
    const { chaos, log } = this.options;
    queue.inFlight = undefined;
    const queued = isQueued(queue, entry);
    const retryMs = ok || !queued ? undefined : this.options.retries.retryAfter(entry.scheduledAttempts);
    if (ok) {
      this.finish(entry, queue, 'succeeded');
      if (chaos.duplicates(connectionId)) return this.duplicateThenGoOn(entry, queue);
    } else if (retryMs !== undefined) {
      const delayMs = chaos.delay(connectionId);
      log.setState(entry, 'retrying');
      this.later(entry, retryMs + delayMs, delayMs > 0 ? { delayMs } : {});
    } else {
      this.finish(entry, queue, 'failed');
    }
    this.goOn(entry);
    return undefined;
  }

  /** Chaos repeats an accepted event before the next one goes out, holding the queue as the original did. */
  private async duplicateThenGoOn(entry: DeliveryEntry, queue: Queue): Promise<void> {
    queue.inFlight = entry;
    await this.duplicate(entry);
    queue.inFlight = undefined;
    this.goOn(entry);
  }

  /** A redelivery of a succeeded or failed event: one more attempt, outside the schedule, that only records its outcome. */
  private extra(entry: DeliveryEntry): Promise<void> {
    const target = this.targetOf(entry.emitted.connectionId);
    if (!target) return Promise.resolve();
    return this.attempt(entry, target, 'redeliver', {}, (ok) => {
      const queue = this.queues.get(entry.emitted.connectionId);
      this.finish(entry, queue, ok ? 'succeeded' : 'failed');
      this.goOn(entry);
      // The receiver answered 2xx: it is back, so what its queue waits on is tried now, not at its scheduled time.
      if (ok) this.receiverBack(entry.emitted.connectionId);
      return undefined;
    });
  }

  /**
   * A connection's receiver accepted an attempt outside its queue's order (a redelivery of a
   * finished event): the events held behind a retrying one go now, not at its next scheduled retry.
   * Tracked, so a virtual clock's `settle()` waits for them.
   */
  private receiverBack(connectionId: string): void {
    if (this.queues.get(connectionId)?.items.some(isWaitingToRetry)) void this.options.clock.track(this.retryNow(connectionId));
  }

  /** Chaos's duplicate of an accepted attempt: whatever the receiver answers, the delivery stays succeeded. */
  private duplicate(entry: DeliveryEntry): Promise<void> {
    const target = this.targetOf(entry.emitted.connectionId);
    if (!target) return Promise.resolve();
    return this.attempt(entry, target, 'chaos', { duplicate: true }, () => {
      this.options.log.setState(entry, 'succeeded');
      return undefined;
    });
  }

  /**
   * One POST of an event, signed afresh, and its record in the log; then `settle` says what its
   * answer means for the delivery. Under a simulated outage nothing is sent and the attempt
   * completes at once, as a receiver that is down would refuse it.
   */
  private async attempt(
    entry: DeliveryEntry,
    target: Target,
    trigger: AttemptTrigger,
    chaos: AttemptChaos,
    settle: (ok: boolean) => Promise<void> | undefined,
  ): Promise<void> {
    const { clock, log } = this.options;
    const { connectionId, body } = entry.emitted;
    // The webhook as the attempt starts: `target` is the connection's own state, whose webhook may be replaced meanwhile.
    const { webhook } = target;
    log.setState(entry, 'delivering');
    entry.nextAttemptAt = null;
    entry.nextChaos = undefined;

    const startedAt = clock.now();
    const timestamp = String(Math.floor(this.options.signingNow() / 1000));
    const headers = signedHeaders(target.accessToken, connectionId, body, timestamp);
    const outage = this.options.chaos.inOutage(connectionId, startedAt);
    if (outage) chaos = { ...chaos, outage: true };
    // Real elapsed time: it measures the network, which a virtual clock does not govern.
    const started = performance.now();
    const outcome = outage ? OUTAGE : await this.options.transport(webhook.webhookUrl, headers, body, this.options.attemptTimeoutMs, this.closing.signal);
    // The connection was deleted meanwhile: its log and queue are gone, and so is this attempt.
    if (!log.holds(entry)) return;
    // A new array of the exact length (concat makes one), not a push: a push onto [] makes room for 17 (184 bytes against
    // 56 for one attempt, measured), nearly every delivery makes one attempt, and a full log keeps 10,000 of them.
    const record: DeliveryAttempt = {
      attempt: entry.attempts.length + 1,
      time: iso(startedAt),
      webhookUrl: webhook.webhookUrl,
      timestamp,
      status: outcome.status ?? null,
      error: outcome.error ?? null,
      durationMs: Math.round(performance.now() - started),
      trigger,
    };
    // Last, where there is one (not a spread of a conditional object into the literal: a slow path at every attempt).
    if (Object.keys(chaos).length > 0) record.chaos = chaos;
    entry.attempts = entry.attempts.concat([record]);
    const next = settle(accepted(outcome));
    this.options.attempted?.(entry, record);
    if (next) await next;
  }

  /** Succeeded or failed: out of its queue, failed with the count of attempts it had. */
  private finish(entry: DeliveryEntry, queue: Queue | undefined, state: 'succeeded' | 'failed'): void {
    this.options.log.setState(entry, state);
    entry.failureReason = state === 'failed' ? `no 2xx answer after ${entry.attempts.length} attempt${entry.attempts.length === 1 ? '' : 's'}` : null;
    if (queue) unqueue(queue, entry);
  }

  /** After an attempt: the log kept within its limit, persistence told, the connection's next event started. */
  private goOn(entry: DeliveryEntry): void {
    this.options.log.evict(entry);
    this.options.onAttempt?.();
    this.pump(entry.emitted.connectionId);
  }
}

/** A retrying event waiting on its timer (not in flight). */
const isWaitingToRetry = (entry: DeliveryEntry) => entry.state === 'retrying' && entry.timer !== undefined;

const isQueued = (queue: Queue, entry: DeliveryEntry) => queue.items[0] === entry || queue.items.includes(entry);

/** Takes an entry out of its queue: the head in order, anywhere under `reorder` chaos. */
function unqueue(queue: Queue, entry: DeliveryEntry): void {
  if (queue.items[0] === entry) {
    queue.items.shift();
    return;
  }
  const index = queue.items.indexOf(entry);
  if (index !== -1) queue.items.splice(index, 1);
}
