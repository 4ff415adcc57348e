import { downstreamFaultsBody } from '../../downstream/faults.js';
import { parseOrThrow } from '../../shared/validation.js';
import type { Route, RouteContext } from './context.js';

/**
 * `/sandbox/connections/{connectionId}/downstream-faults`: what the next passthrough calls of a
 * connection do instead of answering normally. PUT replaces the pending faults, GET lists what
 * is left of them, DELETE clears them. Same calls as `Sandbox.setDownstreamFaults` and friends.
 */
const PATH = '/sandbox/connections/:connectionId/downstream-faults';

const connectionIdOf = (ctx: RouteContext) => ctx.sandbox.parts.registry.get(ctx.apiKey, ctx.params.connectionId!).connectionId;

export const downstreamFaultRoutes: Route[] = [
  {
    method: 'GET',
    pattern: PATH,
    handler: (ctx) => ({ body: { faults: ctx.sandbox.downstreamFaults(connectionIdOf(ctx)) } }),
  },
  {
    method: 'PUT',
    pattern: PATH,
    handler: (ctx) => {
      const connectionId = connectionIdOf(ctx);
      const { faults } = parseOrThrow(downstreamFaultsBody, ctx.body());
      return { body: { faults: ctx.sandbox.setDownstreamFaults(connectionId, faults) } };
    },
  },
  {
    method: 'DELETE',
    pattern: PATH,
    handler: (ctx) => ({ body: { faults: ctx.sandbox.setDownstreamFaults(connectionIdOf(ctx), []) } }),
  },
];
