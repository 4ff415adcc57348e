import type { Route } from './context.js';
import { everyTenant } from './context.js';

/**
 * Reset and snapshots of the sandbox's state, the caller's tenant only: `POST /sandbox/reset`
 * empties it, `GET`/`PUT /sandbox/snapshot` read and replace it as versioned JSON. With
 * `?all=true` and the admin key, the same over the whole server (every tenant and the server's
 * streams); a tenant's key with `?all=true` is a 403.
 */
export const stateRoutes: Route[] = [
  {
    method: 'POST',
    pattern: '/sandbox/reset',
    admin: true,
    handler: (ctx) => {
      const all = everyTenant(ctx, 'POST /sandbox/reset');
      ctx.sandbox.reset(all ? {} : { apiKey: ctx.apiKey });
      return { body: { reset: all ? 'all' : 'tenancy' } };
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/snapshot',
    admin: true,
    handler: (ctx) => ({ body: everyTenant(ctx, 'GET /sandbox/snapshot') ? ctx.sandbox.snapshot() : ctx.sandbox.snapshot({ apiKey: ctx.apiKey }) }),
  },
  {
    method: 'PUT',
    pattern: '/sandbox/snapshot',
    admin: true,
    handler: (ctx) => {
      const all = everyTenant(ctx, 'PUT /sandbox/snapshot');
      ctx.sandbox.restore(ctx.body(), all ? {} : { apiKey: ctx.apiKey });
      const { registry } = ctx.sandbox.parts;
      const connections = all ? registry.all() : registry.list(ctx.apiKey);
      const ids = new Set(connections.map((connection) => connection.connectionId));
      const deliveries = ctx.sandbox.deliveries().filter((delivery) => ids.has(delivery.connectionId)).length;
      return { body: { restored: { connections: connections.length, deliveries } } };
    },
  },
];
