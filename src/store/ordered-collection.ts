import * as z from 'zod';
import { ApiError } from '../shared/errors.js';
import { hashJson } from '../shared/json-hash.js';
import { once } from '../shared/once.js';
import { countSchema, digestSchema } from '../shared/state-schemas.js';

/** A stored record with its insertion sequence and its native-only extras. */
export interface Entry<T> {
  /** Insertion sequence: increasing, never reused. Pages are cut on it. */
  readonly seq: number;
  record: T;
  /** Downstream-only data (custom fields and the like) shown under `additional` and by the passthrough. */
  extra: Record<string, unknown>;
}

/** A page of records after a sequence number. */
export interface Page<T> {
  entries: Entry<T>[];
  /** Set when records follow this page. */
  lastSeq: number | undefined;
}

/** An entry's native-only extras as a snapshot keeps them. */
export const entryExtraSchema = once(() => z.record(z.string(), z.unknown()));

/** An entry as plain data, as a snapshot keeps it, its record checked by `record`. */
export const dumpedEntrySchema = <R extends z.ZodType>(record: R) => z.object({ seq: z.number().int().positive(), record, extra: entryExtraSchema() }).strict();
export type DumpedEntry<T> = z.infer<ReturnType<typeof dumpedEntrySchema<z.ZodType<T>>>>;

/** A whole collection as plain data: how snapshots of version 1 keep it. */
export const collectionDumpSchema = <R extends z.ZodType>(record: R) =>
  z.object({ nextSeq: z.number().int().positive(), entries: z.array(dumpedEntrySchema(record)) }).strict();
export type CollectionDump<T> = z.infer<ReturnType<typeof collectionDumpSchema<z.ZodType<T>>>>;

/**
 * What a collection holds beyond its seeded base ({@link OrderedCollection.markBase}): enough,
 * with the base rebuilt from the seed, to fill a collection exactly as it was. `nextSeq`; `base`,
 * how many entries were seeded (sequences 1 to `base`); `digest`, of the seeded entries still as
 * seeded, so a restore can tell that its rebuilt base is the same; `deleted`, the seeded entries
 * deleted since, by sequence, ascending; `entries`, the seeded entries replaced since (their
 * sequence is at most `base`), then the entries added since, ascending.
 */
export const collectionDeltaSchema = <R extends z.ZodType>(record: R) =>
  z
    .object({
      nextSeq: z.number().int().positive(),
      base: countSchema(),
      digest: digestSchema(),
      deleted: z.array(z.number().int().positive()),
      entries: z.array(dumpedEntrySchema(record)),
    })
    .strict();
export type CollectionDelta<T> = z.infer<ReturnType<typeof collectionDeltaSchema<z.ZodType<T>>>>;

/**
 * What zod cannot see in a saved collection: sequences ascending and below nextSeq, and no id
 * twice. A 400 naming the field under `field` (`connections[0].data.crm.Contact`).
 */
export function checkDump(field: string, dumped: { nextSeq: number; entries: ReadonlyArray<{ seq: number; record: { id: string } }> }): void {
  let last = 0;
  const seen = new Set<string>();
  dumped.entries.forEach((item, j) => {
    const at = `${field}.entries[${j}]`;
    if (item.seq <= last || item.seq >= dumped.nextSeq) throw ApiError.invalidField(`${at}.seq`, `${at}.seq must be above the one before and below nextSeq`);
    const { id } = item.record;
    if (seen.has(id)) throw ApiError.invalidField(`${at}.record.id`, `${at}.record.id repeats ${id}`);
    seen.add(id);
    last = item.seq;
  });
}

/** What zod cannot see in a saved delta: its entries as {@link checkDump} checks them, its deleted sequences ascending, at most base, and none an entry's. */
export function checkDelta(field: string, delta: CollectionDelta<{ id: string }>): void {
  checkDump(field, delta);
  let last = 0;
  const replaced = new Set(delta.entries.map((item) => item.seq));
  delta.deleted.forEach((seq, j) => {
    if (seq <= last || seq > delta.base || replaced.has(seq)) {
      throw ApiError.invalidField(`${field}.deleted[${j}]`, `${field}.deleted[${j}] must be above the one before, at most base, and not the seq of an entry`);
    }
    last = seq;
  });
}

/** An entry's record and extras as JSON text, to tell whether a version-1 entry is the seeded one. */
const entryJson = (entry: { record: unknown; extra: Record<string, unknown> }): string => `${JSON.stringify(entry.record)}\n${JSON.stringify(entry.extra)}`;
/**
 * Each entry's last dumped form, frozen, kept while the entry holds the same record and extras:
 * successive snapshots share it, so what compares them (a journal, docs/decisions/0031) passes
 * an unchanged entry at once.
 */
const dumped = new WeakMap<object, DumpedEntry<unknown>>();
const plain = <T>(entry: Entry<T>): DumpedEntry<T> => {
  const last = dumped.get(entry) as DumpedEntry<T> | undefined;
  if (last && last.record === entry.record && last.extra === entry.extra && last.seq === entry.seq) return last;
  const made: DumpedEntry<T> = Object.freeze({ seq: entry.seq, record: entry.record, extra: entry.extra });
  dumped.set(entry, made);
  return made;
};

/**
 * Records by id, kept in insertion order with an index that cuts any page in O(log n + limit):
 * a page never costs a scan of the collection. `version` changes on every write, so callers can
 * cache what they render from it.
 *
 * A collection also knows which of its entries were seeded ({@link markBase}) and which of
 * those were replaced since, so a snapshot holds only what changed ({@link delta}).
 */
export class OrderedCollection<T extends { id: string }> {
  private readonly byId = new Map<string, Entry<T>>();
  private readonly byNativeId = new Map<string, Entry<T>>();
  /** Entries in ascending `seq`; deletion splices, insertion appends. */
  private readonly ordered: Entry<T>[] = [];
  private nextSeq = 1;
  private changes = 0;
  /** Entries with a sequence up to this one were seeded: the seed rebuilds them. */
  private baseSeq = 0;
  /** Seeded entries replaced since {@link markBase}, by sequence (a later delete leaves them here). */
  private readonly changedBase = new Set<number>();
  /** The last {@link baseDigest}, and how many seeded entries were replaced or deleted then. */
  private digestCache: { changed: number; digest: string } | undefined;
  private readonly nativeIdOf: ((record: T) => string | undefined) | undefined;

  constructor(nativeIdOf?: (record: T) => string | undefined) {
    this.nativeIdOf = nativeIdOf;
  }

  /** Changes on every insert, replace and delete. */
  get version(): number {
    return this.changes;
  }

  get size(): number {
    return this.ordered.length;
  }

  get(id: string): T | undefined {
    return this.byId.get(id)?.record;
  }

  entry(id: string): Entry<T> | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  getByNativeId(nativeId: string): Entry<T> | undefined {
    return this.byNativeId.get(nativeId);
  }

  insert(record: T, extra: Record<string, unknown> = {}): Entry<T> {
    if (this.byId.has(record.id)) throw new Error(`duplicate id ${record.id}`);
    const entry: Entry<T> = { seq: this.nextSeq++, record, extra };
    this.byId.set(record.id, entry);
    const nativeId = this.nativeIdOf?.(record);
    if (nativeId !== undefined) this.byNativeId.set(nativeId, entry);
    this.ordered.push(entry);
    this.changes++;
    return entry;
  }

  /** Replaces a record (same id), keeping its place in the order; and its extras, if given. */
  replace(record: T, extra?: Record<string, unknown>): void {
    const entry = this.byId.get(record.id);
    if (!entry) throw new Error(`no record ${record.id}`);
    const before = this.nativeIdOf?.(entry.record);
    const after = this.nativeIdOf?.(record);
    if (before !== after) {
      if (before !== undefined) this.byNativeId.delete(before);
      if (after !== undefined) this.byNativeId.set(after, entry);
    }
    entry.record = record;
    if (extra) entry.extra = extra;
    if (entry.seq <= this.baseSeq) this.changedBase.add(entry.seq);
    this.changes++;
  }

  delete(id: string): T | undefined {
    const entry = this.byId.get(id);
    if (!entry) return undefined;
    this.byId.delete(id);
    const nativeId = this.nativeIdOf?.(entry.record);
    if (nativeId !== undefined && this.byNativeId.get(nativeId) === entry) this.byNativeId.delete(nativeId);
    this.ordered.splice(this.indexAfter(entry.seq - 1), 1);
    this.changes++;
    return entry.record;
  }

  /** Up to `limit` entries with a sequence above `afterSeq` (0 for the first page). */
  pageAfter(afterSeq: number, limit: number): Page<T> {
    const start = this.indexAfter(afterSeq);
    const entries = this.ordered.slice(start, start + limit);
    const more = start + limit < this.ordered.length;
    return { entries, lastSeq: more ? entries[entries.length - 1]!.seq : undefined };
  }

  /** Up to `limit` entries from position `offset` in the order, for offset-paged native APIs. */
  /** The entries with a sequence above `afterSeq`, in order (a walk that may stop early). */
  *entriesAfter(afterSeq: number): IterableIterator<Entry<T>> {
    for (let i = this.indexAfter(afterSeq); i < this.ordered.length; i++) yield this.ordered[i]!;
  }

  slice(offset: number, limit: number): Entry<T>[] {
    return this.ordered.slice(offset, offset + limit);
  }

  values(): IterableIterator<T> {
    return this.ordered.map((entry) => entry.record)[Symbol.iterator]();
  }

  entries(): readonly Entry<T>[] {
    return this.ordered;
  }

  /** Marks the entries held now as the seeded base: {@link delta} from here on holds only what changes. */
  markBase(): void {
    this.baseSeq = this.nextSeq - 1;
    this.changedBase.clear();
    this.digestCache = undefined;
  }

  /**
   * What changed since {@link markBase}: the seeded entries deleted and replaced, and the ones
   * added. Costs the entries added; a scan of the seeded ones only when some were deleted or replaced.
   */
  delta(): CollectionDelta<T> {
    const kept = this.indexAfter(this.baseSeq);
    const deleted: number[] = [];
    const entries: Array<DumpedEntry<T>> = [];
    if (kept < this.baseSeq || this.changedBase.size > 0) {
      let expected = 1;
      for (let i = 0; i < kept; i++) {
        const entry = this.ordered[i]!;
        while (expected < entry.seq) deleted.push(expected++);
        expected++;
        if (this.changedBase.has(entry.seq)) entries.push(plain(entry));
      }
      while (expected <= this.baseSeq) deleted.push(expected++);
    }
    for (let i = kept; i < this.ordered.length; i++) entries.push(plain(this.ordered[i]!));
    return { nextSeq: this.nextSeq, base: this.baseSeq, digest: this.baseDigest(), deleted, entries };
  }

  /**
   * A digest (8 hex) of the seeded entries still as seeded, in order. Worked out again only when
   * one more of them was replaced or deleted: a snapshot of an unchanged base costs nothing.
   */
  baseDigest(): string {
    const kept = this.indexAfter(this.baseSeq);
    const changed = this.changedBase.size + (this.baseSeq - kept);
    if (this.digestCache?.changed !== changed) {
      let digest = 0x811c9dc5;
      for (let i = 0; i < kept; i++) {
        const entry = this.ordered[i]!;
        if (!this.changedBase.has(entry.seq)) digest = hashJson(entry.extra, hashJson(entry.record, digest));
      }
      this.digestCache = { changed, digest: (digest >>> 0).toString(16).padStart(8, '0') };
    }
    return this.digestCache.digest;
  }

  /**
   * Fills an empty collection with `delta` over `base`, a collection just seeded the same way as
   * the one the delta was taken of. A delta that does not fit that base is a 400 naming the field
   * under `field` (`connections[0].data.crm.Contact.base`); the sequences, ascending and within
   * range, are the caller's to check.
   */
  loadDelta(base: OrderedCollection<T>, delta: CollectionDelta<T>, field: string): void {
    if (delta.base !== 0 && base.size !== delta.base) {
      throw ApiError.invalidField(
        `${field}.base`,
        `${field}.base is ${delta.base}, but this sandbox seeds ${base.size} entries there; the snapshot was taken by a crm-sandbox that seeds differently (another version?)`,
      );
    }
    // A base of 0: a collection read from a version-1 snapshot that did not build on this seeding.
    const gone = new Set([...delta.deleted, ...delta.entries.map((entry) => entry.seq)]);
    const kept = (delta.base === 0 ? [] : base.ordered).filter((entry) => !gone.has(entry.seq)).map(plain);
    const last = kept[kept.length - 1];
    if (last && last.seq >= delta.nextSeq) {
      throw ApiError.invalidField(
        `${field}.nextSeq`,
        `${field}.nextSeq must be above every entry's seq, and seeded entry ${last.seq} is neither deleted nor replaced`,
      );
    }
    const keptIds = new Set(kept.map((entry) => entry.record.id));
    delta.entries.forEach((entry, j) => {
      if (keptIds.has(entry.record.id))
        throw ApiError.invalidField(
          `${field}.entries[${j}].record.id`,
          `${field}.entries[${j}].record.id repeats the id of a seeded entry: ${entry.record.id}`,
        );
    });
    const merged: Array<DumpedEntry<T>> = [];
    for (let i = 0, j = 0; i < kept.length || j < delta.entries.length; ) {
      merged.push(j === delta.entries.length || (i < kept.length && kept[i]!.seq < delta.entries[j]!.seq) ? kept[i++]! : delta.entries[j++]!);
    }
    this.load({ nextSeq: delta.nextSeq, entries: merged });
    this.baseSeq = delta.base;
    for (const entry of delta.entries) if (entry.seq <= delta.base) this.changedBase.add(entry.seq);
    const digest = this.baseDigest();
    if (digest !== delta.digest) {
      throw ApiError.invalidField(
        `${field}.digest`,
        `${field}.digest is ${delta.digest}, but the seeded entries this sandbox rebuilds there give ${digest}; the snapshot was taken by a crm-sandbox that seeds differently (another version?)`,
      );
    }
  }

  /**
   * Fills an empty collection with every entry of a version-1 snapshot, over `base`, a collection
   * just seeded the same way: the entries that differ from the seeded ones count as replaced, so
   * the next {@link delta} is as small as if this sandbox had made them. Entries whose next
   * sequence would fall among the seeded ones (seeded with smaller sizes) build on no base.
   */
  loadOverBase(base: OrderedCollection<T>, dumped: CollectionDump<T>): void {
    this.load(dumped);
    this.baseSeq = dumped.nextSeq > base.size ? base.size : 0;
    for (const entry of this.ordered) {
      if (entry.seq > this.baseSeq) break;
      const seeded = base.ordered[base.indexAfter(entry.seq - 1)];
      if (seeded?.seq !== entry.seq || entryJson(seeded) !== entryJson(entry)) this.changedBase.add(entry.seq);
    }
  }

  /** Fills an empty collection with entries (sequences ascending) and the next sequence number. */
  private load(dumped: CollectionDump<T>): void {
    for (const { seq, record, extra } of dumped.entries) {
      this.nextSeq = seq;
      this.insert(record, extra);
    }
    this.nextSeq = dumped.nextSeq;
  }

  /** Index in {@link entries} of the first entry whose seq is greater than `seq` (binary search). */
  indexAfter(seq: number): number {
    let low = 0;
    let high = this.ordered.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.ordered[mid]!.seq <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
