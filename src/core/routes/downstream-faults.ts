import * as z from 'zod';
import { downstreamFaultsBody } from '../../downstream/faults.js';
import { parseOrThrow } from '../../shared/validation.js';
import type { Route } from './context.js';

/**
 * `/sandbox/connections/{connectionId}/downstream-faults`: what the next passthrough calls of a
 * connection do instead of answering normally. PUT replaces the pending faults, GET lists what
 * is left of them, DELETE clears them. Same calls as `Sandbox.setDownstreamFaults` and friends.
 */
const PATH = '/sandbox/connections/:connectionId/downstream-faults';

export const downstreamFaultRoutes: Route<'faults'>[] = [
  {
    method: 'GET',
    pattern: PATH,
    operationId: 'getDownstreamFaults',
    summary: "The pending faults of the connection's passthrough calls",
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ faults: z.array(out.downstreamFaultOutputSchema) }), description: 'The pending faults' },
    handler: (ctx, { faults }) => ({ body: { faults: faults.downstreamFaults(ctx.connection().connectionId) } }),
  },
  {
    method: 'PUT',
    pattern: PATH,
    operationId: 'setDownstreamFaults',
    summary: 'Replace the pending downstream faults',
    tag: 'Sandbox control',
    body: downstreamFaultsBody,
    ok: { status: 200, schema: (out) => z.object({ faults: z.array(out.downstreamFaultOutputSchema) }), description: 'The pending faults' },
    handler: (ctx, { faults }) => {
      const { connectionId } = ctx.connection();
      const body = parseOrThrow(downstreamFaultsBody(), ctx.body());
      return { body: { faults: faults.setDownstreamFaults(connectionId, body.faults) } };
    },
  },
  {
    method: 'DELETE',
    pattern: PATH,
    operationId: 'clearDownstreamFaults',
    summary: 'Clear the pending downstream faults',
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ faults: z.array(out.downstreamFaultOutputSchema) }), description: 'The pending faults' },
    handler: (ctx, { faults }) => ({ body: { faults: faults.setDownstreamFaults(ctx.connection().connectionId, []) } }),
  },
];
