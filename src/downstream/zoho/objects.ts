import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import type { CollectionApi } from '../collection-api.js';
import {
  computed,
  custom,
  date,
  field,
  ignoredOnWrite,
  owner,
  percent,
  type RefStyle,
  readOnly,
  ref,
  STAGE_COVERS,
  stageWrites,
  TASK_STATUS_COVERS,
  type Target,
  taskStatusWrites,
  text,
  time,
  to,
} from '../fields.js';
import { displayName, FieldError, type FieldMap, type Found, isPlainObject, type NativeFields, type NativeObject, renderFields } from '../rest-engine.js';
import { intParam, type RouteErrors, reply } from '../router.js';
import type { DownstreamContext } from '../types.js';
import { zohoCustom, zohoTimeFormat } from './formats.js';

/**
 * Zoho CRM v3 (`{Module}`, `{Module}/{id}`): records wrapped in `data: [...]`, lookups as
 * `{ id, name }`; the headers and error answers every Zoho route module uses.
 */

export const HEADERS = { 'x-ratelimit-limit': '250', 'x-ratelimit-remaining': '249' };
const zohoTime = time(zohoTimeFormat);

const lookup: RefStyle = (nativeId, target) => ({ id: nativeId, name: displayName(target) });
const ownerLookup: RefStyle = (nativeId, user) => ({ id: nativeId, name: displayName(user), email: (user as CrmRecord<'User'>).email });

const MODULE_OF: Partial<Record<CrmObjectType, string>> = { Contact: 'Contacts', Account: 'Accounts', Deal: 'Deals', Lead: 'Leads' };

/** A polymorphic lookup and the `$se_module` that says which module it points into. */
function parentLookup(native: string, targets: Target[]): FieldMap[] {
  return [
    ref(native, targets, lookup),
    ignoredOnWrite('$se_module', (record) => {
      const associations = record.associations as Record<string, unknown>;
      const hit = targets.find((target) => {
        const held = associations[target.assoc];
        return Array.isArray(held) ? held.length > 0 : Boolean(held);
      });
      return hit ? (MODULE_OF[hit.type] ?? null) : null;
    }),
  ];
}

const zohoOwner = owner('Owner', ownerLookup);
const audit: FieldMap[] = [
  computed('Created_By', (_record, context) => ({ id: context.org.nativeUserId, name: context.org.slug })),
  readOnly('Created_Time', 'createdTime', zohoTime),
  readOnly('Modified_Time', 'modifiedTime', zohoTime),
];

const module = (type: CrmObjectType, name: string, fields: FieldMap[], more: Partial<NativeObject> = {}): NativeObject => ({
  type,
  name,
  fields: [computed('id', (record) => record.nativeId), ...fields, ...audit],
  custom: zohoCustom,
  ...more,
});
const fullName = computed('Full_Name', (record) => displayName(record));

export const MODULES: Record<string, NativeObject> = {
  Contacts: module(
    'Contact',
    'Contacts',
    [
      field('First_Name', 'firstName', text),
      field('Last_Name', 'lastName', text),
      fullName,
      field('Email', 'email', text),
      field('Title', 'jobTitle', text),
      field('Phone', 'phone', text),
      field('Mobile', 'mobilePhone', text),
      ref('Account_Name', to('Account', 'accountIds'), lookup),
      zohoOwner,
    ],
    { required: ['Last_Name'] },
  ),
  Accounts: module(
    'Account',
    'Accounts',
    [
      field('Account_Name', 'name', text),
      field('Description', 'description', text),
      field('Industry', 'industry', text),
      field('Annual_Revenue', 'annualRevenue'),
      field('Employees', 'numberOfEmployees'),
      field('Website', 'website', text),
      field('Phone', 'phone', text),
      field('Billing_Street', 'address.street', text),
      field('Billing_City', 'address.city', text),
      field('Billing_State', 'address.state', text),
      field('Billing_Code', 'address.postalCode', text),
      field('Billing_Country', 'address.country', text),
      zohoOwner,
    ],
    { required: ['Account_Name'] },
  ),
  Deals: module(
    'Deal',
    'Deals',
    [
      field('Deal_Name', 'name', text),
      custom(
        'Stage',
        STAGE_COVERS,
        (record) => (record as CrmRecord<'Deal'>).stage,
        (value) => stageWrites(text.in(value, 'Stage')),
      ),
      field('Amount', 'amount'),
      field('Closing_Date', 'closeDate', date),
      field('Probability', 'probability', percent),
      readOnly('Expected_Revenue', 'expectedRevenue'),
      ref('Account_Name', to('Account', 'accountIds'), lookup),
      ref('Contact_Name', to('Contact', 'contactIds'), lookup),
      zohoOwner,
    ],
    { required: ['Deal_Name', 'Stage'] },
  ),
  Leads: module(
    'Lead',
    'Leads',
    [
      field('First_Name', 'firstName', text),
      field('Last_Name', 'lastName', text),
      fullName,
      field('Designation', 'jobTitle', text),
      field('Email', 'email', text),
      field('Company', 'account', text),
      field('Phone', 'phone', text),
      field('Mobile', 'mobilePhone', text),
    ],
    { required: ['Last_Name'] },
  ),
  Notes: module(
    'Note',
    'Notes',
    [
      // The unified Note has no title.
      ignoredOnWrite('Note_Title', () => null),
      field('Note_Content', 'content', text),
      ...parentLookup('Parent_Id', [to('Contact', 'contactIds'), to('Account', 'accountIds'), to('Deal', 'dealIds'), to('Lead', 'leadIds')]),
      zohoOwner,
    ],
    { required: ['Note_Content', 'Parent_Id'] },
  ),
  Tasks: module(
    'Task',
    'Tasks',
    [
      field('Subject', 'subject', text),
      field('Description', 'body', text),
      custom(
        'Status',
        TASK_STATUS_COVERS,
        (record) => (record as CrmRecord<'Task'>).status,
        (value) => taskStatusWrites(text.in(value, 'Status')),
      ),
      field('Priority', 'priority', text),
      field('Due_Date', 'dueDate', date),
      ref('Who_Id', to('Contact', 'contactIds'), lookup),
      ...parentLookup('What_Id', [to('Account', 'accountIds'), to('Deal', 'dealIds'), to('Lead', 'leadIds')]),
      zohoOwner,
    ],
    { required: ['Subject'], defaults: { status: 'Not Started', priority: 'Normal' } },
  ),
  Events: module(
    'Event',
    'Events',
    [
      field('Event_Title', 'subject', text),
      field('Description', 'description', text),
      field('Venue', 'location', text),
      field('Start_DateTime', 'startDateTime', zohoTime),
      field('End_DateTime', 'endDateTime', zohoTime),
      field('All_day', 'isAllDayEvent'),
      ref('Who_Id', to('Contact', 'contactIds'), lookup),
      ...parentLookup('What_Id', [to('Account', 'accountIds'), to('Deal', 'dealIds'), to('Lead', 'leadIds')]),
      computed('Participants', participants),
      zohoOwner,
    ],
    { required: ['Event_Title', 'Start_DateTime', 'End_DateTime'] },
  ),
};

const PARTICIPATION: Record<string, string> = { Confirmed: 'accepted', Declined: 'declined', Tentative: 'tentative', NeedsAction: 'not_known' };

/** An event's attendees, as Zoho embeds them. */
function participants(record: CrmRecord, context: DownstreamContext): NativeFields[] {
  return (record as CrmRecord<'Event'>).associations.eventAttendeeIds.flatMap((id) => {
    const attendee = context.data.crm.EventAttendee.get(id) as CrmRecord<'EventAttendee'> | undefined;
    if (!attendee) return [];
    const kind = attendee.associatedObjectType;
    const linked = kind === 'Other' || !attendee.associations.associationId ? undefined : context.data.crm[kind].get(attendee.associations.associationId);
    return [
      {
        type: kind === 'Other' ? 'email' : kind.toLowerCase(),
        participant: linked ? linked.nativeId : attendee.email,
        name: linked ? displayName(linked) : null,
        Email: linked ? ((linked as { email?: string | null }).email ?? null) : attendee.email,
        status: PARTICIPATION[attendee.status] ?? 'not_known',
      },
    ];
  });
}

/** Zoho users: their own endpoint and envelope (`users: [...]`), snake_case, read-only. */
export const USERS: NativeObject = {
  type: 'User',
  name: 'users',
  readOnly: true,
  custom: zohoCustom,
  fields: [
    computed('id', (record) => record.nativeId),
    field('first_name', 'firstName'),
    field('last_name', 'lastName'),
    computed('full_name', (record) => displayName(record)),
    field('email', 'email'),
    computed('status', () => 'active'),
    readOnly('created_time', 'createdTime', zohoTime),
    readOnly('Modified_Time', 'modifiedTime', zohoTime),
  ],
};

const envelopeOf = (collection: string) => (collection === 'users' ? 'users' : 'data');

/** Zoho's answer to a write: one success entry per record. */
function success(found: Found, message: string, context: DownstreamContext, full: boolean) {
  const record = found.entry.record;
  const by = { name: context.org.slug, id: context.org.nativeUserId };
  const details = full
    ? {
        Modified_Time: zohoTimeFormat(record.modifiedTime),
        Modified_By: by,
        Created_Time: zohoTimeFormat(record.createdTime),
        id: record.nativeId,
        Created_By: by,
      }
    : { id: record.nativeId };
  return { data: [{ code: 'SUCCESS', details, message, status: 'success' }] };
}

export const zohoError = (statusCode: number, code: string, message: string, details: NativeFields = {}) =>
  reply(statusCode, { code, details, message, status: 'error' }, HEADERS);

export const errors: RouteErrors = {
  notFound: () => zohoError(404, 'INVALID_URL_PATTERN', 'Please check if the URL trying to access is a correct one'),
  methodNotAllowed: () => zohoError(405, 'INVALID_REQUEST_METHOD', 'The http request method type is not a valid one'),
  invalid: (error) => {
    if (error.kind === 'param') return zohoError(400, 'INVALID_DATA', error.message, { param: error.field });
    if (error.kind === 'body') return zohoError(400, error.code ?? 'INVALID_DATA', error.message, error.field ? { param: error.field } : {});
    const code = error.kind === 'required' ? 'MANDATORY_NOT_FOUND' : 'INVALID_DATA';
    const message =
      error.kind === 'required' ? 'required field not found' : error.kind === 'reference' ? 'the related id given seems to be invalid' : 'invalid data';
    const apiName = error.field?.split('.')[0];
    const details = apiName ? { api_name: apiName, json_path: `$.data[0].${apiName}` } : {};
    return reply(400, { data: [{ code, details, message, status: 'error' }] }, HEADERS);
  },
};

export const api: CollectionApi = {
  prefix: '',
  collections: { ...Object.fromEntries(Object.entries(MODULES).map(([name, target]) => [name, [target]])), users: [USERS] },
  updateMethod: 'PUT',
  // Zoho ignores fields it does not know and ones it sets itself.
  policy: { unknown: 'ignore', readOnly: 'ignore' },
  window: (request) => {
    const page = intParam(request.query.page, 'page', 1, 1);
    const limit = intParam(request.query.per_page, 'per_page', 200, 1, 200);
    return { offset: (page - 1) * limit, limit };
  },
  unwrap: (body) => {
    if (!isPlainObject(body) || !Array.isArray(body.data) || body.data.length === 0) {
      throw new FieldError('data', 'One of the expected parameter is missing', 'body', 'REQUIRED_PARAM_MISSING');
    }
    // The sandbox writes one record per request.
    if (body.data.length > 1 || !isPlainObject(body.data[0])) throw new FieldError('data', 'the sandbox takes exactly one record object in data', 'body');
    return body.data[0];
  },
  render: (target, record, extra, ctx) => renderFields(target, record, extra, ctx),
  list: (items, window, collection) => {
    // Zoho answers an empty page with 204 and no body.
    if (items.length === 0) return reply(204, null, HEADERS);
    const page = Math.floor(window.offset / window.limit) + 1;
    const info = { per_page: window.limit, count: items.length, page, more_records: window.offset + items.length < window.total };
    return reply(200, { [envelopeOf(collection)]: items, info }, HEADERS);
  },
  one: (item, _found, collection) => reply(200, { [envelopeOf(collection)]: [item] }, HEADERS),
  created: (_item, found, _collection, ctx) => reply(201, success(found, 'record added', ctx, true), HEADERS),
  updated: (_item, found, _collection, ctx) => reply(200, success(found, 'record updated', ctx, true), HEADERS),
  deleted: (found, _collection, ctx) => reply(200, success(found, 'record deleted', ctx, false), HEADERS),
  missing: (_collection, id) =>
    reply(404, { data: [{ code: 'INVALID_DATA', details: { id }, message: 'the id given seems to be invalid', status: 'error' }] }, HEADERS),
};
