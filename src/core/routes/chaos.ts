import * as z from 'zod';
import { chaosSettingsSchema } from '../../webhooks/chaos.js';
import type { Route } from './context.js';

/** A connection's delivery chaos: read it, set it (`{}` turns it off). */
export const chaosRoutes: Route<'deliveries'>[] = [
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId/chaos',
    operationId: 'getChaos',
    summary: "The connection's delivery chaos",
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ chaos: out.chaosOutputSchema }), description: 'The chaos settings' },
    handler: (ctx, { deliveries }) => ({ body: { chaos: deliveries.chaos(ctx.connection().connectionId) } }),
  },
  {
    method: 'PUT',
    pattern: '/sandbox/connections/:connectionId/chaos',
    operationId: 'setChaos',
    summary: "Set the connection's delivery chaos ({} turns it off)",
    tag: 'Sandbox control',
    body: chaosSettingsSchema,
    ok: { status: 200, schema: (out) => z.object({ chaos: out.chaosOutputSchema }), description: 'The chaos settings' },
    handler: (ctx, { deliveries }) => ({ body: { chaos: deliveries.setChaos(ctx.connection().connectionId, ctx.body()) } }),
  },
];
