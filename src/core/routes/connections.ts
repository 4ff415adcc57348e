import * as z from 'zod';
import { once } from '../../shared/once.js';
import { parseOrThrow } from '../../shared/validation.js';
import { connectionSummary } from '../connections.js';
import { type Route, requiredQuery } from './context.js';

export const deleteBody = once(() => z.object({ connectionId: z.string().min(1) }));

/** The caller's connections: listed (not paginated), read one, deleted. */
export const connectionRoutes: Route<'connections'>[] = [
  {
    method: 'GET',
    pattern: '/connection/connections',
    operationId: 'listConnections',
    summary: "The caller's connections (not paginated)",
    tag: 'Connections',
    ok: { status: 200, schema: (out) => z.object({ connections: z.array(out.connectionSummarySchema) }), description: 'The connections' },
    handler: (ctx, { connections }) => ({ body: { connections: connections.connections(ctx.apiKey) } }),
  },
  {
    method: 'GET',
    pattern: '/connection/connection',
    operationId: 'getConnection',
    summary: 'One connection',
    tag: 'Connections',
    query: [{ name: 'connectionId', required: true, description: 'The connection', schema: { type: 'string', minLength: 1 } }],
    ok: { status: 200, schema: (out) => z.object({ connection: out.connectionSummarySchema }), description: 'The connection' },
    handler: (ctx) => ({ body: { connection: connectionSummary(ctx.connection(requiredQuery(ctx, 'connectionId'))) } }),
  },
  {
    method: 'DELETE',
    pattern: '/connection/connection',
    operationId: 'deleteConnection',
    summary: 'Delete a connection',
    tag: 'Connections',
    body: deleteBody,
    ok: { status: 200, schema: (out) => out.emptySchema, description: 'Deleted' },
    handler: (ctx, { connections }) => {
      const { connectionId } = parseOrThrow(deleteBody(), ctx.body());
      connections.removeConnection(ctx.connection(connectionId));
      return { body: {} };
    },
  },
];
