import * as z from 'zod';
import { ApiError } from '../../shared/errors.js';
import { queryParam } from '../http.js';
import type { JournalFilter } from '../journal.js';
import type { Route, RouteContext } from './context.js';

function filterOf(ctx: RouteContext): JournalFilter {
  const filter: JournalFilter = {};
  const method = queryParam(ctx.query, 'method');
  if (method !== undefined) filter.method = method;
  const path = queryParam(ctx.query, 'path');
  if (path !== undefined) filter.path = path;
  const connectionId = queryParam(ctx.query, 'connectionId');
  if (connectionId !== undefined) filter.connectionId = connectionId;
  const status = queryParam(ctx.query, 'status');
  if (status !== undefined) {
    if (!/^\d{3}$/.test(status)) throw ApiError.invalidField('status', `status must be a 3-digit HTTP status, got ${JSON.stringify(status)}`);
    filter.status = Number(status);
  }
  const since = queryParam(ctx.query, 'since');
  if (since !== undefined) {
    if (Number.isNaN(Date.parse(since))) throw ApiError.invalidField('since', `since must be an ISO-8601 time, got ${JSON.stringify(since)}`);
    filter.since = since;
  }
  const limit = queryParam(ctx.query, 'limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1) throw ApiError.invalidField('limit', `limit must be a positive integer, got ${JSON.stringify(limit)}`);
    filter.limit = Number(limit);
  }
  return filter;
}

/** The request journal: `GET /sandbox/requests` (this API token's requests, filtered) and `DELETE /sandbox/requests`. */
export const journalRoutes: Route<'journal'>[] = [
  {
    method: 'GET',
    pattern: '/sandbox/requests',
    operationId: 'listRequests',
    summary: "The request journal of the caller's API token",
    tag: 'Sandbox control',
    query: [
      { name: 'method', description: 'Only this method', schema: { type: 'string' } },
      { name: 'path', description: 'Path prefix', schema: { type: 'string' } },
      { name: 'connectionId', description: 'Only requests that acted on this connection', schema: { type: 'string' } },
      { name: 'status', description: 'Only this status', schema: { type: 'integer', minimum: 100, maximum: 999 } },
      { name: 'since', description: 'Only requests at or after this ISO-8601 time', schema: { type: 'string', format: 'date-time' } },
      { name: 'limit', description: 'The newest N', schema: { type: 'integer', minimum: 1 } },
    ],
    ok: { status: 200, schema: (out) => z.object({ requests: z.array(out.journalEntrySchema) }), description: 'The requests' },
    handler: (ctx, { journal }) => ({ body: { requests: journal.requests({ ...filterOf(ctx), apiKey: ctx.apiKey }) } }),
  },
  {
    method: 'DELETE',
    pattern: '/sandbox/requests',
    operationId: 'clearRequests',
    summary: 'Empty the request journal',
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => out.emptySchema, description: 'Emptied' },
    handler: (ctx, { journal }) => {
      journal.clearRequests(ctx.apiKey);
      return { body: {} };
    },
  },
];
