import * as z from 'zod';
import { rulesSchema } from '../core/faults.js';
import { statusBody } from '../core/routes/control.js';
import { publicTokenBody } from '../core/routes/link.js';
import { passthroughBody } from '../core/routes/passthrough.js';
import { runBody } from '../core/routes/scenarios.js';
import { CRM_OBJECT_TYPES } from '../model/crm.js';
import { INTEGRATION_IDS } from '../model/integrations.js';
import { parseDuration, requireUnit } from '../shared/duration.js';
import { ApiError, SandboxConfigError } from '../shared/errors.js';
import { orList } from '../shared/validation.js';
import { chaosSettingsSchema } from '../webhooks/chaos.js';
import { DELIVERY_STATES } from '../webhooks/delivery.js';
import { type SandboxApi, ToolError } from './api.js';
import { ENGAGEMENT_TOOLS } from './engagement-tools.js';
import { answerWith, defineTool, jsonOf, passOn, segment, type Tool } from './tool.js';
import { createUnifiedRecord, getUnifiedRecord, listUnifiedRecords, updateUnifiedRecord } from './unified-tools.js';

/**
 * The tools: each acts through the sandbox's HTTP API (see api.ts) and answers what the API
 * answers, so an answer can be checked against `curl` for the same state. Composite tools
 * (link_connection: link token, public token, exchange, webhook) make the calls a client of the
 * service would make, in order. Only what has no route goes through the in-process sandbox:
 * advance_clock (its virtual clock) and sandbox_info.
 */

const connectionId = z.string().min(1).describe('A connectionId of this API key (from link_connection or list_connections)');
const objectType = z.enum(CRM_OBJECT_TYPES).describe('The record type, spelled as in events');
const recordId = z.string().min(1).describe("The record's id");
const eventId = z.string().min(1).describe('The eventId of a delivery (list_deliveries)');
const fields = z.record(z.string(), z.unknown());
const webhookUrl = runBody().shape.webhookUrl.unwrap();

const connectionPath = (id: string) => `/sandbox/connections/${segment(id)}`;
const recordsPath = (id: string, type: string) => `${connectionPath(id)}/records/${segment(type)}`;

/** One connection as `GET /sandbox/connections/{id}` answers it: what composite tools need of it. */
async function connectionOf(api: SandboxApi, id: string): Promise<{ accessToken: string; webhook: { webhookId: string; webhookUrl: string } | null }> {
  return jsonOf(await api.request('GET', connectionPath(id))).connection as { accessToken: string; webhook: { webhookId: string; webhookUrl: string } | null };
}

const linkConnection = defineTool({
  name: 'link_connection',
  title: 'Link a connection',
  description:
    'Links a new connection, as an app does: POST /link/token, POST /sandbox/public-token (what the link widget does in a browser), POST /link/exchange, and with webhookUrl POST /connection/webhook. ' +
    'Answers the exchange ({ connectionId, accessToken, integrationId, nativeOrgId, nativeUserId, nativeOrgURL }) and the webhook (or null). ' +
    'The connection starts NEW_CONNECTION: engagement reads answer 409 CONNECTION_SYNCING until INITIAL_SYNCED (3s), READY at 10s; on the virtual clock call advance_clock { by: "10s" }. ' +
    'Its events are signed with its accessToken: give accessToken (access_ + 40 hex) so your receiver knows it ahead.',
  input: z.strictObject({
    integrationId: publicTokenBody()
      .shape.integrationId.unwrap()
      .describe(`The system to link: ${orList(INTEGRATION_IDS)}`),
    nativeOrgId: publicTokenBody().shape.nativeOrgId.describe("The org's id in that system (default: generated from the seed)"),
    webhookUrl: webhookUrl.optional().describe("Where the connection's webhook events go (your receiver); left out: no webhook yet (set_webhook), events wait"),
    accessToken: publicTokenBody().shape.accessToken.describe('The accessToken the exchange gives, access_ + 40 lowercase hex (default: random)'),
  }),
  run: async ({ integrationId, nativeOrgId, webhookUrl, accessToken }, { api }) => {
    const { linkToken } = jsonOf(await api.request('POST', '/link/token'));
    const { publicToken } = jsonOf(await api.request('POST', '/sandbox/public-token', { body: { integrationId, linkToken, nativeOrgId, accessToken } }));
    const connection = jsonOf(await api.request('POST', '/link/exchange', { body: { publicToken } }));
    const webhook =
      webhookUrl === undefined
        ? null
        : jsonOf(await api.request('POST', '/connection/webhook', { body: { accessToken: connection.accessToken, webhook: { webhookUrl } } })).webhook;
    return answerWith({ ...connection, webhook });
  },
});

const listConnections = defineTool({
  name: 'list_connections',
  title: 'List connections',
  description: 'GET /sandbox/connections: every connection of this API key with its integration, status, org and webhook (or null).',
  input: z.strictObject({}),
  readOnly: true,
  run: async (_, { api }) => passOn(await api.request('GET', '/sandbox/connections')),
});

const getConnection = defineTool({
  name: 'get_connection',
  title: 'Get a connection',
  description:
    'GET /sandbox/connections/{connectionId}: the connection with its status, org, webhook, delivery chaos and accessToken (what its receiver verifies signatures with).',
  input: z.strictObject({ connectionId }),
  readOnly: true,
  run: async ({ connectionId }, { api }) => passOn(await api.request('GET', connectionPath(connectionId))),
});

const setStatus = defineTool({
  name: 'set_status',
  title: 'Set the connection status',
  description: 'POST /sandbox/connections/{connectionId}/status: forces a status (a STATUS_CHANGE event); the automatic moves stop. Answers { connection }.',
  input: z.strictObject({ connectionId, status: statusBody().shape.status }),
  run: async ({ connectionId, status }, { api }) => passOn(await api.request('POST', `${connectionPath(connectionId)}/status`, { body: { status } })),
});

const createRecord = defineTool({
  name: 'create_record',
  title: 'Create a CRM record',
  description:
    'POST /sandbox/connections/{connectionId}/records/{type}: creates a record (a CREATE event to the webhook). Fields left out are generated from the seed; ' +
    'associations go in fields.associations (e.g. { "accountId": "…" }); an unknown or mistyped field is a 400 naming it (schemas: the OpenAPI resource). Answers { record }.',
  input: z.strictObject({ connectionId, type: objectType, fields: fields.optional().describe('Fields of the record, and its associations') }),
  run: async ({ connectionId, type, fields }, { api }) => passOn(await api.request('POST', recordsPath(connectionId, type), { body: fields ?? {} })),
});

const updateRecord = defineTool({
  name: 'update_record',
  title: 'Update a CRM record',
  description: 'PATCH /sandbox/connections/{connectionId}/records/{type}/{id}: changes the fields given (an UPDATE event). Answers { record }.',
  input: z.strictObject({ connectionId, type: objectType, id: recordId, fields: fields.describe('The fields to change') }),
  run: async ({ connectionId, type, id, fields }, { api }) =>
    passOn(await api.request('PATCH', `${recordsPath(connectionId, type)}/${segment(id)}`, { body: fields })),
});

const deleteRecord = defineTool({
  name: 'delete_record',
  title: 'Delete a CRM record',
  description:
    'DELETE /sandbox/connections/{connectionId}/records/{type}/{id}: deletes it (a DELETE event, and those of the attendees that depend on it). Answers {}.',
  input: z.strictObject({ connectionId, type: objectType, id: recordId }),
  destructive: true,
  run: async ({ connectionId, type, id }, { api }) => passOn(await api.request('DELETE', `${recordsPath(connectionId, type)}/${segment(id)}`)),
});

const getRecord = defineTool({
  name: 'get_record',
  title: 'Get a CRM record',
  description: 'GET /sandbox/connections/{connectionId}/records/{type}/{id}: answers { record }.',
  input: z.strictObject({ connectionId, type: objectType, id: recordId }),
  readOnly: true,
  run: async ({ connectionId, type, id }, { api }) => passOn(await api.request('GET', `${recordsPath(connectionId, type)}/${segment(id)}`)),
});

const listRecords = defineTool({
  name: 'list_records',
  title: 'List CRM records',
  description:
    'GET /sandbox/connections/{connectionId}/records/{type}: a page of records, oldest first: { records, nextPageCursor } (null on the last page; else pass it as cursor for the next).',
  input: z.strictObject({
    connectionId,
    type: objectType,
    limit: z.number().int().optional().describe('Page size, 1 to 200 (default 100)'),
    cursor: z.string().optional().describe("The previous page's nextPageCursor"),
  }),
  readOnly: true,
  run: async ({ connectionId, type, limit, cursor }, { api }) =>
    passOn(await api.request('GET', recordsPath(connectionId, type), { query: { limit, cursor } })),
});

const passthrough = defineTool({
  name: 'passthrough',
  title: 'Call the native API',
  description:
    'POST /crm/passthrough with the connection\'s accessToken: a request to its (simulated) native system, e.g. GET services/data/v53.0/query with query { q: "SELECT Id, Name FROM Account" } on Salesforce, ' +
    'GET crm/v3/objects/contacts on HubSpot. A write emits its event. Answers { headers, url, statusCode, body } as the native system answered.',
  input: z.strictObject({
    connectionId,
    method: passthroughBody().shape.method,
    path: passthroughBody().shape.path.describe("Relative to the system's base URL"),
    query: passthroughBody().shape.query,
    body: passthroughBody().shape.body,
  }),
  run: async ({ connectionId, method, path, query, body }, { api }) => {
    const { accessToken } = await connectionOf(api, connectionId);
    return passOn(await api.request('POST', '/crm/passthrough', { body: { accessToken, method, path, query, body } }));
  },
});

const setWebhook = defineTool({
  name: 'set_webhook',
  title: "Set the connection's webhook",
  description:
    "Points the connection's webhook at webhookUrl: POST /connection/webhook, after DELETE /connection/webhook of the one it had (whose undelivered events are then marked failed; the same URL again changes nothing). " +
    'webhookUrl null deletes it. Events that waited for a webhook go out to the new one, in order. Answers { webhook } (null when deleted).',
  input: z.strictObject({ connectionId, webhookUrl: webhookUrl.nullable().describe('Your receiver, or null for no webhook') }),
  destructive: true,
  run: async ({ connectionId, webhookUrl }, { api }) => {
    const { accessToken, webhook } = await connectionOf(api, connectionId);
    if (webhook && webhook.webhookUrl === webhookUrl) return answerWith({ webhook });
    if (webhook) jsonOf(await api.request('DELETE', '/connection/webhook', { body: { accessToken, webhookId: webhook.webhookId } }));
    if (webhookUrl === null) return answerWith({ webhook: null });
    return passOn(await api.request('POST', '/connection/webhook', { body: { accessToken, webhook: { webhookUrl } } }));
  },
});

const listDeliveries = defineTool({
  name: 'list_deliveries',
  title: 'List webhook deliveries',
  description:
    'GET /sandbox/connections/{connectionId}/deliveries: each event with its state (pending, delivering, succeeded, retrying, failed), attempts (time, status, error, durationMs, trigger) and the event itself, oldest first. ' +
    "Without connectionId, every connection's in the order of list_connections. Answers { deliveries }.",
  input: z.strictObject({
    connectionId: connectionId.optional(),
    state: z.enum(DELIVERY_STATES).optional().describe('Only deliveries in this state'),
    limit: z.number().int().min(1, 'must be 1 or more').optional().describe('Only the newest n (a connection under bulk-import has 10,000)'),
  }),
  readOnly: true,
  run: async ({ connectionId, state, limit }, { api }) => {
    const of = async (id: string) => api.request('GET', `${connectionPath(id)}/deliveries`, { query: { state } });
    if (connectionId !== undefined && limit === undefined) return passOn(await of(connectionId));
    const ids =
      connectionId === undefined
        ? (jsonOf(await api.request('GET', '/sandbox/connections')).connections as Array<{ connectionId: string }>).map((connection) => connection.connectionId)
        : [connectionId];
    const deliveries: unknown[] = [];
    for (const id of ids) deliveries.push(...(jsonOf(await of(id)).deliveries as unknown[]));
    return answerWith({ deliveries: limit === undefined ? deliveries : deliveries.slice(-limit) });
  },
});

const getDelivery = defineTool({
  name: 'get_delivery',
  title: 'Get a webhook delivery',
  description:
    'GET /sandbox/deliveries/{eventId}: one delivery with failureReason, every attempt (status, error, duration, trigger, the signed headers sent) and body, the exact JSON text posted. Answers { delivery }.',
  input: z.strictObject({ eventId }),
  readOnly: true,
  run: async ({ eventId }, { api }) => passOn(await api.request('GET', `/sandbox/deliveries/${segment(eventId)}`)),
});

const redeliver = defineTool({
  name: 'redeliver',
  title: 'Redeliver an event',
  description:
    'POST /sandbox/deliveries/{eventId}/redeliver: sends the event again now, signed afresh (a retrying one: its next attempt brought forward; a succeeded or failed one: one extra attempt). ' +
    'A pending or delivering event, or a connection without a webhook, is a 409. Answers { delivery } after the attempt.',
  input: z.strictObject({ eventId }),
  run: async ({ eventId }, { api }) => passOn(await api.request('POST', `/sandbox/deliveries/${segment(eventId)}/redeliver`)),
});

const advanceClock = defineTool({
  name: 'advance_clock',
  title: 'Advance the virtual clock',
  description:
    "Moves the in-process sandbox's virtual clock forward, running every status move (INITIAL_SYNCED at 3s, READY at 10s), delivery and retry (10s, 1m, 5m, 30m, 2h, 6h, 12h) that falls due, in order. " +
    'Refused on a real clock (--port without --clock virtual) and with --server, where time passes by itself. Answers { now }.',
  input: z.strictObject({ by: z.string().min(1).describe('A duration with its unit: 500ms, 10s, 2m, 2h, 1d') }),
  run: async ({ by }, { api }) => {
    const { sandbox } = api;
    if (sandbox === undefined) {
      throw new ToolError(undefined, {
        message:
          'advance_clock needs the in-process sandbox: a dev server (--server) runs on the real clock, so wait, or redeliver an event instead of waiting for its retry',
        errorCode: 'VIRTUAL_CLOCK_REQUIRED',
      });
    }
    if (sandbox.options.clock !== 'virtual') {
      throw new ToolError(undefined, {
        message:
          'advance_clock needs a virtual clock, and this sandbox runs on the real one (crm-sandbox mcp --port serves it on the real clock unless --clock virtual): time passes by itself',
        errorCode: 'VIRTUAL_CLOCK_REQUIRED',
      });
    }
    let ms: number;
    try {
      requireUnit(by, 'by');
      ms = parseDuration(by, 'by');
    } catch (error) {
      if (error instanceof SandboxConfigError) throw ApiError.invalidField('by', error.message);
      throw error;
    }
    await sandbox.advance(`${ms}ms`);
    return answerWith({ now: sandbox.now().toISOString() });
  },
});

const listScenarios = defineTool({
  name: 'list_scenarios',
  title: 'List the built-in scenarios',
  description:
    'GET /sandbox/scenarios: the built-in scenarios, { scenarios: [{ name, description }] }; their files are resources (crm-sandbox://scenarios/{name}.yaml).',
  input: z.strictObject({}),
  readOnly: true,
  run: async (_, { api }) => passOn(await api.request('GET', '/sandbox/scenarios')),
});

/** Which events of a report's transcript a tool keeps: a bulk-import run has 10,000. */
const eventsOption = z
  .enum(['all', 'failed', 'none'])
  .optional()
  .describe("The report's events: all (default, the API's whole report), failed (those not delivered), none");

/** The report as the API answers it, or with fewer of its events. */
function report(text: string, events: 'all' | 'failed' | 'none' | undefined) {
  if (events === undefined || events === 'all') return { text, structured: false };
  const value = JSON.parse(text) as { events: Array<{ state: string }> };
  return answerWith({ ...value, events: events === 'none' ? [] : value.events.filter((event) => event.state !== 'succeeded') }, false);
}

const runScenario = defineTool({
  name: 'run_scenario',
  title: 'Run a scenario',
  description:
    'POST /sandbox/scenarios/{name}/run (a built-in: list_scenarios) or POST /sandbox/scenarios/run (a definition: see the scenario.schema.json resource and validate_scenario). ' +
    'Links a connection (or plays on connectionId), creates its webhook to webhookUrl, plays the steps, waits for the deliveries (at most maxWait, default 60s of sandbox time; on the virtual clock, instantly). ' +
    'Answers the report: ok, connection (its accessToken verifies signatures), events with their attempts, checks, probes, failures.',
  input: z.strictObject({
    name: z.string().min(1).optional().describe('A built-in: connection-lifecycle, crm-activity, deal-won, webhook-outage, bulk-import, receiver-check'),
    definition: runBody().shape.definition.describe('A scenario as JSON (the format of the scenario files): { description?, connection?, steps: [...] }'),
    webhookUrl: runBody().shape.webhookUrl.describe('Where events go (your receiver)'),
    connectionId: runBody().shape.connectionId.describe('Play on this existing connection instead of linking one'),
    link: runBody().shape.link.describe('The connection to link: { integrationId?, nativeOrgId?, accessToken? }'),
    seed: runBody().shape.seed,
    maxWait: runBody().shape.maxWait.describe('How long the run lets sandbox time pass for deliveries (default 60s)'),
    events: eventsOption,
  }),
  run: async ({ name, definition, events, ...body }, { api }) => {
    if ((name === undefined) === (definition === undefined))
      throw ApiError.invalidField(name === undefined ? 'name' : 'definition', 'give name (a built-in) or definition, one of them');
    const path = name === undefined ? '/sandbox/scenarios/run' : `/sandbox/scenarios/${segment(name)}/run`;
    const answer = await api.request('POST', path, { body: { ...body, definition } });
    return report(passOn(answer).text, events);
  },
});

const validateScenario = defineTool({
  name: 'validate_scenario',
  title: 'Validate a scenario',
  description:
    'Checks a scenario definition as a run would before its first step: each step, record fields, references ($name.path), connections. Answers { valid: true, name, description, steps }; ' +
    'an invalid one is the error POST /sandbox/scenarios/run answers: 400 INVALID_FIELD_VALUE, metadata.field and metadata.issues (every problem, with its step).',
  input: z.strictObject({ definition: runBody().shape.definition.unwrap().describe('A scenario as JSON: { description?, connection?, steps: [...] }') }),
  readOnly: true,
  run: async ({ definition }) => {
    const { checkScenario, ScenarioError } = await import('../scenarios/index.js');
    try {
      const scenario = checkScenario(definition, 'definition');
      return answerWith({ valid: true, name: scenario.name, description: scenario.description, steps: scenario.definition.steps.length });
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      // As the control API words it (src/core/routes/scenarios.ts): the first problem, and every one in metadata.issues.
      const field = (problem: { field: string }) => (problem.field ? `definition.${problem.field}` : 'definition');
      const [first, ...more] = error.problems;
      const message = `${error.line(first!)}${more.length > 0 ? ` (and ${more.length} more: see metadata.issues)` : ''}`;
      const issues = error.problems.map((problem) => ({ field: field(problem), message: problem.message, step: problem.step, kind: problem.kind }));
      throw ApiError.invalidField(field(first!), message, { issues });
    }
  },
});

const receiverCheck = defineTool({
  name: 'receiver_check',
  title: 'Check a webhook receiver',
  description:
    'POST /sandbox/scenarios/receiver-check/run: links a connection and probes the receiver: a correctly signed event (must be 2xx), a forged signature, a tampered body, no signature, no timestamp, a stale timestamp (each must be non-2xx), a duplicate (2xx), answers in time. ' +
    "The receiver verifies with the connection's accessToken: give the one it knows. Answers the report: probes (probe, expected, got, ok, fix) and failures.",
  input: z.strictObject({
    webhookUrl: webhookUrl.describe('The receiver to probe'),
    accessToken: runBody()
      .shape.link.unwrap()
      .shape.accessToken.describe('The accessToken the probed connection gets, access_ + 40 lowercase hex: the one your receiver verifies with'),
  }),
  run: async ({ webhookUrl, accessToken }, { api }) =>
    passOn(
      await api.request('POST', '/sandbox/scenarios/receiver-check/run', {
        body: { webhookUrl, ...(accessToken === undefined ? {} : { link: { accessToken } }) },
      }),
      false,
    ),
});

const listRequests = defineTool({
  name: 'list_requests',
  title: 'List journaled requests',
  description:
    "GET /sandbox/requests: this API key's request journal, oldest first (the service's endpoints and the control API, this server's own calls included): method, path, query, status, durationMs, connectionId, body, fault.",
  input: z.strictObject({
    limit: z.number().int().optional().describe('Only the newest n'),
    path: z.string().optional().describe('A path prefix: /engagement, /crm/passthrough'),
    method: z.string().optional(),
    status: z.number().int().optional(),
    connectionId: connectionId.optional(),
    since: z.string().optional().describe('An ISO time'),
  }),
  readOnly: true,
  run: async (query, { api }) => passOn(await api.request('GET', '/sandbox/requests', { query })),
});

const setFaults = defineTool({
  name: 'set_faults',
  title: "Set faults on the service's endpoints",
  description:
    "PUT /sandbox/faults: replaces this API key's fault rules on the service's endpoints (not the control API): latency (200ms or 50ms-400ms), errorRate (0-1), errorStatus (400-599, default 503), rateLimit (100/min), " +
    'each scoped by route (a path prefix, optionally after a method: POST /crm/passthrough) and/or connectionId. [] clears them. Seeded. Answers { rules, serverRules, standingRules }.',
  input: z.strictObject({ rules: rulesSchema().shape.rules }),
  run: async ({ rules }, { api }) => passOn(await api.request('PUT', '/sandbox/faults', { body: { rules } })),
});

const setChaos = defineTool({
  name: 'set_chaos',
  title: 'Set delivery chaos',
  description:
    "PUT /sandbox/connections/{connectionId}/chaos: what at-least-once delivery does to the connection's receiver, seeded: duplicate (a chance, 0-1), delay (500ms or 100ms-2s), reorder, outage (30m from now). {} turns it off. Answers { chaos }.",
  input: z.strictObject({ connectionId, chaos: chaosSettingsSchema() }),
  run: async ({ connectionId, chaos }, { api }) => passOn(await api.request('PUT', `${connectionPath(connectionId)}/chaos`, { body: chaos })),
});

const snapshot = defineTool({
  name: 'snapshot',
  title: 'Take a snapshot',
  description:
    "GET /sandbox/snapshot: this API key's state (connections, tokens, records, deliveries and pending retries, chaos) as versioned JSON, which restore takes back. " +
    'With name, it is kept in this MCP server under that name instead of answered ({ saved, connections }): restore { name } restores it.',
  input: z.strictObject({ name: z.string().min(1).optional().describe('Keep it under this name in this MCP server (until it stops)') }),
  readOnly: true,
  run: async ({ name }, { api, snapshots }) => {
    const answer = await api.request('GET', '/sandbox/snapshot');
    if (name === undefined) return passOn(answer, false);
    const taken = jsonOf(answer);
    snapshots.set(name, taken);
    return answerWith({ saved: name, connections: Array.isArray(taken.connections) ? taken.connections.length : 0 });
  },
});

const restore = defineTool({
  name: 'restore',
  title: 'Restore a snapshot',
  description:
    "PUT /sandbox/snapshot: replaces this API key's state by a snapshot's (the snapshot tool's answer, or one kept by name); a bad one is a 400 naming the field and nothing changes. Answers { restored: { connections, deliveries } }.",
  input: z.strictObject({
    snapshot: z.record(z.string(), z.unknown()).optional().describe('A snapshot, as the snapshot tool answers it'),
    name: z.string().min(1).optional().describe('The name a snapshot was kept under'),
  }),
  destructive: true,
  run: async ({ snapshot, name }, { api, snapshots }) => {
    if ((snapshot === undefined) === (name === undefined))
      throw ApiError.invalidField(name === undefined ? 'snapshot' : 'name', 'give snapshot or name, one of them');
    if (name !== undefined && !snapshots.has(name)) {
      throw ApiError.invalidField(
        'name',
        `no snapshot was kept under the name ${JSON.stringify(name)}; kept: ${[...snapshots.keys()].map((kept) => JSON.stringify(kept)).join(', ') || 'none'}`,
      );
    }
    return passOn(await api.request('PUT', '/sandbox/snapshot', { body: snapshot ?? snapshots.get(name!) }));
  },
});

const reset = defineTool({
  name: 'reset',
  title: 'Reset the sandbox',
  description:
    "POST /sandbox/reset: this API key's connections, deliveries, tokens and request journal are gone. all: true resets every tenant, the clock and the ids as in a fresh sandbox " +
    '(in-process this server owns the sandbox; with --server it needs the server\'s --admin-key). Answers { reset: "tenancy" | "all" }.',
  input: z.strictObject({ all: z.boolean().optional().describe('Every tenant: a fresh sandbox') }),
  destructive: true,
  run: async ({ all }, { api }) => passOn(all === true ? await api.resetAll() : await api.request('POST', '/sandbox/reset')),
});

const sandboxInfo = defineTool({
  name: 'sandbox_info',
  title: 'Where the sandbox is',
  description:
    "What this MCP server drives: mode (in-process or server), the URL your app calls (the --port or --server one; none in-process without --port), the API key (send it as service-api-token), the clock (virtual or real) and, in-process, the sandbox's time.",
  input: z.strictObject({}),
  readOnly: true,
  run: async (_, { api, url }) => {
    const { sandbox } = api;
    return answerWith({
      mode: sandbox ? 'in-process' : 'server',
      url: url ?? null,
      apiKey: api.apiKey,
      clock: sandbox ? sandbox.options.clock : 'real',
      ...(sandbox ? { now: sandbox.now().toISOString() } : {}),
    });
  },
});

/** Every tool, in the order `tools/list` gives them. */
export const TOOLS: readonly Tool[] = [
  sandboxInfo,
  linkConnection,
  listConnections,
  getConnection,
  setStatus,
  setWebhook,
  createRecord,
  updateRecord,
  deleteRecord,
  getRecord,
  listRecords,
  listUnifiedRecords,
  getUnifiedRecord,
  createUnifiedRecord,
  updateUnifiedRecord,
  ...ENGAGEMENT_TOOLS,
  passthrough,
  listDeliveries,
  getDelivery,
  redeliver,
  advanceClock,
  listScenarios,
  runScenario,
  validateScenario,
  receiverCheck,
  listRequests,
  setFaults,
  setChaos,
  snapshot,
  restore,
  reset,
];
