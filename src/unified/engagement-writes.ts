import {
  advanceAction,
  completeTask,
  createTask,
  dispositionByKey,
  EngagementRefusal,
  logCall,
  startSequence,
  type TaskWrite,
  updateTask,
} from '../downstream/engagement-activity.js';
import { CONTACT_ADDRESS_FIELDS } from '../downstream/engagement-native.js';
import { parseTime } from '../downstream/fields.js';
import { nativeObjectOf } from '../downstream/native-objects.js';
import { isPlainObject } from '../downstream/rest-engine.js';
import type { CrmRecord } from '../model/crm.js';
import type { EngagementAction, EngagementSequence, EngagementTask } from '../model/engagement-activity.js';
import type { IntegrationId, NativeOrg } from '../model/integrations.js';
import { CUSTOM_FIELD_KEYS, ENGAGEMENT_ADDRESS_PARTS } from '../model/vocabularies.js';
import { ApiError } from '../shared/errors.js';
import type { ConnectionData } from '../store/connection-data.js';
import type { Entry } from '../store/ordered-collection.js';
import { unifiedObjectOf } from './crm-objects.js';
import { COMPLETION_TYPES, ENGAGEMENT_UNMAPPED, type EngagementInput, type EngagementObject, TASK_TYPES } from './engagement-objects.js';
import { crmIdOf, engagementIdOf } from './engagement-view.js';
import { noSuchInstant, notKept, planWrite, storePlan } from './writes.js';

/**
 * The unified engagement writes: creates and updates of accounts, contacts and tasks, completing a
 * task or an action, starting a sequence. Contacts and accounts are the platform's CRM records, so
 * their writes go through the CRM's write plan and store step (./writes.ts: `planWrite`, with
 * `additional` through the platform's own field maps, then `storePlan`), with the OBJECT_CHANGE
 * event any write of them emits; the rest change the platform's engagement collections
 * (src/downstream/engagement-activity.ts), as its native routes do. A bad field is a 400 naming it under the body key (`task.contactId`,
 * `fields.mailboxId`); a field the document does not know is ignored, as the service did, and
 * named back.
 */

/** What a write knows of the connection. */
export interface EngagementConnection {
  integrationId: IntegrationId;
  org: NativeOrg;
}

export interface EngagementWrite {
  object: EngagementObject;
  mode: 'create' | 'update';
  /** The object under the body key. */
  body: unknown;
  connection: EngagementConnection;
  data: ConnectionData;
  now: number;
  /** The record an update changes. */
  current?: Entry<unknown>;
}

export interface EngagementResult {
  id: string;
  /** Fields given that were not written, each with why. */
  ignored: string[];
}

const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
const bad = (field: string, message: string, more: Record<string, unknown> = {}) => ApiError.invalidField(field, `${field} ${message}`, more);
/** Fields of a record a write may not set. */
const RECORD_KEYS = ['id', 'createdTime', 'modifiedTime', 'associations', 'status', 'completedTime', 'locality'];

/**
 * A create or update of an account, contact or task.
 *
 * @example writeEngagement({ object: engagementObjectOf('Contact'), mode: 'create', body: { lastName: 'Lovelace' }, connection, data, now })
 */
export function writeEngagement(write: EngagementWrite): EngagementResult {
  if (!isPlainObject(write.body)) throw bad(write.object.key, `must be an object of ${write.object.name} fields, got ${typeName(write.body)}`);
  return write.object.name === 'Task' ? writeTask(write, write.body) : writeCrmRecord(write, write.body);
}

/** Splits a body into the inputs the document's schema takes (checked against the record's own keys) and the ignored rest. */
function inputsOf(write: EngagementWrite, body: Record<string, unknown>): { given: Array<[EngagementInput, unknown]>; ignored: string[] } {
  const { object, mode } = write;
  const at = object.key;
  const inputs = object[mode] ?? [];
  const given: Array<[EngagementInput, unknown]> = [];
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'additional' || value === undefined) continue;
    const item = inputs.find((candidate) => candidate.key === key);
    if (item) given.push([item, value]);
    else if (RECORD_KEYS.includes(key) || object.fields.some((field) => field.key === key) || object.associations.includes(key)) {
      const writable = [...inputs.map((candidate) => candidate.key), 'additional'];
      throw bad(`${at}.${key}`, `cannot be written by ${mode === 'create' ? 'a create' : 'an update'} of ${object.name}; writable: ${writable.join(', ')}`, {
        allowed: writable,
      });
    } else ignored.push(`${at}.${key} (not a field of ${object.name})`);
  }
  if (mode === 'create') {
    for (const item of inputs) {
      const value = body[item.key];
      if (item.required && (value === undefined || value === '')) {
        throw bad(
          `${at}.${item.key}`,
          `is required to create a${/^[AEIOU]/.test(object.name) ? 'n' : ''} ${object.name} (the document's ${object.schema}Create)`,
        );
      }
    }
  }
  return { given, ignored };
}

// --- Contacts and accounts: the platform's CRM records -------------------------------------------

function writeCrmRecord(write: EngagementWrite, body: Record<string, unknown>): EngagementResult {
  const { object, mode, connection, data } = write;
  const type = object.name as 'Contact' | 'Account';
  const at = object.key;
  const { given, ignored } = inputsOf(write, body);
  const skip = ENGAGEMENT_UNMAPPED[connection.integrationId][type];
  const crm: Record<string, unknown> = {};
  const nativeFields: Record<string, unknown> = {};
  for (const [item, value] of given) {
    if (skip.includes(item.key)) throw notKept(`${at}.${item.key}`, type, connection.integrationId);
    if (item.kind === 'address') {
      const parts = addressParts(value, `${at}.address`);
      const kept: Record<string, unknown> = {};
      for (const [part, text] of Object.entries(parts)) {
        if (skip.includes(`address.${part}`)) throw notKept(`${at}.address.${part}`, type, connection.integrationId);
        if (type === 'Account') kept[part === 'line1' ? 'street' : part] = text;
        else nativeFields[CONTACT_ADDRESS_FIELDS[connection.integrationId][part as 'city']!] = text;
      }
      if (type === 'Account' && Object.keys(kept).length > 0) crm.address = kept;
    } else if (item.kind === 'emails') {
      Object.assign(crm, emailsOf(value, `${at}.emails`, ignored));
    } else if (item.kind === 'phones') {
      Object.assign(crm, phonesOf(value, `${at}.phones`, ignored));
    } else {
      crm[item.key] = value;
    }
  }
  const { native: additional, custom } = additionalOf(body.additional, `${at}.additional`, ignored, connection.integrationId);
  const nativeBody = { ...additional, ...nativeFields };
  const description = unifiedObjectOf(type);
  const entry = write.current as Entry<CrmRecord> | undefined;
  const native = nativeObjectOf(connection.integrationId, type);
  const plan = planWrite({
    // The CRM object's fields, none required: the document's Eng*Create require only what was checked above.
    object: { ...description, fields: description.fields.map((field) => ({ ...field, requiredOnCreate: false, requiredOnUpdate: false })), links: [] },
    integrationId: connection.integrationId,
    mode,
    body: { ...crm, ...(Object.keys(nativeBody).length > 0 ? { additional: nativeBody } : {}) },
    at,
    data,
    now: write.now,
    ...(entry ? { current: entry.record } : {}),
    ...(native ? { native: { ...native, context: { org: connection.org, data, now: write.now } } } : {}),
  });
  ignored.push(...plan.ignored);
  const written = storePlan(data, type, at, plan, entry?.record.id, custom);
  return { id: engagementIdOf(written.id), ignored };
}

/** An EngAddress: its parts, each a string. */
function addressParts(value: unknown, at: string): Record<string, string> {
  if (!isPlainObject(value)) throw bad(at, `must be an object with ${ENGAGEMENT_ADDRESS_PARTS.join(', ')}, got ${typeName(value)}`);
  for (const [part, text] of Object.entries(value)) {
    if (!(ENGAGEMENT_ADDRESS_PARTS as readonly string[]).includes(part))
      throw bad(`${at}.${part}`, `is not a part of an address; allowed: ${ENGAGEMENT_ADDRESS_PARTS.join(', ')}`);
    if (typeof text !== 'string') throw bad(`${at}.${part}`, `must be a string, got ${typeName(text)}`);
  }
  return value as Record<string, string>;
}

/** `emails: [{ address, type, isPrimary }]`: the primary one (or the first) is the contact's email; the CRM contact keeps one. */
function emailsOf(value: unknown, at: string, ignored: string[]): { email: string | null } {
  if (!Array.isArray(value)) throw bad(at, `must be an array of { address, type, isPrimary }, got ${typeName(value)}`);
  value.forEach((item, index) => {
    const where = `${at}[${index}]`;
    if (!isPlainObject(item) || typeof item.address !== 'string' || item.address === '') throw bad(`${where}.address`, 'must be an email address (a string)');
    if (item.type !== undefined && item.type !== 'work' && item.type !== 'personal')
      throw bad(`${where}.type`, `must be work or personal, got ${JSON.stringify(item.type)}`);
    if (item.isPrimary !== undefined && typeof item.isPrimary !== 'boolean')
      throw bad(`${where}.isPrimary`, `must be true or false, got ${typeName(item.isPrimary)}`);
  });
  const primary = Math.max(
    0,
    value.findIndex((item) => item.isPrimary === true),
  );
  value.forEach((_item, index) => {
    if (index !== primary) ignored.push(`${at}[${index}] (the contact keeps one email address: the primary one)`);
  });
  return { email: value.length === 0 ? null : (value[primary].address as string) };
}

/** `phones: [{ number, type, isPrimary }]`: the work number and the personal one (the CRM contact's phone and mobile phone). */
function phonesOf(value: unknown, at: string, ignored: string[]): { phone: string | null; mobilePhone: string | null } {
  if (!Array.isArray(value)) throw bad(at, `must be an array of { number, type, isPrimary }, got ${typeName(value)}`);
  const out: { phone: string | null; mobilePhone: string | null } = { phone: null, mobilePhone: null };
  value.forEach((item, index) => {
    const where = `${at}[${index}]`;
    if (!isPlainObject(item) || typeof item.number !== 'string' || item.number === '') throw bad(`${where}.number`, 'must be a phone number (a string)');
    const kind = item.type ?? 'work';
    if (kind !== 'work' && kind !== 'personal' && kind !== 'other') throw bad(`${where}.type`, `must be work, personal or other, got ${JSON.stringify(kind)}`);
    const slot = kind === 'work' ? 'phone' : kind === 'personal' ? 'mobilePhone' : undefined;
    if (slot && out[slot] === null) out[slot] = item.number;
    else ignored.push(`${where} (the contact keeps one work and one personal number)`);
  });
  return out;
}

/**
 * `additional`: native fields by the platform's names, as its own write body has them (decision
 * 0043): flat (`{ custom1: … }`), or in the platform's envelope, Outreach's JSON:API `attributes`
 * (`{ attributes: { custom1: … } }`, as a production client wrote it); Salesloft's `custom_fields`
 * and Apollo's `typed_custom_fields` are its native fields. Under `custom_fields` the org's custom
 * fields by name are taken on every platform (a real client sends Salesloft's container to
 * Outreach too); one the org does not define is ignored and named, as the write succeeded against
 * the service. The rest goes through the platform's field maps.
 */
function additionalOf(
  value: unknown,
  at: string,
  ignored: string[],
  integrationId: IntegrationId,
): { native: Record<string, unknown>; custom: Record<string, unknown> } {
  if (value === undefined) return { native: {}, custom: {} };
  if (!isPlainObject(value)) throw bad(at, `must be an object of native fields, got ${typeName(value)}`);
  const { custom_fields: fields, ...native } = integrationId === 'outreach' ? withoutEnvelope(value, 'attributes', at) : value;
  const custom: Record<string, unknown> = {};
  if (fields !== undefined) {
    if (!isPlainObject(fields)) throw bad(`${at}.custom_fields`, `must be an object of custom fields, got ${typeName(fields)}`);
    for (const [key, item] of Object.entries(fields)) {
      if (!(CUSTOM_FIELD_KEYS as readonly string[]).includes(key)) {
        ignored.push(`${at}.custom_fields.${key} (not a custom field of this org: ${CUSTOM_FIELD_KEYS.join(', ')})`);
        continue;
      }
      if (item !== null && typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
        throw bad(`${at}.custom_fields.${key}`, `must be a string, number or boolean, got ${typeName(item)}`);
      }
      custom[key] = item;
    }
  }
  return { native, custom };
}

/** Native fields given in an envelope (`{ attributes: { … } }`) beside flat ones: one object of them. */
function withoutEnvelope(value: Record<string, unknown>, envelope: string, at: string): Record<string, unknown> {
  const { [envelope]: inner, ...flat } = value;
  if (inner === undefined) return value;
  if (!isPlainObject(inner)) throw bad(`${at}.${envelope}`, `must be an object of native fields, got ${typeName(inner)}`);
  return { ...flat, ...inner };
}

// --- Tasks ---------------------------------------------------------------------------------------

const KIND_OF_TYPE = { call: 'call', email: 'email', other: 'action_item' } as const;

function writeTask(write: EngagementWrite, body: Record<string, unknown>): EngagementResult {
  const { mode, data } = write;
  const at = write.object.key;
  const { given, ignored } = inputsOf(write, body);
  if (body.additional !== undefined) ignored.push(`${at}.additional (native task fields are not written through the unified API)`);
  const task: TaskWrite = {};
  for (const [item, value] of given) {
    const where = `${at}.${item.key}`;
    switch (item.key) {
      case 'type':
        if (typeof value !== 'string' || !(TASK_TYPES as readonly string[]).includes(value)) {
          throw bad(where, `must be one of ${TASK_TYPES.join(', ')}, got ${JSON.stringify(value)}`, { allowed: [...TASK_TYPES] });
        }
        task.kind = KIND_OF_TYPE[value as (typeof TASK_TYPES)[number]];
        break;
      case 'body':
        if (typeof value !== 'string') throw bad(where, `must be a string, got ${typeName(value)}`);
        task.note = value;
        break;
      case 'dueDate':
        task.dueAt = dateOf(value, where);
        break;
      case 'contactId':
        task.contactId = contactOf(data, value, where);
        break;
      case 'ownerUserId':
        if (typeof value !== 'string' || !data.users.has(value)) throw bad(where, `points at no engagement user of this connection: ${JSON.stringify(value)}`);
        task.userId = value;
        break;
    }
  }
  if (mode === 'create') {
    const entry = createTask(data, { ...task, subject: task.note ?? '' } as TaskWrite & { userId: string }, write.now);
    return { id: entry.record.id, ignored };
  }
  const entry = write.current as Entry<EngagementTask>;
  return { id: updateTask(data, entry, task, write.now).id, ignored };
}

function dateOf(value: unknown, at: string): string {
  try {
    const time = parseTime(value, at);
    if (time !== null) return time;
  } catch {
    // answered below
  }
  throw bad(at, `must be an ISO-8601 date-time such as 2024-05-01T12:00:00Z, got ${JSON.stringify(value)}${noSuchInstant(value)}`);
}

/** The CRM Contact an engagement contact id names, or a 400 naming the field. */
function contactOf(data: ConnectionData, value: unknown, at: string): string {
  const id = typeof value === 'string' ? crmIdOf('contact', value) : undefined;
  if (id === undefined || !data.crm.Contact.has(id)) throw bad(at, `points at no contact of this connection: ${JSON.stringify(value)}`);
  return id;
}

// --- Complete and start ----------------------------------------------------------------------------

export interface EngagementAct {
  object: EngagementObject;
  verb: 'complete' | 'start';
  entry: Entry<unknown>;
  fields: unknown;
  connection: EngagementConnection;
  data: ConnectionData;
  now: number;
}

/**
 * Completes a task or an action, or starts a sequence, as `{ id, fields }` asks.
 *
 * @example actEngagement({ object: engagementObjectOf('Sequence'), verb: 'start', entry, fields: { contactId, mailboxId }, connection, data, now })
 */
export function actEngagement(act: EngagementAct): EngagementResult {
  const { object, fields } = act;
  if (!isPlainObject(fields)) throw bad('fields', `must be an object of ${(object.action ?? []).map((item) => item.key).join(', ')}, got ${typeName(fields)}`);
  const ignored = Object.keys(fields)
    .filter((key) => !(object.action ?? []).some((item) => item.key === key))
    .map(
      (key) =>
        `fields.${key} (not a field of ${object.name === 'Sequence' ? 'EngSequenceStart' : object.name === 'Task' ? 'EngTaskComplete' : 'ActionComplete'})`,
    );
  try {
    if (act.verb === 'start') return { id: start(act, fields), ignored };
    return { id: complete(act, fields, ignored), ignored };
  } catch (error) {
    if (!(error instanceof EngagementRefusal)) throw error;
    const field =
      error.part === 'sequence' || error.part === 'action' ? 'id' : error.part === 'disposition' ? 'fields.dispositionKey' : `fields.${error.part}Id`;
    throw ApiError.invalidField(field, `${field}: ${error.message}`, { reason: error.reason });
  }
}

function start(act: EngagementAct, fields: Record<string, unknown>): string {
  const { data } = act;
  for (const key of ['contactId', 'mailboxId']) {
    if (typeof fields[key] !== 'string' || fields[key] === '') throw bad(`fields.${key}`, 'is required to start a sequence (a string: its id)');
  }
  const contactId = contactOf(data, fields.contactId, 'fields.contactId');
  if (!data.mailboxes.has(fields.mailboxId as string))
    throw bad('fields.mailboxId', `points at no mailbox of this connection: ${JSON.stringify(fields.mailboxId)}`);
  return startSequence(data, { sequence: act.entry as Entry<EngagementSequence>, contactId, mailboxId: fields.mailboxId as string }, act.now).record.id;
}

/** What a completion says of a call: its type, and the call's values, checked. */
function completionOf(data: ConnectionData, fields: Record<string, unknown>) {
  const { type, body, durationSeconds, phone, dispositionKey } = fields;
  if (type !== undefined && !(COMPLETION_TYPES as readonly unknown[]).includes(type)) {
    throw bad('fields.type', `must be ${COMPLETION_TYPES.join(' or ')} (the document: only call and other are supported), got ${JSON.stringify(type)}`, {
      allowed: [...COMPLETION_TYPES],
    });
  }
  if (body !== undefined && typeof body !== 'string') throw bad('fields.body', `must be a string, got ${typeName(body)}`);
  if (durationSeconds !== undefined && (typeof durationSeconds !== 'number' || !Number.isFinite(durationSeconds) || durationSeconds < 0)) {
    throw bad('fields.durationSeconds', `must be a number of seconds, got ${JSON.stringify(durationSeconds)}`);
  }
  if (phone !== undefined && typeof phone !== 'string') throw bad('fields.phone', `must be a string, got ${typeName(phone)}`);
  if (dispositionKey !== undefined && typeof dispositionKey !== 'string')
    throw bad('fields.dispositionKey', `must be a string, got ${typeName(dispositionKey)}`);
  const disposition = typeof dispositionKey === 'string' ? dispositionByKey(data, dispositionKey) : undefined;
  return {
    type: type as 'call' | 'other' | undefined,
    note: (body as string | undefined) ?? null,
    durationSeconds: (durationSeconds as number | undefined) ?? null,
    phone: (phone as string | undefined) ?? null,
    dispositionId: disposition?.id ?? null,
  };
}

/** The call fields given, for the header when no call is logged. */
const callFields = (fields: Record<string, unknown>) => ['body', 'durationSeconds', 'phone', 'dispositionKey'].filter((key) => fields[key] !== undefined);

function complete(act: EngagementAct, fields: Record<string, unknown>, ignored: string[]): string {
  const { data, now } = act;
  const done = completionOf(data, fields);
  if (act.object.name === 'Task') {
    const entry = act.entry as Entry<EngagementTask>;
    const before = entry.record;
    const task = completeTask(data, entry, now);
    const isCall = done.type === 'call' || (done.type === undefined && before.kind === 'call');
    if (before.state === 'complete') ignored.push(...callFields(fields).map((key) => `fields.${key} (the task was already complete)`));
    else if (isCall) logCall(data, { userId: task.associations.userId, contactId: task.associations.contactId, taskId: task.id, ...callOf(done) }, now);
    else ignored.push(...callFields(fields).map((key) => `fields.${key} (only a call keeps it)`));
    return task.id;
  }
  const entry = act.entry as Entry<EngagementAction>;
  const before = entry.record;
  if (before.kind === 'email') {
    throw bad('id', 'is an email step, which its sequence sends: only call and other actions are completed (the document’s ActionComplete)', {
      reason: 'email',
    });
  }
  // The step is done (it reads complete); the contact's next step is an action of its own (decision 0045).
  const action = advanceAction(data, entry, now).done;
  const isCall = done.type === 'call' || (done.type === undefined && before.kind === 'call');
  if (isCall) logCall(data, { userId: action.associations.userId, contactId: action.associations.contactId, actionId: action.id, ...callOf(done) }, now);
  else ignored.push(...callFields(fields).map((key) => `fields.${key} (only a call keeps it)`));
  return action.id;
}

const callOf = (done: ReturnType<typeof completionOf>) => ({
  phone: done.phone,
  dispositionId: done.dispositionId,
  durationSeconds: done.durationSeconds,
  note: done.note,
});
