import * as z from 'zod';
import { didYouMean } from '../shared/closest.js';
import { ApiError } from '../shared/errors.js';
import { lazyRecord } from '../shared/lazy-record.js';
import { once } from '../shared/once.js';
import { CRM_OBJECT_TYPES, type CrmObjectType } from './crm-object-types.js';

// In a module of their own, without zod, so the inspector's browser bundle can import them.
export { CRM_OBJECT_TYPES, type CrmObjectType } from './crm-object-types.js';
/** The spec's nine objectType values of OBJECT_CHANGE events. */
export const EVENT_OBJECT_TYPES = [
  'Contact',
  'Account',
  'Deal',
  'Lead',
  'User',
  'Note',
  'Task',
  'Event',
  'EventAttendee',
] as const satisfies readonly CrmObjectType[];

export function isCrmObjectType(value: string): value is CrmObjectType {
  return (CRM_OBJECT_TYPES as readonly string[]).includes(value);
}

/** A CRM object type as spelled in events (`Contact`, `EventAttendee`…); else a 400 naming `objectType`. */
export function parseObjectType(value: string): CrmObjectType {
  if (isCrmObjectType(value)) return value;
  throw ApiError.invalidField(
    'objectType',
    `objectType must be one of ${CRM_OBJECT_TYPES.join(', ')}; got ${JSON.stringify(value)}${didYouMean(value, CRM_OBJECT_TYPES)}`,
  );
}

/** Record ids are `v.<prefix>.<32 hex>`; EventAttendee is the odd one: `v.attendee.…` (a quirk of the original). */
export const ID_PREFIX: Record<CrmObjectType, string> = {
  Contact: 'contact',
  Account: 'account',
  Deal: 'deal',
  Lead: 'lead',
  User: 'user',
  Note: 'note',
  Task: 'task',
  Event: 'event',
  EventAttendee: 'attendee',
  Email: 'email',
};

export function crmIdPattern(type: CrmObjectType): RegExp {
  return new RegExp(`^v\\.${ID_PREFIX[type]}\\.[0-9a-f]{32}$`);
}

/** An Account's address, in output order. */
export const ADDRESS_PARTS = ['street', 'city', 'state', 'postalCode', 'country'] as const;
const address = once(() =>
  z.object(
    Object.fromEntries(ADDRESS_PARTS.map((part) => [part, z.string().nullable()])) as Record<(typeof ADDRESS_PARTS)[number], z.ZodNullable<z.ZodString>>,
  ),
);

const isoTime = once(() => z.iso.datetime({ message: 'must be an ISO-8601 UTC time such as 2024-05-01T12:00:00.000Z' }));
const text = once(() => z.string().nullable());
const idList = once(() => z.array(z.string()));
const addressList = once(() => z.array(z.string()));
const ownerId = once(() => z.string().nullable());

/** Fields of each type beyond id, nativeId, times and associations, in output order (each type's schema built when first read). */
export const CRM_FIELDS = lazyRecord({
  User: () =>
    z.object({
      firstName: text(),
      lastName: text(),
      email: text(),
    }),
  Contact: () =>
    z.object({
      email: text(),
      firstName: text(),
      lastName: text(),
      jobTitle: text(),
      phone: text(),
      mobilePhone: text(),
    }),
  Account: () =>
    z.object({
      name: text(),
      description: text(),
      industry: text(),
      annualRevenue: z.number().nullable(),
      numberOfEmployees: z.number().int().nonnegative().nullable(),
      website: text(),
      phone: text(),
      address: address().strict().nullable(),
    }),
  Deal: () =>
    z.object({
      name: text(),
      stage: text(),
      amount: z.number().nullable(),
      closeDate: isoTime().nullable(),
      // A string, e.g. "0.4": a quirk of the original service.
      probability: z
        .string()
        .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a decimal string between "0" and "1", e.g. "0.4"')
        .nullable(),
      // Derived: amount × probability. Read-only in writes.
      expectedRevenue: z.number().nullable(),
      isWon: z.boolean(),
      isClosed: z.boolean(),
    }),
  Lead: () =>
    z.object({
      firstName: text(),
      lastName: text(),
      jobTitle: text(),
      email: text(),
      account: text(),
      phone: text(),
      mobilePhone: text(),
    }),
  Note: () =>
    z.object({
      content: text(),
    }),
  Task: () =>
    z.object({
      subject: text(),
      body: text(),
      isDone: z.boolean(),
      dueDate: isoTime().nullable(),
      status: text(),
      priority: text(),
    }),
  Event: () =>
    z.object({
      subject: text(),
      description: text(),
      type: text(),
      location: text(),
      startDateTime: isoTime().nullable(),
      endDateTime: isoTime().nullable(),
      isAllDayEvent: z.boolean(),
    }),
  EventAttendee: () =>
    z.object({
      status: z.enum(['Confirmed', 'Declined', 'Tentative', 'NeedsAction']),
      associatedObjectType: z.enum(['Contact', 'Lead', 'User', 'Other']),
      email: text(),
    }),
  Email: () =>
    z.object({
      from: text(),
      to: addressList(),
      cc: addressList(),
      bcc: addressList(),
      subject: text(),
      body: text(),
      bodyHtml: text(),
      messageDate: isoTime().nullable(),
      isIncoming: z.boolean(),
      isBounced: z.boolean(),
      hasAttachment: z.boolean(),
      // CRM-specific, as the document says: the seed uses SENT and BOUNCED.
      status: text(),
    }),
}) satisfies Record<CrmObjectType, z.ZodObject>;

/** Association fields of each type, in output order. Arrays of ids, or one id (or null). */
export const CRM_ASSOCIATIONS = lazyRecord({
  User: () => z.object({ taskIds: idList(), noteIds: idList(), eventIds: idList(), dealIds: idList(), accountIds: idList() }),
  Contact: () =>
    z.object({
      accountIds: idList(),
      dealIds: idList(),
      leadIds: idList(),
      noteIds: idList(),
      taskIds: idList(),
      eventIds: idList(),
      eventAttendeeIds: idList(),
      ownerUserId: ownerId(),
    }),
  Account: () =>
    z.object({
      dealIds: idList(),
      contactIds: idList(),
      noteIds: idList(),
      taskIds: idList(),
      leadIds: idList(),
      eventIds: idList(),
      ownerUserId: ownerId(),
    }),
  Deal: () =>
    z.object({
      contactIds: idList(),
      accountIds: idList(),
      noteIds: idList(),
      taskIds: idList(),
      eventIds: idList(),
      ownerUserId: ownerId(),
    }),
  Lead: () =>
    z.object({
      contactIds: idList(),
      accountIds: idList(),
      noteIds: idList(),
      taskIds: idList(),
      eventIds: idList(),
      eventAttendeeIds: idList(),
    }),
  Note: () => z.object({ dealIds: idList(), contactIds: idList(), accountIds: idList(), leadIds: idList(), ownerUserId: ownerId() }),
  Task: () => z.object({ dealIds: idList(), contactIds: idList(), accountIds: idList(), leadIds: idList(), ownerUserId: ownerId() }),
  Event: () =>
    z.object({
      accountIds: idList(),
      leadIds: idList(),
      contactIds: idList(),
      dealIds: idList(),
      eventAttendeeIds: idList(),
      ownerUserId: ownerId(),
    }),
  EventAttendee: () => z.object({ eventId: z.string().nullable(), associationId: z.string().nullable() }),
  // One-way links: the other records keep no emailIds (the document's record schemas have none).
  Email: () => z.object({ accountIds: idList(), leadIds: idList(), contactIds: idList(), dealIds: idList(), ownerUserId: ownerId() }),
}) satisfies Record<CrmObjectType, z.ZodObject>;

/** Fields every CRM record has, in output order before the type's own fields. */
const recordBase = once(() => ({
  id: z.string(),
  nativeId: z.string(),
  createdTime: isoTime(),
  modifiedTime: isoTime(),
}));

/** The full unified record of a type, as the sandbox answers it (without `additional`). */
export function crmRecordSchema<T extends CrmObjectType>(type: T) {
  return z.object({ ...recordBase(), ...CRM_FIELDS[type].shape, associations: CRM_ASSOCIATIONS[type].strict() }).strict();
}

export type CrmFields<T extends CrmObjectType> = z.infer<(typeof CRM_FIELDS)[T]>;
export type CrmAssociations<T extends CrmObjectType> = z.infer<(typeof CRM_ASSOCIATIONS)[T]>;

/** A unified CRM record. */
export type CrmRecord<T extends CrmObjectType = CrmObjectType> = {
  id: string;
  nativeId: string;
  createdTime: string;
  modifiedTime: string;
} & CrmFields<T> & { associations: CrmAssociations<T> };

/** A one-id association (`ownerUserId`) is absent when it is empty; an attendee's `associationId` is null for an Other attendee. */
type AnsweredAssociations<A> = { [K in keyof A as null extends A[K] ? never : K]: A[K] } & { [K in keyof A as null extends A[K] ? K : never]?: A[K] };

/**
 * A record as the service answers it (the unified reads, OBJECT_CHANGE events, the control API and
 * `sandbox.getRecord()`): the document types its fields without null, so a field without a value
 * is absent, not null (an attendee's `email` stays null, as the document's example shows it), and
 * a field the connection's CRM has no field for is absent too (a Pipedrive lead's `email`).
 */
export type UnifiedRecord<T extends CrmObjectType = CrmObjectType> = T extends CrmObjectType
  ? {
      id: string;
      nativeId: string;
      createdTime: string;
      modifiedTime: string;
    } & { [K in keyof CrmFields<T>]?: T extends 'EventAttendee' ? CrmFields<T>[K] : Exclude<CrmFields<T>[K], null> } & {
      associations: AnsweredAssociations<CrmAssociations<T>>;
    }
  : never;

const emptyShapes = new Map<CrmObjectType, { fields: Record<string, null>; associations: Record<string, null> }>();

/**
 * A record with the fields it answers without (empty ones) back as null: what code that reads
 * fields by name (a scenario's `$ada.mobilePhone`) gets for an empty one.
 */
export function withEmptyFields(type: CrmObjectType, record: Record<string, unknown>): Record<string, unknown> {
  let empty = emptyShapes.get(type);
  if (!empty) {
    const nulls = (shape: object) => Object.fromEntries(Object.keys(shape).map((key) => [key, null]));
    empty = { fields: nulls(CRM_FIELDS[type].shape), associations: nulls(CRM_ASSOCIATIONS[type].shape) };
    emptyShapes.set(type, empty);
  }
  const associations = record.associations;
  return {
    ...empty.fields,
    ...record,
    ...(typeof associations === 'object' && associations !== null ? { associations: { ...empty.associations, ...associations } } : {}),
  };
}

export type Contact = UnifiedRecord<'Contact'>;
export type Account = UnifiedRecord<'Account'>;
export type Deal = UnifiedRecord<'Deal'>;
export type Lead = UnifiedRecord<'Lead'>;
export type CrmUser = UnifiedRecord<'User'>;
export type Note = UnifiedRecord<'Note'>;
export type Task = UnifiedRecord<'Task'>;
export type CalendarEvent = UnifiedRecord<'Event'>;
export type EventAttendee = UnifiedRecord<'EventAttendee'>;
export type Email = UnifiedRecord<'Email'>;

/**
 * One-to-many links are written on their single end (a Task's `ownerUserId`, an attendee's
 * `eventId` or `associationId`); the list on the other end follows and cannot be written.
 */
export const DERIVED_ASSOCIATIONS: Partial<Record<CrmObjectType, readonly string[]>> = {
  User: ['taskIds', 'noteIds', 'eventIds', 'dealIds', 'accountIds'],
  Contact: ['eventAttendeeIds'],
  Lead: ['eventAttendeeIds'],
  Event: ['eventAttendeeIds'],
};

/**
 * Fields the service's document requires on every record of its type, so never null: a write
 * that would leave one empty is a 400 naming it. (A Deal created without a close date gets one:
 * see ConnectionData.create.)
 */
export const REQUIRED_FIELDS: Partial<Record<CrmObjectType, readonly string[]>> = { Deal: ['name', 'stage', 'closeDate'], Email: ['from', 'subject'] };

/**
 * Types whose records always have an owner: the document requires `associations.ownerUserId`. A
 * write that leaves it empty gives the record to the connection's first user, as the CRMs give a
 * record to the user the integration acts as (a connection without users has no one to give it to).
 */
export const OWNED_TYPES: readonly CrmObjectType[] = ['Account', 'Deal', 'Note', 'Task', 'Event', 'Email'];

/** Fields that a write may not set: the sandbox assigns them. */
export const READ_ONLY_FIELDS = ['id', 'createdTime', 'modifiedTime'] as const;
/** Fields derived from others; a write may not set them either. */
export const DERIVED_FIELDS: Partial<Record<CrmObjectType, readonly string[]>> = { Deal: ['expectedRevenue'] };

/**
 * What a create or update may carry: any of the type's fields, `nativeId`, and any of its
 * association fields. Unknown fields are rejected with their name.
 */
export function crmWriteSchema(type: CrmObjectType) {
  let schema = writeSchemas.get(type);
  if (!schema) {
    schema = buildWriteSchema(type);
    writeSchemas.set(type, schema);
  }
  return schema;
}

const writeSchemas = new Map<CrmObjectType, ReturnType<typeof buildWriteSchema>>();

function buildWriteSchema(type: CrmObjectType) {
  const writable = (shape: Record<string, z.ZodType>, derived: readonly string[] = []) =>
    Object.fromEntries(
      Object.entries(shape)
        .filter(([name]) => !derived.includes(name))
        .map(([name, schema]) => [name, schema.optional()]),
    );
  return z
    .object({
      nativeId: z.string().min(1).optional(),
      ...writable(CRM_FIELDS[type].shape, DERIVED_FIELDS[type]),
      // A write may give part of an address: the parts left out keep their values.
      ...(type === 'Account' ? { address: address().partial().strict().nullable().optional() } : {}),
      associations: z.object(writable(CRM_ASSOCIATIONS[type].shape, DERIVED_ASSOCIATIONS[type])).strict().optional(),
    })
    .strict();
}
export type CrmWrite = Record<string, unknown> & { associations?: Record<string, unknown> };

/** A deletion as it is reported in an OBJECT_CHANGE event: only these three fields. */
export interface DeletedRecord {
  id: string;
  nativeId: string;
  connectionId: string;
}
