import type { Clock } from '../../clock/clock.js';
import type { downstreamFor as DownstreamFor } from '../../downstream/index.js';
import { loadDownstream } from '../../downstream/load.js';
import { requestKey } from '../../shared/digest.js';
import { ApiError } from '../../shared/errors.js';
import { headerText } from '../../shared/header-text.js';
import { type Pieces, runFromNow, runOfOneMoment, runToEnd } from '../../shared/pieces.js';
import { chargeWork, RECORD_WORK, WORK_PIECE, workDone } from '../../shared/work.js';
import type { ConnectionData } from '../../store/connection-data.js';
import type { Entry, OrderedCollection } from '../../store/ordered-collection.js';
import type { FilterField } from '../../unified/crm-objects.js';
import { compileFiltersInPieces, type RecordFilter } from '../../unified/filters.js';
import type { ConnectionRegistry, ConnectionState } from '../connections.js';
import { queryParam, type Reply } from '../http.js';
import type { CachedPage } from '../page-cache.js';
import type { RouteContext } from './context.js';
import { type PageRequest, parseBoolean, readPage } from './pagination.js';

/**
 * What the unified CRM routes (./unified-crm.ts) and the unified engagement routes
 * (./unified-engagement.ts) read and answer alike: the accessToken of a body, a search's paging
 * and allFields (in the query or the body), a page of the records that pass, and every write's
 * handler ({@link unifiedWrite}) with its answer and the fields it ignored.
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
  /** Whether the page is of the data as it is now (one that is not is answered, never kept). */
  current: boolean;
}

/** A page of the entries that pass, after the page's cursor, walked at once. */
function matching<T extends { id: string }>(collection: OrderedCollection<T>, page: PageRequest, passes: (entry: Entry<T>) => boolean): MatchedPage<T> {
  const walk = new Walk(collection.entries(), collection.indexAfter(page.afterSeq), page, passes);
  walk.step(Number.POSITIVE_INFINITY);
  return walk.found;
}

/** How often a walk in pieces starts again in pieces after a turn changed what it reads, before it takes another way (below). */
const WALK_RESTARTS = 2;

/**
 * A page of the entries that pass, as {@link matching} finds it, and the {@link MatchedPage} a route renders at once
 * after it. On a real clock the walk goes in pieces of {@link WORK_PIECE} units of work (src/shared/work.ts: what the
 * filters compared, as well as the records looked at), with a turn of the event loop once a slice is used: a piece of
 * 500 records held the loop 657–989 ms when each record's test was a list of thousands against 30,000 wanted values,
 * and a short collection was walked at once whatever its tests cost. A walk that ends within its first slice answers
 * without a promise, as before.
 *
 * The page is of one moment: `moment` is the version of all the walk reads (the collection, or the whole data set
 * where a view reads others); when a turn changed it, the walk starts again in pieces over what there is now
 * (`runOfOneMoment`, decisions 0041, 0042), at most {@link WALK_RESTARTS} times. After that (writes coming faster
 * than the pieces), a walk whose records are all it reads (`frozen`: a CRM search) goes on in pieces over a copy of
 * the collection's entries as they are then, and answers that moment's page without keeping it; another (an
 * engagement search, whose views read the whole data set) is made at once (decision 0049).
 *
 * @example const found = await matchingFor(deps.clock, collection, page, () => collection.version, passes, true);
 */
export function matchingFor<T extends { id: string }>(
  clock: Clock,
  collection: OrderedCollection<T>,
  page: PageRequest,
  moment: () => number,
  passes: (entry: Entry<T>) => boolean,
  frozen: boolean,
  restarts = 0,
): MatchedPage<T> | Promise<MatchedPage<T>> {
  if (clock.kind !== 'real') return matching(collection, page, passes);
  if (restarts > WALK_RESTARTS) {
    if (!frozen) return matching(collection, page, passes);
    const copy = collection.entries().map((entry): Entry<T> => ({ seq: entry.seq, record: entry.record, extra: entry.extra }));
    return runFromNow(matchingInPieces(copy, collection.indexAfter(page.afterSeq), page, passes, false));
  }
  const at = moment();
  return runOfOneMoment(
    matchingInPieces(collection.entries(), collection.indexAfter(page.afterSeq), page, passes, true),
    () => moment() !== at,
    () => matchingFor(clock, collection, page, moment, passes, frozen, restarts + 1),
  );
}

/** The walk, a piece of work at a time. */
function* matchingInPieces<T extends { id: string }>(
  entries: readonly Entry<T>[],
  from: number,
  page: PageRequest,
  passes: (entry: Entry<T>) => boolean,
  current: boolean,
): Pieces<MatchedPage<T>> {
  const walk = new Walk(entries, from, page, passes);
  while (!walk.step(WORK_PIECE)) yield;
  walk.found.current = current;
  return walk.found;
}

/** A search's walk along a collection's entries from the page's cursor, a piece of work at a time (a plain loop: no generator per entry). */
class Walk<T extends { id: string }> {
  readonly found: MatchedPage<T> = { entries: [], lastSeq: undefined, current: true };

  constructor(
    private readonly all: readonly Entry<T>[],
    private next: number,
    private readonly page: PageRequest,
    private readonly passes: (entry: Entry<T>) => boolean,
  ) {}

  /** Looks at more entries until `budget` units of work are done; true when the walk is over (a page found, or the entries' end). */
  step(budget: number): boolean {
    const { all } = this;
    const { entries } = this.found;
    const until = workDone() + budget;
    while (this.next < all.length && workDone() < until) {
      const entry = all[this.next++]!;
      chargeWork(RECORD_WORK);
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

/**
 * A search's cache key: its body's text (a long one by its digest) and its page, worked out once per shared body. The
 * body's text, not its filters written again as JSON: 1 MiB of filters took 10 ms to write out, at every request.
 */
const searchKeys = new WeakMap<object, { text: string; last?: { route: string; afterSeq: number; limit: number; key: string } }>();
export function searchKey(ctx: RouteContext, body: Readonly<Record<string, unknown>>, page: PageRequest, route: string): string {
  let kept = searchKeys.get(body);
  if (kept === undefined) searchKeys.set(body, (kept = { text: requestKey(ctx.request.body ?? '') }));
  // The whole key last made with this body, kept: a new string each request would be hashed again by the cache's map.
  const { last } = kept;
  if (last?.route === route && last.afterSeq === page.afterSeq && last.limit === page.limit) return last.key;
  const key = `${route}:${kept.text}:${page.afterSeq}:${page.limit}`;
  kept.last = { route, afterSeq: page.afterSeq, limit: page.limit, key };
  return key;
}

/** A search's filters compiled (and checked: a 400 for a bad one): in pieces on a real clock (a 1 MiB body's lists), at once on a virtual one. */
export function searchFilter(clock: Clock, filters: unknown, fields: readonly FilterField[]): RecordFilter | Promise<RecordFilter> {
  const pieces = compileFiltersInPieces(filters, fields);
  return clock.kind === 'real' ? runFromNow(pieces) : runToEnd(pieces);
}

/** A cached page as a route's answer. */
export const pageReply = (page: CachedPage): Reply => page;

/** `next(value)`, at once for a value and once it is there for a promise of one. */
export const onceThere = <T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> =>
  value instanceof Promise ? value.then(next) : next(value);

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

/** A unified write's request as its handler checked it: the body, the caller's connection and its records. */
export interface WriteCall {
  body: Record<string, unknown>;
  connection: ConnectionState;
  data: ConnectionData;
  /** The record the write acts on (`id` in the body), for a route that takes one; undefined for a create. */
  id: string | undefined;
  /** The write's answer: the record's id, and the fields it ignored (the body's unknown keys first). */
  answer(result: { id: string; ignored: string[] }): Reply;
}

/** What a unified write route takes in its body besides its accessToken. */
export interface WriteBody {
  /** What `id` names, when the route takes one: `the Deal to update` (a 400 without it). */
  id?: string;
  /** The key of the fields written: `deal`, `fields`. */
  key: string;
  /** The 400's message when the body has no such key. */
  missing: string;
}

/**
 * The handler of every unified write (a CRM or engagement create or update, an engagement action): the body's
 * accessToken, its `id` and fields checked, then the caller's connection (`connectionOf`: its checks); once the
 * connection's data set is there (a first call seeds it in pieces, decision 0038), `write`, which calls
 * ../../unified/writes.ts (the store step) and answers with `call.answer`: the record's id and the fields it ignored.
 *
 * @example
 * handler: (ctx, deps) =>
 *   unifiedWrite(ctx, deps.registry, { key: 'deal', missing: 'deal is required' }, (token) => crmConnection(ctx, token, object), async (call) =>
 *     call.answer((await loadUnifiedWrites()).writeCrm({ object, mode, body: call.body.deal, connection: call.connection, data: call.data, now })))
 */
export function unifiedWrite(
  ctx: RouteContext,
  registry: ConnectionRegistry,
  takes: WriteBody,
  connectionOf: (accessToken: string) => ConnectionState,
  write: (call: WriteCall) => Promise<Reply>,
): Reply | Promise<Reply> {
  const body = ctx.body();
  const accessToken = bodyToken(ctx, false);
  const id = body.id;
  if (takes.id !== undefined && (typeof id !== 'string' || id === '')) throw ApiError.invalidField('id', `id is required: ${takes.id}`);
  if (body[takes.key] === undefined) throw ApiError.invalidField(takes.key, takes.missing);
  const connection = connectionOf(accessToken);
  const answer = (result: { id: string; ignored: string[] }) =>
    writeAnswer(result.id, [...extraKeys(body, ['accessToken', 'id', takes.key]), ...result.ignored]);
  return registry.withData(connection, (data) => write({ body, connection, data, id: takes.id === undefined ? undefined : (id as string), answer }));
}
