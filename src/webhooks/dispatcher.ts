import * as z from 'zod';
import type { Clock } from '../clock/clock.js';
import type { EmittedEvent } from '../events/event-factory.js';
import type { Webhook } from '../model/connection.js';
import type { HttpTransport } from '../model/transport.js';
import { ApiError } from '../shared/errors.js';
import { once } from '../shared/once.js';
import type { Random } from '../shared/random.js';
import { AttemptFeed } from './attempt-feed.js';
import type { ChaosSettings } from './chaos.js';
import type { Delivery, DeliveryAttempt } from './delivery.js';
import { chaosRecordSchema, DeliveryChaos } from './delivery-chaos.js';
import { type DeliveryEntry, DeliveryLog, type DeliveryMoment, deliveryRecordSchema } from './delivery-log.js';
import { DeliveryMachine } from './delivery-machine.js';
import { RetryPolicy } from './retry-policy.js';

/*
 * The delivery engine, in parts (as svix's): the state machine that sends each connection's
 * events in order (./delivery-machine.ts), the retry policy that says when a failed attempt is
 * made again (./retry-policy.ts), the log that keeps every delivery within its limit
 * (./delivery-log.ts), and chaos with its own streams (./delivery-chaos.ts). The dispatcher
 * builds them, answers for them, and composes their state (docs/decisions/0020).
 */

/** The engine's state, as a snapshot keeps it: the delivery log in order, and each connection's chaos. */
export const dispatcherStateSchema = once(() =>
  z
    .object({
      deliveries: z.array(deliveryRecordSchema()),
      /** Per-connection delivery chaos and where its seeded stream stands (absent from early snapshots). */
      chaos: z.array(chaosRecordSchema()).optional(),
    })
    .strict(),
);
export type DispatcherState = z.infer<ReturnType<typeof dispatcherStateSchema>>;

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
  /** An outbox: no event is attempted before a save holding it has completed ({@link Dispatcher.saved}). Default: off. */
  outbox?: boolean;
  /** Called with every attempt once recorded; `delivery()` reads the delivery as it stands then. */
  onAttempted?: (attempt: DeliveryAttempt, delivery: () => Delivery) => void;
}

/** The events a save about to be taken holds (opaque: for {@link Dispatcher.saved} once it has completed). */
export type SavePoint = ReadonlySet<unknown>;

/**
 * Delivers events to webhooks: one connection's events strictly in order (a failing event
 * holds back later ones until it succeeds or is marked failed), each attempt signed afresh,
 * retried on the schedule, every attempt logged.
 */
export class Dispatcher {
  private readonly clock: Clock;
  private readonly log: DeliveryLog;
  private readonly chaos: DeliveryChaos;
  private readonly machine: DeliveryMachine;
  private readonly feed: AttemptFeed;

  constructor(options: DispatcherOptions) {
    this.clock = options.clock;
    this.log = new DeliveryLog({ limit: options.logLimit, tenantOf: options.tenantOf });
    this.feed = new AttemptFeed(options.clock, options.retryScheduleMs.length + 1);
    const { onAttempted, tenantOf } = options;
    this.chaos = new DeliveryChaos(options.random, options.defaultChaos, options.clock.now());
    this.machine = new DeliveryMachine({
      clock: options.clock,
      transport: options.transport,
      attemptTimeoutMs: options.attemptTimeoutMs,
      signingNow: options.signingNow,
      pendingLimit: options.pendingLimit ?? Infinity,
      target: options.target,
      log: this.log,
      chaos: this.chaos,
      retries: new RetryPolicy(options.retryScheduleMs),
      onAttempt: options.onAttempt,
      outbox: options.outbox,
      attempted: (entry, attempt) => {
        if (this.feed.watched) this.feed.record(tenantOf?.(entry.emitted.connectionId) ?? '', entry, attempt);
        onAttempted?.(attempt, () => this.log.view(entry));
      },
    });
  }

  /**
   * A tenant's delivery attempts after `after` (see AttemptFeed.read): what `crm-sandbox listen`
   * prints. The tenant (an API key; '' when the sandbox has no tenants) is watched from the first read.
   */
  readAttempts(tenant: string, after: number, options: { connectionId?: string | undefined; waitMs?: number } = {}) {
    return this.feed.read(tenant, after, options);
  }

  /** Turns the outbox on (as the `outbox` option does): events from now on wait for {@link saved}. */
  useOutbox(): void {
    this.machine.useOutbox();
  }

  /** With an outbox: what a save about to be taken holds, for {@link saved} once it has completed (see DeliveryMachine.savePoint). */
  savePoint(): SavePoint {
    return this.machine.savePoint();
  }

  /** With an outbox: a save holding every event so far (or those of `point`) has completed; they may go out (docs/decisions/0031). */
  saved(point?: SavePoint): void {
    this.machine.saved(point as ReadonlySet<DeliveryEntry> | undefined);
  }

  /** Logs an event and sends it when its connection's earlier events are done. */
  enqueue(emitted: EmittedEvent): void {
    this.machine.enqueue(this.log.open(emitted));
  }

  /** Sets a connection's delivery chaos (`{}` for none); it applies from the next attempt on. */
  setChaos(connectionId: string, settings: ChaosSettings): ChaosSettings {
    const applied = this.chaos.set(connectionId, settings, this.clock.now());
    this.machine.pump(connectionId);
    return applied;
  }

  /** The chaos a connection's deliveries are under (its own, else the default). */
  chaosOf(connectionId: string): ChaosSettings {
    return this.chaos.settingsOf(connectionId);
  }

  /** A webhook was created: send what waited for it. */
  webhookCreated(connectionId: string): void {
    this.machine.pump(connectionId);
  }

  /** The webhook is gone: what was waiting for it is dropped (marked failed), nothing more is sent. */
  webhookDeleted(connectionId: string): void {
    this.machine.webhookDeleted(connectionId);
  }

  /** The connection is gone: drop its queue, its chaos and its log. */
  connectionRemoved(connectionId: string): void {
    this.machine.forget(connectionId);
    this.chaos.forget(connectionId);
    this.log.removeConnection(connectionId);
  }

  /** Aborts the attempts in flight: a closed sandbox waits for no receiver. */
  close(): void {
    this.machine.close();
  }

  /** The deliveries of a connection (or all), oldest first. */
  list(connectionId?: string): Delivery[] {
    return this.log.list(connectionId);
  }

  /** `JSON.stringify(delivery.event)` without parsing the event, where the log has it (see DeliveryLog.eventJson). */
  eventJson(eventId: string): string | undefined {
    return this.log.eventJson(eventId);
  }

  /** How many deliveries these connections have, without reading them. */
  countOf(connectionIds: ReadonlySet<string>): number {
    return this.log.countOf(connectionIds);
  }

  /** What of each of a connection's deliveries changes, read now (see DeliveryLog.moments). */
  moments(connectionId: string): DeliveryMoment[] {
    return this.log.moments(connectionId);
  }

  /** The JSON text of a delivery as it was at `moment` (see DeliveryLog.momentJson). */
  momentJson(moment: DeliveryMoment): string {
    return this.log.momentJson(moment);
  }

  /** {@link list} in pieces (see DeliveryLog.listInPieces). */
  listInPieces(connectionId?: string): Generator<void, Delivery[], void> {
    return this.log.listInPieces(connectionId);
  }

  /**
   * The eventIds of a connection's deliveries still to finish (queued, retrying or in flight),
   * oldest first: cheap to ask often, unlike `list()`, which copies every delivery.
   */
  unfinished(connectionId: string): string[] {
    return this.machine.unfinished(connectionId);
  }

  get(eventId: string): Delivery | undefined {
    return this.log.get(eventId);
  }

  /** The exact JSON text sent (and signed) for an event still in the log. */
  bodyOf(eventId: string): string | undefined {
    return this.log.entry(eventId)?.emitted.body;
  }

  /**
   * Sends an event again now, as a new attempt of the same event. A retrying event has its next
   * attempt brought forward; a succeeded or failed one gets one extra attempt. Resolves once
   * the attempt is done.
   */
  async redeliver(eventId: string): Promise<Delivery> {
    const entry = this.log.entry(eventId);
    if (!entry) throw ApiError.notFound('Delivery', eventId, 'eventId');
    await this.machine.redeliver(entry);
    return this.log.view(entry);
  }

  /**
   * "Retry now" for a connection: the retry its queue waits on is made at once (see
   * DeliveryMachine.retryNow); once accepted, the events behind it follow. Resolves with the
   * deliveries retried, after their attempts (none when nothing waits on a retry).
   */
  async retryNow(connectionId: string): Promise<Delivery[]> {
    const entries = await this.machine.retryNow(connectionId);
    return entries.map((entry) => this.log.view(entry));
  }

  /** The log in order and each connection's chaos, for a snapshot. */
  exportState(): Required<DispatcherState> {
    return { deliveries: this.log.exportState(this.machine.queued()), chaos: this.chaos.exportState() };
  }

  /**
   * Takes over a snapshot's state (on a fresh dispatcher, or for connections it does not hold)
   * and goes on: retries at their scheduled time (at once if it has passed), queues pumped.
   */
  importState(state: DispatcherState): void {
    this.chaos.importState(state.chaos ?? [], this.clock.now());
    for (const record of state.deliveries) this.machine.resume(this.log.fromRecord(record), record.queued);
    this.machine.pumpAll();
  }
}
