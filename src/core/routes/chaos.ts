import { connectionSummary } from '../connections.js';
import type { Route, RouteContext } from './context.js';

/**
 * A connection as the control API shows it: the summary, plus what a scenario or a receiver
 * needs (its accessToken and webhook), and its delivery chaos.
 */
function connectionOf(ctx: RouteContext) {
  return ctx.sandbox.parts.registry.get(ctx.apiKey, ctx.params.connectionId!);
}

export const chaosRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId',
    handler: (ctx) => {
      const connection = connectionOf(ctx);
      return {
        body: {
          connection: {
            ...connectionSummary(connection),
            accessToken: connection.accessToken,
            nativeOrgId: connection.org.nativeOrgId,
            nativeUserId: connection.org.nativeUserId,
            webhook: connection.webhook ?? null,
            chaos: ctx.sandbox.chaos(connection.connectionId),
          },
        },
      };
    },
  },
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
