import type { Route } from './context.js';

/**
 * Fault rules of the service's endpoints. `PUT /sandbox/faults` replaces the runtime `rules` (`{}`
 * or `{ rules: [] }` clears them); the `standingRules` the sandbox was started with (the `serve`
 * flags, `createSandbox({ faults })`) stay and apply too. Both answer both lists.
 */
export const faultRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/sandbox/faults',
    handler: (ctx) => ({ body: { rules: ctx.sandbox.faultRules(), standingRules: ctx.sandbox.standingFaultRules() } }),
  },
  {
    method: 'PUT',
    pattern: '/sandbox/faults',
    handler: (ctx) => ({ body: { rules: ctx.sandbox.setFaults(ctx.body()) /* checked field by field */, standingRules: ctx.sandbox.standingFaultRules() } }),
  },
];
