import { utf8Bytes, utf8Text } from '../shared/text-codec.js';

/**
 * A kept answer: its JSON as UTF-8, as the wire takes it. Its text is decoded from the bytes when something reads it
 * (sandbox.handle's callers; the dev server and the Fetch answers send the bytes), so a kept page costs its bytes once,
 * not its text and its bytes.
 */
export class CachedPage {
  constructor(readonly encoded: Uint8Array) {}

  /** The page whose JSON text is `json`. */
  static of(json: string): CachedPage {
    return new CachedPage(utf8Bytes(json));
  }

  get json(): string {
    return utf8Text(this.encoded);
  }
}

/** How many bytes kept answers may take: per connection, and in all for the server (each cache of a sandbox has its own). */
export interface CacheLimits {
  perConnection: number;
  total: number;
}

/**
 * The default limits of each cache (pages, passthrough answers): a connection's kept answers up to 4 MiB (dozens of
 * pages of 200 records; one answer larger than that is answered afresh each time), the server's up to 32 MiB. Before,
 * a cache kept 256 pages a collection (128 answers a connection) of any size, with keys holding whole filters: 60
 * searches with a different 1,000,000-character `contains` left 56 MiB.
 */
export const CACHE_LIMITS: CacheLimits = { perConnection: 4 * 1024 * 1024, total: 32 * 1024 * 1024 };

/** What an entry costs besides its answer's bytes: its key (UTF-16), the entry, the maps' and sets' slots. */
const ENTRY_BYTES = 200;

/** A connection's kept answers, oldest first, and their bytes. */
interface Owner {
  bytes: number;
  readonly entries: Set<Entry>;
}

/** The answers kept for a holder (a collection, a data set) at one version of it. */
interface Slot {
  readonly version: unknown;
  readonly entries: Map<string, Entry>;
}

interface Entry {
  readonly slot: Slot;
  readonly key: string;
  readonly page: CachedPage;
  readonly bytes: number;
  readonly owner: Owner;
}

/**
 * Answers kept by the version of what they show, within limits of bytes: per connection (the owner) and in all, the
 * oldest going first when either is passed. A holder's answers of an older version go when the first of a newer one
 * is kept. Holders and owners are held weakly: a connection that goes takes its answers with it, but for what the
 * limits still count until they are evicted.
 */
export class BoundedPages {
  private readonly slots = new WeakMap<object, Slot>();
  private readonly owners = new WeakMap<object, Owner>();
  /** Every entry, oldest first. */
  private readonly all = new Set<Entry>();
  private bytes = 0;

  constructor(readonly limits: CacheLimits = CACHE_LIMITS) {}

  /** The answer kept for `key` at this version of `holder`, if there is one. */
  peek(holder: object, version: unknown, key: string): CachedPage | undefined {
    const slot = this.slots.get(holder);
    return slot !== undefined && slot.version === version ? slot.entries.get(key)?.page : undefined;
  }

  /** Keeps `page` for `key` at this version of `holder`, counted against `owner` (its connection), unless it alone is over the limit. */
  keep(holder: object, version: unknown, key: string, page: CachedPage, owner: object): void {
    const bytes = page.encoded.byteLength + 2 * key.length + ENTRY_BYTES;
    if (bytes > this.limits.perConnection) return;
    let slot = this.slots.get(holder);
    if (slot === undefined || slot.version !== version) {
      if (slot) for (const entry of slot.entries.values()) this.drop(entry);
      slot = { version, entries: new Map() };
      this.slots.set(holder, slot);
    }
    const known = slot.entries.get(key);
    if (known) this.drop(known);
    let tally = this.owners.get(owner);
    if (!tally) this.owners.set(owner, (tally = { bytes: 0, entries: new Set() }));
    const entry: Entry = { slot, key, page, bytes, owner: tally };
    slot.entries.set(key, entry);
    tally.entries.add(entry);
    tally.bytes += bytes;
    this.all.add(entry);
    this.bytes += bytes;
    while (tally.bytes > this.limits.perConnection) this.drop(tally.entries.values().next().value!);
    while (this.bytes > this.limits.total) this.drop(this.all.values().next().value!);
  }

  /** Bytes kept in all, and for a connection. */
  size(owner?: object): number {
    return owner === undefined ? this.bytes : (this.owners.get(owner)?.bytes ?? 0);
  }

  private drop(entry: Entry): void {
    if (entry.slot.entries.get(entry.key) === entry) entry.slot.entries.delete(entry.key);
    entry.owner.entries.delete(entry);
    entry.owner.bytes -= entry.bytes;
    this.all.delete(entry);
    this.bytes -= entry.bytes;
  }
}

/**
 * Serialised pages, kept until the collection they show changes. Reading a page is most of a
 * dev server's traffic; its JSON is built and encoded once per version of the data, not once
 * per request. Within {@link CACHE_LIMITS} bytes, per connection and for the server.
 */
export class PageCache {
  private readonly kept: BoundedPages;

  constructor(limits: CacheLimits = CACHE_LIMITS) {
    this.kept = new BoundedPages(limits);
  }

  /** The cached page for `key` at this version of `collection`, if there is one (nothing is built). */
  peek(collection: { version: number }, key: string): CachedPage | undefined {
    return this.kept.peek(collection, collection.version, key);
  }

  /**
   * The cached page for `key` at this version of `collection`, or the one `render` builds (then kept, counted against
   * `owner`: the connection's data set, when the collection is one of its collections).
   */
  get(collection: { version: number }, key: string, render: () => string, owner: object = collection): CachedPage {
    const version = collection.version;
    const known = this.kept.peek(collection, version, key);
    if (known) return known;
    const page = CachedPage.of(render());
    this.kept.keep(collection, version, key, page, owner);
    return page;
  }

  /** Bytes kept in all, and for a connection (its data set). */
  size(owner?: object): number {
    return this.kept.size(owner);
  }
}
