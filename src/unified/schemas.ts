import * as z from 'zod';
import { ADDRESS_PARTS, CRM_ASSOCIATIONS, CRM_FIELDS, type CrmObjectType } from '../model/crm.js';
import { once } from '../shared/once.js';
import { type FilterKind, type LinkInput, PARTICIPANT_ROLES, type UnifiedField, type UnifiedObject } from './crm-objects.js';
import { OPERATORS } from './filters.js';

/**
 * Zod schemas of the unified objects' requests and answers, for the OpenAPI document (the routes
 * check what they receive themselves, with the messages of ./writes.ts and ./filters.ts). Made
 * when the document is built, never at start.
 */

const isoTime = once(() => z.iso.datetime());

/**
 * A record as the service answers it: the document's schema of the type. Its fields are strings,
 * numbers and booleans without null, present when they have a value; `additional` with allFields.
 */
export function unifiedRecordSchema(type: CrmObjectType) {
  const attendee = type === 'EventAttendee';
  const fields = Object.fromEntries(
    Object.entries(CRM_FIELDS[type].shape).map(([key, schema]) => {
      const inner = schema instanceof z.ZodNullable ? (schema.unwrap() as z.ZodType) : schema;
      const valued = key === 'address' ? z.object(Object.fromEntries(ADDRESS_PARTS.map((part) => [part, z.string().optional()]))) : inner;
      // The document's own example shows a linked attendee's email as null.
      return [key, (attendee && key === 'email' ? valued.nullable() : valued).optional()];
    }),
  );
  const associations = Object.fromEntries(
    Object.entries(CRM_ASSOCIATIONS[type].shape).map(([key, schema]) => {
      if (key.endsWith('Ids')) return [key, schema];
      // An Other attendee's associationId is null, as the document says; an empty owner is absent.
      return [key, attendee ? z.string().nullable() : z.string().optional()];
    }),
  );
  return z.object({
    id: z.string(),
    nativeId: z.string(),
    createdTime: isoTime(),
    modifiedTime: isoTime(),
    ...fields,
    associations: z.object(associations),
    additional: z.record(z.string(), z.unknown()).optional().describe('The record in its CRM’s native shape: with allFields=true only'),
  });
}

function fieldSchema(field: UnifiedField): z.ZodType {
  switch (field.kind) {
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'date':
      return z.string().describe('An ISO-8601 date or date-time');
    case 'stringList':
      return z.array(z.string());
    case 'address':
      return z.object(Object.fromEntries(ADDRESS_PARTS.map((part) => [part, z.string().optional()])));
    default:
      return field.options && field.detail === 'singleselect' ? z.enum(field.options as [string, ...string[]]) : z.string();
  }
}

function linkSchema(link: LinkInput): z.ZodType {
  const participant = z.object({ id: z.string(), role: z.enum(PARTICIPANT_ROLES) });
  if (link.form === 'participant') return participant;
  if (link.form === 'participants') return z.array(participant);
  return z.string().describe(`The id of a ${link.target ?? 'Contact, Lead or User (as associatedObjectType says)'}`);
}

/** `{ contact: { … } }`'s object for a create or an update: the document's `<Object>Create` / `<Object>Update`. */
export function writeSchema(object: UnifiedObject, mode: 'create' | 'update') {
  const required = mode === 'create' ? 'requiredOnCreate' : 'requiredOnUpdate';
  const shape: Record<string, z.ZodType> = {};
  for (const field of object.fields) if (field[mode]) shape[field.key] = field[required] ? fieldSchema(field) : fieldSchema(field).optional();
  for (const link of object.links)
    if (link[mode]) shape[link.input] = link.requiredOnCreate && mode === 'create' ? linkSchema(link) : linkSchema(link).optional();
  shape.additional = z.record(z.string(), z.unknown()).optional().describe('Native fields by their CRM names (custom ones too): see /details?allFields=true');
  return z.object(shape);
}

/** The body of a create (`{ accessToken, contact }`) or an update (`{ accessToken, id, contact }`). */
export function writeBodySchema(object: UnifiedObject, mode: 'create' | 'update') {
  return z.object({
    accessToken: z.string(),
    ...(mode === 'update' ? { id: z.string() } : {}),
    [object.key]: writeSchema(object, mode),
  });
}

/** The schema of one field's filter, by the field's kind (the engagement searches use them too). */
export const filterSchemas: Record<FilterKind, () => z.ZodType> = {
  string: () => operatorsOf('string', z.string(), z.array(z.string())),
  number: () => operatorsOf('number', z.number(), z.array(z.number())),
  date: () => operatorsOf('date', z.string(), z.array(z.string())),
  boolean: () => z.object({ equals: z.boolean().optional(), not: z.boolean().optional() }).strict(),
  stringList: () =>
    z
      .object({
        has: z.string().optional(),
        hasEvery: z.array(z.string()).optional(),
        hasSome: z.array(z.string()).optional(),
        isEmpty: z.boolean().optional(),
      })
      .strict(),
};

function operatorsOf(kind: FilterKind, one: z.ZodType, many: z.ZodType) {
  return z.object(Object.fromEntries(OPERATORS[kind].map((op) => [op, (op === 'in' || op === 'notIn' ? many : one).optional()]))).strict();
}

/** A search's body: filters per field; `cursor`, `limit` and `allFields` may come here or in the query. */
export function searchBodySchema(object: UnifiedObject) {
  return z.object({
    accessToken: z.string().optional().describe('Here or in the query'),
    filters: z
      .object(Object.fromEntries(object.filters.map((filter) => [filter.key, filterSchemas[filter.kind]().optional()])))
      .strict()
      .optional(),
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(200).optional(),
    allFields: z.boolean().optional(),
  });
}

/** One field of `details`: the document's Field schema. */
export const fieldDetailSchema = () =>
  z.object({
    key: z.string(),
    name: z.string(),
    type: z.string(),
    options: z.array(z.object({ key: z.string(), name: z.string() })).nullable(),
    isArray: z.boolean(),
    custom: z.boolean(),
    universal: z.boolean(),
    required: z.boolean(),
    creatable: z.boolean(),
    updatable: z.boolean(),
  });
