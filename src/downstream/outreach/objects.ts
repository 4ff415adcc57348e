import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import type { EngagementUser, Mailbox } from '../../model/engagement.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { collectionHandlers, collectionRoutes, type CollectionApi, type Window } from '../collection-api.js';
import { outreachCustom } from '../custom-fields.js';
import { list, OUTREACH_ENGAGEMENT_PATHS, outreachEngagementRoutes, renderUser as renderEngagementUser, type Resolver, type Resource } from './engagement.js';
import { engagementSeq, engagementTimes, isMailbox } from '../engagement-native.js';
import {
  computed,
  custom,
  field,
  firstOfList,
  owner,
  percent,
  readOnly,
  ref,
  STAGE_COVERS,
  stageWrites,
  taskDone,
  time,
  timeFormat,
  type RefStyle,
} from '../fields.js';
import {
  customOf,
  displayName,
  FieldError,
  isPlainObject,
  renderFields,
  type FieldMap,
  type Flat,
  type NativeObject,
} from '../rest-engine.js';
import { dispatch, intParam, reply, type Params, type Route, type RouteErrors } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamSystem } from '../types.js';

/** Outreach API v2, JSON:API: `{ data: { type, id, attributes, relationships } }`, numeric ids, PATCH to update. */

const HEADERS = { 'x-ratelimit-limit': '10000', 'x-ratelimit-remaining': '9999' };
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

interface OutreachObject extends NativeObject {
  resource: string;
  /** Fields rendered under `relationships` rather than `attributes`. */
  relationships: readonly string[];
}

const relation: RefStyle = (nativeId, _target, type) => ({ data: { type: RESOURCE[type], id: Number(nativeId) } });
const to = (type: CrmObjectType, assoc: string) => ({ type, assoc });

/** Opportunity stages are their own resources in Outreach; ids by pipeline order. */
const STAGES = ['Prospecting', 'Qualification', 'Needs Analysis', 'Proposal', 'Negotiation', 'Closed Won', 'Closed Lost'];
const stage = custom('stage', STAGE_COVERS, (record) => {
  const index = STAGES.indexOf((record as CrmRecord<'Deal'>).stage ?? '');
  return { data: index < 0 ? null : { type: 'opportunityStage', id: index + 1 } };
}, (value) => {
  const data = isPlainObject(value) ? value.data : undefined;
  if (data === null) return { stage: null, isClosed: false, isWon: false };
  const name = isPlainObject(data) ? STAGES[Number(data.id) - 1] : undefined;
  if (!name) throw new FieldError('stage', 'stage must be { data: { type: "opportunityStage", id } } naming a stage', 'value');
  return stageWrites(name);
});

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

const COLLECTIONS: Record<string, OutreachObject> = {
  prospects: resource('Contact', [
    field('firstName', 'firstName'),
    field('lastName', 'lastName'),
    computed('name', (record) => displayName(record)),
    field('emails', 'email', firstOfList),
    field('title', 'jobTitle'),
    field('workPhones', 'phone', firstOfList),
    field('mobilePhones', 'mobilePhone', firstOfList),
  ], [ref('account', to('Account', 'accountIds'), relation), owner('owner', relation)]),
  accounts: resource('Account', [
    field('name', 'name'),
    field('description', 'description'),
    field('industry', 'industry'),
    field('websiteUrl', 'website'),
    computed('domain', (record) => ((record as CrmRecord<'Account'>).website ?? '').replace(/^https?:\/\/(www\.)?/, '') || null),
    field('numberOfEmployees', 'numberOfEmployees'),
    field('locality', 'address.city'),
  ], [owner('owner', relation)], { required: ['name'] }),
  opportunities: resource('Deal', [
    field('name', 'name'),
    field('amount', 'amount'),
    field('closeDate', 'closeDate', iso),
    field('probability', 'probability', percent),
  ], [ref('account', to('Account', 'accountIds'), relation), owner('owner', relation), stage], { required: ['name'] }),
  users: resource('User', [
    field('firstName', 'firstName'),
    field('lastName', 'lastName'),
    computed('name', (record) => displayName(record)),
    field('email', 'email'),
    computed('locked', () => false),
  ], [], { readOnly: true }),
  tasks: resource('Task', [
    computed('action', () => 'action_item'),
    computed('taskType', () => 'manual'),
    field('note', 'body'),
    field('dueAt', 'dueDate', iso),
    taskDone('state', 'complete', 'incomplete'),
  ], [
    owner('owner', relation),
    ref('prospect', to('Contact', 'contactIds'), relation),
    ref('account', to('Account', 'accountIds'), relation),
    ref('opportunity', to('Deal', 'dealIds'), relation),
  ], { defaults: { status: 'Not Started', priority: 'Normal' } }),
  events: resource('Event', [
    field('name', 'subject'),
    field('body', 'description'),
    field('location', 'location'),
    field('startTime', 'startDateTime', iso),
    field('endTime', 'endDateTime', iso),
    field('allDay', 'isAllDayEvent'),
  ], [
    owner('user', relation),
    ref('prospect', to('Contact', 'contactIds'), relation),
    ref('account', to('Account', 'accountIds'), relation),
    ref('opportunity', to('Deal', 'dealIds'), relation),
  ]),
};

const base = (context: DownstreamContext) => INTEGRATIONS.outreach.apiBaseUrl(context.org);
const collectionOf = (target: OutreachObject) => Object.keys(COLLECTIONS).find((name) => COLLECTIONS[name] === target)!;

function renderResource(target: OutreachObject, record: CrmRecord, extra: Record<string, unknown>, context: DownstreamContext): Flat {
  const flat = renderFields(target, record, extra, context);
  const attributes: Flat = {};
  const relationships: Flat = {};
  for (const [name, value] of Object.entries(flat)) {
    if (target.relationships.includes(name)) relationships[name] = value ?? { data: null };
    else attributes[name] = value;
  }
  const self = `${base(context)}/${collectionOf(target)}/${record.nativeId}`;
  return { type: target.resource, id: Number(record.nativeId), attributes, relationships, links: { self } };
}

/** Mailboxes are the engagement mailboxes, read-only; ids are their insertion numbers. */
function renderMailbox(mailbox: Mailbox, extra: Record<string, unknown>, context: DownstreamContext): Flat {
  const id = engagementSeq('mailboxes', mailbox.id, context.data);
  const userId = mailbox.associations.ownerUserId ? engagementSeq('users', mailbox.associations.ownerUserId, context.data) : null;
  return {
    type: 'mailbox',
    id,
    attributes: {
      email: mailbox.email,
      userId,
      sendDisabled: false,
      ...engagementTimes(mailbox, ['createdAt', 'updatedAt']),
      ...outreachCustom.read(customOf(extra)),
    },
    relationships: { user: { data: userId === null ? null : { type: 'user', id: userId } } },
    links: { self: `${base(context)}/mailboxes/${id}` },
  };
}

const outreachError = (statusCode: number, id: string, title: string, detail: string, more: Flat = {}) =>
  reply(statusCode, { errors: [{ id, title, detail, ...more }] }, HEADERS);

const errors: RouteErrors = {
  notFound: () => outreachError(404, 'resourceNotFound', 'Resource Not Found', 'The requested resource could not be found.'),
  methodNotAllowed: (request) => outreachError(405, 'methodNotAllowed', 'Method Not Allowed', `${request.method} is not allowed on this resource.`),
  invalid: (error, request) => {
    if (error.code === 'typeMismatch') return outreachError(409, 'typeMismatch', 'Type Mismatch', error.message);
    if (error.kind === 'body') return outreachError(400, 'badRequest', 'Bad Request', error.message);
    if (error.kind === 'param') return outreachError(400, 'invalidParameter', 'Invalid Parameter', error.message, { source: { parameter: error.field } });
    const target = COLLECTIONS[request.path.split('/')[0]!];
    const section = error.field && target?.relationships.includes(error.field) ? 'relationships' : 'attributes';
    return outreachError(422, 'validationError', 'Validation Error', error.message, error.field ? { source: { pointer: `/data/${section}/${error.field}` } } : {});
  },
};

/** Offset paging with `page[size]` and `page[offset]`; links carry the rest of the query. */
function window(request: DownstreamRequest) {
  return { offset: intParam(request.query['page[offset]'], 'page[offset]', 0, 0), limit: intParam(request.query['page[size]'], 'page[size]', 50, 1, 1000) };
}

function listBody(items: unknown[], page: Window, request: DownstreamRequest, context: DownstreamContext) {
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

const api: CollectionApi = {
  prefix: '',
  // `users` and `tasks` are the engagement users and tasks (outreach-engagement.ts), not CRM records.
  collections: Object.fromEntries(
    Object.entries(COLLECTIONS)
      .filter(([name]) => !OUTREACH_ENGAGEMENT_PATHS.includes(name))
      .map(([name, target]) => [name, [target]]),
  ),
  updateMethod: 'PATCH',
  // Outreach rejects unknown and read-only attributes.
  policy: { unknown: 'reject', readOnly: 'reject' },
  window,
  unwrap: (body, collection) => {
    const data = isPlainObject(body) ? body.data : undefined;
    if (!isPlainObject(data)) throw new FieldError(undefined, 'The request body must be a JSON:API document with a data object.', 'body');
    const expected = COLLECTIONS[collection]!.resource;
    if (data.type !== expected) throw new FieldError('type', `Expected resource type "${expected}", got ${JSON.stringify(data.type)}.`, 'body', 'typeMismatch');
    for (const part of ['attributes', 'relationships'] as const) {
      if (data[part] !== undefined && !isPlainObject(data[part])) throw new FieldError(undefined, `data.${part} must be an object.`, 'body');
    }
    return { ...(data.attributes as Flat | undefined), ...(data.relationships as Flat | undefined) };
  },
  render: (target, record, extra, context) => renderResource(target as OutreachObject, record, extra, context),
  list: (items, page, _collection, request, context) => reply(200, listBody(items, page, request, context), HEADERS),
  one: (item) => reply(200, { data: item }, HEADERS),
  created: (item) => reply(201, { data: item }, HEADERS),
  updated: (item) => reply(200, { data: item }, HEADERS),
  deleted: () => reply(204, null, HEADERS),
  missing: (collection, id) =>
    outreachError(404, 'resourceNotFound', 'Resource Not Found', `Could not find '${COLLECTIONS[collection]!.resource}' with ID '${id}'.`),
};

const MAILBOX_ROUTES: Route[] = [
  {
    method: 'GET',
    pattern: 'mailboxes',
    run: (_params, request, context) => {
      const page = window(request);
      const entries = context.data.mailboxes.slice(page.offset, page.limit);
      const items = entries.map((entry) => renderMailbox(entry.record, entry.extra, context));
      return reply(200, listBody(items, { ...page, total: context.data.mailboxes.size }, request, context), HEADERS);
    },
  },
  {
    method: 'GET',
    pattern: 'mailboxes/:id',
    run: (params, _request, context) => {
      const entry = context.data.mailboxes.entries().find((candidate) => String(candidate.seq) === params.id);
      return entry
        ? reply(200, { data: renderMailbox(entry.record, entry.extra, context) }, HEADERS)
        : outreachError(404, 'resourceNotFound', 'Resource Not Found', `Could not find 'mailbox' with ID '${params.id}'.`);
    },
  },
];

/** A CRM collection as a listable resource, for lists that filter, sort or include. */
function crmResource(name: string): Resource {
  const target = COLLECTIONS[name]!;
  const render = (entry: { record: CrmRecord; extra: Record<string, unknown> }, context: DownstreamContext) => renderResource(target, entry.record, entry.extra, context);
  return {
    type: target.resource,
    path: name,
    count: (context) => context.data.crm[target.type].size,
    all: (context) => context.data.crm[target.type].entries().map((entry) => render(entry, context)),
    one: (id, context) => {
      const entry = context.data.crm[target.type].getByNativeId(id);
      return entry ? render(entry, context) : undefined;
    },
  };
}

/**
 * A CRM record's owner is a CRM user: `users/{id}` and `include=owner` still find it by its
 * id, though `users` lists the engagement users.
 */
const crmUser = (id: string, context: DownstreamContext) => crmResource('users').one(id, context);

/** `include` of a CRM relationship (account, opportunity, owner…): the record as its own resource. */
const includeCrm: Resolver = (ref, context) => {
  if (ref.type === 'user') return crmUser(String(ref.id), context);
  const name = Object.keys(COLLECTIONS).find((candidate) => COLLECTIONS[candidate]!.resource === ref.type && !OUTREACH_ENGAGEMENT_PATHS.includes(candidate));
  return name ? crmResource(name).one(String(ref.id), context) : undefined;
};

/**
 * GET of a CRM collection with `filter[...]`, `sort` or `include`: filtered over the rendered
 * resources; a plain list pages the store directly (cheaper, same answer).
 */
const QUERYING = /^(filter\[|sort$|include$)/;
const crmListRoutes: Route[] = Object.keys(api.collections).map((name) => {
  const plain = collectionHandlers(api, name).list;
  return {
    method: 'GET' as const,
    pattern: name,
    run: (params: Params, request: DownstreamRequest, context: DownstreamContext) =>
      Object.keys(request.query).some((key) => QUERYING.test(key)) ? list(crmResource(name), request, context, includeCrm) : plain(params, request, context),
  };
});

const ROUTES = [...outreachEngagementRoutes({ users: crmUser }), ...crmListRoutes, ...collectionRoutes(api), ...MAILBOX_ROUTES];

export const outreach: DownstreamSystem = {
  integrationId: 'outreach',
  handle: (request, context) => dispatch(ROUTES, errors, request, context),
  nativeRecord: (type, record, extra, context) => {
    const target = Object.values(COLLECTIONS).find((candidate) => candidate.type === type);
    return target ? renderResource(target, record, extra, context) : { id: Number(record.nativeId), attributes: outreachCustom.read(customOf(extra)) };
  },
  // The same resource objects as GET mailboxes/{id} and users/{id} answer under `data`.
  nativeEngagement: (collection, record, extra, context) => {
    if (isMailbox(collection, record)) return renderMailbox(record, extra, context);
    return renderEngagementUser(record as EngagementUser, engagementSeq('users', record.id, context.data) ?? 0, extra, context);
  },
};
