import * as z from 'zod';
import { once } from '../../shared/once.js';
import { ruleSchema, rulesSchema } from '../faults.js';
import { allTenantsQuery, everyTenant, type Route, type RouteContext, type RouteDeps } from './context.js';

/**
 * Fault rules of the service's endpoints. `PUT /sandbox/faults` replaces the caller's own
 * runtime `rules` (`{}` or `{ rules: [] }` clears them), which apply to its requests only; the
 * answer also shows what applies to every tenant: the `serverRules` (set with the admin key, or
 * `setFaults()` in code) and the `standingRules` the sandbox was started with (the `serve`
 * flags, `createSandbox({ faults })`). With `?all=true` and the admin key, `rules` are the
 * server's: GET reads them, PUT replaces them.
 */
function answer(ctx: RouteContext, faults: RouteDeps['faults'], all: boolean) {
  if (all) return { body: { rules: faults.faultRules(), standingRules: faults.standingFaultRules() } };
  return { body: { rules: faults.faultRules({ apiKey: ctx.apiKey }), serverRules: faults.faultRules(), standingRules: faults.standingFaultRules() } };
}

export const faultRoutes: Route<'faults'>[] = [
  {
    method: 'GET',
    pattern: '/sandbox/faults',
    admin: true,
    operationId: 'getFaults',
    summary: "The fault rules of the service's endpoints that apply to the caller",
    tag: 'Sandbox control',
    query: [allTenantsQuery],
    ok: { status: 200, schema: (out) => out.faultRulesAnswerSchema, description: 'The rules' },
    errors: [403],
    handler: (ctx, { faults }) => answer(ctx, faults, everyTenant(ctx, 'GET /sandbox/faults')),
  },
  {
    method: 'PUT',
    pattern: '/sandbox/faults',
    admin: true,
    operationId: 'setFaults',
    summary: "Replace the caller's runtime fault rules (a rule, a list of rules, or { rules }; {} clears them); with all=true and the admin key, the server's",
    tag: 'Sandbox control',
    query: [allTenantsQuery],
    body: once(() => z.union([ruleSchema(), z.array(ruleSchema()), rulesSchema()])),
    ok: { status: 200, schema: (out) => out.faultRulesAnswerSchema, description: 'The rules' },
    errors: [403],
    handler: (ctx, { faults }) => {
      const all = everyTenant(ctx, 'PUT /sandbox/faults');
      faults.setFaults(ctx.body() /* checked field by field */, all ? {} : { apiKey: ctx.apiKey });
      return answer(ctx, faults, all);
    },
  },
];
