import type { downstreamFor as DownstreamFor } from '../../downstream/index.js';
import { loadDownstream } from '../../downstream/load.js';
import { ApiError } from '../../shared/errors.js';
import type { ConnectionData } from '../../store/connection-data.js';
import type { Entry, OrderedCollection } from '../../store/ordered-collection.js';
import type { ConnectionRegistry, ConnectionState } from '../connections.js';
import { queryParam, type Reply } from '../http.js';
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

/** A page of the entries that pass, after the page's cursor; `lastSeq` set when more pass after it. */
export function matching<T extends { id: string }>(collection: OrderedCollection<T>, page: PageRequest, passes: (entry: Entry<T>) => boolean) {
  const entries: Entry<T>[] = [];
  for (const entry of collection.entriesAfter(page.afterSeq)) {
    if (!passes(entry)) continue;
    if (entries.length === page.limit) return { entries, lastSeq: entries[entries.length - 1]!.seq };
    entries.push(entry);
  }
  return { entries, lastSeq: undefined };
}

/** Loads the systems first when `additional` is asked for. */
export function withSystems<T>(allFields: boolean, answer: (downstreamFor: typeof DownstreamFor | undefined) => T): T | Promise<T> {
  return allFields ? loadDownstream().then(({ downstreamFor }) => answer(downstreamFor)) : answer(undefined);
}

/** Keys at the top of a body the request does not take: ignored, as the service ignored them, and named. */
export const extraKeys = (body: Record<string, unknown>, known: string[]) =>
  Object.keys(body)
    .filter((key) => !known.includes(key))
    .map((key) => `${key} (not a field of this request)`);

/** A write's answer: the record's id, and the fields it ignored in {@link IGNORED_FIELDS_HEADER}. */
export const writeAnswer = (id: string, ignored: string[]): Reply => ({
  body: { id },
  ...(ignored.length > 0 ? { headers: { [IGNORED_FIELDS_HEADER]: ignored.join(', ') } } : {}),
});

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
