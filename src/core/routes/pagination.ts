import { ApiError } from '../../shared/errors.js';
import type { Entry, OrderedCollection } from '../../store/ordered-collection.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { queryParam } from '../http.js';
import type { QueryParameter, RouteContext } from './context.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 200;

/** `limit`: an integer from 1 to 200, default 100; anything else is a 400. */
export function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const limit = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) {
    throw ApiError.invalidField('limit', `limit must be an integer from 1 to ${MAX_LIMIT}, got ${JSON.stringify(text)}`);
  }
  return limit;
}

/** `limit` and `cursor`, documented. */
export const pageQuery: QueryParameter[] = [
  { name: 'limit', description: 'Page size, 1 to 200 (default 100)', schema: { type: 'integer', minimum: 1, maximum: 200, default: 100 } },
  { name: 'cursor', description: "The previous page's nextPageCursor (empty or absent: the first page)", schema: { type: 'string' } },
];

/** A boolean query parameter: `true` or `false`. */
export function parseBoolean(text: string | undefined, name: string): boolean {
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  throw ApiError.invalidField(name, `${name} must be true or false, got ${JSON.stringify(text)}`);
}

export interface PageRequest {
  limit: number;
  /** The sequence to start after (0 for the first page). */
  afterSeq: number;
}

/** Reads `limit` and `cursor` for a list named `list` of one connection. */
export function pageRequest(ctx: RouteContext, list: string, connectionId: string): PageRequest {
  const limit = parseLimit(queryParam(ctx.query, 'limit'));
  const cursor = queryParam(ctx.query, 'cursor');
  // An empty cursor reads as none, as clients often send `cursor=` on the first page.
  const afterSeq = cursor === undefined || cursor === '' ? 0 : decodeCursor(cursor, list, connectionId);
  return { limit, afterSeq };
}

/**
 * A page body: `{ [key]: items, nextPageCursor? }`, the cursor absent on the last page.
 * `list` names the cursor's list (so a cursor of one list is refused by another).
 */
export function pageBody<T extends { id: string }>(
  collection: OrderedCollection<T>,
  page: PageRequest,
  names: { key: string; list: string; connectionId: string },
  render: (entry: Entry<T>) => unknown,
): Record<string, unknown> {
  const { entries, lastSeq } = collection.pageAfter(page.afterSeq, page.limit);
  const body: Record<string, unknown> = { [names.key]: entries.map(render) };
  if (lastSeq !== undefined) body.nextPageCursor = encodeCursor(names.list, names.connectionId, lastSeq);
  return body;
}
