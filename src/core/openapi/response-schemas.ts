import * as z from 'zod';
import { RULE_IDS } from '../../client-check/rules.js';
import { DOWNSTREAM_FAULT_KINDS } from '../../downstream/faults.js';
import { CONNECTION_STATUSES } from '../../model/connection.js';
import { CRM_OBJECT_TYPES, type CrmObjectType } from '../../model/crm.js';
import { engagementUserSchema, mailboxSchema } from '../../model/engagement.js';
import { INTEGRATION_IDS } from '../../model/integrations.js';
import { ErrorCode } from '../../shared/errors.js';
import type { UnifiedObject } from '../../unified/crm-objects.js';
import { type EngagementObject, UNIFIED_ENGAGEMENT_OBJECTS } from '../../unified/engagement-objects.js';
import { engagementRecordSchema } from '../../unified/engagement-schemas.js';
import { fieldDetailSchema, unifiedRecordSchema } from '../../unified/schemas.js';
import { chaosSettingsSchema } from '../../webhooks/chaos.js';
import { ATTEMPT_TRIGGERS, DELIVERY_STATES } from '../../webhooks/delivery.js';

/**
 * Zod schemas of what the sandbox answers, for the OpenAPI document. Records and engagement
 * items come from src/model (the schemas the store checks); the rest is written here from the
 * types the routes answer, since nothing else validates them.
 */

/** client-check's report and rule ids, for `GET /sandbox/client-check` (its route module imports none of client-check's code). */
export { clientCheckReportSchema } from '../../client-check/report-schema.js';
export const CLIENT_CHECK_RULE_IDS = RULE_IDS;

const isoTime = z.iso.datetime();
const integrationId = z.enum(INTEGRATION_IDS);
const connectionStatus = z.enum(CONNECTION_STATUSES);

/** `{ message, errorCode?, metadata? }`: the body of every error status. */
export const errorBodySchema = z
  .object({
    message: z.string().min(1),
    errorCode: z.enum(Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]]).optional(),
    metadata: z.record(z.string(), z.unknown()).optional().describe('`field` names the bad field (dotted path) on a 400'),
  })
  .meta({ description: 'The error body of every failure, whatever its status.' });

/** One unified record per CRM object type, as the service answers it: `Contact`, `Account`, … */
export const recordSchemas = Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, unifiedRecordSchema(type)])) as {
  [T in CrmObjectType]: ReturnType<typeof unifiedRecordSchema>;
};

/** A record of any type (the path's objectType says which). */
export const anyRecordSchema = z.union(CRM_OBJECT_TYPES.map((type) => recordSchemas[type]));

export const deletedRecordSchema = z.object({ id: z.string(), nativeId: z.string(), connectionId: z.string() }).strict();

/** With `allFields=true` an item also carries the downstream system's own fields. */
const additional = z.record(z.string(), z.unknown()).optional().describe('The native record, with allFields=true only');
export const mailboxItemSchema = mailboxSchema().extend({ additional });
export const engagementUserItemSchema = engagementUserSchema().extend({ additional });

export const exchangeResultSchema = z.object({
  connectionId: z.string(),
  accessToken: z.string(),
  integrationId,
  nativeOrgId: z.string(),
  nativeUserId: z.string(),
  nativeOrgURL: z.string(),
});

export const connectionSummarySchema = z.object({
  connectionId: z.string(),
  integrationId,
  createdTime: isoTime,
  status: connectionStatus,
  nativeOrgURL: z.string(),
  lastActivityDate: isoTime,
});

export const webhookSchema = z.object({ webhookId: z.string(), connectionId: z.string(), webhookUrl: z.string(), createdTime: isoTime });

export const objectChangeEventSchema = z.object({
  eventId: z.string(),
  type: z.literal('OBJECT_CHANGE'),
  data: z.object({
    objectType: z.enum(CRM_OBJECT_TYPES),
    eventType: z.enum(['CREATE', 'UPDATE', 'DELETE']),
    record: z
      .union([anyRecordSchema, deletedRecordSchema])
      .describe('The full unified record on CREATE and UPDATE; only id, nativeId and connectionId on DELETE'),
  }),
});

export const statusChangeEventSchema = z.object({
  eventId: z.string(),
  type: z.literal('STATUS_CHANGE'),
  data: z.object({ status: connectionStatus }),
});

export const serviceEventSchema = z.union([objectChangeEventSchema, statusChangeEventSchema]);

const attemptChaosSchema = z.object({ delayMs: z.number().optional(), duplicate: z.literal(true).optional(), outage: z.literal(true).optional() });

export const deliveryAttemptSchema = z.object({
  attempt: z.number().int(),
  time: isoTime,
  webhookUrl: z.string(),
  timestamp: z.string(),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  trigger: z.enum(ATTEMPT_TRIGGERS),
  chaos: attemptChaosSchema.optional(),
});

const deliveryFields = {
  eventId: z.string(),
  connectionId: z.string(),
  type: z.enum(['OBJECT_CHANGE', 'STATUS_CHANGE']),
  state: z.enum(DELIVERY_STATES),
  createdTime: isoTime,
  nextAttemptTime: isoTime.nullable(),
  failureReason: z.string().nullable(),
  event: serviceEventSchema,
};

export const deliverySchema = z.object({ ...deliveryFields, attempts: z.array(deliveryAttemptSchema) });

/** `GET /sandbox/attempts`: the delivery attempts after a point, each with its event in a line and the delivery's state after it. */
export const attemptFeedSchema = z.object({
  attempts: z.array(
    z.object({
      seq: z.number().int(),
      eventId: z.string(),
      connectionId: z.string(),
      event: z.object({
        type: z.enum(['OBJECT_CHANGE', 'STATUS_CHANGE']),
        objectType: z.string().optional(),
        eventType: z.string().optional(),
        status: z.string().optional(),
      }),
      attempt: deliveryAttemptSchema,
      state: z.enum(DELIVERY_STATES),
      nextAttemptTime: isoTime.nullable(),
      maxAttempts: z.number().int(),
    }),
  ),
  next: z.number().int(),
  missed: z.number().int(),
});

/** A delivery as the inspector reads it: each attempt with the headers it was signed with, and the exact body sent. */
export const deliveryDetailSchema = z.object({
  ...deliveryFields,
  attempts: z.array(deliveryAttemptSchema.extend({ headers: z.record(z.string(), z.string()) })),
  body: z.string(),
});

export const inspectedConnectionSchema = connectionSummarySchema.extend({
  nativeOrgId: z.string(),
  nativeUserId: z.string(),
  orgName: z.string(),
  webhook: webhookSchema.nullable(),
});

export const faultRuleOutputSchema = z.object({
  route: z.string().optional(),
  connectionId: z.string().optional(),
  latency: z.union([z.string(), z.number()]).optional(),
  errorRate: z.number().optional(),
  errorStatus: z.number().int().optional(),
  rateLimit: z.string().optional(),
});

export const downstreamFaultOutputSchema = z.object({
  kind: z.enum(DOWNSTREAM_FAULT_KINDS),
  remaining: z.number().int(),
  status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]),
  delayMs: z.number().int(),
  retryAfterSeconds: z.number().int(),
});

export const journalEntrySchema = z.object({
  id: z.number().int(),
  time: isoTime,
  method: z.string(),
  path: z.string(),
  query: z.string(),
  status: z.number().int(),
  durationMs: z.number(),
  connectionId: z.string().nullable(),
  body: z.string().nullable(),
  bodyTruncated: z.boolean(),
  fault: z.string().nullable(),
});

const runConnectionSchema = z.object({
  connectionId: z.string(),
  accessToken: z.string(),
  integrationId,
  nativeOrgId: z.string(),
  webhookUrl: z.string().nullable(),
});

/** What a scenario run reports. Its transcript items are described loosely: see docs/scenarios.md. */
export const scenarioReportSchema = z.looseObject({
  scenario: z.string(),
  description: z.string(),
  ok: z.boolean(),
  exitCode: z.union([z.literal(0), z.literal(1)]),
  seed: z.number().int().nullable(),
  speed: z.string(),
  startTime: isoTime,
  connection: runConnectionSchema,
  connections: z.record(z.string(), runConnectionSchema),
  steps: z.number().int(),
  events: z.array(z.looseObject({ eventId: z.string(), connectionId: z.string(), type: z.string(), state: z.enum(DELIVERY_STATES), body: z.string() })),
  checks: z.array(z.looseObject({ kind: z.string(), ok: z.boolean(), message: z.string() })),
  probes: z.array(z.looseObject({ probe: z.string(), ok: z.boolean() })),
  failures: z.array(z.string()),
});

export const chaosOutputSchema = chaosSettingsSchema();

/** Zod schemas that get a name of their own under `components.schemas` (and a `$ref` wherever they are used). */
/** `{}`: what the deletes answer (one schema, named once in the document). */
export const emptySchema = z.object({}).strict();

/** A page of a list: `{ [key]: items, nextPageCursor }`. */
export const pageSchema = (key: string, item: z.ZodType) =>
  z.object({ [key]: z.array(item), nextPageCursor: z.string().nullable().describe('null on the last page') });

/** A page of a unified list or search: `{ contacts: [Contact…], nextPageCursor }`. */
export const unifiedPageSchema = (object: UnifiedObject) => pageSchema(object.listKey, recordSchemas[object.type]);
/**
 * One record schema per unified engagement object besides users and mailboxes (the spec's, above),
 * named as the document names them (`EngContact`, `Action`…), made once so each is one `$ref`.
 */
export const engagementRecordSchemas: Record<string, ReturnType<typeof engagementRecordSchema>> = Object.fromEntries(
  UNIFIED_ENGAGEMENT_OBJECTS.filter((object) => object.source !== 'users' && object.source !== 'mailboxes').map((object) => [
    object.name,
    engagementRecordSchema(object),
  ]),
);
const engagementItem = (object: EngagementObject): z.ZodType =>
  object.source === 'users' ? engagementUserItemSchema : object.source === 'mailboxes' ? mailboxItemSchema : engagementRecordSchemas[object.name]!;
/** A page of a unified engagement list or search: `{ contacts: [EngContact…], nextPageCursor }`. */
export const engagementPageSchema = (object: EngagementObject) => pageSchema(object.listKey, engagementItem(object));
/** `{ contact: EngContact }`. */
export const engagementOneSchema = (object: EngagementObject) => z.object({ [object.key]: engagementItem(object) });
/** `{ contact: Contact }`. */
export const unifiedOneSchema = (object: UnifiedObject) => z.object({ [object.key]: recordSchemas[object.type] });
/** `{ contacts: [Contact…], invalidIds: [id…] }`. */
export const unifiedBatchSchema = (object: UnifiedObject) =>
  z.object({ [object.listKey]: z.array(recordSchemas[object.type]), invalidIds: z.array(z.string()).describe('The ids given that name no record') });
/** `{ fields: [Field…], nextPageCursor: null }`. */
export const fieldDetailsSchema = () => pageSchema('fields', fieldDetailSchema());
/** `{ id }`: what a unified create or update answers (one schema, named once in the document). */
export const idAnswerSchema = z.object({
  id: z.string(),
  metadata: z
    .object({ ignoredFields: z.array(z.string()) })
    .optional()
    .describe('The sandbox: every field the write ignored, when they are too many for the x-sandbox-ignored-fields header (which then names the first few)'),
});

/** `{ record }`: what the record routes answer (one schema, named once in the document). */
export const recordBodySchema = z.object({ record: anyRecordSchema });

/** What GET and PUT /sandbox/faults answer (one schema, named once in the document). */
export const faultRulesAnswerSchema = z.object({
  rules: z
    .array(faultRuleOutputSchema)
    .describe("The runtime rules PUT /sandbox/faults set: the caller's own (for its requests only), or with all=true the server's"),
  serverRules: z
    .array(faultRuleOutputSchema)
    .optional()
    .describe("The server's runtime rules, for every tenant (set with the admin key and all=true); absent with all=true, where they are `rules`"),
  standingRules: z
    .array(faultRuleOutputSchema)
    .describe('The rules the sandbox was started with (serve flags, createSandbox({ faults })), for every tenant; PUT leaves them, and all apply'),
});

export const NAMED_RESPONSE_SCHEMAS: Record<string, z.ZodType> = {
  ErrorBody: errorBodySchema,
  ...recordSchemas,
  DeletedRecord: deletedRecordSchema,
  Mailbox: mailboxItemSchema,
  EngagementUser: engagementUserItemSchema,
  ...Object.fromEntries(
    UNIFIED_ENGAGEMENT_OBJECTS.filter((object) => engagementRecordSchemas[object.name]).map((object) => [
      `Eng${object.name}`,
      engagementRecordSchemas[object.name]!,
    ]),
  ),
  ExchangeResult: exchangeResultSchema,
  ConnectionSummary: connectionSummarySchema,
  Webhook: webhookSchema,
  ObjectChangeEvent: objectChangeEventSchema,
  StatusChangeEvent: statusChangeEventSchema,
  Delivery: deliverySchema,
  DeliveryDetail: deliveryDetailSchema,
  InspectedConnection: inspectedConnectionSchema,
  FaultRule: faultRuleOutputSchema,
  DownstreamFault: downstreamFaultOutputSchema,
  JournalEntry: journalEntrySchema,
  ScenarioReport: scenarioReportSchema,
  ChaosSettings: chaosOutputSchema,
};
