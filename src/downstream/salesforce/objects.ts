import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import { CUSTOM_FIELD_KEYS } from '../../model/vocabularies.js';
import {
  computed,
  custom,
  date,
  field,
  ignoredOnWrite,
  locked,
  owner,
  percent,
  readOnly,
  ref,
  STAGE_COVERS,
  stageWrites,
  stored,
  TASK_STATUS_COVERS,
  table,
  taskStatusWrites,
  text,
  time,
  to,
} from '../fields.js';
import {
  displayName,
  FieldError,
  type FieldMap,
  isPlainObject,
  type NativeFields,
  type NativeObject,
  nativeOf,
  renderFields,
  type WritePolicy,
} from '../rest-engine.js';
import { type Params, type Route, type RouteErrors, reply } from '../router.js';
import type { DownstreamAnswer, DownstreamContext, DownstreamRequest } from '../types.js';
import { sobjectTraits } from './describe.js';
import { EMAIL_MESSAGE_FIELDS, emailMessageDefaults } from './email-message.js';
import { salesforceCustom, salesforceTimeFormat } from './formats.js';

/**
 * Salesforce REST (`services/data/vXX.X/…`): sObjects by PascalCase name, errors as arrays; the
 * headers, the error answers and the API version check every Salesforce route module uses.
 */

export const DEFAULT_VERSION = 'v53.0';
export const HEADERS = { 'sforce-limit-info': 'api-usage=25/15000' };
// Salesforce rejects what it does not know or may not write.
export const POLICY: WritePolicy = { unknown: 'reject', readOnly: 'reject' };

export interface SObject extends NativeObject {
  keyPrefix: string;
  label: string;
}

const sfTime = time(salesforceTimeFormat);
const personName = (record: CrmRecord) => displayName(record);

/** Every sObject starts with these and ends with the audit fields. */
const head: FieldMap[] = [computed('Id', (record) => record.nativeId), computed('IsDeleted', () => false)];
const audit: FieldMap[] = [
  readOnly('CreatedDate', 'createdTime', sfTime),
  computed('CreatedById', (_record, context) => context.org.nativeUserId),
  readOnly('LastModifiedDate', 'modifiedTime', sfTime),
  computed('LastModifiedById', (_record, context) => context.org.nativeUserId),
  readOnly('SystemModstamp', 'modifiedTime', sfTime),
];

const account = ref('AccountId', to('Account', 'accountIds'));
const who = ref('WhoId', [to('Contact', 'contactIds'), to('Lead', 'leadIds')]);
const what = ref('WhatId', [to('Account', 'accountIds'), to('Deal', 'dealIds')]);

function sobject(name: string, type: CrmObjectType, keyPrefix: string, fields: FieldMap[], more: Partial<SObject> = {}, tail = audit): SObject {
  return { name, label: name, type, keyPrefix, fields: [...head, ...fields, ...tail], custom: salesforceCustom, ...more };
}

/** An account address part Salesforce has and the unified Account does not (the shipping address): kept as written. */
const kept = (native: string) => stored(native, () => null, text.in);

/**
 * A compound address field (`BillingAddress`), read-only, as Salesforce answers it: its parts
 * with no geolocation, or null when every part is empty.
 */
function compoundAddress(parts: Record<string, unknown>): NativeFields | null {
  const { street = null, city = null, state = null, postalCode = null, country = null } = parts;
  if ([street, city, state, postalCode, country].every((part) => part === null)) return null;
  return { city, country, geocodeAccuracy: null, latitude: null, longitude: null, postalCode, state, street };
}
const SHIPPING = { street: 'ShippingStreet', city: 'ShippingCity', state: 'ShippingState', postalCode: 'ShippingPostalCode', country: 'ShippingCountry' };

/** A note's Title: kept as written (Salesforce requires one); a note written without one shows the start of its body. */
const noteTitle = stored(
  'Title',
  (record) => ((record as CrmRecord<'Note'>).content ?? '').split('\n')[0]!.slice(0, 80),
  (value, native) => {
    if (value === null || value === '') throw new FieldError(native, `Required fields are missing: [${native}]`, 'required');
    return text.in(value, native);
  },
);

/** An EmailMessage's creator is the user who sent or logged it: the unified owner. */
const emailAudit: FieldMap[] = audit.map((map) =>
  map.native === 'CreatedById'
    ? computed('CreatedById', (record, context) => {
        const ownerId = (record as CrmRecord<'Email'>).associations.ownerUserId;
        return (ownerId ? context.data.crm.User.get(ownerId)?.nativeId : undefined) ?? context.org.nativeUserId;
      })
    : map,
);

export const SOBJECTS: SObject[] = [
  sobject(
    'Contact',
    'Contact',
    '003',
    [
      account,
      field('LastName', 'lastName'),
      field('FirstName', 'firstName'),
      computed('Name', personName),
      field('Title', 'jobTitle'),
      field('Phone', 'phone'),
      field('MobilePhone', 'mobilePhone'),
      field('Email', 'email'),
      owner('OwnerId'),
    ],
    { required: ['LastName'] },
  ),
  sobject(
    'Account',
    'Account',
    '001',
    [
      field('Name', 'name'),
      field('Description', 'description'),
      field('Industry', 'industry'),
      field('AnnualRevenue', 'annualRevenue'),
      field('NumberOfEmployees', 'numberOfEmployees'),
      field('Website', 'website'),
      field('Phone', 'phone'),
      kept('AccountNumber'),
      field('BillingStreet', 'address.street'),
      field('BillingCity', 'address.city'),
      field('BillingState', 'address.state'),
      field('BillingPostalCode', 'address.postalCode'),
      field('BillingCountry', 'address.country'),
      computed('BillingAddress', (record) => compoundAddress({ ...(record as CrmRecord<'Account'>).address })),
      ...Object.values(SHIPPING).map(kept),
      {
        native: 'ShippingAddress',
        covers: [],
        read: (_record, _context, extra) => {
          const values = nativeOf(extra);
          return compoundAddress(Object.fromEntries(Object.entries(SHIPPING).map(([part, native]) => [part, values[native] ?? null])));
        },
      },
      owner('OwnerId'),
    ],
    { required: ['Name'] },
  ),
  sobject(
    'Opportunity',
    'Deal',
    '006',
    [
      account,
      field('Name', 'name'),
      // IsWon and IsClosed follow the stage, as in Salesforce.
      custom('StageName', STAGE_COVERS, (record) => (record as CrmRecord<'Deal'>).stage, stageWrites),
      field('Amount', 'amount'),
      field('Probability', 'probability', percent),
      readOnly('ExpectedRevenue', 'expectedRevenue'),
      field('CloseDate', 'closeDate', date),
      readOnly('IsClosed', 'isClosed'),
      readOnly('IsWon', 'isWon'),
      owner('OwnerId'),
    ],
    { required: ['Name', 'StageName', 'CloseDate'] },
  ),
  sobject(
    'Lead',
    'Lead',
    '00Q',
    [
      field('LastName', 'lastName'),
      field('FirstName', 'firstName'),
      computed('Name', personName),
      field('Title', 'jobTitle'),
      field('Company', 'account'),
      field('Email', 'email'),
      field('Phone', 'phone'),
      field('MobilePhone', 'mobilePhone'),
      ignoredOnWrite('Status', () => 'Open - Not Contacted'),
      computed('IsConverted', (record) => (record as CrmRecord<'Lead'>).associations.contactIds.length > 0),
      locked(ref('ConvertedContactId', to('Contact', 'contactIds'))),
      locked(ref('ConvertedAccountId', to('Account', 'accountIds'))),
    ],
    { required: ['LastName', 'Company'] },
  ),
  sobject(
    'User',
    'User',
    '005',
    [
      computed('Username', (record) => (record as CrmRecord<'User'>).email),
      field('LastName', 'lastName'),
      field('FirstName', 'firstName'),
      computed('Name', personName),
      field('Email', 'email'),
      computed('IsActive', () => true),
    ],
    { readOnly: true },
  ),
  sobject(
    'Note',
    'Note',
    '002',
    [
      ref('ParentId', [to('Account', 'accountIds'), to('Contact', 'contactIds'), to('Deal', 'dealIds'), to('Lead', 'leadIds')]),
      noteTitle,
      computed('IsPrivate', () => false),
      field('Body', 'content'),
      owner('OwnerId'),
    ],
    { required: ['ParentId', 'Title'] },
  ),
  sobject(
    'Task',
    'Task',
    '00T',
    [
      who,
      what,
      field('Subject', 'subject'),
      field('ActivityDate', 'dueDate', date),
      // IsClosed follows the status, as in Salesforce.
      custom('Status', TASK_STATUS_COVERS, (record) => (record as CrmRecord<'Task'>).status, taskStatusWrites),
      field('Priority', 'priority'),
      readOnly('IsClosed', 'isDone'),
      field('Description', 'body'),
      computed('TaskSubtype', () => 'Task'),
      owner('OwnerId'),
    ],
    { defaults: { status: 'Not Started', priority: 'Normal' } },
  ),
  sobject(
    'Event',
    'Event',
    '00U',
    [
      who,
      what,
      field('Subject', 'subject'),
      field('Location', 'location'),
      field('IsAllDayEvent', 'isAllDayEvent'),
      readOnly('ActivityDateTime', 'startDateTime', sfTime),
      readOnly('ActivityDate', 'startDateTime', date),
      computed('DurationInMinutes', (record) => {
        const { startDateTime, endDateTime } = record as CrmRecord<'Event'>;
        return startDateTime && endDateTime ? Math.round((Date.parse(endDateTime) - Date.parse(startDateTime)) / 60_000) : null;
      }),
      field('StartDateTime', 'startDateTime', sfTime),
      field('EndDateTime', 'endDateTime', sfTime),
      field('Description', 'description'),
      field('Type', 'type'),
      owner('OwnerId'),
    ],
    { required: ['StartDateTime', 'EndDateTime'] },
  ),
  sobject(
    'EventRelation',
    'EventAttendee',
    '0RE',
    [
      // RelationId names a Contact, Lead or User; the attendee's kind follows it.
      ref('RelationId', [to('Contact', 'associationId'), to('Lead', 'associationId'), to('User', 'associationId')], undefined, (type) => ({
        associatedObjectType: type,
        email: null,
      })),
      ref('EventId', to('Event', 'eventId')),
      field('Status', 'status', table({ Confirmed: 'Accepted', Declined: 'Declined', Tentative: 'New', NeedsAction: 'New' })),
      computed('IsInvitee', () => true),
      computed('IsParent', () => false),
      computed('IsWhat', () => false),
    ],
    { required: ['EventId', 'RelationId'], defaults: { status: 'NeedsAction' } },
  ),
  sobject('EmailMessage', 'Email', '02s', EMAIL_MESSAGE_FIELDS, { label: 'Email Message', required: ['Status'], defaults: emailMessageDefaults }, emailAudit),
];

export const sobjectNamed = (name: string | undefined) => SOBJECTS.find((candidate) => candidate.name.toLowerCase() === name?.toLowerCase());
export const byType = (type: CrmObjectType) => SOBJECTS.find((candidate) => candidate.type === type);

export function render(
  object: SObject,
  record: CrmRecord,
  extra: Record<string, unknown>,
  context: DownstreamContext,
  version = DEFAULT_VERSION,
): NativeFields {
  return {
    attributes: { type: object.name, url: `/services/data/${version}/sobjects/${object.name}/${record.nativeId}` },
    ...renderFields(object, record, extra, context),
  };
}

/** The org's custom fields, as columns (`Region__c`…). */
export const customColumns = () => Object.keys(salesforceCustom.read(Object.fromEntries(CUSTOM_FIELD_KEYS.map((key) => [key, null]))));

/** Every column a query may select: the fields and the org's custom fields. */
export function columnsOf(object: SObject): string[] {
  return [...object.fields.filter((candidate) => candidate.read).map((candidate) => candidate.native), ...customColumns()];
}

export function describe(object: SObject, version: string) {
  const base = `/services/data/${version}/sobjects/${object.name}`;
  const writable = !object.readOnly;
  return {
    name: object.name,
    label: object.label,
    keyPrefix: object.keyPrefix,
    custom: false,
    queryable: true,
    createable: writable,
    updateable: writable,
    deletable: writable,
    urls: { sobject: base, describe: `${base}/describe`, rowTemplate: `${base}/{ID}` },
    ...sobjectTraits(object.name, writable),
  };
}

export const sfError = (statusCode: number, errorCode: string, message: string, fields?: string[]) =>
  reply(statusCode, [{ message, errorCode, ...(fields ? { fields } : {}) }], HEADERS);

const ERROR_CODES: Record<FieldError['kind'], string> = {
  type: 'JSON_PARSER_ERROR',
  body: 'JSON_PARSER_ERROR',
  value: 'FIELD_INTEGRITY_EXCEPTION',
  required: 'REQUIRED_FIELD_MISSING',
  unknown: 'INVALID_FIELD',
  readOnly: 'INVALID_FIELD_FOR_INSERT_UPDATE',
  reference: 'INVALID_CROSS_REFERENCE_KEY',
  param: 'MALFORMED_QUERY',
};

export const errors: RouteErrors = {
  notFound: () => sfError(404, 'NOT_FOUND', 'The requested resource does not exist'),
  methodNotAllowed: (request, allowed) =>
    sfError(405, 'METHOD_NOT_ALLOWED', `HTTP Method '${request.method}' not allowed. Allowed are ${[...allowed, 'HEAD'].join(',')}`),
  invalid: (error, request) => {
    const body = errorOf(error, sobjectNamed(request.path.split('/')[4])?.name ?? 'sObject');
    return sfError(400, body.errorCode, body.message, body.fields);
  },
};

/** A FieldError as one entry of Salesforce's error array. */
export function errorOf(error: FieldError, sobjectName: string): { message: string; errorCode: string; fields: string[] } {
  const message =
    error.code !== undefined
      ? error.message
      : error.kind === 'required'
        ? `Required fields are missing: [${error.field}]`
        : error.kind === 'unknown'
          ? `No such column '${error.field}' on sobject of type ${sobjectName}`
          : error.kind === 'readOnly'
            ? `Unable to create/update fields: ${error.field}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`
            : error.message;
  return { message, errorCode: error.code ?? ERROR_CODES[error.kind], fields: error.field && error.kind !== 'param' ? [error.field] : [] };
}

/** An sObject's columns by lower-case name: Salesforce's API names are case-insensitive. */
const columnNames = new Map<SObject, Map<string, string>>();
export function columnNamed(object: SObject, name: string): string | undefined {
  let names = columnNames.get(object);
  if (!names) {
    names = new Map();
    for (const column of [...object.fields.map((field) => field.native), ...customColumns()]) {
      if (!names.has(column.toLowerCase())) names.set(column.toLowerCase(), column);
    }
    columnNames.set(object, names);
  }
  return names.get(name.toLowerCase());
}

/**
 * A record's fields under their canonical names (`lastname` → `LastName`), as Salesforce reads
 * them; a name it does not know stays as sent, for the error to name. Two spellings of one field
 * are refused: which one to keep would be a guess.
 */
export function canonicalFields(object: SObject, fields: NativeFields): NativeFields {
  const out: NativeFields = {};
  for (const [name, value] of Object.entries(fields)) {
    const column = columnNamed(object, name) ?? name;
    if (column in out) throw new FieldError(column, `Duplicate field: ${column}`, 'body');
    out[column] = value;
  }
  return out;
}

/**
 * The body of a one-record write: its fields under their canonical names. `attributes` (what a
 * record read from Salesforce carries) is metadata, not a field: it is left out, as Salesforce does.
 */
export function writeBody(body: unknown, object: SObject): NativeFields {
  if (isPlainObject(body)) {
    const { attributes, ...fields } = body;
    return canonicalFields(object, isPlainObject(attributes) ? fields : body);
  }
  const token = Array.isArray(body) ? 'START_ARRAY' : body === undefined || body === null ? 'VALUE_NULL' : 'VALUE_STRING';
  throw new FieldError(undefined, `Cannot deserialize instance of ${object.name} from ${token} value`, 'body');
}

/** An API version in a path: `v53.0`. */
const VERSION = /^v\d+\.\d+$/;

/** Runs a route only for a known API version (`v53.0`); anything else is NOT_FOUND. */
export const versioned =
  (run: (version: string, params: Params, request: DownstreamRequest, context: DownstreamContext) => DownstreamAnswer): Route['run'] =>
  (params, request, context) =>
    VERSION.test(params.version!) ? run(params.version!, params, request, context) : errors.notFound(request, context);
