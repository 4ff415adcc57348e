import { ApiError, SandboxConfigError } from '../shared/errors.js';
import { utf8Bytes, utf8Text } from '../shared/text-codec.js';

/** One request as the journal shows it. */
export interface JournalEntry {
  /** Increasing from 1 over the sandbox's life, per API token (another tenant's requests leave no gaps). */
  id: number;
  /** Sandbox time the request arrived (ISO-8601). */
  time: string;
  method: string;
  path: string;
  /** The query string without its `?` ('' when none). */
  query: string;
  status: number;
  /** Sandbox-clock milliseconds from arrival to answer, injected latency included (0 on a virtual clock without latency). */
  durationMs: number;
  /** The connection the request acted on, when it named one (by accessToken or connectionId). */
  connectionId: string | null;
  /** The request body, cut at the journal's body limit; null when there was none. */
  body: string | null;
  /** True when `body` was cut. */
  bodyTruncated: boolean;
  /** The fault injected into this request, if any: `latency 200ms`, `error-rate 503`, `rate-limit 429`, `forced 503`. */
  fault: string | null;
}

/** Filters of {@link RequestJournal.list}; every one given must hold. */
export interface JournalFilter {
  method?: string;
  /** Path prefix: `/engagement` matches `/engagement/users`. */
  path?: string;
  status?: number;
  connectionId?: string;
  /** Only requests at or after this time (ISO-8601 or ms). */
  since?: string | number | Date;
  /** At most this many, the newest. */
  limit?: number;
}

/**
 * A filter given in code (`sandbox.requests(filter)`), checked as `GET /sandbox/requests` checks
 * its query, with the same messages: a 400 naming the field.
 */
export function checkJournalFilter(filter: JournalFilter): void {
  const { status, since, limit } = filter;
  for (const field of ['method', 'path', 'connectionId'] as const) {
    if (filter[field] !== undefined && typeof filter[field] !== 'string')
      throw ApiError.invalidField(field, `${field} must be a string, got ${typeof filter[field]}`);
  }
  if (status !== undefined && !(Number.isInteger(status) && status >= 100 && status <= 999)) {
    throw ApiError.invalidField('status', `status must be a 3-digit HTTP status, got ${JSON.stringify(String(status))}`);
  }
  if (since !== undefined && Number.isNaN(new Date(since as string).getTime())) {
    throw ApiError.invalidField('since', `since must be an ISO-8601 time, got ${JSON.stringify(since)}`);
  }
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1))
    throw ApiError.invalidField('limit', `limit must be a positive integer, got ${JSON.stringify(String(limit))}`);
}

/** The names a {@link JournalFilter} takes. */
export const JOURNAL_FILTER_NAMES = Object.keys({
  method: true,
  path: true,
  status: true,
  connectionId: true,
  since: true,
  limit: true,
} satisfies Record<keyof JournalFilter, true>);

export interface JournalOptions {
  /** Most requests kept per API token; its oldest go first. Default 1000. */
  limit?: number;
  /** Most characters of a request body kept. Default 4096. */
  bodyLimit?: number;
}

/** What the core knows of a request when it records it: primitives only, nothing copied deeply. */
export interface JournalRecord {
  apiKey: string;
  at: number;
  method: string;
  path: string;
  query: string;
  status: number;
  durationMs: number;
  connectionId: string | undefined;
  body: string | undefined;
  fault: string | undefined;
}

interface Slot extends JournalRecord {
  id: number;
  truncated: boolean;
}

/** One API token's latest requests: a ring of slots, reused. */
interface Ring {
  /** The configured key (long-lived), kept in its slots instead of each request's copy of it. */
  readonly apiKey: string;
  readonly slots: Array<Slot | undefined>;
  next: number;
  lastId: number;
}

/**
 * The request journal: one bounded ring of the latest requests per API token, so that a
 * tenant sees only its own and no tenant's traffic evicts another's. Requests of a key that is
 * no tenant's (none, unknown, the admin key) are not kept: nobody could list them. Recording
 * writes into a slot the ring already holds: under load the ring turns over every few dozen
 * milliseconds, and a new object per request would outlive the young generation and be
 * promoted only to die there (measured: half of what a passthrough call promoted; GC pause per
 * users-page GET 2.2 → 1.7 µs). Entries are shaped only when listed.
 */
export class RequestJournal {
  readonly limit: number;
  readonly bodyLimit: number;
  private readonly rings = new Map<string, Ring>();

  /** `apiKeys`: the tenants whose requests are kept. */
  constructor(options: JournalOptions, apiKeys: readonly string[]) {
    this.limit = options.limit ?? 1000;
    this.bodyLimit = options.bodyLimit ?? 4096;
    if (!Number.isSafeInteger(this.limit) || this.limit < 1) throw new SandboxConfigError(`journal.limit must be a positive integer, got ${this.limit}`);
    if (!Number.isSafeInteger(this.bodyLimit) || this.bodyLimit < 0) {
      throw new SandboxConfigError(`journal.bodyLimit must be a non-negative integer, got ${this.bodyLimit}`);
    }
    // The slots are made as requests arrive: a tenant that sends little costs little.
    for (const apiKey of apiKeys) this.rings.set(apiKey, { apiKey, slots: new Array<Slot | undefined>(this.limit), next: 0, lastId: 0 });
  }

  record(record: JournalRecord): void {
    const ring = this.rings.get(record.apiKey);
    if (ring === undefined) return;
    const slots = ring.slots;
    const limit = this.limit;
    const previous = slots[(ring.next + limit - 1) % limit];
    const slot = (slots[ring.next] ??= emptySlot());
    slot.id = ++ring.lastId;
    slot.apiKey = ring.apiKey;
    slot.at = record.at;
    slot.method = record.method;
    slot.path = same(previous?.path, record.path);
    slot.query = same(previous?.query, record.query);
    slot.status = record.status;
    slot.durationMs = record.durationMs;
    slot.connectionId = record.connectionId;
    slot.fault = record.fault;
    slot.truncated = record.body !== undefined && record.body.length > this.bodyLimit;
    // A copy, not a slice: a slice would keep the whole (up to 1 MiB) body alive in the ring.
    slot.body = slot.truncated ? utf8Text(utf8Bytes(record.body!.slice(0, this.bodyLimit))) : same(previous?.body, record.body);
    ring.next = (ring.next + 1) % limit;
  }

  /** An API token's requests, oldest first, filtered. */
  list(apiKey: string, filter: JournalFilter = {}): JournalEntry[] {
    const ring = this.rings.get(apiKey);
    if (ring === undefined) return [];
    const since = filter.since === undefined ? undefined : new Date(filter.since).getTime();
    const method = filter.method?.toUpperCase();
    const out: JournalEntry[] = [];
    for (let i = 0; i < this.limit; i++) {
      const slot = ring.slots[(ring.next + i) % this.limit];
      if (!slot) continue;
      if (method !== undefined && slot.method !== method) continue;
      if (filter.path !== undefined && !slot.path.startsWith(filter.path)) continue;
      if (filter.status !== undefined && slot.status !== filter.status) continue;
      if (filter.connectionId !== undefined && slot.connectionId !== filter.connectionId) continue;
      if (since !== undefined && slot.at < since) continue;
      out.push(this.entry(slot));
    }
    return filter.limit === undefined ? out : out.slice(Math.max(0, out.length - filter.limit));
  }

  /** Forgets an API token's requests (or everyone's). Ids go on from where they were. */
  clear(apiKey?: string): void {
    for (const [key, ring] of this.rings) if (apiKey === undefined || key === apiKey) ring.slots.fill(undefined);
  }

  private entry(slot: Slot): JournalEntry {
    return {
      id: slot.id,
      time: new Date(slot.at).toISOString(),
      method: slot.method,
      path: slot.path,
      query: slot.query,
      status: slot.status,
      durationMs: slot.durationMs,
      connectionId: slot.connectionId ?? null,
      body: slot.body ?? null,
      bodyTruncated: slot.truncated,
      fault: slot.fault ?? null,
    };
  }
}

/** A slot before its first request: every field present, so all slots share one shape. */
function emptySlot(): Slot {
  return {
    id: 0,
    apiKey: '',
    at: 0,
    method: '',
    path: '',
    query: '',
    status: 0,
    durationMs: 0,
    connectionId: undefined,
    body: undefined,
    fault: undefined,
    truncated: false,
  };
}

/**
 * The previous request's string when it is equal to this one's, else this one's. Polling clients and
 * load repeat the same request: keeping one string lets the new copy die young instead of being
 * promoted with the ring slot that holds it.
 */
function same<T extends string | undefined>(previous: T | undefined, value: T): T {
  return previous === value ? (previous as T) : value;
}
