import { everyTenant, type Route, type RouteContext } from './context.js';

/**
 * Fault rules of the service's endpoints. `PUT /sandbox/faults` replaces the caller's own
 * runtime `rules` (`{}` or `{ rules: [] }` clears them), which apply to its requests only; the
 * answer also shows what applies to every tenant: the `serverRules` (set with the admin key, or
 * `setFaults()` in code) and the `standingRules` the sandbox was started with (the `serve`
 * flags, `createSandbox({ faults })`). With `?all=true` and the admin key, `rules` are the
 * server's: GET reads them, PUT replaces them.
 */
function answer(ctx: RouteContext, all: boolean) {
  const { sandbox } = ctx;
  if (all) return { body: { rules: sandbox.faultRules(), standingRules: sandbox.standingFaultRules() } };
  return { body: { rules: sandbox.faultRules({ apiKey: ctx.apiKey }), serverRules: sandbox.faultRules(), standingRules: sandbox.standingFaultRules() } };
}

export const faultRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/sandbox/faults',
    admin: true,
    handler: (ctx) => answer(ctx, everyTenant(ctx, 'GET /sandbox/faults')),
  },
  {
    method: 'PUT',
    pattern: '/sandbox/faults',
    admin: true,
    handler: (ctx) => {
      const all = everyTenant(ctx, 'PUT /sandbox/faults');
      ctx.sandbox.setFaults(ctx.body() /* checked field by field */, all ? {} : { apiKey: ctx.apiKey });
      return answer(ctx, all);
    },
  },
];
