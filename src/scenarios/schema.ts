import * as z from 'zod';
import { PASSTHROUGH_METHODS } from '../downstream/types.js';
import { CONNECTION_STATUSES } from '../model/connection.js';
import { CRM_OBJECT_TYPES } from '../model/crm.js';
import { INTEGRATION_IDS } from '../model/integrations.js';
import { nativeBodySchema, nativeQuerySchema } from '../model/passthrough.js';
import { DURATION_PATTERN, durationSchema } from '../shared/duration.js';
import { chaosSettingsSchema } from '../webhooks/chaos.js';
import { DELIVERY_STATES } from '../webhooks/delivery.js';

/**
 * The scenario format: one zod schema validates every file and is the source of
 * `scenarios/scenario.schema.json`. A step is an object with exactly one key, its kind.
 * Strings may refer to what earlier steps named with `as`: `$deal.id` stands for the value,
 * `"deals/${deal.nativeId}"` interpolates it, and `${i}` is the index inside a `repeat`.
 */

/** A duration with its unit, read as everywhere else (src/shared/duration.ts): a bare number such as 10 is refused, naming what to write instead. */
const duration = durationSchema().describe('A duration with its unit: 500ms, 3s, 2m, 1h or 1d (0 needs none)');
const name = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a name of letters, digits and _ (not starting with a digit)')
  .describe('A name later steps use as $name');
const connection = name.describe('The connection to act on, by its name (default: the last one linked, or main)');
const objectType = z.enum(CRM_OBJECT_TYPES);
const fields = z.record(z.string(), z.unknown()).describe('Record fields, as the control API takes them; left-out fields are generated from the seed');
const webhookUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' });

const matcher = z
  .strictObject({
    type: z.enum(['OBJECT_CHANGE', 'STATUS_CHANGE']).optional(),
    objectType: objectType.optional(),
    eventType: z.enum(['CREATE', 'UPDATE', 'DELETE']).optional(),
    status: z.enum(CONNECTION_STATUSES).optional(),
    record: z.record(z.string(), z.unknown()).optional().describe('Fields the record must have (a partial match)'),
  })
  .describe('What an event must look like; fields left out match anything');

export const PROBES = [
  'valid-signature',
  'forged-signature',
  'tampered-body',
  'missing-signature',
  'missing-timestamp',
  'stale-timestamp',
  'duplicate-event',
  'answers-in-time',
] as const;
export type ProbeName = (typeof PROBES)[number];

/** Each step kind and the schema of its value. */
export const STEP_SCHEMAS = {
  link: z
    .strictObject({
      integration: z.enum(INTEGRATION_IDS).optional(),
      nativeOrgId: z.string().min(1).optional(),
      as: name.optional(),
      webhook: z
        .union([webhookUrl, z.literal(false)])
        .optional()
        .describe("The webhook to create (default: the run's webhook URL); false for none"),
    })
    .describe('Links a new connection (link token, public token, exchange) and creates its webhook'),
  webhook: z
    .strictObject({ connection: connection.optional(), url: webhookUrl.optional(), delete: z.boolean().optional() })
    .describe("Creates the connection's webhook (the run's webhook URL unless given), or deletes it"),
  status: z
    .union([z.enum(CONNECTION_STATUSES), z.strictObject({ status: z.enum(CONNECTION_STATUSES), connection: connection.optional() })])
    .describe('Moves the connection to a status (a STATUS_CHANGE event)'),
  advance: z.union([duration, z.strictObject({ by: duration })]).describe('Lets sandbox time pass: status moves, deliveries and retries fall due'),
  wait: z
    .union([z.literal('deliveries'), z.strictObject({ for: z.literal('deliveries'), max: duration.optional() })])
    .describe('Lets time pass until every event of the run is delivered or failed (at most max, default 25h)'),
  create: z
    .strictObject({
      type: objectType,
      fields: fields.optional(),
      as: name.optional(),
      repeat: z.number().int().min(1).max(1_000_000).optional().describe('Creates this many; ${i} is the index, as names the last'),
      connection: connection.optional(),
    })
    .describe('Creates a CRM record (a CREATE event)'),
  update: z
    .strictObject({
      record: name.optional().describe('A record named earlier with as'),
      type: objectType.optional(),
      id: z.string().min(1).optional(),
      fields,
      as: name.optional(),
      connection: connection.optional(),
    })
    .describe('Changes fields of a record (an UPDATE event); name it with record, or give type and id'),
  delete: z
    .strictObject({
      record: name.optional(),
      type: objectType.optional(),
      id: z.string().min(1).optional(),
      connection: connection.optional(),
    })
    .describe('Deletes a record (a DELETE event, and those of the attendees that depend on it)'),
  passthrough: z
    .strictObject({
      method: z.enum(PASSTHROUGH_METHODS),
      path: z.string().min(1),
      body: nativeBodySchema().optional(),
      query: nativeQuerySchema().optional(),
      as: name.optional(),
      expectStatus: z.number().int().min(100).max(599).optional().describe('The downstream statusCode the call must get'),
      connection: connection.optional(),
    })
    .describe('A native call through POST /crm/passthrough; a write emits its OBJECT_CHANGE event'),
  chaos: chaosSettingsSchema()
    .extend({ connection: connection.optional() })
    .describe('Sets delivery chaos for the connection: duplicates, delays, reordering, an outage; {} for none'),
  expect: z
    .strictObject({
      connection: connection.optional(),
      events: z.array(matcher).optional().describe("The connection's events since the last expect with events: exactly these, in order"),
      of: z.enum(['OBJECT_CHANGE', 'STATUS_CHANGE']).optional().describe('Count only events of this type in the events check (the others are passed over)'),
      deliveries: z
        .strictObject({
          state: z.enum(DELIVERY_STATES),
          count: z.number().int().min(0).optional().describe('How many are in that state (default: all of them)'),
        })
        .optional(),
      receiver: z
        .strictObject({
          status: z.union([z.number().int().min(100).max(599), z.enum(['2xx', '3xx', '4xx', '5xx'])]),
        })
        .optional()
        .describe("The receiver's answer to the last attempt of every event delivered so far"),
    })
    .describe('Checks what happened so far; a failed expectation fails the run'),
  receiverCheck: z
    .strictObject({
      probes: z.array(z.enum(PROBES)).min(1).optional().describe('Which probes to send (default: all)'),
      connection: connection.optional(),
    })
    .describe("Probes the connection's webhook receiver: does it verify signatures, reject tampering, survive duplicates"),
} as const;

export type StepKind = keyof typeof STEP_SCHEMAS;
export const STEP_KINDS = Object.keys(STEP_SCHEMAS) as StepKind[];

const stepSchema = z.union(
  STEP_KINDS.map((kind) => z.strictObject({ [kind]: STEP_SCHEMAS[kind] }) as z.ZodObject) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]],
);

const topLevel = {
  $schema: z.string().optional(),
  name: name
    .or(z.string().regex(/^[a-z0-9][a-z0-9-]*$/))
    .optional()
    .describe('Default: the file name'),
  description: z.string().min(1).optional().describe('One line: what the scenario shows, printed with its report'),
  seed: z.number().int().nonnegative().optional().describe('Seed of an in-process run (the --seed option wins)'),
  connection: z
    .strictObject({
      integration: z.enum(INTEGRATION_IDS).optional(),
      nativeOrgId: z.string().min(1).optional(),
      webhook: z.union([webhookUrl, z.literal(false)]).optional(),
    })
    .optional()
    .describe('The main connection, linked before the first step'),
};

/** The whole file, as editors see it through the generated JSON Schema. */
export const scenarioSchema = z.strictObject({ ...topLevel, steps: z.array(stepSchema).min(1) });

/** The top of a file, checked before its steps one by one (for errors that name the step). */
export const scenarioHeadSchema = z.strictObject({ ...topLevel, steps: z.array(z.unknown()).min(1) });

type StepOf<K extends StepKind> = { [P in K]: z.infer<(typeof STEP_SCHEMAS)[P]> };
/** One step: an object with exactly one key, its kind. */
export type ScenarioStep = { [K in StepKind]: StepOf<K> }[StepKind];

/**
 * A scenario, as written in a file or passed to `sandbox.runScenario()`.
 *
 * @example
 * const story: ScenarioDefinition = {
 *   description: 'a contact is created, then renamed',
 *   steps: [{ create: { type: 'Contact', as: 'ada', fields: { firstName: 'Ada' } } }, { update: { record: 'ada', fields: { lastName: 'King' } } }],
 * };
 */
export type ScenarioDefinition = Omit<z.input<typeof scenarioHeadSchema>, 'steps'> & { steps: ScenarioStep[] };

/** The JSON Schema of scenario files (draft 2020-12), for editors. */
export function scenarioJsonSchema(): Record<string, unknown> {
  const json = z.toJSONSchema(scenarioSchema, {
    io: 'input',
    unrepresentable: 'any',
    // A duration is text to an editor: zod's schema also takes a number, only to refuse it with the message that says which unit to add.
    override: (ctx) => {
      if ((ctx.zodSchema as unknown) !== duration) return;
      delete ctx.jsonSchema.anyOf;
      Object.assign(ctx.jsonSchema, { type: 'string', pattern: DURATION_PATTERN });
    },
  });
  return { ...json, title: 'crm-sandbox scenario' };
}
