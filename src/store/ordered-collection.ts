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

/**
 * Records by id, kept in insertion order with an index that cuts any page in O(log n + limit):
 * a page never costs a scan of the collection. `version` changes on every write, so callers can
 * cache what they render from it.
 */
export class OrderedCollection<T extends { id: string }> {
  private readonly byId = new Map<string, Entry<T>>();
  private readonly byNativeId = new Map<string, Entry<T>>();
  /** Entries in ascending `seq`; deletion splices, insertion appends. */
  private readonly ordered: Entry<T>[] = [];
  private nextSeq = 1;
  private changes = 0;
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
  slice(offset: number, limit: number): Entry<T>[] {
    return this.ordered.slice(offset, offset + limit);
  }

  values(): IterableIterator<T> {
    return this.ordered.map((entry) => entry.record)[Symbol.iterator]();
  }

  entries(): readonly Entry<T>[] {
    return this.ordered;
  }

  /** The entries and the next sequence number, for a snapshot. */
  dump(): { nextSeq: number; entries: Array<{ seq: number; record: T; extra: Record<string, unknown> }> } {
    return { nextSeq: this.nextSeq, entries: this.ordered.map(({ seq, record, extra }) => ({ seq, record, extra })) };
  }

  /** Fills an empty collection from {@link dump}'s output (sequences ascending). */
  load(dumped: { nextSeq: number; entries: ReadonlyArray<{ seq: number; record: T; extra: Record<string, unknown> }> }): void {
    for (const { seq, record, extra } of dumped.entries) {
      this.nextSeq = seq;
      this.insert(record, extra);
    }
    this.nextSeq = dumped.nextSeq;
  }

  /** Index of the first entry whose seq is greater than `seq` (binary search). */
  private indexAfter(seq: number): number {
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
