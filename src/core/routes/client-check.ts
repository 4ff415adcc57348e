import type { ClientCheck } from '../../client-check/client-check.js';
import { ApiError, ErrorCode, SandboxConfigError } from '../../shared/errors.js';
import { clientCheckCode } from '../client-check-slot.js';
import { queryParam } from '../http.js';
import type { Route, RouteContext } from './context.js';
import { parseBoolean } from './pagination.js';

/** The sandbox's client-check, or a 404 saying how to turn it on (the inspector shows it as "not available"). */
function on(check: ClientCheck | undefined): ClientCheck {
  if (!check)
    throw new ApiError(
      404,
      ErrorCode.ROUTE_NOT_FOUND,
      'client-check is off: start the server with crm-sandbox serve --client-check (or run crm-sandbox client-check -- <command>)',
    );
  return check;
}

/** `rules=a,b`: a 400 naming the field and listing the rules when one is unknown. Only read while client-check is on (its code is loaded). */
function rulesOf(ctx: RouteContext) {
  const text = queryParam(ctx.query, 'rules');
  if (text === undefined) return undefined;
  try {
    return clientCheckCode().parseRuleList(text, 'rules');
  } catch (error) {
    if (error instanceof SandboxConfigError) throw ApiError.invalidField('rules', error.message);
    throw error;
  }
}

/**
 * `GET /sandbox/client-check`: the caller's conduct report; `DELETE` starts its check over. Nothing
 * of client-check's code is imported here (a server without it never loads it): the rule list and
 * the report's schema come with the document's schemas, the rules' reader with the check.
 */
export const clientCheckRoutes: Route<'clientCheck'>[] = [
  {
    method: 'GET',
    pattern: '/sandbox/client-check',
    operationId: 'getClientCheckReport',
    summary: "client-check: the conduct report of the caller's API token (404 unless the server runs with --client-check)",
    tag: 'Sandbox control',
    query: [
      {
        name: 'final',
        description: 'Judge as if the client is done: a walk of pages still open counts as abandoned',
        schema: { type: 'boolean', default: false },
      },
      { name: 'strict', description: 'A rule never exercised makes ok false too', schema: { type: 'boolean', default: false } },
      { name: 'rules', description: (schemas) => `Only these rules, comma-separated: ${schemas.CLIENT_CHECK_RULE_IDS.join(', ')}`, schema: { type: 'string' } },
    ],
    ok: { status: 200, schema: (schemas) => schemas.clientCheckReportSchema, description: 'The report' },
    errors: [404],
    handler: (ctx, { clientCheck }) => {
      const check = on(clientCheck);
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
    operationId: 'restartClientCheck',
    summary: "Forget the caller's conduct so far and start its check (and its hard cases) over",
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => out.emptySchema, description: 'Started over' },
    errors: [404],
    handler: (ctx, { clientCheck }) => {
      on(clientCheck).restart(ctx.apiKey);
      return { body: {} };
    },
  },
];
