import * as z from 'zod';
import { connectionSummary } from '../connections.js';
import { parseOrThrow } from '../../shared/validation.js';
import { requiredQuery, type Route } from './context.js';

export const deleteBody = z.object({ connectionId: z.string().min(1) });

/** The caller's connections: listed (not paginated), read one, deleted. */
export const connectionRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/connection/connections',
    handler: (ctx) => ({ body: { connections: ctx.sandbox.connections(ctx.apiKey) } }),
  },
  {
    method: 'GET',
    pattern: '/connection/connection',
    handler: (ctx) => {
      const connection = ctx.sandbox.parts.registry.get(ctx.apiKey, requiredQuery(ctx, 'connectionId'));
      return { body: { connection: connectionSummary(connection) } };
    },
  },
  {
    method: 'DELETE',
    pattern: '/connection/connection',
    handler: (ctx) => {
      const { connectionId } = parseOrThrow(deleteBody, ctx.body());
      ctx.sandbox.removeConnection(ctx.sandbox.parts.registry.get(ctx.apiKey, connectionId));
      return { body: {} };
    },
  },
];
