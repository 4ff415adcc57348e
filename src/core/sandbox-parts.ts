import { type Clock, RealClock, realNow, VirtualClock } from '../clock/clock.js';
import { EventFactory } from '../events/event-factory.js';
import { Lifecycle } from '../events/lifecycle.js';
import type { Platform } from '../model/platform.js';
import { Random } from '../shared/random.js';
import type { Reservation } from '../shared/reservation.js';
import type { Delivery, DeliveryAttempt } from '../webhooks/delivery.js';
import { Dispatcher } from '../webhooks/dispatcher.js';
import { ConnectionRegistry } from './connections.js';
import { type EventListener, EventSink } from './event-sink.js';
import type { ResolvedOptions } from './options.js';
import { PageCache } from './page-cache.js';
import { PassthroughCache } from './passthrough-cache.js';

/** The stateful parts of a sandbox. A reset or a restore swaps them all at once for new ones. */
export interface SandboxParts {
  readonly clock: Clock;
  readonly registry: ConnectionRegistry;
  readonly lifecycle: Lifecycle;
  readonly dispatcher: Dispatcher;
  readonly pages: PageCache;
  /** Serialised passthrough answers, per connection, while its data stays the same. */
  readonly passthroughAnswers: PassthroughCache;
  readonly events: EventFactory;
  /** Where every event goes: stores and the lifecycle report to it, it queues and tells (./event-sink.ts). */
  readonly sink: EventSink;
}

/**
 * What a store that saves the state (`serve --state-file`) asks of the parts: the reservation
 * the streams that issue ids count against (docs/decisions/0030), and an outbox (0031).
 */
export interface Persistence {
  reservation: Reservation;
}

/**
 * Builds the parts of a fresh sandbox on `platform` (its webhook transport, randomness and
 * faker), its clock standing at `startTime` (virtual) or now (real). `listeners` hear every
 * event, in order, as it is queued for delivery; `onChange` hears of every event and delivery
 * attempt; `persistence`, when the state is saved to a store.
 */
export function buildParts(
  options: ResolvedOptions,
  platform: Platform,
  startTime: number,
  listeners: ReadonlySet<EventListener>,
  onChange: () => void,
  persistence?: Persistence,
  onAttempted?: (attempt: DeliveryAttempt, delivery: () => Delivery) => void,
): SandboxParts {
  const { onError } = options;
  const clock: Clock = options.clock === 'virtual' ? new VirtualClock(startTime, onError) : new RealClock(onError);
  const random = new Random(options.seed);
  const reservation = persistence?.reservation;
  const events = new EventFactory(random.fork('events'), clock, reservation);
  // Typed here: the three refer to each other through closures, which TypeScript 5.9 cannot infer through.
  const dispatcher: Dispatcher = new Dispatcher({
    clock,
    transport: platform.createTransport({ ca: options.webhookCa }),
    retryScheduleMs: options.retryScheduleMs,
    attemptTimeoutMs: options.attemptTimeoutMs,
    signingNow: options.webhookTimestamps === 'real' ? realNow : () => clock.now(),
    logLimit: options.deliveryLogLimit,
    pendingLimit: options.pendingDeliveryLimit,
    target: (connectionId) => registry.find(connectionId),
    tenantOf: (connectionId) => registry.find(connectionId)?.apiKey,
    random: random.fork('chaos'),
    defaultChaos: options.deliveryChaos,
    onAttempt: onChange,
    ...(onAttempted ? { onAttempted } : {}),
    outbox: persistence !== undefined,
  });
  const sink: EventSink = new EventSink({
    clock,
    events,
    dispatcher,
    emailEvents: options.emailEvents,
    connectionOf: (connectionId) => registry.find(connectionId),
    listeners,
    onEvent: onChange,
  });
  const registry: ConnectionRegistry = new ConnectionRegistry({
    clock,
    random,
    tokenTtlMs: options.tokenTtlMs,
    tokens: options.tokens,
    platform,
    connectionLimit: options.connectionLimit,
    recordLimit: options.recordLimit,
    dataset: options.dataset,
    fixtures: options.fixtures,
    reservation,
    events: sink,
  });
  const lifecycle = new Lifecycle(clock, { initialSyncMs: options.initialSyncDelayMs, readyMs: options.readyDelayMs }, (connection, status) =>
    sink.statusChanged(connection, status),
  );
  return { clock, registry, lifecycle, dispatcher, pages: new PageCache(), passthroughAnswers: new PassthroughCache(), events, sink };
}
