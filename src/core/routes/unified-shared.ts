import type { Clock } from '../../clock/clock.js';
import type { downstreamFor as DownstreamFor } from '../../downstream/index.js';
import { loadDownstream } from '../../downstream/load.js';
import { ApiError } from '../../shared/errors.js';
import { headerText } from '../../shared/header-text.js';
import { type Pieces, runOfOneMoment } from '../../shared/pieces.js';
import type { ConnectionData } from '../../store/connection-data.js';
import type { Entry, OrderedCollection } from '../../store/ordered-collection.js';
import type { ConnectionRegistry, ConnectionState } from '../connections.js';
import { queryParam, type Reply } from '../http.js';
import type { CachedPage } from '../page-cache.js';
import type { RouteContext } from './context.js';
import { type PageRequest, parseBoolean, readPage } from './pagination.js';

/**
 * What the unified CRM routes (./unified-crm.ts) and the unified engagement routes
 * (./unified-engagement.ts) read and answer alike: the accessToken of a body, a search's paging
 * and allFields (in the query or the body), a page of the records that pass, and the answer of a
 * write with the fields it ignored.
 */

/** Fields a write named that were not written, each with why: a header, since the service ignored them silently. */
export const IGNORED_FIELDS_HEADER = 'x-sandbox-ignored-fields';

/** The accessToken of a POST or PATCH: in the JSON body (a search takes it in the query too). */
export function bodyToken(ctx: RouteContext, inQuery: boolean): string {
  const fromQuery = inQuery ? queryParam(ctx.query, 'accessToken') : undefined;
  const value = fromQuery || ctx.body().accessToken;
  if (typeof value !== 'string' || value === '') throw ApiError.invalidField('accessToken', 'accessToken is required (a string: the connection’s accessToken)');
  return value;
}

/** A search's allFields: the query's, else the body's. */
export function searchAllFields(ctx: RouteContext, body: Readonly<Record<string, unknown>>): boolean {
  return parseBoolean(queryParam(ctx.query, 'allFields') ?? asText(body.allFields, 'allFields'), 'allFields');
}

/** A search's page: `limit` and `cursor` from the query, else from the body. */
export function searchPage(ctx: RouteContext, body: Readonly<Record<string, unknown>>, list: string, connectionId: string): PageRequest {
  return readPage(
    queryParam(ctx.query, 'limit') ?? asText(body.limit, 'limit'),
    queryParam(ctx.query, 'cursor') ?? asText(body.cursor, 'cursor'),
    list,
    connectionId,
  );
}

/** A search body's `limit`, `cursor` or `allFields`, as the query would have it (text). */
function asText(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw ApiError.invalidField(
    name,
    `${name} must be a ${name === 'cursor' ? 'string' : name === 'limit' ? 'number' : 'boolean'}, got ${Array.isArray(value) ? 'array' : typeof value}`,
  );
}

/** A page of the entries that pass a search: `lastSeq` set when more pass after it. */
export interface MatchedPage<T> {
  entries: Entry<T>[];
  lastSeq: number | undefined;
}

/** A page of the entries that pass, after the page's cursor, walked at once. */
function matching<T extends { id: string }>(collection: OrderedCollection<T>, page: PageRequest, passes: (entry: Entry<T>) => boolean): MatchedPage<T> {
  const walk = new Walk(collection, page, passes);
  walk.step(Number.POSITIVE_INFINITY);
  return walk.found;
}

/** Collections up to this size are walked at once (about a millisecond a thousand entries): a longer walk gives turns. */
export const WALK_AT_ONCE = 2_000;
/** Entries a piece of a long walk looks at. */
const UNIFIED_WALK_PIECE = 500;

/**
 * A page of the entries that pass, as {@link matching} finds it, and the {@link MatchedPage} a route renders at once
 * after it: a long walk on a real clock goes in pieces with turns of the event loop between (a search that finds
 * nothing in 100,000 records held the server for 50–120 ms), so other requests wait a piece, not the walk.
 * `moment` is the version of all the walk reads (the collection, or the whole data set where a view reads others):
 * when a turn changed it, the walk is made again at once over what there is now, so the page is of one moment
 * (`runOfOneMoment`, as the passthrough's native walks run: decision 0042).
 *
 * @example const found = await matchingFor(deps.clock, collection, page, () => collection.version, passes);
 */
export function matchingFor<T extends { id: string }>(
  clock: Clock,
  collection: OrderedCollection<T>,
  page: PageRequest,
  moment: () => number,
  passes: (entry: Entry<T>) => boolean,
): MatchedPage<T> | Promise<MatchedPage<T>> {
  if (clock.kind !== 'real' || collection.size <= WALK_AT_ONCE) return matching(collection, page, passes);
  const at = moment();
  return runOfOneMoment(
    matchingInPieces(collection, page, passes),
    () => moment() !== at,
    () => matching(collection, page, passes),
  );
}

/** The walk, a piece at a time. */
function* matchingInPieces<T extends { id: string }>(
  collection: OrderedCollection<T>,
  page: PageRequest,
  passes: (entry: Entry<T>) => boolean,
): Pieces<MatchedPage<T>> {
  const walk = new Walk(collection, page, passes);
  while (!walk.step(UNIFIED_WALK_PIECE)) yield;
  return walk.found;
}

/** A search's walk along a collection from the page's cursor, a number of entries at a time (a plain loop: no generator per entry). */
class Walk<T extends { id: string }> {
  readonly found: MatchedPage<T> = { entries: [], lastSeq: undefined };
  private next: number;

  constructor(
    private readonly collection: OrderedCollection<T>,
    private readonly page: PageRequest,
    private readonly passes: (entry: Entry<T>) => boolean,
  ) {
    this.next = collection.indexAfter(page.afterSeq);
  }

  /** Looks at up to `count` more entries; true when the walk is over (a page found, or the collection's end). */
  step(count: number): boolean {
    const all = this.collection.entries();
    const { entries } = this.found;
    const end = Math.min(all.length, this.next + count);
    for (; this.next < end; this.next++) {
      const entry = all[this.next]!;
      if (!this.passes(entry)) continue;
      if (entries.length === this.page.limit) {
        this.found.lastSeq = entries[entries.length - 1]!.seq;
        return true;
      }
      entries.push(entry);
    }
    return this.next >= all.length;
  }
}

/** A cached page as a route's answer (a copy: the cache's own object is never handed out). */
export const pageReply = ({ json, encoded }: CachedPage): Reply => ({ json, encoded });

/** `next(value)`, at once for a value and once it is there for a promise of one. */
export const onceThere = <T, R>(value: T | Promise<T>, next: (value: T) => R): R | Promise<R> => (value instanceof Promise ? value.then(next) : next(value));

/** Loads the systems first when `additional` is asked for. */
export function withSystems<T>(allFields: boolean, answer: (downstreamFor: typeof DownstreamFor | undefined) => T | Promise<T>): T | Promise<T> {
  return allFields ? loadDownstream().then(({ downstreamFor }) => answer(downstreamFor)) : answer(undefined);
}

/** Keys at the top of a body the request does not take: ignored, as the service ignored them, and named. */
export const extraKeys = (body: Record<string, unknown>, known: string[]) =>
  Object.keys(body)
    .filter((key) => !known.includes(key))
    .map((key) => `${key} (not a field of this request)`);

/**
 * Most bytes {@link IGNORED_FIELDS_HEADER} takes: with the answer's other headers, well under the 8 KiB many clients
 * read at most (Node's fetch refuses 16 KiB of headers, and the record would be written all the same).
 */
export const IGNORED_FIELDS_HEADER_BYTES = 4096;
/** Most characters one ignored field takes in the header when the list is summarised (a name may be 100,000 long). */
const IGNORED_ITEM_CHARS = 256;

/**
 * A write's answer: the record's id, and the fields it ignored in {@link IGNORED_FIELDS_HEADER}, each name as a header
 * can carry it (percent-encoded where it is not plain ASCII: `contact.%CE%A9mega (not a field of Contact)`). When
 * they do not fit in {@link IGNORED_FIELDS_HEADER_BYTES}, the header says how many and names the first few, and the
 * body carries every one, as given, in `metadata.ignoredFields`.
 */
export function writeAnswer(id: string, ignored: string[]): Reply {
  if (ignored.length === 0) return { body: { id } };
  const items = ignored.map((item) => headerText(item, true));
  const whole = items.join(', ');
  if (whole.length <= IGNORED_FIELDS_HEADER_BYTES) return { body: { id }, headers: { [IGNORED_FIELDS_HEADER]: whole } };
  const shown: string[] = [];
  // Room for the count before and the pointer to the body after.
  let room = IGNORED_FIELDS_HEADER_BYTES - 160;
  for (const item of items) {
    const cut = item.length > IGNORED_ITEM_CHARS ? `${item.slice(0, IGNORED_ITEM_CHARS)}...` : item;
    if (cut.length + 2 > room) break;
    shown.push(cut);
    room -= cut.length + 2;
  }
  const header = `${ignored.length} fields ignored; the first ${shown.length}: ${shown.join(', ')}; all ${ignored.length} in the answer's metadata.ignoredFields`;
  return { body: { id, metadata: { ignoredFields: ignored } }, headers: { [IGNORED_FIELDS_HEADER]: header } };
}

/**
 * `answer(data)` with the connection's data set: at once when it is seeded, else once it is,
 * seeded in pieces with turns of the event loop between (a connection's first read; decision 0038).
 *
 * @example return withData(deps.registry, connection, (data) => ({ body: page(data) }));
 */
export function withData<T>(registry: ConnectionRegistry, connection: ConnectionState, answer: (data: ConnectionData) => T | Promise<T>): T | Promise<T> {
  if (connection.data !== undefined) return answer(connection.data);
  return registry.whenSeeded(connection, () => answer(registry.dataOf(connection)));
}
