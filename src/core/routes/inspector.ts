import * as z from 'zod';
import type { Webhook } from '../../model/connection.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { ApiError } from '../../shared/errors.js';
import { UNIFIED_CRM_OBJECTS, type UnifiedObject } from '../../unified/crm-objects.js';
import { unifiedView } from '../../unified/view.js';
import { signedHeaders } from '../../webhooks/signed-headers.js';
import { type ConnectionState, connectionSummary } from '../connections.js';
import { queryParam } from '../http.js';
import { checkSynced, type Route, type RouteContext } from './context.js';
import { pageQuery } from './pagination.js';
import { unifiedCrmRoutes } from './unified-crm.js';

/**
 * Control-API routes the inspector (`/sandbox/ui`) needs and the service's own API lacks: a
 * connection with its org and webhook by connectionId, its unified records by connectionId (the
 * unified list's own answer, without sending the accessToken from the page), and a delivery with
 * the exact body and the signed headers of each attempt. Same `service-api-token` auth and
 * tenancy as the rest.
 */

/** A connection as the inspector shows it: the list item plus who the org is and its webhook. */
export function inspectedConnection(connection: ConnectionState) {
  return {
    ...connectionSummary(connection),
    nativeOrgId: connection.org.nativeOrgId,
    nativeUserId: connection.org.nativeUserId,
    orgName: connection.orgName,
    webhook: connection.webhook ?? null,
  };
}

/**
 * The unified lists the inspector shows, each an object's description and the route that lists
 * it, for the connections of the integrations of its category. Today the CRM's objects; the
 * engagement objects, described the same way, join this list.
 */
const UNIFIED_LISTS = UNIFIED_CRM_OBJECTS.map((object) => ({
  object,
  category: 'crm',
  route: unifiedCrmRoutes.find((route) => route.method === 'GET' && route.pattern === `/crm/${object.many}`)!,
}));

/** The unified lists a connection's integration serves. */
const unifiedListsOf = (connection: ConnectionState) => UNIFIED_LISTS.filter((list) => list.category === INTEGRATIONS[connection.integrationId].category);

/** Whether any value of a record (nested ones too) holds `needle` (lower case), in any case. */
function hasText(value: unknown, needle: string): boolean {
  if (typeof value === 'string') return value.toLowerCase().includes(needle);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).includes(needle);
  if (Array.isArray(value)) return value.some((item) => hasText(item, needle));
  if (value !== null && typeof value === 'object') return Object.values(value).some((item) => hasText(item, needle));
  return false;
}

/** `limit`, 1 to 200 (default 100), as the lists read it. */
function pageLimit(ctx: RouteContext): number {
  const text = queryParam(ctx.query, 'limit');
  if (text === undefined) return 100;
  const limit = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= 200)) throw ApiError.invalidField('limit', `limit must be an integer from 1 to 200, got ${JSON.stringify(text)}`);
  return limit;
}

/** With `order=newest` or `search`, the cursor is how many records to skip (empty or absent: none). */
function skipCursor(ctx: RouteContext): number {
  const text = queryParam(ctx.query, 'cursor') ?? '';
  if (text === '') return 0;
  if (!/^\d+$/.test(text))
    throw ApiError.invalidField('cursor', `cursor must be the nextPageCursor of the page before (a count, with order or search), got ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * The context of the unified list route for a connection named in the path: its query with the
 * connection's accessToken. The token resolves to that connection without counting as its
 * activity (lastActivityDate stays the client's).
 */
function asUnifiedList(ctx: RouteContext, connection: ConnectionState): RouteContext {
  const query = new URLSearchParams(ctx.query);
  query.set('accessToken', connection.accessToken);
  return {
    request: ctx.request,
    params: ctx.params,
    apiKey: ctx.apiKey,
    admin: ctx.admin,
    adminKeyConfigured: ctx.adminKeyConfigured,
    note: ctx.note,
    query,
    body: () => ctx.body(),
    sharedBody: () => ctx.sharedBody(),
    connection: (connectionId) => ctx.connection(connectionId),
    connectionByToken: () => connection,
  };
}

export const inspectorRoutes: Route<'registry' | 'dispatcher' | 'deliveries' | 'clock' | 'pages'>[] = [
  {
    method: 'GET',
    pattern: '/sandbox/connections',
    operationId: 'inspectConnections',
    summary: 'Connections with their org and webhook',
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ connections: z.array(out.inspectedConnectionSchema) }), description: 'The connections' },
    handler: (ctx, { registry }) => ({ body: { connections: registry.list(ctx.apiKey).map(inspectedConnection) } }),
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId',
    operationId: 'inspectConnection',
    summary: 'One connection with its org, webhook, accessToken and chaos',
    tag: 'Sandbox control',
    ok: {
      status: 200,
      schema: (out) => z.object({ connection: out.inspectedConnectionSchema.extend({ accessToken: z.string(), chaos: out.chaosOutputSchema }) }),
      description: 'The connection',
    },
    // One connection also says what a scenario or a receiver needs: its accessToken, and its delivery chaos.
    handler: (ctx, { deliveries }) => {
      const connection = ctx.connection();
      return {
        body: { connection: { ...inspectedConnection(connection), accessToken: connection.accessToken, chaos: deliveries.chaos(connection.connectionId) } },
      };
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId/webhook',
    operationId: 'inspectWebhook',
    summary: "The connection's webhook, or null",
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ webhook: out.webhookSchema.nullable() }), description: 'The webhook' },
    handler: (ctx): { body: { webhook: Webhook | null } } => ({ body: { webhook: ctx.connection().webhook ?? null } }),
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId/unified',
    operationId: 'inspectUnifiedObjects',
    summary: "The unified objects the connection's integration serves, each with the path that lists them",
    tag: 'Sandbox control',
    ok: {
      status: 200,
      schema: () => z.object({ objects: z.array(z.object({ objectType: z.string(), path: z.string(), listKey: z.string() })) }),
      description: 'The objects, in the order of the service document',
    },
    handler: (ctx) => ({
      body: {
        objects: unifiedListsOf(ctx.connection()).map(({ object }) => ({ objectType: object.type, path: `/crm/${object.many}`, listKey: object.listKey })),
      },
    }),
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId/unified/:objectType',
    operationId: 'inspectUnifiedRecords',
    summary: "A page of the connection's unified records of a type: what GET /crm/{objects} answers with its accessToken (409 while NEW_CONNECTION)",
    tag: 'Sandbox control',
    query: [
      ...pageQuery,
      { name: 'allFields', description: "Also answer each record in its CRM's native shape, as `additional`", schema: { type: 'boolean', default: false } },
      {
        name: 'order',
        description: "`newest`: the records last created first (the cursor is then a count of records to skip); default: the list's own order and cursors",
        schema: { type: 'string', enum: ['list', 'newest'] },
      },
      {
        name: 'search',
        description: 'Only records with this text (any case) in one of their values; the cursor is then a count of records to skip',
        schema: { type: 'string' },
      },
    ],
    ok: {
      status: 200,
      schema: (out) => z.union(UNIFIED_CRM_OBJECTS.map((object: UnifiedObject) => out.unifiedPageSchema(object))),
      description: 'A page of records, as the unified list answers it',
    },
    errors: [409],
    // The unified list's own handler answers: the same records, cursors and bytes as /crm/{objects}.
    handler: (ctx, deps) => {
      const connection = ctx.connection();
      const lists = unifiedListsOf(connection);
      const list = lists.find(({ object }) => object.type === ctx.params.objectType);
      if (!list) {
        throw ApiError.invalidField(
          'objectType',
          `objectType must be one of ${lists.map(({ object }) => object.type).join(', ') || '(none)'} for this ${connection.integrationId} connection, got ${JSON.stringify(ctx.params.objectType)}`,
        );
      }
      const order = queryParam(ctx.query, 'order') ?? 'list';
      if (order !== 'list' && order !== 'newest') throw ApiError.invalidField('order', `order must be list or newest, got ${JSON.stringify(order)}`);
      const search = queryParam(ctx.query, 'search')?.trim() ?? '';
      if (order === 'list' && search === '') return list.route.handler(asUnifiedList(ctx, connection), deps);
      // The inspector's own view: the newest first, or those with the text, a page at a time.
      checkSynced(connection);
      const { object } = list;
      const limit = pageLimit(ctx);
      const skip = skipCursor(ctx);
      return deps.registry.withData(connection, (data) => {
        const entries = data.crm[object.type].entries();
        const needle = search.toLowerCase();
        const found: unknown[] = [];
        // From the end when the newest come first; stops once the page and one more are found.
        for (let i = 0; i < entries.length && found.length <= skip + limit; i++) {
          const entry = entries[order === 'newest' ? entries.length - 1 - i : i]!;
          const record = unifiedView(connection.integrationId, object.type, entry.record);
          if (needle === '' || hasText(record, needle)) found.push(record);
        }
        const page = found.slice(skip, skip + limit);
        return { body: { [object.listKey]: page, nextPageCursor: found.length > skip + limit ? String(skip + limit) : null } };
      });
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/deliveries/:eventId',
    operationId: 'inspectDelivery',
    summary: 'A delivery with its exact body and the signed headers of each attempt',
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ delivery: out.deliveryDetailSchema }), description: 'The delivery' },
    handler: (ctx, { dispatcher, registry }) => {
      const eventId = ctx.params.eventId!;
      const delivery = dispatcher.get(eventId);
      const connection = delivery && registry.find(delivery.connectionId);
      const body = dispatcher.bodyOf(eventId);
      // Another API token's events are as unknown as missing ones.
      if (!delivery || !connection || connection.apiKey !== ctx.apiKey || body === undefined) {
        throw ApiError.notFound('Delivery', eventId, 'eventId');
      }
      const attempts = delivery.attempts.map((attempt) => ({
        ...attempt,
        headers: signedHeaders(connection.accessToken, connection.connectionId, body, attempt.timestamp),
      }));
      return { body: { delivery: { ...delivery, attempts, body } } };
    },
  },
];
