import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { DEAL_STAGES } from '../../model/vocabularies.js';
import type { CollectionApi } from '../collection-api.js';
import {
  computed,
  custom,
  field,
  ignoredOnWrite,
  numericString,
  owner,
  readOnly,
  ref,
  STAGE_COVERS,
  stageWrites,
  TASK_STATUS_COVERS,
  table,
  taskStatusWrites,
  text,
  time,
  timeFormat,
  type ValueConverter,
} from '../fields.js';
import { FieldError, type FieldMap, isPlainObject, type NativeFields, type NativeObject, renderFields } from '../rest-engine.js';
import { intParam, queryValues, type RouteErrors, reply, requestUuid, searchOf } from '../router.js';
import type { DownstreamContext, DownstreamRequest } from '../types.js';
import { EMAIL_FIELDS, emailDefaults } from './email-fields.js';
import { hubspotCustom } from './formats.js';

/**
 * HubSpot CRM v3 (`crm/v3/objects/{object}`): objects with lowercase `properties`, all values
 * strings; their headers, error bodies and list envelope. What every HubSpot route module uses.
 */

export const HEADERS = { 'x-hubspot-ratelimit-daily': '250000', 'x-hubspot-ratelimit-daily-remaining': '249999' };
export const PREFIX = 'crm/v3/objects';

const iso = time(timeFormat.iso);
const flagString: ValueConverter = { out: (value) => String(value), in: (value) => value };
const probability: ValueConverter = {
  out: (value) => value,
  in: (value, native) => (typeof value === 'number' ? String(value) : text.in(value, native)),
};

/** An association HubSpot can write on create (`associationTypeId`) and list on read (`?associations=`). */
export interface Link {
  assoc: string;
  target: CrmObjectType;
  typeId: number;
  label: string;
  /** The type id the other way, where the far end names no link back (an email's contacts list no emails). */
  reverseTypeId?: number;
}

export interface HubspotObject extends NativeObject {
  links: Record<string, Link>;
}

const link = (assoc: string, target: CrmObjectType, typeId: number, label: string, reverseTypeId?: number): Link => ({
  assoc,
  target,
  typeId,
  label,
  ...(reverseTypeId === undefined ? {} : { reverseTypeId }),
});

/** The `associations` array of a create: `[{ to: { id }, types: [{ associationTypeId }] }]`. */
function associationsField(links: Record<string, Link>): FieldMap {
  const all = Object.values(links);
  return custom(
    'associations',
    all.map((item) => `associations.${item.assoc}`),
    undefined,
    (value, { context }) => {
      if (!Array.isArray(value)) throw new FieldError('associations', 'associations must be an array', 'type');
      const out: Record<string, string[]> = {};
      for (const item of value) {
        const typeId = isPlainObject(item) && Array.isArray(item.types) && isPlainObject(item.types[0]) ? item.types[0].associationTypeId : undefined;
        const toId = isPlainObject(item) && isPlainObject(item.to) ? String(item.to.id) : undefined;
        const kind = all.find((candidate) => candidate.typeId === Number(typeId));
        if (!kind || toId === undefined) throw new FieldError('associations', `association type ${JSON.stringify(typeId)} is not valid here`, 'reference');
        const target = context.data.crm[kind.target].getByNativeId(toId);
        if (!target) throw new FieldError('associations', `${kind.target} ${toId} does not exist`, 'reference');
        (out[`associations.${kind.assoc}`] ??= []).push(target.record.id);
      }
      return out;
    },
  );
}

function object(
  type: CrmObjectType,
  name: string,
  modified: string,
  fields: FieldMap[],
  links: Record<string, Link> = {},
  more: Partial<NativeObject> = {},
): HubspotObject {
  return {
    ...more,
    type,
    name,
    links,
    custom: hubspotCustom,
    fields: [
      ...fields,
      readOnly(type === 'Contact' || type === 'Deal' || type === 'Account' ? 'createdate' : 'hs_createdate', 'createdTime', iso),
      readOnly(modified, 'modifiedTime', iso),
      computed('hs_object_id', (record) => record.nativeId),
      associationsField(links),
    ],
  };
}

const TASK_STATUS = table({
  'Not Started': 'NOT_STARTED',
  'In Progress': 'IN_PROGRESS',
  'Waiting on someone else': 'WAITING',
  Deferred: 'DEFERRED',
  Completed: 'COMPLETED',
});

const hubspotOwner = owner('hubspot_owner_id');

/**
 * A website without its scheme, `www.` and path: the text up to the first `/` after the last line
 * break, as `.replace(/\/.*$/, '')` cut it (that RegExp backtracks quadratically on a long run of
 * slashes, and a website is any text a client wrote).
 */
function hostOf(website: string): string {
  const rest = website.replace(/^https?:\/\/(www\.)?/, '');
  const lineEnd = Math.max(rest.lastIndexOf('\n'), rest.lastIndexOf('\r'), rest.lastIndexOf('\u2028'), rest.lastIndexOf('\u2029'));
  const slash = rest.indexOf('/', lineEnd + 1);
  return slash < 0 ? rest : rest.slice(0, slash);
}

/**
 * A company's `domain` is a writable property in HubSpot (its properties docs list it as such).
 * The unified Account keeps one website: `domain` reads as the website's host and writes it as
 * `https://{domain}`, unless the same body also sets `website`.
 */
const domainField = custom(
  'domain',
  ['website'],
  (record) => hostOf((record as CrmRecord<'Account'>).website ?? '') || null,
  (value, { body }) => {
    const domain = text.in(value, 'domain');
    if ('website' in body) return {};
    return { website: domain === null || domain === '' ? null : `https://${String(domain).replace(/^https?:\/\//, '')}` };
  },
);
export const COLLECTIONS: Record<string, HubspotObject> = {
  contacts: object(
    'Contact',
    'contact',
    'lastmodifieddate',
    [
      field('email', 'email', text),
      field('firstname', 'firstName', text),
      field('lastname', 'lastName', text),
      field('jobtitle', 'jobTitle', text),
      field('phone', 'phone', text),
      field('mobilephone', 'mobilePhone', text),
      ref('associatedcompanyid', { type: 'Account', assoc: 'accountIds' }),
      hubspotOwner,
    ],
    {
      companies: link('accountIds', 'Account', 279, 'contact_to_company'),
      deals: link('dealIds', 'Deal', 4, 'contact_to_deal'),
      notes: link('noteIds', 'Note', 201, 'contact_to_note'),
      tasks: link('taskIds', 'Task', 203, 'contact_to_task'),
      meetings: link('eventIds', 'Event', 199, 'contact_to_meeting_event'),
    },
  ),
  companies: object(
    'Account',
    'company',
    'hs_lastmodifieddate',
    [
      field('name', 'name', text),
      field('description', 'description', text),
      field('industry', 'industry', text),
      field('annualrevenue', 'annualRevenue', numericString),
      field('numberofemployees', 'numberOfEmployees', numericString),
      field('website', 'website', text),
      domainField,
      field('phone', 'phone', text),
      field('address', 'address.street', text),
      field('city', 'address.city', text),
      field('state', 'address.state', text),
      field('zip', 'address.postalCode', text),
      field('country', 'address.country', text),
      hubspotOwner,
    ],
    {
      contacts: link('contactIds', 'Contact', 280, 'company_to_contact'),
      deals: link('dealIds', 'Deal', 342, 'company_to_deal'),
      notes: link('noteIds', 'Note', 189, 'company_to_note'),
      tasks: link('taskIds', 'Task', 191, 'company_to_task'),
      meetings: link('eventIds', 'Event', 187, 'company_to_meeting_event'),
    },
  ),
  deals: object(
    'Deal',
    'deal',
    'hs_lastmodifieddate',
    [
      field('dealname', 'name', text),
      // The won/closed flags follow the stage, as HubSpot derives them.
      custom(
        'dealstage',
        STAGE_COVERS,
        (record) => (record as CrmRecord<'Deal'>).stage,
        (value) => stageWrites(text.in(value, 'dealstage')),
      ),
      // Writable, as HubSpot's create-deal example sets it; the sandbox has the one default pipeline.
      custom(
        'pipeline',
        [],
        () => 'default',
        (value) => {
          if (value !== 'default') throw new FieldError('pipeline', `pipeline must be "default" (the only pipeline), got ${JSON.stringify(value)}`, 'value');
          return {};
        },
      ),
      field('amount', 'amount', numericString),
      field('closedate', 'closeDate', iso),
      field('hs_deal_stage_probability', 'probability', probability),
      readOnly('hs_projected_amount', 'expectedRevenue', numericString),
      readOnly('hs_is_closed', 'isClosed', flagString),
      readOnly('hs_is_closed_won', 'isWon', flagString),
      hubspotOwner,
    ],
    {
      companies: link('accountIds', 'Account', 341, 'deal_to_company'),
      contacts: link('contactIds', 'Contact', 3, 'deal_to_contact'),
      notes: link('noteIds', 'Note', 213, 'deal_to_note'),
      tasks: link('taskIds', 'Task', 215, 'deal_to_task'),
      meetings: link('eventIds', 'Event', 211, 'deal_to_meeting_event'),
    },
    // A deal created without a stage starts in the default pipeline's first stage, as HubSpot puts it.
    { defaults: stageWrites(DEAL_STAGES[0].stage) },
  ),
  notes: object(
    'Note',
    'note',
    'hs_lastmodifieddate',
    [
      field('hs_note_body', 'content', text),
      // A note's timestamp is when it was logged: taken on create, kept as the creation time.
      ignoredOnWrite('hs_timestamp', (record) => record.createdTime),
      hubspotOwner,
    ],
    {
      contacts: link('contactIds', 'Contact', 202, 'note_to_contact'),
      companies: link('accountIds', 'Account', 190, 'note_to_company'),
      deals: link('dealIds', 'Deal', 214, 'note_to_deal'),
    },
  ),
  tasks: object(
    'Task',
    'task',
    'hs_lastmodifieddate',
    [
      field('hs_task_subject', 'subject', text),
      field('hs_task_body', 'body', text),
      custom(
        'hs_task_status',
        TASK_STATUS_COVERS,
        (record) => TASK_STATUS.out((record as CrmRecord<'Task'>).status),
        (value) => taskStatusWrites(TASK_STATUS.in(value, 'hs_task_status')),
      ),
      field('hs_task_priority', 'priority', table({ High: 'HIGH', Normal: 'MEDIUM', Low: 'LOW' })),
      field('hs_timestamp', 'dueDate', iso),
      hubspotOwner,
    ],
    {
      contacts: link('contactIds', 'Contact', 204, 'task_to_contact'),
      companies: link('accountIds', 'Account', 192, 'task_to_company'),
      deals: link('dealIds', 'Deal', 216, 'task_to_deal'),
    },
    { defaults: { status: 'Not Started', priority: 'Normal' } },
  ),
  meetings: object(
    'Event',
    'meeting',
    'hs_lastmodifieddate',
    [
      field('hs_meeting_title', 'subject', text),
      field('hs_meeting_body', 'description', text),
      field('hs_meeting_location', 'location', text),
      field('hs_meeting_start_time', 'startDateTime', iso),
      field('hs_meeting_end_time', 'endDateTime', iso),
      field('hs_activity_type', 'type', text),
      readOnly('hs_timestamp', 'startDateTime', iso),
      hubspotOwner,
    ],
    {
      contacts: link('contactIds', 'Contact', 200, 'meeting_event_to_contact'),
      companies: link('accountIds', 'Account', 188, 'meeting_event_to_company'),
      deals: link('dealIds', 'Deal', 212, 'meeting_event_to_deal'),
    },
  ),
  leads: object(
    'Lead',
    'lead',
    'hs_lastmodifieddate',
    [
      computed('hs_lead_name', (record) => [(record as CrmRecord<'Lead'>).firstName, (record as CrmRecord<'Lead'>).lastName].filter(Boolean).join(' ') || null),
      field('firstname', 'firstName', text),
      field('lastname', 'lastName', text),
      field('email', 'email', text),
      field('jobtitle', 'jobTitle', text),
      field('company', 'account', text),
      field('phone', 'phone', text),
      field('mobilephone', 'mobilePhone', text),
    ],
    { companies: link('accountIds', 'Account', 610, 'lead_to_company'), contacts: link('contactIds', 'Contact', 608, 'lead_to_contact') },
  ),
  // The email engagement: its links are written on the email (contacts, companies and deals list no emails).
  emails: object(
    'Email',
    'email',
    'hs_lastmodifieddate',
    EMAIL_FIELDS,
    {
      contacts: link('contactIds', 'Contact', 198, 'email_to_contact', 197),
      companies: link('accountIds', 'Account', 186, 'email_to_company', 185),
      deals: link('dealIds', 'Deal', 210, 'email_to_deal', 209),
    },
    { required: ['hs_timestamp'], defaults: emailDefaults },
  ),
};

/** HubSpot's own object type ids, accepted wherever an object type is named. */
export const OBJECT_TYPE_IDS: Record<string, string> = {
  contacts: '0-1',
  companies: '0-2',
  deals: '0-3',
  tasks: '0-27',
  notes: '0-46',
  meetings: '0-47',
  leads: '0-136',
  emails: '0-49',
};

/** The collection an object type names: `contacts`, `contact` or `0-1`. */
export function collectionNamed(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const lower = name.toLowerCase();
  return Object.keys(COLLECTIONS).find((key) => key === lower || COLLECTIONS[key]!.name === lower || OBJECT_TYPE_IDS[key] === lower);
}

/** Owners are not CRM objects in HubSpot: flat, camelCase, read-only (`crm/v3/owners`). */
export const OWNERS: NativeObject = {
  type: 'User',
  name: 'owner',
  readOnly: true,
  fields: [
    computed('id', (record) => record.nativeId),
    field('email', 'email'),
    computed('type', () => 'PERSON'),
    field('firstName', 'firstName'),
    field('lastName', 'lastName'),
    computed('userId', (record) => Number(record.nativeId.slice(-8))),
    readOnly('createdAt', 'createdTime'),
    readOnly('updatedAt', 'modifiedTime'),
    computed('archived', () => false),
  ],
};

const isHubspotObject = (candidate: NativeObject): candidate is HubspotObject => 'links' in candidate;

/** What a request asks for: `?properties=` (plus the ones always shown) and `?associations=` this object has, each once. */
interface Selection {
  target: HubspotObject;
  properties?: Set<string>;
  associations?: string[];
}

const ALWAYS_SHOWN = ['hs_object_id', 'createdate', 'hs_createdate', 'lastmodifieddate', 'hs_lastmodifieddate'];
// Read once per request, not once per record of the page it renders: the lists may be long.
const selections = new WeakMap<DownstreamRequest, Selection>();

function selectionOf(target: HubspotObject, request: DownstreamRequest): Selection {
  const known = selections.get(request);
  if (known?.target === target) return known;
  // A list may be comma-separated, repeated (`properties=a&properties=b`, as the SDK sends it) or both.
  const names = (key: string) => {
    const values = queryValues(request, key);
    return values.length === 0 ? undefined : values.flatMap((list) => list.split(',')).map((name) => name.trim());
  };
  const properties = names('properties');
  const associations = names('associations')?.filter((name) => Object.hasOwn(target.links, name));
  const selection: Selection = {
    target,
    ...(properties ? { properties: new Set([...properties, ...ALWAYS_SHOWN]) } : {}),
    ...(associations ? { associations: [...new Set(associations)] } : {}),
  };
  selections.set(request, selection);
  return selection;
}

export function renderObject(
  target: NativeObject,
  record: CrmRecord,
  extra: Record<string, unknown>,
  context: DownstreamContext,
  request?: DownstreamRequest,
): NativeFields {
  if (!isHubspotObject(target)) return renderFields(target, record, extra, context);
  let properties = renderFields(target, record, extra, context);
  const selection = request ? selectionOf(target, request) : undefined;
  const wanted = selection?.properties;
  if (wanted) properties = Object.fromEntries(Object.entries(properties).filter(([name]) => wanted.has(name)));
  const out: NativeFields = { id: record.nativeId, properties, createdAt: record.createdTime, updatedAt: record.modifiedTime, archived: false };
  const asked = selection?.associations;
  if (asked && asked.length > 0) {
    out.associations = Object.fromEntries(
      asked.map((name) => {
        const { assoc, target: type, label } = target.links[name]!;
        const ids = (record.associations as Record<string, string[]>)[assoc] ?? [];
        const results = ids.flatMap((id) => {
          const linked = context.data.crm[type].get(id);
          return linked ? [{ id: linked.nativeId, type: label }] : [];
        });
        return [name, { results }];
      }),
    );
  }
  return out;
}

export const hubspotError = (statusCode: number, category: string, message: string, request: DownstreamRequest, more: NativeFields = {}) =>
  reply(statusCode, { status: 'error', message, correlationId: requestUuid(request), ...more, category }, HEADERS);

const PROPERTY_ERROR: Partial<Record<FieldError['kind'], string>> = {
  unknown: 'PROPERTY_DOESNT_EXIST',
  readOnly: 'READ_ONLY_VALUE',
  type: 'INVALID_OPTION',
  value: 'INVALID_OPTION',
};

export const errors: RouteErrors = {
  notFound: (request) => {
    const segment = request.path.startsWith(`${PREFIX}/`) ? request.path.split('/')[3] : undefined;
    return hubspotError(
      404,
      'OBJECT_NOT_FOUND',
      segment && !COLLECTIONS[segment] ? `Unable to infer object type from: ${segment}` : 'Resource not found',
      request,
    );
  },
  methodNotAllowed: (request) => hubspotError(405, 'METHOD_NOT_ALLOWED', `HTTP ${request.method} is not supported by this endpoint`, request),
  invalid: (error, request) => {
    const code = PROPERTY_ERROR[error.kind];
    if (!code || !error.field) return hubspotError(400, 'VALIDATION_ERROR', error.message, request);
    const message =
      error.kind === 'unknown'
        ? `Property "${error.field}" does not exist`
        : error.kind === 'readOnly'
          ? `"${error.field}" is a read only property; its value cannot be set.`
          : error.message;
    const badValue = error.kind === 'type' || error.kind === 'value';
    const specific = badValue && /number/.test(message) ? 'INVALID_INTEGER' : badValue && /date-time/.test(message) ? 'INVALID_DATE' : code;
    const detail = [{ isValid: false, message, error: specific, name: error.field }];
    return hubspotError(400, 'VALIDATION_ERROR', `Property values were not valid: ${JSON.stringify(detail)}`, request);
  },
};

/** The request's query (repeated keys kept) with `after` set to the next page's. */
function withAfter(request: DownstreamRequest, next: number): URLSearchParams {
  const search = searchOf(request);
  search.set('after', String(next));
  return search;
}

export const api: CollectionApi = {
  prefix: PREFIX,
  collections: Object.fromEntries(Object.entries(COLLECTIONS).map(([name, target]) => [name, [target]])),
  updateMethod: 'PATCH',
  // HubSpot rejects unknown and read-only properties.
  policy: { unknown: 'reject', readOnly: 'reject' },
  window: (request) => ({
    offset: intParam(request.query.after, 'after', 0, 0),
    limit: intParam(request.query.limit, 'limit', 10, 1, 100),
  }),
  unwrap: (body) => {
    if (!isPlainObject(body) || !isPlainObject(body.properties)) {
      throw new FieldError(undefined, 'Invalid input JSON: expected an object with "properties"', 'body');
    }
    return { ...body.properties, ...(body.associations === undefined ? {} : { associations: body.associations }) };
  },
  render: renderObject,
  list: (items, window, _collection, request, context) => {
    const next = window.offset + window.limit;
    const more = next < window.total;
    const link = `${INTEGRATIONS.hubspot.apiBaseUrl(context.org)}/${request.path}?${withAfter(request, next)}`;
    return reply(200, { results: items, ...(more ? { paging: { next: { after: String(next), link } } } : {}) }, HEADERS);
  },
  one: (item) => reply(200, item, HEADERS),
  created: (item) => reply(201, item, HEADERS),
  updated: (item) => reply(200, item, HEADERS),
  deleted: () => reply(204, null, HEADERS),
  missing: (_collection, id, request) =>
    hubspotError(404, 'OBJECT_NOT_FOUND', 'Object not found.  objectId are usually numeric.', request, { context: { id: [id] } }),
};
