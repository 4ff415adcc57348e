import { ApiError } from '../../shared/errors.js';
import type { Entry, OrderedCollection } from '../../store/ordered-collection.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { queryParam } from '../http.js';
import type { QueryParameter, RouteContext } from './context.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 200;

/** Every limit as a client writes it ('1' … '200'), looked up on every page request instead of a pattern's test. */
const LIMITS = new Map(Array.from({ length: MAX_LIMIT }, (_, i) => [String(i + 1), i + 1]));

/**
 * `limit`: an integer from 1 to 200, default 100; anything else is a 400. An integral decimal
 * (`2.0`) is that integer: a client generated from the document, which types `limit` as a number,
 * writes a float (decision 0043).
 */
export function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const known = LIMITS.get(text);
  if (known !== undefined) return known;
  const limit = /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT)) {
    throw ApiError.invalidField('limit', `limit must be an integer from 1 to ${MAX_LIMIT}, got ${JSON.stringify(text)}`);
  }
  return limit;
}

/** `limit` and `cursor`, documented. */
export const pageQuery: QueryParameter[] = [
  { name: 'limit', description: 'Page size, 1 to 200 (default 100)', schema: { type: 'integer', minimum: 1, maximum: 200, default: 100 } },
  { name: 'cursor', description: "The previous page's nextPageCursor (empty, absent or 1: the first page)", schema: { type: 'string' } },
];

/** A boolean query parameter: `true` or `false`, in any case (Python's client writes `True`: decision 0043). */
export function parseBoolean(text: string | undefined, name: string): boolean {
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  const lower = text.toLowerCase();
  if (lower === 'false') return false;
  if (lower === 'true') return true;
  throw ApiError.invalidField(name, `${name} must be true or false, got ${JSON.stringify(text)}`);
}

export interface PageRequest {
  limit: number;
  /** The sequence to start after (0 for the first page). */
  afterSeq: number;
}

/** Reads `limit` and `cursor` for a list named `list` of one connection. */
export function pageRequest(ctx: RouteContext, list: string, connectionId: string): PageRequest {
  return readPage(queryParam(ctx.query, 'limit'), queryParam(ctx.query, 'cursor'), list, connectionId);
}

/**
 * `limit` and `cursor` as given (query text, or a search body's values). An empty cursor reads as
 * none, as clients often send `cursor=` on the first page; so does `1`, which a client that ran in
 * production against the service sent to start every walk (decision 0026).
 */
export function readPage(limit: string | undefined, cursor: string | undefined, list: string, connectionId: string): PageRequest {
  const afterSeq = cursor === undefined || cursor === '' || cursor === '1' ? 0 : decodeCursor(cursor, list, connectionId);
  return { limit: parseLimit(limit), afterSeq };
}

/**
 * A page body: `{ [key]: items, nextPageCursor }`, the cursor `null` on the last page (real
 * clients index it on every page: decision 0026). `list` names the cursor's list (so a cursor of
 * one list is refused by another).
 */
export function pageBody<T extends { id: string }>(
  collection: OrderedCollection<T>,
  page: PageRequest,
  names: { key: string; list: string; connectionId: string },
  render: (entry: Entry<T>) => unknown,
): Record<string, unknown> {
  const { entries, lastSeq } = collection.pageAfter(page.afterSeq, page.limit);
  return { [names.key]: entries.map(render), nextPageCursor: lastSeq === undefined ? null : encodeCursor(names.list, names.connectionId, lastSeq) };
}
