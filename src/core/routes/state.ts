import * as z from 'zod';
import { snapshotSchema } from '../snapshot.js';
import { allTenantsQuery, everyTenant, type Route } from './context.js';

/**
 * Reset and snapshots of the sandbox's state, the caller's tenant only: `POST /sandbox/reset`
 * empties it, `GET`/`PUT /sandbox/snapshot` read and replace it as versioned JSON. With
 * `?all=true` and the admin key, the same over the whole server (every tenant and the server's
 * streams); a tenant's key with `?all=true` is a 403.
 */
export const stateRoutes: Route<'state' | 'registry' | 'dispatcher'>[] = [
  {
    method: 'POST',
    pattern: '/sandbox/reset',
    admin: true,
    operationId: 'reset',
    summary: "Empty the caller's tenancy (or, with all=true and the admin key, everything)",
    tag: 'Sandbox control',
    query: [allTenantsQuery],
    ok: { status: 200, schema: () => z.object({ reset: z.enum(['all', 'tenancy']) }), description: 'Reset' },
    errors: [403],
    handler: (ctx, { state }) => {
      const all = everyTenant(ctx, 'POST /sandbox/reset');
      state.reset(all ? {} : { apiKey: ctx.apiKey });
      return { body: { reset: all ? 'all' : 'tenancy' } };
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/snapshot',
    admin: true,
    operationId: 'getSnapshot',
    summary: "The caller's tenant as versioned JSON (with all=true and the admin key, the whole server's state)",
    tag: 'Sandbox control',
    query: [allTenantsQuery],
    ok: { status: 200, schema: () => ({ $ref: '#/components/schemas/Snapshot' }), description: 'The snapshot' },
    errors: [403],
    handler: async (ctx, { state }) => ({
      body: await state.snapshotInTurns(everyTenant(ctx, 'GET /sandbox/snapshot') ? {} : { apiKey: ctx.apiKey }),
    }),
  },
  {
    method: 'PUT',
    pattern: '/sandbox/snapshot',
    admin: true,
    operationId: 'restoreSnapshot',
    summary: "Replace the caller's tenant with a snapshot's (with all=true and the admin key, the whole state)",
    tag: 'Sandbox control',
    query: [allTenantsQuery],
    body: snapshotSchema,
    ok: {
      status: 200,
      schema: () => z.object({ restored: z.object({ connections: z.number().int(), deliveries: z.number().int() }) }),
      description: 'Restored',
    },
    errors: [403],
    handler: async (ctx, deps) => {
      const all = everyTenant(ctx, 'PUT /sandbox/snapshot');
      await deps.state.restoreInTurns(ctx.body(), all ? {} : { apiKey: ctx.apiKey });
      // The restored parts: read after the restore, which swaps them.
      const connections = all ? deps.registry.all() : deps.registry.list(ctx.apiKey);
      // Counted, not read: a read copies every delivery of the log (10,000 take 10-20 ms), all in the restore's last piece.
      const deliveries = deps.dispatcher.countOf(new Set(connections.map((connection) => connection.connectionId)));
      return { body: { restored: { connections: connections.length, deliveries } } };
    },
  },
];
