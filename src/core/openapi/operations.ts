import * as z from 'zod';
import { ruleSchema, rulesSchema } from '../faults.js';
import { deleteBody as deleteConnectionBody } from '../routes/connections.js';
import { statusBody } from '../routes/control.js';
import { DELIVERY_STATES } from '../../webhooks/delivery.js';
import { publicTokenBody as widgetPublicTokenBody } from '../routes/link-widget.js';
import { exchangeBody, publicTokenBody } from '../routes/link.js';
import { passthroughBody } from '../routes/passthrough.js';
import { runBody } from '../routes/scenarios.js';
import { createBody as createWebhookBody, deleteBody as deleteWebhookBody } from '../routes/webhook.js';
import { snapshotSchema } from '../snapshot.js';
import { downstreamFaultsBody } from '../../downstream/faults.js';
import { CRM_OBJECT_TYPES, crmWriteSchema } from '../../model/crm.js';
import { INTEGRATION_IDS } from '../../model/integrations.js';
import { chaosSettingsSchema } from '../../webhooks/chaos.js';
import * as out from './response-schemas.js';

/** A JSON Schema written by hand (query parameters, which the routes read one by one, not through zod). */
export type JsonSchema = Record<string, unknown>;

export interface QueryParameter {
  name: string;
  required?: boolean;
  description: string;
  schema: JsonSchema;
}

/** What the document says about one route: the request, the success answer, the errors it can answer. */
export interface Operation {
  method: string;
  /** As in `sandbox.routes`: `/sandbox/connections/:connectionId/status`. */
  pattern: string;
  operationId: string;
  summary: string;
  tag: 'Link' | 'Connections' | 'Engagement' | 'Webhooks' | 'Passthrough' | 'Sandbox control' | 'Document';
  /** Answers without a service-api-token. */
  public?: boolean;
  query?: QueryParameter[];
  /** The zod schema the route parses its JSON body with. */
  body?: z.ZodType;
  /** Success: status and body (a zod schema, or a `$ref` to a request-side component). */
  ok: { status: number; schema: z.ZodType | { $ref: string }; description: string };
  /** Error statuses particular to this route (the common ones are added by the document). */
  errors?: number[];
}

const page = (key: string, item: z.ZodType) =>
  z.object({ [key]: z.array(item), nextPageCursor: z.string().optional().describe('Absent on the last page') });

const accessToken: QueryParameter = { name: 'accessToken', required: true, description: "The connection's accessToken", schema: { type: 'string', minLength: 1 } };
const pageParams: QueryParameter[] = [
  { name: 'limit', description: 'Page size, 1 to 200 (default 100)', schema: { type: 'integer', minimum: 1, maximum: 200, default: 100 } },
  { name: 'cursor', description: 'The previous page\'s nextPageCursor (empty or absent: the first page)', schema: { type: 'string' } },
];
const allFields: QueryParameter = { name: 'allFields', description: 'Also answer the native record as `additional`', schema: { type: 'boolean', default: false } };

const empty = z.object({}).strict();
const recordWrite = z.union(CRM_OBJECT_TYPES.map((type) => crmWriteSchema(type))).describe('The fields of the path\'s objectType (see the record schemas); unknown fields are a 400');
const recordBody = z.object({ record: out.anyRecordSchema });
const faultRulesAnswer = z.object({
  rules: z.array(out.faultRuleOutputSchema).describe("The runtime rules PUT /sandbox/faults set: the caller's own (for its requests only), or with all=true the server's"),
  serverRules: z.array(out.faultRuleOutputSchema).optional().describe("The server's runtime rules, for every tenant (set with the admin key and all=true); absent with all=true, where they are `rules`"),
  standingRules: z.array(out.faultRuleOutputSchema).describe('The rules the sandbox was started with (serve flags, createSandbox({ faults })), for every tenant; PUT leaves them, and all apply'),
});
/** `?all=true`: the operation over every tenant, with the admin key (else 403). */
const allTenants: QueryParameter = { name: 'all', description: "Every tenant's state, not only the caller's: needs the admin key (--admin-key) as service-api-token, else 403", schema: { type: 'boolean', default: false } };
const RECORDS = '/sandbox/connections/:connectionId/records/:objectType';
const CONNECTION = '/sandbox/connections/:connectionId';

const engagementList = (list: 'mailboxes' | 'users', item: z.ZodType): Operation => ({
  method: 'GET',
  pattern: `/engagement/${list}`,
  operationId: list === 'mailboxes' ? 'listMailboxes' : 'listEngagementUsers',
  summary: `A page of the connection's engagement ${list} (409 while it is NEW_CONNECTION)`,
  tag: 'Engagement',
  query: [accessToken, allFields, ...pageParams],
  ok: { status: 200, schema: page(list, item), description: `A page of ${list}` },
  errors: [409],
});

/** Every route of `sandbox.routes`, described. A test checks that none is missing. */
export const OPERATIONS: Operation[] = [
  // --- The service's endpoints ------------------------------------------------------------
  { method: 'POST', pattern: '/link/token', operationId: 'createLinkToken', summary: 'A link token for the link widget', tag: 'Link', ok: { status: 200, schema: z.object({ linkToken: z.string() }), description: 'The link token' } },
  {
    method: 'POST',
    pattern: '/sandbox/public-token',
    operationId: 'createPublicToken',
    summary: "The sandbox's stand-in for the widget: a public token for an integration",
    tag: 'Link',
    body: publicTokenBody,
    ok: { status: 200, schema: z.object({ publicToken: z.string() }), description: 'The public token' },
  },
  { method: 'POST', pattern: '/link/exchange', operationId: 'exchangePublicToken', summary: 'Exchange a public token for a connection and its accessToken', tag: 'Link', body: exchangeBody, ok: { status: 200, schema: out.exchangeResultSchema, description: 'The new connection' } },
  {
    method: 'GET',
    pattern: '/link/widget/session',
    operationId: 'getWidgetSession',
    summary: "The link widget's session: the link token's expiry and the integrations to pick from",
    tag: 'Link',
    public: true,
    query: [{ name: 'linkToken', required: true, description: 'The link token the widget was opened with', schema: { type: 'string', minLength: 1 } }],
    ok: {
      status: 200,
      schema: z.object({ expiresTime: z.iso.datetime(), integrations: z.array(z.object({ integrationId: z.enum(INTEGRATION_IDS), name: z.string(), category: z.enum(['crm', 'engagement']) })) }),
      description: 'The session',
    },
  },
  {
    method: 'POST',
    pattern: '/link/widget/public-token',
    operationId: 'createWidgetPublicToken',
    summary: 'The widget completes: a public token (uses the link token up)',
    tag: 'Link',
    public: true,
    body: widgetPublicTokenBody,
    ok: { status: 200, schema: z.object({ publicToken: z.string() }), description: 'The public token' },
  },
  { method: 'GET', pattern: '/connection/connections', operationId: 'listConnections', summary: "The caller's connections (not paginated)", tag: 'Connections', ok: { status: 200, schema: z.object({ connections: z.array(out.connectionSummarySchema) }), description: 'The connections' } },
  {
    method: 'GET',
    pattern: '/connection/connection',
    operationId: 'getConnection',
    summary: 'One connection',
    tag: 'Connections',
    query: [{ name: 'connectionId', required: true, description: 'The connection', schema: { type: 'string', minLength: 1 } }],
    ok: { status: 200, schema: z.object({ connection: out.connectionSummarySchema }), description: 'The connection' },
  },
  { method: 'DELETE', pattern: '/connection/connection', operationId: 'deleteConnection', summary: 'Delete a connection', tag: 'Connections', body: deleteConnectionBody, ok: { status: 200, schema: empty, description: 'Deleted' } },
  engagementList('mailboxes', out.mailboxItemSchema),
  engagementList('users', out.engagementUserItemSchema),
  {
    method: 'POST',
    pattern: '/connection/webhook',
    operationId: 'createWebhook',
    summary: "Create the connection's webhook (one per connection)",
    tag: 'Webhooks',
    body: createWebhookBody,
    ok: { status: 200, schema: z.object({ webhook: out.webhookSchema }), description: 'The webhook' },
  },
  {
    method: 'GET',
    pattern: '/connection/webhook',
    operationId: 'getWebhook',
    summary: "Read the connection's webhook",
    tag: 'Webhooks',
    query: [accessToken, { name: 'webhookId', required: true, description: 'The webhook', schema: { type: 'string', minLength: 1 } }],
    ok: { status: 200, schema: z.object({ webhook: out.webhookSchema }), description: 'The webhook' },
  },
  { method: 'DELETE', pattern: '/connection/webhook', operationId: 'deleteWebhook', summary: "Delete the connection's webhook", tag: 'Webhooks', body: deleteWebhookBody, ok: { status: 200, schema: empty, description: 'Deleted' } },
  {
    method: 'POST',
    pattern: '/crm/passthrough',
    operationId: 'passthrough',
    summary: "A raw request to the connection's (simulated) downstream system",
    tag: 'Passthrough',
    body: passthroughBody,
    ok: {
      status: 200,
      schema: z.object({ headers: z.record(z.string(), z.string()), url: z.string(), statusCode: z.number().int(), body: z.unknown().describe("The downstream system's answer, in its own shape") }),
      description: "The downstream system's answer (its errors too: statusCode says)",
    },
  },
  // --- The sandbox's control API ----------------------------------------------------------
  { method: 'GET', pattern: '/sandbox/health', operationId: 'health', summary: 'Liveness', tag: 'Sandbox control', public: true, ok: { status: 200, schema: z.object({ status: z.literal('ok') }), description: 'Up' } },
  { method: 'GET', pattern: RECORDS, operationId: 'listRecords', summary: 'A page of records of one type', tag: 'Sandbox control', query: pageParams, ok: { status: 200, schema: page('records', out.anyRecordSchema), description: 'A page of records' } },
  { method: 'POST', pattern: RECORDS, operationId: 'createRecord', summary: 'Create a record (emits OBJECT_CHANGE CREATE)', tag: 'Sandbox control', body: recordWrite, ok: { status: 201, schema: recordBody, description: 'The record' } },
  { method: 'GET', pattern: `${RECORDS}/:id`, operationId: 'getRecord', summary: 'One record', tag: 'Sandbox control', ok: { status: 200, schema: recordBody, description: 'The record' } },
  { method: 'PATCH', pattern: `${RECORDS}/:id`, operationId: 'updateRecord', summary: 'Update a record (emits OBJECT_CHANGE UPDATE)', tag: 'Sandbox control', body: recordWrite, ok: { status: 200, schema: recordBody, description: 'The record' } },
  { method: 'DELETE', pattern: `${RECORDS}/:id`, operationId: 'deleteRecord', summary: 'Delete a record (emits OBJECT_CHANGE DELETE)', tag: 'Sandbox control', ok: { status: 200, schema: empty, description: 'Deleted' } },
  { method: 'POST', pattern: `${CONNECTION}/status`, operationId: 'setConnectionStatus', summary: 'Force a status (emits STATUS_CHANGE)', tag: 'Sandbox control', body: statusBody, ok: { status: 200, schema: z.object({ connection: out.connectionSummarySchema }), description: 'The connection' } },
  {
    method: 'GET',
    pattern: `${CONNECTION}/deliveries`,
    operationId: 'listDeliveries',
    summary: "The connection's delivery log",
    tag: 'Sandbox control',
    query: [{ name: 'state', description: 'Only deliveries in this state', schema: { type: 'string', enum: [...DELIVERY_STATES] } }],
    ok: { status: 200, schema: z.object({ deliveries: z.array(out.deliverySchema) }), description: 'The deliveries' },
  },
  { method: 'POST', pattern: '/sandbox/deliveries/:eventId/redeliver', operationId: 'redeliver', summary: 'Deliver an event again now', tag: 'Sandbox control', ok: { status: 200, schema: z.object({ delivery: out.deliverySchema }), description: 'The delivery' }, errors: [409] },
  { method: 'GET', pattern: `${CONNECTION}/chaos`, operationId: 'getChaos', summary: "The connection's delivery chaos", tag: 'Sandbox control', ok: { status: 200, schema: z.object({ chaos: out.chaosOutputSchema }), description: 'The chaos settings' } },
  { method: 'PUT', pattern: `${CONNECTION}/chaos`, operationId: 'setChaos', summary: "Set the connection's delivery chaos ({} turns it off)", tag: 'Sandbox control', body: chaosSettingsSchema, ok: { status: 200, schema: z.object({ chaos: out.chaosOutputSchema }), description: 'The chaos settings' } },
  { method: 'GET', pattern: '/sandbox/scenarios', operationId: 'listScenarios', summary: 'The built-in scenarios', tag: 'Sandbox control', ok: { status: 200, schema: z.object({ scenarios: z.array(z.object({ name: z.string(), description: z.string() })) }), description: 'The scenarios' } },
  { method: 'POST', pattern: '/sandbox/scenarios/run', operationId: 'runScenarioDefinition', summary: 'Play a scenario given as a definition', tag: 'Sandbox control', body: runBody, ok: { status: 200, schema: out.scenarioReportSchema, description: 'The report' } },
  { method: 'POST', pattern: '/sandbox/scenarios/:name/run', operationId: 'runScenario', summary: 'Play a built-in scenario', tag: 'Sandbox control', body: runBody, ok: { status: 200, schema: out.scenarioReportSchema, description: 'The report' } },
  { method: 'GET', pattern: '/sandbox/connections', operationId: 'inspectConnections', summary: 'Connections with their org and webhook', tag: 'Sandbox control', ok: { status: 200, schema: z.object({ connections: z.array(out.inspectedConnectionSchema) }), description: 'The connections' } },
  {
    method: 'GET',
    pattern: CONNECTION,
    operationId: 'inspectConnection',
    summary: 'One connection with its org, webhook, accessToken and chaos',
    tag: 'Sandbox control',
    ok: { status: 200, schema: z.object({ connection: out.inspectedConnectionSchema.extend({ accessToken: z.string(), chaos: out.chaosOutputSchema }) }), description: 'The connection' },
  },
  { method: 'GET', pattern: `${CONNECTION}/webhook`, operationId: 'inspectWebhook', summary: "The connection's webhook, or null", tag: 'Sandbox control', ok: { status: 200, schema: z.object({ webhook: out.webhookSchema.nullable() }), description: 'The webhook' } },
  { method: 'GET', pattern: '/sandbox/deliveries/:eventId', operationId: 'inspectDelivery', summary: 'A delivery with its exact body and the signed headers of each attempt', tag: 'Sandbox control', ok: { status: 200, schema: z.object({ delivery: out.deliveryDetailSchema }), description: 'The delivery' } },
  {
    method: 'POST',
    pattern: '/sandbox/reset',
    operationId: 'reset',
    summary: "Empty the caller's tenancy (or, with all=true and the admin key, everything)",
    tag: 'Sandbox control',
    query: [allTenants],
    ok: { status: 200, schema: z.object({ reset: z.enum(['all', 'tenancy']) }), description: 'Reset' },
    errors: [403],
  },
  {
    method: 'GET',
    pattern: '/sandbox/snapshot',
    operationId: 'getSnapshot',
    summary: "The caller's tenant as versioned JSON (with all=true and the admin key, the whole server's state)",
    tag: 'Sandbox control',
    query: [allTenants],
    ok: { status: 200, schema: { $ref: '#/components/schemas/Snapshot' }, description: 'The snapshot' },
    errors: [403],
  },
  {
    method: 'PUT',
    pattern: '/sandbox/snapshot',
    operationId: 'restoreSnapshot',
    summary: "Replace the caller's tenant with a snapshot's (with all=true and the admin key, the whole state)",
    tag: 'Sandbox control',
    query: [allTenants],
    body: snapshotSchema,
    ok: { status: 200, schema: z.object({ restored: z.object({ connections: z.number().int(), deliveries: z.number().int() }) }), description: 'Restored' },
    errors: [403],
  },
  {
    method: 'GET',
    pattern: '/sandbox/requests',
    operationId: 'listRequests',
    summary: "The request journal of the caller's API token",
    tag: 'Sandbox control',
    query: [
      { name: 'method', description: 'Only this method', schema: { type: 'string' } },
      { name: 'path', description: 'Path prefix', schema: { type: 'string' } },
      { name: 'connectionId', description: 'Only requests that acted on this connection', schema: { type: 'string' } },
      { name: 'status', description: 'Only this status', schema: { type: 'integer', minimum: 100, maximum: 999 } },
      { name: 'since', description: 'Only requests at or after this ISO-8601 time', schema: { type: 'string', format: 'date-time' } },
      { name: 'limit', description: 'The newest N', schema: { type: 'integer', minimum: 1 } },
    ],
    ok: { status: 200, schema: z.object({ requests: z.array(out.journalEntrySchema) }), description: 'The requests' },
  },
  { method: 'DELETE', pattern: '/sandbox/requests', operationId: 'clearRequests', summary: 'Empty the request journal', tag: 'Sandbox control', ok: { status: 200, schema: empty, description: 'Emptied' } },
  {
    method: 'GET',
    pattern: '/sandbox/faults',
    operationId: 'getFaults',
    summary: "The fault rules of the service's endpoints that apply to the caller",
    tag: 'Sandbox control',
    query: [allTenants],
    ok: { status: 200, schema: faultRulesAnswer, description: 'The rules' },
    errors: [403],
  },
  {
    method: 'PUT',
    pattern: '/sandbox/faults',
    operationId: 'setFaults',
    summary: "Replace the caller's runtime fault rules (a rule, a list of rules, or { rules }; {} clears them); with all=true and the admin key, the server's",
    tag: 'Sandbox control',
    query: [allTenants],
    body: z.union([ruleSchema, z.array(ruleSchema), rulesSchema]),
    ok: { status: 200, schema: faultRulesAnswer, description: 'The rules' },
    errors: [403],
  },
  ...(['GET', 'PUT', 'DELETE'] as const).map(
    (method): Operation => ({
      method,
      pattern: `${CONNECTION}/downstream-faults`,
      operationId: { GET: 'getDownstreamFaults', PUT: 'setDownstreamFaults', DELETE: 'clearDownstreamFaults' }[method],
      summary: { GET: 'The pending faults of the connection\'s passthrough calls', PUT: 'Replace the pending downstream faults', DELETE: 'Clear the pending downstream faults' }[method],
      tag: 'Sandbox control',
      ...(method === 'PUT' ? { body: downstreamFaultsBody } : {}),
      ok: { status: 200, schema: z.object({ faults: z.array(out.downstreamFaultOutputSchema) }), description: 'The pending faults' },
    }),
  ),
  { method: 'GET', pattern: '/openapi.json', operationId: 'getOpenApiDocument', summary: 'This document', tag: 'Document', public: true, ok: { status: 200, schema: z.record(z.string(), z.unknown()), description: 'The OpenAPI 3.1 document' } },
];
