import * as z from 'zod';
import { ENGAGEMENT_ADDRESS_PARTS } from '../model/vocabularies.js';
import { once } from '../shared/once.js';
import type { EngagementInput, EngagementKind, EngagementObject } from './engagement-objects.js';
import { filterSchemas } from './schemas.js';

/**
 * Zod schemas of the unified engagement objects' answers and bodies, for the OpenAPI document
 * (the routes check what they receive themselves). Made when the document is built.
 */

const isoTime = once(() => z.iso.datetime());
const address = () => z.object(Object.fromEntries(ENGAGEMENT_ADDRESS_PARTS.map((part) => [part, z.string().optional()])));
const emailAddress = () => z.object({ address: z.string(), type: z.enum(['work', 'personal']).optional(), isPrimary: z.boolean().optional() });
const phone = () => z.object({ number: z.string(), type: z.enum(['work', 'personal', 'other']).optional(), isPrimary: z.boolean().optional() });

function kindSchema(kind: EngagementKind, options?: readonly string[]): z.ZodType {
  switch (kind) {
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'date':
      return z.string().describe('An ISO-8601 date-time');
    case 'stringList':
      return z.array(z.string());
    case 'address':
      return address();
    case 'emails':
      return z.array(emailAddress());
    case 'phones':
      return z.array(phone());
    default:
      return options ? z.enum(options as [string, ...string[]]) : z.string();
  }
}

/** A record as the service answers it: the fields with a value, the associations the document names, `additional` with allFields. */
export function engagementRecordSchema(object: EngagementObject) {
  const fields = Object.fromEntries(object.fields.map((field) => [field.key, kindSchema(field.kind, field.options).optional()]));
  const associations = Object.fromEntries(
    object.associations.map((key) => [key, key.endsWith('Ids') ? z.array(z.string()) : z.string().optional().describe('absent when there is none')]),
  );
  return z.object({
    id: z.string().describe('32 hex characters'),
    ...fields,
    ...(object.times ? { createdTime: isoTime(), modifiedTime: isoTime() } : {}),
    ...(object.associations.length > 0 ? { associations: z.object(associations) } : {}),
    additional: z.record(z.string(), z.unknown()).optional().describe('The record in its platform’s native shape: with allFields=true only'),
  });
}

function inputSchema(item: EngagementInput): z.ZodType {
  const base =
    item.kind === 'contactId' || item.kind === 'userId' || item.kind === 'mailboxId'
      ? z.string().describe(`The id of a ${item.kind.slice(0, -2)}`)
      : kindSchema(item.kind, item.options);
  const described = item.beyondDocument ? base.describe('Taken though the document’s schema does not list it') : base;
  return item.required ? described : described.optional();
}

/** A write's object (`contact: { … }`) or a complete or start body's `fields`. */
export function engagementInputSchema(items: readonly EngagementInput[], additional: boolean) {
  return z.object({
    ...Object.fromEntries(items.map((item) => [item.key, inputSchema(item)])),
    ...(additional
      ? { additional: z.record(z.string(), z.unknown()).optional().describe('Native fields by their platform names; custom fields under custom_fields') }
      : {}),
  });
}

/** The body of a create (`{ accessToken, contact }`) or an update (`{ accessToken, id, contact }`). */
export function engagementWriteBodySchema(object: EngagementObject, mode: 'create' | 'update') {
  return z.object({
    accessToken: z.string(),
    ...(mode === 'update' ? { id: z.string() } : {}),
    [object.key]: engagementInputSchema(object[mode] ?? [], true),
  });
}

/** The body of complete (`{ accessToken, id, fields }`) and start. */
export function engagementActionBodySchema(object: EngagementObject) {
  return z.object({ accessToken: z.string(), id: z.string(), fields: engagementInputSchema(object.action ?? [], false) });
}

/** A search's body: filters per field (a list's by its items' fields: `emails: { address: { equals } }`). */
export function engagementSearchBodySchema(object: EngagementObject) {
  const flat = (object.filters ?? []).map((filter) => [filter.key, filterSchemas[filter.kind]().optional()] as const);
  const nested = (object.listFilters ?? []).map(
    (list) =>
      [
        list.key,
        z
          .object(Object.fromEntries(list.fields.map((field) => [field.key, filterSchemas[field.kind]().optional()])))
          .strict()
          .optional(),
      ] as const,
  );
  return z.object({
    accessToken: z.string().optional().describe('Here or in the query'),
    filters: z
      .object(Object.fromEntries([...flat, ...nested]))
      .strict()
      .optional(),
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(200).optional(),
    allFields: z.boolean().optional(),
  });
}
