import { parseTime, stageWrites } from '../downstream/fields.js';
import { NATIVE_EMAIL_WRITES } from '../downstream/native-email.js';
import { nativeObjectOf } from '../downstream/native-objects.js';
import { FieldError, isPlainObject, type NativeObject, translate, type WritePolicy } from '../downstream/rest-engine.js';
import type { DownstreamContext } from '../downstream/types.js';
import { ADDRESS_PARTS, CRM_FIELDS, type CrmObjectType, type CrmRecord, DERIVED_FIELDS } from '../model/crm.js';
import type { IntegrationId, NativeOrg } from '../model/integrations.js';
import { DEAL_STAGES } from '../model/vocabularies.js';
import { calendarMistake } from '../shared/calendar.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import type { ConnectionData } from '../store/connection-data.js';
import { type LinkInput, PARTICIPANT_ROLES, type UnifiedField, type UnifiedObject } from './crm-objects.js';
import { isMapped } from './view.js';

/**
 * A unified create or update body (`{ contact: { … } }`'s object) as a store write: each field
 * checked against the document's `<Object>Create` / `<Object>Update` schema, the ids it links
 * with turned into associations, `additional` written through the CRM's own field names, and
 * the CRM's own rules applied (a Salesforce note on one record at most). A bad field is a 400
 * naming it under the body key (`deal.closeDate`); a field the schema does not know is ignored,
 * as the service did, and reported back.
 *
 * The one write path of the unified API: `writeCrm` plans and stores a CRM write, and the
 * engagement writes (./engagement-writes.ts) store their contacts and accounts through the same
 * `storePlan`, whose store write emits the record's OBJECT_CHANGE event.
 */

/** A unified CRM create or update, as the route read it. */
export interface CrmWrite {
  object: UnifiedObject;
  mode: 'create' | 'update';
  /** The object under the body key. */
  body: unknown;
  connection: { integrationId: IntegrationId; org: NativeOrg };
  data: ConnectionData;
  now: number;
  /** The record an update changes. */
  current?: CrmRecord;
}

/**
 * Plans a unified CRM write and stores it: the record's id, and the fields it ignored.
 *
 * @example writeCrm({ object: unifiedObjectOf('Contact'), mode: 'create', body: { lastName: 'Lovelace' }, connection, data, now })
 */
export function writeCrm(write: CrmWrite): { id: string; ignored: string[] } {
  const { object, connection, data, now } = write;
  const native = nativeObjectOf(connection.integrationId, object.type);
  const plan = planWrite({
    object,
    integrationId: connection.integrationId,
    mode: write.mode,
    body: write.body,
    at: object.key,
    data,
    now,
    ...(write.current ? { current: write.current } : {}),
    ...(native ? { native: { ...native, context: { org: connection.org, data, now } } } : {}),
  });
  const written = storePlan(data, object.type, object.key, plan, write.current?.id);
  return { id: written.id, ignored: plan.ignored };
}

/**
 * The store step of every unified write, CRM or engagement: the lead's person first (Pipedrive),
 * then the record, created with its extras or updated with them merged into the ones it has
 * (`custom`: custom fields the caller adds to the plan's). A bad field the store finds is named
 * under the body key (`deal.stage`), as the request wrote it.
 */
export function storePlan(
  data: ConnectionData,
  type: CrmObjectType,
  at: string,
  plan: WritePlan,
  currentId: string | undefined,
  custom: Record<string, unknown> = {},
): CrmRecord {
  try {
    if (plan.person?.id !== undefined) data.update('Contact', plan.person.id, plan.person.fields);
    else if (plan.person) {
      const person = data.create('Contact', plan.person.fields);
      plan.input.associations = { ...(plan.input.associations as object), contactIds: [person.id] };
    }
    if (currentId === undefined) return data.create(type, plan.input, { ...plan.extra, custom: { ...plan.extra?.custom, ...custom } });
    const entry = data.crm[type].entry(currentId)!;
    const extra =
      plan.extra || Object.keys(custom).length > 0
        ? {
            ...entry.extra,
            custom: { ...(entry.extra.custom as object), ...plan.extra?.custom, ...custom },
            ...(plan.extra?.native ? { native: { ...(entry.extra.native as object), ...plan.extra.native } } : {}),
          }
        : undefined;
    return data.update(type, currentId, plan.input, extra);
  } catch (error) {
    if (!(error instanceof ApiError) || error.errorCode !== ErrorCode.INVALID_FIELD_VALUE || typeof error.metadata?.field !== 'string') throw error;
    const field = error.metadata.field === '' ? at : `${at}.${error.metadata.field}`;
    throw ApiError.invalidField(field, `${at}.${error.message}`, { ...error.metadata, field });
  }
}

export interface WriteRequest {
  object: UnifiedObject;
  integrationId: IntegrationId;
  mode: 'create' | 'update';
  /** The object under the body key. */
  body: unknown;
  /** The body key, for messages: `contact`. */
  at: string;
  data: ConnectionData;
  /** The sandbox's time (ms): an email created without a messageDate was sent now. */
  now: number;
  /** The record an update changes. */
  current?: CrmRecord;
  /** The CRM's native object of the type, for `additional` (undefined: the CRM has none). */
  native?: { object: NativeObject; policy: WritePolicy; context: DownstreamContext };
}

export interface WritePlan {
  /** The store write: unified fields and `associations`. */
  input: Record<string, unknown>;
  /**
   * The person a Pipedrive lead is about, which keeps its email, phones and job title (decision
   * 0043): a Contact to create first and link the lead to (no `id`), or the lead's person to update.
   */
  person?: { id?: string; fields: Record<string, unknown> };
  /** The record's extras to store: custom fields and native-only values from `additional` (update: merged by the caller). */
  extra?: { custom: Record<string, unknown>; native?: Record<string, unknown> };
  /** Fields given that were not written, each with why: what the caller is told. */
  ignored: string[];
}

/** The first stage of every pipeline: where a deal created without one starts. */
const FIRST_STAGE = DEAL_STAGES[0].stage;
/** What Salesforce puts in a lead's required Company when the service creates one without an account (the document's LeadCreate says so). */
const SALESFORCE_LEAD_COMPANY = '[TODO]: Fill in Company Name';
const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
const bad = (field: string, message: string, more: Record<string, unknown> = {}) => ApiError.invalidField(field, `${field} ${message}`, more);
/** Why a date that reads as ISO-8601 is still refused (`: February 2025 has no day 30`), or ''. */
export const noSuchInstant = (value: unknown): string => {
  const mistake = typeof value === 'string' ? calendarMistake(value.trim()) : undefined;
  return mistake ? `: ${mistake}` : '';
};

/**
 * Plans a unified write, or throws a 400 naming the first bad field.
 *
 * @example planWrite({ object: unifiedObjectOf('Contact'), integrationId: 'hubspot', mode: 'create', body: { lastName: 'Lovelace' }, at: 'contact', data })
 */
export function planWrite(request: WriteRequest): WritePlan {
  const { object, mode, at } = request;
  if (!isPlainObject(request.body)) throw bad(at, `must be an object of ${object.type} fields, got ${typeName(request.body)}`);
  const body = request.body;
  // The document: "Pipedrive: Not supported" (its mailbox API is read-only).
  if (object.type === 'Email' && !NATIVE_EMAIL_WRITES[request.integrationId].create) {
    throw ApiError.invalidField(at, `emails cannot be written on ${request.integrationId}: its API reads mail only (the service's document: not supported)`, {
      integrationId: request.integrationId,
    });
  }
  const ignored: string[] = [];
  const fields: Record<string, unknown> = {};
  const associations: Record<string, string[] | string> = {};
  const recordKeys = new Set(['id', 'nativeId', 'createdTime', 'modifiedTime', 'associations', ...Object.keys(CRM_FIELDS[object.type].shape)]);

  for (const [key, value] of Object.entries(body)) {
    if (key === 'additional' || value === undefined) continue;
    const field = object.fields.find((candidate) => candidate.key === key);
    const link = object.links.find((candidate) => candidate.input === key);
    if (field?.[mode]) {
      if (!isMapped(request.integrationId, object.type, key, mode)) throw notKept(`${at}.${key}`, object.type, request.integrationId, mode);
      fields[key] = checkValue(field, value, `${at}.${key}`);
    } else if (link?.[mode]) {
      linkInto(associations, link, value, `${at}.${key}`, request, body);
    } else if (field || link || recordKeys.has(key)) {
      throw bad(
        `${at}.${key}`,
        `cannot be written by ${mode === 'create' ? 'a create' : 'an update'} of ${object.type}; writable: ${writable(object, mode).join(', ')}`,
        {
          allowed: writable(object, mode),
        },
      );
    } else {
      ignored.push(`${at}.${key} (not a field of ${object.type})`);
    }
  }
  checkRequired(request, fields, associations);
  checkCrmRules(request, associations);

  const fromAdditional = request.native && body.additional !== undefined ? writeAdditional(request, body.additional) : undefined;
  const input: Record<string, unknown> = mode === 'create' ? emptyRecord(request) : {};
  Object.assign(input, fromAdditional?.input, fields);
  // A new address has only the parts written (the store would fill the others with made-up ones).
  if (mode === 'create' && isPlainObject(input.address)) input.address = { ...Object.fromEntries(ADDRESS_PARTS.map((part) => [part, null])), ...input.address };
  derive(request, input, fields);
  const links = { ...(fromAdditional?.input.associations as Record<string, unknown> | undefined), ...associations };
  if (Object.keys(links).length > 0) input.associations = links;
  if (body.additional !== undefined && !request.native) ignored.push(`${at}.additional (${request.integrationId} has no native ${object.type})`);
  const extra = fromAdditional ? { custom: fromAdditional.custom, ...(fromAdditional.native ? { native: fromAdditional.native } : {}) } : undefined;
  const person = leadPerson(request, input);
  return { input, ...(person ? { person } : {}), ...(extra ? { extra } : {}), ignored };
}

/** The fields of a lead that Pipedrive keeps on its person. */
const PERSON_FIELDS = ['email', 'phone', 'mobilePhone', 'jobTitle'] as const;

/** The person a Pipedrive lead is about, for a write of its email, phones or job title: made with the lead (its name and those), or its own person changed. */
function leadPerson(request: WriteRequest, input: Record<string, unknown>): WritePlan['person'] {
  if (request.integrationId !== 'pipedrive' || request.object.type !== 'Lead') return undefined;
  const given = PERSON_FIELDS.filter((key) => input[key] !== null && input[key] !== undefined);
  if (given.length === 0) return undefined;
  const current = request.current as CrmRecord<'Lead'> | undefined;
  const id = current?.associations.contactIds[0];
  if (id !== undefined) return { id, fields: Object.fromEntries(given.map((key) => [key, input[key]])) };
  // No person yet (a lead made without one): made now, with the lead's name.
  const person = emptyRecord({ ...request, object: { ...request.object, type: 'Contact' } });
  for (const key of ['firstName', 'lastName', ...PERSON_FIELDS]) person[key] = input[key] ?? current?.[key as keyof CrmRecord<'Lead'>] ?? null;
  return { fields: person };
}

/**
 * The 400 of a field an integration keeps nowhere (a Pipedrive organization's phone): refused by
 * name rather than answered 200 and dropped, so a test that passes here does not lose data in
 * production (decision 0044). `docs/reference/unified-objects.md` lists them.
 */
export function notKept(field: string, type: string, integrationId: IntegrationId, mode: 'create' | 'update' = 'create'): ApiError {
  const why =
    mode === 'update' && isMapped(integrationId, type as CrmObjectType, field.split('.').pop()!)
      ? 'an update cannot change it there'
      : `its ${type} has no such field, so it would not be kept`;
  return ApiError.invalidField(field, `${field} cannot be written on ${integrationId}: ${why}`, { integrationId });
}

/** The body fields a create or update of the object may write. */
export function writable(object: UnifiedObject, mode: 'create' | 'update'): string[] {
  return [
    ...object.fields.filter((field) => field[mode]).map((field) => field.key),
    ...object.links.filter((link) => link[mode]).map((link) => link.input),
    'additional',
  ];
}

/**
 * A field's value checked against its kind. A client's `null` never comes here (the route read it
 * as not given, decision 0043); the engagement writes' own do: a contact's `phones` list replaces
 * both numbers, clearing the one it does not give.
 */
function checkValue(field: UnifiedField, value: unknown, at: string): unknown {
  if (value === null) return null;
  switch (field.kind) {
    case 'string':
    case 'decimalString': {
      if (typeof value !== 'string') throw bad(at, `must be a string, got ${typeName(value)}`);
      if (field.options && field.detail === 'singleselect' && !field.options.includes(value)) {
        throw bad(at, `must be one of ${field.options.map((option) => JSON.stringify(option)).join(', ')}, got ${JSON.stringify(value)}`, {
          allowed: [...field.options],
        });
      }
      return value;
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw bad(at, `must be a number, got ${typeName(value)}`);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw bad(at, `must be true or false, got ${typeName(value)}`);
      return value;
    case 'date':
      try {
        return parseTime(value, at);
      } catch {
        throw bad(at, `must be an ISO-8601 date or date-time such as 2024-05-01T12:00:00Z, got ${JSON.stringify(value)}${noSuchInstant(value)}`);
      }
    case 'stringList':
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw bad(at, `must be an array of strings, got ${typeName(value)}`);
      return [...value];
    case 'address': {
      if (!isPlainObject(value)) throw bad(at, `must be an object with ${ADDRESS_PARTS.join(', ')}, got ${typeName(value)}`);
      for (const [part, text] of Object.entries(value)) {
        if (!(ADDRESS_PARTS as readonly string[]).includes(part))
          throw bad(`${at}.${part}`, `is not a part of an address; allowed: ${ADDRESS_PARTS.join(', ')}`);
        if (typeof text !== 'string') throw bad(`${at}.${part}`, `must be a string, got ${typeName(text)}`);
      }
      return value;
    }
  }
}

/** An id a write links with, checked against the connection's records, into the association it sets. */
function linkInto(
  associations: Record<string, string[] | string>,
  link: LinkInput,
  value: unknown,
  at: string,
  request: WriteRequest,
  body: Record<string, unknown>,
): void {
  const many = link.association.endsWith('Ids');
  const ids: string[] = [];
  if (link.form === 'id') {
    if (typeof value !== 'string' || value === '') throw bad(at, `must be a record id, got ${typeName(value)}`);
    ids.push(value);
  } else {
    const items = link.form === 'participants' ? value : [value];
    if (!Array.isArray(items)) throw bad(at, `must be an array of { id, role }, got ${typeName(value)}`);
    items.forEach((item, index) => {
      const where = link.form === 'participants' ? `${at}[${index}]` : at;
      if (!isPlainObject(item) || typeof item.id !== 'string') throw bad(where, 'must be { id, role } with the id of a record');
      if (!(PARTICIPANT_ROLES as readonly string[]).includes(item.role as string)) {
        throw bad(
          `${where}.role`,
          `must be one of ${PARTICIPANT_ROLES.join(', ')}: a linked ${link.target} takes part in the email, got ${JSON.stringify(item.role)}`,
        );
      }
      ids.push(item.id);
    });
  }
  const target = link.target ?? attendeeTarget(body.associatedObjectType, at);
  for (const id of ids) {
    if (!request.data.crm[target].has(id)) throw bad(at, `points at no ${target} of this connection: ${JSON.stringify(id)}`);
  }
  if (many) associations[link.association] = [...new Set([...((associations[link.association] as string[] | undefined) ?? []), ...ids])];
  else associations[link.association] = ids[0]!;
}

/** An attendee's associationId points at the type its associatedObjectType names. */
function attendeeTarget(kind: unknown, at: string): 'Contact' | 'Lead' | 'User' {
  if (kind === 'Contact' || kind === 'Lead' || kind === 'User') return kind;
  throw bad(at, `links a Contact, Lead or User, named by associatedObjectType; with associatedObjectType ${JSON.stringify(kind ?? null)} give email instead`);
}

function checkRequired(request: WriteRequest, fields: Record<string, unknown>, associations: Record<string, unknown>): void {
  const { object, mode, at } = request;
  const given = request.body as Record<string, unknown>;
  const key = mode === 'create' ? 'requiredOnCreate' : 'requiredOnUpdate';
  for (const field of object.fields) {
    if (!field[key]) continue;
    const value = field.key in fields ? fields[field.key] : given[field.key];
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) {
      throw bad(`${at}.${field.key}`, `is required to ${mode} a ${object.type} (the document's ${object.type}${mode === 'create' ? 'Create' : 'Update'})`);
    }
  }
  for (const link of object.links) {
    if (link[key as 'requiredOnCreate'] && associations[link.association] === undefined) {
      throw bad(`${at}.${link.input}`, `is required to ${mode} a ${object.type}`);
    }
  }
  if (object.type === 'EventAttendee' && mode === 'create') {
    const other = given.associatedObjectType === 'Other';
    if (other && given.associationId !== undefined) {
      throw bad(`${at}.associationId`, 'must be left out for an Other attendee, who is named by email');
    }
    if (other && (typeof given.email !== 'string' || given.email === '')) throw bad(`${at}.email`, 'is required for an Other attendee');
    if (!other && associations.associationId === undefined)
      throw bad(`${at}.associationId`, `is required for a ${String(given.associatedObjectType)} attendee`);
    if (!other && given.email !== undefined) throw bad(`${at}.email`, 'is only for an Other attendee: a linked one has its record’s email');
  }
}

/**
 * Rules the document's caveats give per CRM. A Salesforce note may name one record of each type
 * (the document's NoteCreate; Salesforce links a note to several records: decision 0044).
 */
function checkCrmRules(request: WriteRequest, associations: Record<string, unknown>): void {
  if (request.integrationId !== 'salesforce' || request.mode !== 'create') return;
  const given = (name: string) => associations[name] !== undefined;
  const at = request.at;
  // An EventRelation names a Contact, Lead or User: an attendee with an email alone has no place there (decision 0044).
  if (request.object.type === 'EventAttendee' && (request.body as Record<string, unknown>).associatedObjectType === 'Other') {
    throw ApiError.invalidField(
      `${at}.email`,
      `${at}.email cannot be written on salesforce: an EventRelation names a Contact, Lead or User, so an Other attendee, by email alone, would not be kept`,
      { integrationId: 'salesforce' },
    );
  }
  if (request.object.type === 'Task') {
    if (given('leadIds') && given('contactIds')) throw bad(`${at}.leadId`, 'and contactId cannot both be given on Salesforce (a Task has one WhoId)');
    if (given('dealIds') && given('accountIds')) throw bad(`${at}.dealId`, 'and accountId cannot both be given on Salesforce (a Task has one WhatId)');
  }
}

/** `additional`: native fields by the CRM's own names, written as a native write would write them. */
function writeAdditional(
  request: WriteRequest,
  additional: unknown,
): { input: Record<string, unknown>; custom: Record<string, unknown>; native?: Record<string, unknown> } {
  const at = `${request.at}.additional`;
  if (!isPlainObject(additional)) throw bad(at, `must be an object of ${request.integrationId} fields, got ${typeName(additional)}`);
  const { object, policy, context } = request.native!;
  try {
    return translate(object, additional, policy, context, request.current, true);
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    const field = error.field ? `${at}.${error.field}` : at;
    throw ApiError.invalidField(field, `${field}: ${error.message}`);
  }
}

/**
 * A new record's fields before the written ones: empty, as a create in the CRM leaves them (no
 * generated values), with the CRM's defaults where it has them.
 */
function emptyRecord(request: WriteRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const derived = DERIVED_FIELDS[request.object.type] ?? [];
  for (const [key, schema] of Object.entries(CRM_FIELDS[request.object.type].shape)) {
    if (derived.includes(key)) continue;
    out[key] = schema.safeParse(false).success ? false : schema.safeParse([]).success ? [] : null;
  }
  switch (request.object.type) {
    case 'Deal':
      Object.assign(out, stageWrites(FIRST_STAGE));
      break;
    case 'Task':
      Object.assign(out, { status: 'Not Started', priority: 'Normal' });
      break;
    case 'EventAttendee':
      out.status = 'NeedsAction';
      break;
    case 'Email':
      Object.assign(out, { status: 'SENT', messageDate: new Date(request.now).toISOString() });
      break;
    case 'Lead':
      if (request.integrationId === 'salesforce') out.account = SALESFORCE_LEAD_COMPANY;
      break;
  }
  return out;
}

/** Values that follow others, as the CRMs derive them. */
function derive(request: WriteRequest, input: Record<string, unknown>, fields: Record<string, unknown>): void {
  if (request.object.type === 'Deal' && typeof fields.stage === 'string') Object.assign(input, stageWrites(fields.stage));
  if (request.object.type === 'Task') {
    // The document: isDone takes precedence and sets the status to the default or a closed one.
    if (typeof fields.isDone === 'boolean') {
      const open = typeof fields.status === 'string' && !/^completed?$/i.test(fields.status) ? fields.status : 'Not Started';
      input.status = fields.isDone ? 'Completed' : open;
    } else if (typeof fields.status === 'string') {
      input.isDone = /^completed?$/i.test(fields.status);
    }
  }
  if (request.object.type === 'EventAttendee' && request.mode === 'create' && fields.associatedObjectType !== 'Other') input.email = null;
}
