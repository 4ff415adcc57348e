import type { Clock } from '../clock/clock.js';
import type { ServiceEvent } from '../model/events.js';
import type { DeliveryAttempt, DeliveryState } from './delivery.js';
import type { DeliveryEntry } from './delivery-log.js';

/**
 * The attempts of a tenant's deliveries as they are made, for watchers that poll for what is new
 * (`GET /sandbox/attempts`, which `crm-sandbox listen` reads): a ring of the newest ones, each with
 * a number that grows by one per attempt. A tenant's ring exists from the first time it is read,
 * so a sandbox nobody watches records nothing (an attempt costs one check).
 */

/** What an event is, in a line: its type, and its object and change or its status. */
export interface EventSummary {
  type: ServiceEvent['type'];
  objectType?: string;
  eventType?: string;
  status?: string;
}

/** One attempt as the feed answers it. */
export interface FedAttempt {
  /** 1, 2, 3… per tenant, in the order the attempts were recorded. */
  seq: number;
  eventId: string;
  connectionId: string;
  event: EventSummary;
  attempt: DeliveryAttempt;
  /** The delivery's state right after this attempt: `retrying` with a next attempt, `succeeded`, `failed`. */
  state: DeliveryState;
  nextAttemptTime: string | null;
  /** Automatic attempts the schedule makes in all (its retries plus the first). */
  maxAttempts: number;
}

interface Ring {
  items: Array<{ seq: number; entry: DeliveryEntry; attempt: DeliveryAttempt; state: DeliveryState; nextAttemptAt: number | null }>;
  /** The seq of the newest attempt recorded (0 before the first). */
  last: number;
  /** Readers waiting for the next attempt. */
  waiting: Set<() => void>;
}

/** How many attempts a tenant's ring keeps: what a watcher a few seconds behind needs, for a burst of thousands. */
export const FEED_LIMIT = 5_000;

/** The longest a read may wait for a new attempt (a watcher asks again after it). */
export const FEED_MAX_WAIT_MS = 30_000;

export class AttemptFeed {
  private readonly rings = new Map<string, Ring>();

  constructor(
    private readonly clock: Clock,
    private readonly maxAttempts: number,
  ) {}

  /** Whether any tenant is watched: when none is, recording costs nothing. */
  get watched(): boolean {
    return this.rings.size > 0;
  }

  /** Records an attempt of a watched tenant (its delivery's state already decided), and wakes its readers. */
  record(tenant: string, entry: DeliveryEntry, attempt: DeliveryAttempt): void {
    const ring = this.rings.get(tenant);
    if (!ring) return;
    ring.last++;
    ring.items.push({ seq: ring.last, entry, attempt, state: entry.state, nextAttemptAt: entry.nextAttemptAt });
    if (ring.items.length > FEED_LIMIT) ring.items.splice(0, ring.items.length - FEED_LIMIT);
    for (const wake of ring.waiting) wake();
    ring.waiting.clear();
  }

  /**
   * The tenant's attempts after `after` (oldest first; of one connection, when given), waiting up
   * to `waitMs` on a real clock for one when there is none yet. The tenant is watched from now on.
   * `next` is what to pass as `after` next time; `missed` counts attempts that left the ring
   * unread. An `after` past the newest (a sandbox that was reset or restarted) reads from now.
   */
  async read(
    tenant: string,
    after: number,
    options: { connectionId?: string | undefined; waitMs?: number },
  ): Promise<{ attempts: FedAttempt[]; next: number; missed: number }> {
    let ring = this.rings.get(tenant);
    if (!ring) {
      ring = { items: [], last: 0, waiting: new Set() };
      this.rings.set(tenant, ring);
    }
    // Past the newest: this is not the feed the reader read before (a reset or a restart); it gets the answer at once, to read on from.
    const from = after > ring.last ? ring.last : after;
    const waitMs = Math.min(options.waitMs ?? 0, FEED_MAX_WAIT_MS);
    if (after === ring.last && waitMs > 0 && this.clock.kind === 'real') await this.nextAttempt(ring, waitMs);
    const oldest = ring.items[0]?.seq ?? ring.last + 1;
    const missed = Math.max(0, oldest - from - 1);
    const attempts: FedAttempt[] = [];
    for (const item of ring.items) {
      if (item.seq <= from || (options.connectionId !== undefined && item.entry.emitted.connectionId !== options.connectionId)) continue;
      attempts.push({
        seq: item.seq,
        eventId: item.entry.emitted.eventId,
        connectionId: item.entry.emitted.connectionId,
        event: summaryOf(item.entry.emitted.body),
        attempt: { ...item.attempt },
        state: item.state,
        nextAttemptTime: item.nextAttemptAt === null ? null : new Date(item.nextAttemptAt).toISOString(),
        maxAttempts: this.maxAttempts,
      });
    }
    return { attempts, next: ring.last, missed };
  }

  /** Resolves at the ring's next attempt, or after `ms`. */
  private nextAttempt(ring: Ring, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(ms, () => {
        ring.waiting.delete(wake);
        resolve();
      });
      const wake = () => {
        timer.cancel();
        resolve();
      };
      ring.waiting.add(wake);
    });
  }
}

/** An event in a line's words. */
export function eventSummary(event: ServiceEvent): EventSummary {
  if (event.type === 'STATUS_CHANGE') return { type: event.type, status: event.data.status };
  return { type: event.type, objectType: event.data.objectType, eventType: event.data.eventType };
}

/** The event of a body sent, in a line's words. */
const summaryOf = (body: string): EventSummary => eventSummary(JSON.parse(body) as ServiceEvent);
