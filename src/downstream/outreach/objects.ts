import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import type { Window } from '../collection-api.js';
import {
  computed,
  custom,
  field,
  firstOfList,
  owner,
  percent,
  type RefStyle,
  readOnly,
  ref,
  STAGE_COVERS,
  stageWrites,
  storedText,
  taskDone,
  time,
  timeFormat,
  to,
} from '../fields.js';
import { displayName, FieldError, type FieldMap, isPlainObject, type NativeFields, type NativeObject, renderFields } from '../rest-engine.js';
import { intParam, type RouteErrors, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest } from '../types.js';
import { facts } from './facts.js';
import { outreachCustom } from './formats.js';

/**
 * Outreach API v2, JSON:API: `{ data: { type, id, attributes, relationships } }`, numeric ids,
 * PATCH to update; the headers, error answers and list document every Outreach route module uses.
 */

export const HEADERS = { 'x-ratelimit-limit': '10000', 'x-ratelimit-remaining': '9999' };
const iso = time(timeFormat.iso);

/** JSON:API resource type of each unified type. */
const RESOURCE: Partial<Record<CrmObjectType, string>> = {
  Contact: 'prospect',
  Account: 'account',
  Deal: 'opportunity',
  User: 'user',
  Task: 'task',
  Event: 'event',
};

export interface OutreachObject extends NativeObject {
  resource: string;
  /** Fields rendered under `relationships` rather than `attributes`. */
  relationships: readonly string[];
}

const relation: RefStyle = (nativeId, _target, type) => ({ data: { type: RESOURCE[type], id: Number(nativeId) } });

/** Opportunity stages are their own resources in Outreach; ids by pipeline order. */
const STAGES = ['Prospecting', 'Qualification', 'Needs Analysis', 'Proposal', 'Negotiation', 'Closed Won', 'Closed Lost'];
const stage = custom(
  'stage',
  STAGE_COVERS,
  (record) => {
    const index = STAGES.indexOf((record as CrmRecord<'Deal'>).stage ?? '');
    return { data: index < 0 ? null : { type: 'opportunityStage', id: index + 1 } };
  },
  (value) => {
    const data = isPlainObject(value) ? value.data : undefined;
    if (data === null) return { stage: null, isClosed: false, isWon: false };
    const name = isPlainObject(data) ? STAGES[Number(data.id) - 1] : undefined;
    if (!name) throw new FieldError('stage', 'stage must be { data: { type: "opportunityStage", id } } naming a stage', 'value');
    return stageWrites(name);
  },
);

function resource(type: CrmObjectType, attributes: FieldMap[], relationships: FieldMap[], more: Partial<NativeObject> = {}): OutreachObject {
  return {
    type,
    name: RESOURCE[type]!,
    resource: RESOURCE[type]!,
    relationships: relationships.map((item) => item.native),
    fields: [...attributes, readOnly('createdAt', 'createdTime', iso), readOnly('updatedAt', 'modifiedTime', iso), ...relationships],
    custom: outreachCustom,
    ...more,
  };
}

export const COLLECTIONS: Record<string, OutreachObject> = {
  prospects: resource(
    'Contact',
    [
      field('firstName', 'firstName'),
      field('lastName', 'lastName'),
      computed('name', (record) => displayName(record)),
      field('emails', 'email', firstOfList),
      field('title', 'jobTitle'),
      field('workPhones', 'phone', firstOfList),
      field('mobilePhones', 'mobilePhone', firstOfList),
      ...Object.values(facts.contactAddressFields).map(storedText),
    ],
    [ref('account', to('Account', 'accountIds'), relation), owner('owner', relation)],
  ),
  accounts: resource(
    'Account',
    [
      field('name', 'name'),
      field('description', 'description'),
      field('industry', 'industry'),
      field('websiteUrl', 'website'),
      computed('domain', (record) => ((record as CrmRecord<'Account'>).website ?? '').replace(/^https?:\/\/(www\.)?/, '') || null),
      field('numberOfEmployees', 'numberOfEmployees'),
      field('locality', 'address.city'),
    ],
    [owner('owner', relation)],
    { required: ['name'] },
  ),
  opportunities: resource(
    'Deal',
    [field('name', 'name'), field('amount', 'amount'), field('closeDate', 'closeDate', iso), field('probability', 'probability', percent)],
    [ref('account', to('Account', 'accountIds'), relation), owner('owner', relation), stage],
    { required: ['name'] },
  ),
  users: resource(
    'User',
    [
      field('firstName', 'firstName'),
      field('lastName', 'lastName'),
      computed('name', (record) => displayName(record)),
      field('email', 'email'),
      computed('locked', () => false),
    ],
    [],
    { readOnly: true },
  ),
  tasks: resource(
    'Task',
    [
      computed('action', () => 'action_item'),
      computed('taskType', () => 'manual'),
      field('note', 'body'),
      field('dueAt', 'dueDate', iso),
      taskDone('state', 'complete', 'incomplete'),
    ],
    [
      owner('owner', relation),
      ref('prospect', to('Contact', 'contactIds'), relation),
      ref('account', to('Account', 'accountIds'), relation),
      ref('opportunity', to('Deal', 'dealIds'), relation),
    ],
    { defaults: { status: 'Not Started', priority: 'Normal' } },
  ),
  events: resource(
    'Event',
    [
      field('name', 'subject'),
      field('body', 'description'),
      field('location', 'location'),
      field('startTime', 'startDateTime', iso),
      field('endTime', 'endDateTime', iso),
      field('allDay', 'isAllDayEvent'),
    ],
    [
      owner('user', relation),
      ref('prospect', to('Contact', 'contactIds'), relation),
      ref('account', to('Account', 'accountIds'), relation),
      ref('opportunity', to('Deal', 'dealIds'), relation),
    ],
  ),
};

export const base = (context: DownstreamContext) => INTEGRATIONS.outreach.apiBaseUrl(context.org);
const collectionOf = (target: OutreachObject) => Object.keys(COLLECTIONS).find((name) => COLLECTIONS[name] === target)!;

export function renderResource(target: OutreachObject, record: CrmRecord, extra: Record<string, unknown>, context: DownstreamContext): NativeFields {
  const flat = renderFields(target, record, extra, context);
  const attributes: NativeFields = {};
  const relationships: NativeFields = {};
  for (const [name, value] of Object.entries(flat)) {
    if (target.relationships.includes(name)) relationships[name] = value ?? { data: null };
    else attributes[name] = value;
  }
  const self = `${base(context)}/${collectionOf(target)}/${record.nativeId}`;
  return { type: target.resource, id: Number(record.nativeId), attributes, relationships, links: { self } };
}

export const outreachError = (statusCode: number, id: string, title: string, detail: string, more: NativeFields = {}) =>
  reply(statusCode, { errors: [{ id, title, detail, ...more }] }, HEADERS);

export const errors: RouteErrors = {
  notFound: () => outreachError(404, 'resourceNotFound', 'Resource Not Found', 'The requested resource could not be found.'),
  methodNotAllowed: (request) => outreachError(405, 'methodNotAllowed', 'Method Not Allowed', `${request.method} is not allowed on this resource.`),
  invalid: (error, request) => {
    if (error.code === 'typeMismatch') return outreachError(409, 'typeMismatch', 'Type Mismatch', error.message);
    if (error.kind === 'body') return outreachError(400, 'badRequest', 'Bad Request', error.message);
    if (error.kind === 'param') return outreachError(400, 'invalidParameter', 'Invalid Parameter', error.message, { source: { parameter: error.field } });
    const target = COLLECTIONS[request.path.split('/')[0]!];
    const section = error.field && target?.relationships.includes(error.field) ? 'relationships' : 'attributes';
    return outreachError(
      422,
      'validationError',
      'Validation Error',
      error.message,
      error.field ? { source: { pointer: `/data/${section}/${error.field}` } } : {},
    );
  },
};

/** Offset paging with `page[size]` and `page[offset]`; links carry the rest of the query. */
export function pageWindow(request: DownstreamRequest) {
  return { offset: intParam(request.query['page[offset]'], 'page[offset]', 0, 0), limit: intParam(request.query['page[size]'], 'page[size]', 50, 1, 1000) };
}

export function listBody(items: unknown[], page: Window, request: DownstreamRequest, context: DownstreamContext) {
  const link = (offset: number) => {
    const query = new URLSearchParams({ ...request.query, 'page[offset]': String(offset), 'page[size]': String(page.limit) });
    return `${base(context)}/${request.path}?${query}`;
  };
  const next = page.offset + page.limit;
  const links = {
    first: link(0),
    ...(page.offset > 0 ? { prev: link(Math.max(0, page.offset - page.limit)) } : {}),
    ...(next < page.total ? { next: link(next) } : {}),
  };
  return { data: items, meta: { count: page.total }, links };
}
