import type { Route } from './context.js';

/** Fault rules of the service's endpoints: `GET /sandbox/faults` and `PUT /sandbox/faults` (`{}` or `{ rules: [] }` clears them). */
export const faultRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/sandbox/faults',
    handler: (ctx) => ({ body: { rules: ctx.sandbox.faultRules() } }),
  },
  {
    method: 'PUT',
    pattern: '/sandbox/faults',
    handler: (ctx) => ({ body: { rules: ctx.sandbox.setFaults(ctx.body()) /* checked field by field */ } }),
  },
];
