import * as z from 'zod';
import type { Timer } from '../clock/clock.js';
import type { EmittedEvent } from '../events/event-factory.js';
import type { ServiceEvent } from '../model/events.js';
import { once } from '../shared/once.js';
import { timeMsSchema } from '../shared/state-schemas.js';
import { type AttemptChaos, attemptChaosSchema } from './chaos.js';
import { DELIVERY_STATES, type Delivery, type DeliveryAttempt, type DeliveryState, deliveryAttemptSchema, isFinished } from './delivery.js';

/** One delivery as a snapshot keeps it: enough to go on with its schedule after a restore. */
export const deliveryRecordSchema = once(() =>
  z
    .object({
      eventId: z.string().min(1),
      connectionId: z.string().min(1),
      createdAt: timeMsSchema(),
      /** The exact JSON text sent and signed. */
      body: z.string().refine(isJsonObject, 'must be the JSON text of an event'),
      state: z.enum(DELIVERY_STATES),
      attempts: z.array(deliveryAttemptSchema()),
      /** Automatic attempts made so far: the retry schedule is counted on these. */
      scheduledAttempts: z.number().int().nonnegative(),
      nextAttemptAt: timeMsSchema().nullable(),
      failureReason: z.string().nullable(),
      /** Still in its connection's queue (not yet succeeded or failed). */
      queued: z.boolean(),
      /** What chaos did to the automatic attempt already scheduled (its delay). */
      nextChaos: attemptChaosSchema().optional(),
    })
    .strict(),
);
export type DeliveryRecord = z.infer<ReturnType<typeof deliveryRecordSchema>>;

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * An event as the log keeps it: its signed body, not the event object too. The object (and the
 * record in it) is parsed back from the body when a delivery's `event` is read: a full log
 * (10,000 events) then holds each event once, as text.
 */
type LoggedEvent = Omit<EmittedEvent, 'event'> & { type: ServiceEvent['type'] };

/** A delivery in the log: its event and its story so far; the state machine (./delivery-machine.ts) writes it. */
export interface DeliveryEntry {
  readonly emitted: LoggedEvent;
  /** Changed through {@link DeliveryLog.setState} only: the log counts finished entries per tenant. */
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** Automatic attempts made so far; the retry schedule is counted on these. */
  scheduledAttempts: number;
  nextAttemptAt: number | null;
  failureReason: string | null;
  /** The state machine's timer of the next automatic attempt. */
  timer: Timer | undefined;
  /** What chaos did to the automatic attempt the timer will make (kept for snapshots). */
  nextChaos: AttemptChaos | undefined;
  /** The log of the connection's tenant, which the log limit is counted on. */
  readonly shard: LogShard;
}

/**
 * One tenant's part of the delivery log: the log limit is counted per tenant, so one tenant's
 * deliveries never evict another's (as one journal ring per tenant, docs/decisions/0016).
 */
interface LogShard {
  /** The tenant's entries, oldest first. */
  entries: Map<string, DeliveryEntry>;
  /** How many of them are succeeded or failed, and how many of those succeeded. */
  finished: number;
  succeeded: number;
}

export interface DeliveryLogOptions {
  /**
   * Most finished (succeeded or failed) deliveries kept, per tenant; the oldest succeeded ones go
   * first. Unfinished ones are always kept: they still have work to do.
   */
  limit: number;
  /** The tenant a connection belongs to (its API key), on which the limit is counted. Default: one for all. */
  tenantOf?: ((connectionId: string) => string | undefined) | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Entries rebuilt from a snapshot: their body is the snapshot's text, which need not be JSON.stringify's of its event. */
const restored = new WeakSet<DeliveryEntry>();

/** Each entry's last snapshot record (see {@link DeliveryLog.exportState}). */
const exported = new WeakMap<DeliveryEntry, DeliveryRecord>();

/** The delivery log: every event with its state and attempts, oldest first, each tenant's part kept within the limit. */
export class DeliveryLog {
  private readonly options: DeliveryLogOptions;
  private readonly entries = new Map<string, DeliveryEntry>();
  private readonly shards = new Map<string, LogShard>();

  constructor(options: DeliveryLogOptions) {
    this.options = options;
  }

  /** Logs a new event, pending. */
  open(emitted: EmittedEvent): DeliveryEntry {
    const entry: DeliveryEntry = {
      emitted: { eventId: emitted.eventId, connectionId: emitted.connectionId, createdAt: emitted.createdAt, type: emitted.event.type, body: emitted.body },
      state: 'pending',
      attempts: [],
      scheduledAttempts: 0,
      nextAttemptAt: null,
      failureReason: null,
      timer: undefined,
      nextChaos: undefined,
      shard: this.shardOf(emitted.connectionId),
    };
    this.add(entry);
    return entry;
  }

  /** The entry of an event still in the log. */
  entry(eventId: string): DeliveryEntry | undefined {
    return this.entries.get(eventId);
  }

  /** Whether the entry is still in the log (its connection may have been deleted while it was being sent). */
  holds(entry: DeliveryEntry): boolean {
    return this.entries.get(entry.emitted.eventId) === entry;
  }

  setState(entry: DeliveryEntry, state: DeliveryState): void {
    const { shard } = entry;
    shard.finished += Number(isFinished(state)) - Number(isFinished(entry.state));
    shard.succeeded += Number(state === 'succeeded') - Number(entry.state === 'succeeded');
    entry.state = state;
  }

  /** Keeps the tenant of an entry within the limit: its oldest succeeded deliveries go first, then its oldest failed ones. */
  evict({ shard }: DeliveryEntry): void {
    while (shard.finished > this.options.limit) {
      // Counted, so a log of failed deliveries (a connection without a webhook) is not scanned for a succeeded one each time.
      const victim = (shard.succeeded > 0 ? oldest(shard, 'succeeded') : undefined) ?? oldest(shard, 'failed');
      if (!victim) return;
      this.remove(victim);
    }
  }

  /** The connection is gone: so are its deliveries. */
  removeConnection(connectionId: string): void {
    for (const entry of this.entries.values()) if (entry.emitted.connectionId === connectionId) this.remove(entry);
  }

  /** The deliveries of a connection (or all), oldest first. */
  list(connectionId?: string): Delivery[] {
    const out: Delivery[] = [];
    for (const entry of this.entries.values()) {
      if (connectionId === undefined || entry.emitted.connectionId === connectionId) out.push(view(entry));
    }
    return out;
  }

  /**
   * {@link list} in pieces: the entries as they stand now, each read (copied) after a stop, so a
   * caller that can wait (the end of a scenario run: 10,000 deliveries take 10-20 ms to copy)
   * gives the event loop turns between them. An entry is read as it stands when its turn comes.
   */
  *listInPieces(connectionId?: string): Generator<void, Delivery[], void> {
    const entries: DeliveryEntry[] = [];
    for (const entry of this.entries.values()) {
      if (connectionId === undefined || entry.emitted.connectionId === connectionId) entries.push(entry);
    }
    const out: Delivery[] = [];
    for (const entry of entries) {
      yield;
      out.push(view(entry));
    }
    return out;
  }

  /** How many deliveries these connections have, without reading them. */
  countOf(connectionIds: ReadonlySet<string>): number {
    let count = 0;
    for (const entry of this.entries.values()) if (connectionIds.has(entry.emitted.connectionId)) count++;
    return count;
  }

  /**
   * What of each delivery of a connection changes as it is delivered, read now: a list of
   * thousands taken at one moment in about a millisecond, written later a piece at a time
   * ({@link momentJson}) while the log goes on.
   */
  moments(connectionId: string): DeliveryMoment[] {
    const out: DeliveryMoment[] = [];
    for (const entry of this.entries.values()) if (entry.emitted.connectionId === connectionId) out.push(momentOf(entry));
    return out;
  }

  /**
   * `JSON.stringify` of the delivery as it was at `moment` (what {@link list} gave then), with the
   * event written from the body sent where that is its text ({@link eventJson}): not parsed and
   * written again.
   */
  momentJson(moment: DeliveryMoment): string {
    const delivery = viewAt(moment);
    if (restored.has(moment.entry)) return JSON.stringify(delivery);
    // Named one by one: a rest pattern would read the event, which a view parses when read.
    const { eventId, connectionId, type, state, createdTime, nextAttemptTime, failureReason, attempts } = delivery;
    const rest: Omit<Delivery, 'event'> = { eventId, connectionId, type, state, createdTime, nextAttemptTime, failureReason, attempts };
    return `${JSON.stringify(rest).slice(0, -1)},"event":${moment.entry.emitted.body}}`;
  }

  get(eventId: string): Delivery | undefined {
    const entry = this.entries.get(eventId);
    return entry && view(entry);
  }

  /**
   * `JSON.stringify(delivery.event)` of an event still in the log, without parsing and writing it
   * again: the body sent, when it was written so (an event emitted here; a snapshot's is its own
   * text, so undefined for those).
   */
  eventJson(eventId: string): string | undefined {
    const entry = this.entries.get(eventId);
    return entry && !restored.has(entry) ? entry.emitted.body : undefined;
  }

  /** An entry as read (even one that has just left the log). */
  view(entry: DeliveryEntry): Delivery {
    return view(entry);
  }

  /**
   * The whole log in order, for a snapshot; `queued` says which entries are still in their
   * connection's queue. An entry's record is made again only when it changed since the last
   * snapshot (attempts are only ever added): successive snapshots share the others, frozen, so
   * what compares them (a journal, docs/decisions/0031) passes those at once.
   */
  exportState(queued: ReadonlySet<DeliveryEntry>): DeliveryRecord[] {
    return [...this.entries.values()].map((entry) => {
      const inQueue = queued.has(entry);
      const last = exported.get(entry);
      if (
        last &&
        last.state === entry.state &&
        last.attempts.length === entry.attempts.length &&
        last.scheduledAttempts === entry.scheduledAttempts &&
        last.nextAttemptAt === entry.nextAttemptAt &&
        last.failureReason === entry.failureReason &&
        last.queued === inQueue &&
        last.nextChaos === entry.nextChaos
      ) {
        return last;
      }
      const record: DeliveryRecord = Object.freeze({
        eventId: entry.emitted.eventId,
        connectionId: entry.emitted.connectionId,
        createdAt: entry.emitted.createdAt,
        body: entry.emitted.body,
        state: entry.state,
        attempts: entry.attempts.map((attempt) => ({ ...attempt })),
        scheduledAttempts: entry.scheduledAttempts,
        nextAttemptAt: entry.nextAttemptAt,
        failureReason: entry.failureReason,
        queued: inQueue,
        ...(entry.nextChaos ? { nextChaos: entry.nextChaos } : {}),
      });
      exported.set(entry, record);
      return record;
    });
  }

  /** An entry rebuilt from a snapshot's record, not logged yet (see {@link add}): the state machine decides first how it goes on. */
  fromRecord(record: DeliveryRecord): DeliveryEntry {
    const entry: DeliveryEntry = {
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
    restored.add(entry);
    return entry;
  }

  add(entry: DeliveryEntry): void {
    const { shard } = entry;
    if (isFinished(entry.state)) shard.finished++;
    if (entry.state === 'succeeded') shard.succeeded++;
    shard.entries.set(entry.emitted.eventId, entry);
    this.entries.set(entry.emitted.eventId, entry);
  }

  private remove(entry: DeliveryEntry): void {
    const { shard } = entry;
    if (isFinished(entry.state)) shard.finished--;
    if (entry.state === 'succeeded') shard.succeeded--;
    shard.entries.delete(entry.emitted.eventId);
    this.entries.delete(entry.emitted.eventId);
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
}

function oldest(shard: LogShard, state: DeliveryState): DeliveryEntry | undefined {
  for (const entry of shard.entries.values()) if (entry.state === state) return entry;
  return undefined;
}

/**
 * What of a delivery changes as it is delivered, read at one moment. An entry's attempts are
 * replaced as a new array at each attempt, never changed in place, so holding the array holds
 * that moment's attempts.
 */
export interface DeliveryMoment {
  readonly entry: DeliveryEntry;
  readonly state: DeliveryState;
  readonly nextAttemptAt: number | null;
  readonly failureReason: string | null;
  readonly attempts: readonly DeliveryAttempt[];
}

const momentOf = (entry: DeliveryEntry): DeliveryMoment => ({
  entry,
  state: entry.state,
  nextAttemptAt: entry.nextAttemptAt,
  failureReason: entry.failureReason,
  attempts: entry.attempts,
});

/** A delivery as read: a copy of the entry, its event parsed from the body when first read. */
function view(entry: DeliveryEntry): Delivery {
  return viewAt(momentOf(entry));
}

/** A delivery as it was at `moment`. */
function viewAt({ entry, state, nextAttemptAt, failureReason, attempts }: DeliveryMoment): Delivery {
  let event: ServiceEvent | undefined;
  return {
    eventId: entry.emitted.eventId,
    connectionId: entry.emitted.connectionId,
    type: entry.emitted.type,
    state,
    createdTime: iso(entry.emitted.createdAt),
    nextAttemptTime: nextAttemptAt === null ? null : iso(nextAttemptAt),
    failureReason,
    attempts: attempts.map((attempt) => ({ ...attempt })),
    // Parsed when read, once per view: listing states and attempts parses nothing.
    get event(): ServiceEvent {
      return (event ??= JSON.parse(entry.emitted.body) as ServiceEvent);
    },
  };
}
