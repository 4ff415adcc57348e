import type { Route, RouteContext } from './context.js';

function connectionOf(ctx: RouteContext) {
  return ctx.sandbox.parts.registry.get(ctx.apiKey, ctx.params.connectionId!);
}

/** A connection's delivery chaos: read it, set it (`{}` turns it off). */
export const chaosRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId/chaos',
    handler: (ctx) => ({ body: { chaos: ctx.sandbox.chaos(connectionOf(ctx).connectionId) } }),
  },
  {
    method: 'PUT',
    pattern: '/sandbox/connections/:connectionId/chaos',
    handler: (ctx) => ({ body: { chaos: ctx.sandbox.setChaos(connectionOf(ctx).connectionId, ctx.body()) } }),
  },
];
