import type { ClientCheck } from '../../client-check/client-check.js';
import { parseRuleList } from '../../client-check/rules.js';
import { ApiError, ErrorCode, SandboxConfigError } from '../../shared/errors.js';
import { queryParam } from '../http.js';
import type { Route, RouteContext } from './context.js';
import { parseBoolean } from './pagination.js';

/** The sandbox's client-check, or a 404 saying how to turn it on (the inspector shows it as "not available"). */
function checkOf(ctx: RouteContext): ClientCheck {
  const check = ctx.sandbox.clientCheck;
  if (!check) throw new ApiError(404, ErrorCode.ROUTE_NOT_FOUND, 'client-check is off: start the server with crm-sandbox serve --client-check (or run crm-sandbox client-check -- <command>)');
  return check;
}

/** `rules=a,b`: a 400 naming the field and listing the rules when one is unknown. */
function rulesOf(ctx: RouteContext) {
  const text = queryParam(ctx.query, 'rules');
  if (text === undefined) return undefined;
  try {
    return parseRuleList(text, 'rules');
  } catch (error) {
    if (error instanceof SandboxConfigError) throw ApiError.invalidField('rules', error.message);
    throw error;
  }
}

/** `GET /sandbox/client-check`: the caller's conduct report; `DELETE` starts its check over. */
export const clientCheckRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/sandbox/client-check',
    handler: (ctx) => {
      const check = checkOf(ctx);
      const rules = rulesOf(ctx);
      return {
        body: check.report(ctx.apiKey, {
          final: parseBoolean(queryParam(ctx.query, 'final'), 'final'),
          strict: parseBoolean(queryParam(ctx.query, 'strict'), 'strict'),
          ...(rules ? { rules } : {}),
        }),
      };
    },
  },
  {
    method: 'DELETE',
    pattern: '/sandbox/client-check',
    handler: (ctx) => {
      checkOf(ctx).restart(ctx.apiKey);
      return { body: {} };
    },
  },
];
