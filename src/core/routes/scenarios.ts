import * as z from 'zod';
import { ACCESS_TOKEN_PATTERN } from '../../model/connection.js';
import { INTEGRATION_IDS } from '../../model/integrations.js';
import type { ScenarioDefinition } from '../../scenarios/schema.js';
import { durationSchema } from '../../shared/duration.js';
import { ApiError, ErrorCode } from '../../shared/errors.js';
import { once } from '../../shared/once.js';
import { utf8ByteLength } from '../../shared/text-codec.js';
import { parseOrThrow } from '../../shared/validation.js';
import { loadScenarioEngine, type ScenarioEngine } from '../scenario-engine.js';
import type { Route, RouteContext, RouteDeps } from './context.js';

export const runBody = once(() =>
  z.strictObject({
    connectionId: z.string().min(1).optional(),
    link: z
      .strictObject({
        integrationId: z.enum(INTEGRATION_IDS).optional(),
        nativeOrgId: z.string().min(1).optional(),
        accessToken: z.string().regex(ACCESS_TOKEN_PATTERN, 'must be access_ followed by 40 lowercase hex characters').optional(),
      })
      .optional(),
    webhookUrl: z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' }).optional(),
    seed: z.number().int().nonnegative().optional(),
    maxWait: durationSchema().optional(),
    definition: z.record(z.string(), z.unknown()).optional(),
  }),
);

/** How long a run through the control API waits for its deliveries at the end, unless the body says. */
export const ROUTE_MAX_WAIT = '60s';

// The engine (and its YAML parser) is loaded by the sandbox's platform for the first request that
// needs it. In a browser there is none (the built-ins are files): a 404, which the inspector shows
// as "not available".
const engine = ({ platform }: RouteDeps['scenarios']) => {
  const loaded = loadScenarioEngine(platform);
  if (!loaded)
    throw new ApiError(
      404,
      ErrorCode.ROUTE_NOT_FOUND,
      'scenarios are not available in the browser build: run them with the Node entry (crm-sandbox serve, or createSandbox from crm-sandbox)',
    );
  return loaded;
};

/**
 * A 400 for a definition that cannot run: its message is the first problem's line (and how many
 * more there are), `metadata.field` that problem's field, `metadata.issues` every problem.
 */
function invalidDefinition(error: InstanceType<ScenarioEngine['ScenarioError']>): ApiError {
  const field = (problem: { field: string }) => (problem.field ? `definition.${problem.field}` : 'definition');
  const [first, ...more] = error.problems;
  const message = `${error.line(first!)}${more.length > 0 ? ` (and ${more.length} more: see metadata.issues)` : ''}`;
  const issues = error.problems.map((problem) => ({ field: field(problem), message: problem.message, step: problem.step, kind: problem.kind }));
  return ApiError.invalidField(field(first!), message, { issues });
}

/** Plays a scenario on this sandbox for the caller's API token; the answer is the report. */
async function run(ctx: RouteContext, scenarios: RouteDeps['scenarios'], scenario: 'definition' | string) {
  const body = parseOrThrow(runBody(), ctx.body());
  if (body.connectionId !== undefined && body.link !== undefined)
    throw ApiError.invalidField('link', 'give connectionId (an existing connection) or link (a new one), not both');
  const { checkScenario, listBuiltIns, findScenario, runScenario, reportJson, ScenarioError, fieldBytesOver } = await engine(scenarios);
  let resolved: ReturnType<typeof findScenario>;
  try {
    if (scenario === 'definition') {
      if (body.definition === undefined) throw ApiError.invalidField('definition', 'definition is required');
      resolved = checkScenario(body.definition, 'definition');
    } else {
      // Only built-ins by name: a request never names a file on the server's disk.
      if (!listBuiltIns().some((item) => item.name === scenario)) throw ApiError.notFound('Scenario', scenario, 'name');
      resolved = findScenario(scenario);
    }
  } catch (error) {
    if (error instanceof ScenarioError) throw invalidDefinition(error);
    throw error;
  }
  checkRunSize(resolved.definition, scenario === 'definition' ? 'definition.' : '', scenarios, fieldBytesOver);
  if (body.connectionId !== undefined) ctx.connection(body.connectionId);
  const report = await runScenario(scenarios.target, resolved, {
    apiKey: ctx.apiKey,
    webhookUrl: body.webhookUrl,
    connectionId: body.connectionId,
    integrationId: body.link?.integrationId,
    nativeOrgId: body.link?.nativeOrgId,
    accessToken: body.link?.accessToken,
    seed: body.seed,
    // The dev server's clock is real: a request should not wait out a 20-hour retry schedule.
    maxWait: body.maxWait ?? ROUTE_MAX_WAIT,
    // Also counted as the fields' references resolve: one that grows them fails the run at that create.
    fieldBytesLimit: scenarios.fieldBytesLimit,
  });
  // Serialised and encoded with turns of the event loop between events: a big report does not hold the server.
  return reportJson(report);
}

/**
 * A run through the control API creates at most `repeatLimit` records (the sum of its create
 * steps' `repeat`) and writes at most `fieldBytesLimit` bytes of their fields (each step's fields
 * as JSON, as written, times its `repeat`): a 400 naming the step where a sum goes over. The CLI
 * and `runScenario()` are not capped: their runs hold no shared server.
 */
function checkRunSize(
  definition: ScenarioDefinition,
  prefix: string,
  { repeatLimit, fieldBytesLimit }: RouteDeps['scenarios'],
  fieldBytesOver: ScenarioEngine['fieldBytesOver'],
): void {
  let creates = 0;
  let fieldBytes = 0;
  for (const [index, step] of definition.steps.entries()) {
    if (!('create' in step)) continue;
    const repeat = step.create.repeat ?? 1;
    creates += repeat;
    if (creates > repeatLimit) {
      const field = `${prefix}steps[${index}].create.repeat`;
      throw ApiError.invalidField(
        field,
        `${field}: this run would create ${creates} records by this step, and a scenario run through the control API creates at most ${repeatLimit} (the sandbox's cap: scenarioRepeatLimit, --scenario-repeat-limit); ` +
          'play it with the CLI (crm-sandbox scenario run, which --server can point at this server) or raise the cap',
        { limit: repeatLimit, option: 'scenarioRepeatLimit', flag: '--scenario-repeat-limit' },
      );
    }
    if (fieldBytesLimit === Infinity) continue;
    fieldBytes += utf8ByteLength(JSON.stringify(step.create.fields ?? {})) * repeat;
    if (fieldBytes > fieldBytesLimit) {
      const field = `${prefix}steps[${index}].create.fields`;
      throw ApiError.invalidField(field, `${field}: ${fieldBytesOver(fieldBytesLimit)}`, {
        limit: fieldBytesLimit,
        option: 'scenarioFieldBytesLimit',
        flag: '--scenario-field-bytes-limit',
      });
    }
  }
}

/** `GET /sandbox/scenarios` lists the built-ins; `POST …/{name}/run` and `POST /sandbox/scenarios/run` (a definition) play one. */
export const scenarioRoutes: Route<'scenarios'>[] = [
  {
    method: 'GET',
    pattern: '/sandbox/scenarios',
    operationId: 'listScenarios',
    summary: 'The built-in scenarios',
    tag: 'Sandbox control',
    ok: { status: 200, schema: () => z.object({ scenarios: z.array(z.object({ name: z.string(), description: z.string() })) }), description: 'The scenarios' },
    handler: async (_ctx, { scenarios }) => {
      const { listBuiltIns } = await engine(scenarios);
      return { body: { scenarios: listBuiltIns().map(({ name, description }) => ({ name, description })) } };
    },
  },
  {
    method: 'POST',
    pattern: '/sandbox/scenarios/run',
    operationId: 'runScenarioDefinition',
    summary: 'Play a scenario given as a definition',
    tag: 'Sandbox control',
    body: runBody,
    ok: { status: 200, schema: (out) => out.scenarioReportSchema, description: 'The report' },
    handler: (ctx, { scenarios }) => run(ctx, scenarios, 'definition'),
  },
  {
    method: 'POST',
    pattern: '/sandbox/scenarios/:name/run',
    operationId: 'runScenario',
    summary: 'Play a built-in scenario',
    tag: 'Sandbox control',
    body: runBody,
    ok: { status: 200, schema: (out) => out.scenarioReportSchema, description: 'The report' },
    handler: (ctx, { scenarios }) => run(ctx, scenarios, ctx.params.name!),
  },
];
