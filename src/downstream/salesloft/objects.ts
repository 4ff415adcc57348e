import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import type { EngagementUser } from '../../model/engagement.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { collectionRoutes, type CollectionApi } from '../collection-api.js';
import { nestedCustom } from '../custom-fields.js';
import { renderUser as renderEngagementUser, SALESLOFT_ENGAGEMENT_PATHS, salesloftEngagementRoutes } from './engagement.js';
import { engagementSeq, engagementTimes, isMailbox } from '../engagement-native.js';
import {
  asNumber,
  computed,
  custom,
  date,
  field,
  locked,
  owner,
  readOnly,
  ref,
  taskDone,
  time,
  timeFormat,
  writeOnly,
  type RefStyle,
  type Target,
} from '../fields.js';
import { customOf, displayName, FieldError, isPlainObject, renderFields, type FieldMap, type NativeObject } from '../rest-engine.js';
import { dispatch, intParam, reply, type RouteErrors } from '../router.js';
import type { DownstreamContext, DownstreamSystem } from '../types.js';

/**
 * Salesloft API v2 (`people`, `accounts`…): snake_case records under `data`. References read as
 * `{ id, _href }` and are written as `…_id`.
 */

const HEADERS = { 'x-ratelimit-limit-minute': '600', 'x-ratelimit-remaining-minute': '599' };
const iso = time(timeFormat.iso);
const customFields = nestedCustom('custom_fields');

const PATH_OF: Partial<Record<CrmObjectType, string>> = { Contact: 'people', Account: 'accounts', User: 'users', Note: 'notes', Task: 'tasks', Event: 'meetings' };
const href: RefStyle = (nativeId, _target, type, context) => ({
  id: Number(nativeId),
  _href: `${INTEGRATIONS.salesloft.apiBaseUrl(context.org)}/${PATH_OF[type]}/${nativeId}`,
});

/** A reference shown as `{name}: { id, _href }` and written as `{name}_id`. */
function link(name: string, target: Target): FieldMap[] {
  return [locked(ref(name, target, href)), writeOnly(ref(`${name}_id`, target, asNumber))];
}
const ownerLink = (name: string) => [locked(owner(name, href)), writeOnly(owner(`${name}_id`, asNumber))];
const to = (type: CrmObjectType, assoc: string): Target => ({ type, assoc });

/** A note hangs off a person or an account: `associated_with_type` and `associated_with_id`, written together. */
const NOTE_PARENTS: Record<string, Target> = { person: to('Contact', 'contactIds'), account: to('Account', 'accountIds') };
function noteParent(): FieldMap[] {
  const parent = (record: CrmRecord) => {
    const associations = record.associations as Record<string, string[]>;
    for (const [kind, target] of Object.entries(NOTE_PARENTS)) {
      const id = associations[target.assoc]?.[0];
      if (id) return { kind, target, id };
    }
    return undefined;
  };
  const write = (_value: unknown, { body, context }: { body: Record<string, unknown>; context: DownstreamContext }) => {
    const kind = body.associated_with_type;
    const id = body.associated_with_id;
    if (kind === undefined || id === undefined) {
      const missing = kind === undefined ? 'associated_with_type' : 'associated_with_id';
      throw new FieldError(missing, `${missing} is required with associated_with_${kind === undefined ? 'id' : 'type'}`, 'required');
    }
    const target = typeof kind === 'string' ? NOTE_PARENTS[kind] : undefined;
    if (!target) throw new FieldError('associated_with_type', 'associated_with_type must be person or account', 'value');
    const entry = context.data.crm[target.type].getByNativeId(String(id));
    if (!entry) throw new FieldError('associated_with_id', `associated_with_id ${JSON.stringify(id)} is not a ${kind}`, 'reference');
    return Object.fromEntries(Object.values(NOTE_PARENTS).map((item) => [`associations.${item.assoc}`, item === target ? [entry.record.id] : []]));
  };
  const covers = Object.values(NOTE_PARENTS).map((target) => `associations.${target.assoc}`);
  return [
    custom('associated_with_type', covers, (record) => parent(record)?.kind ?? null, write),
    custom('associated_with_id', covers, (record, context) => {
      const hit = parent(record);
      const linked = hit ? context.data.crm[hit.target.type].get(hit.id) : undefined;
      return linked ? Number(linked.nativeId) : null;
    }, write),
  ];
}

const object = (type: CrmObjectType, name: string, fields: FieldMap[], more: Partial<NativeObject> = {}): NativeObject => ({
  type,
  name,
  fields: [computed('id', (record) => Number(record.nativeId)), ...fields, readOnly('created_at', 'createdTime', iso), readOnly('updated_at', 'modifiedTime', iso)],
  custom: customFields,
  ...more,
});

const COLLECTIONS: Record<string, NativeObject> = {
  people: object('Contact', 'person', [
    field('first_name', 'firstName'),
    field('last_name', 'lastName'),
    computed('display_name', (record) => displayName(record)),
    field('email_address', 'email'),
    field('title', 'jobTitle'),
    field('phone', 'phone'),
    field('mobile_phone', 'mobilePhone'),
    ...link('account', to('Account', 'accountIds')),
    ...ownerLink('owner'),
  ]),
  accounts: object('Account', 'account', [
    field('name', 'name'),
    computed('domain', (record) => ((record as CrmRecord<'Account'>).website ?? '').replace(/^https?:\/\/(www\.)?/, '') || null),
    field('website', 'website'),
    field('description', 'description'),
    field('industry', 'industry'),
    field('phone', 'phone'),
    field('street', 'address.street'),
    field('city', 'address.city'),
    field('state', 'address.state'),
    field('postal_code', 'address.postalCode'),
    field('country', 'address.country'),
    ...ownerLink('owner'),
  ], { required: ['name'] }),
  users: object('User', 'user', [
    computed('name', (record) => displayName(record)),
    field('first_name', 'firstName'),
    field('last_name', 'lastName'),
    field('email', 'email'),
    computed('active', () => true),
  ], { readOnly: true }),
  notes: object('Note', 'note', [field('content', 'content'), ...noteParent(), ...ownerLink('user')], {
    required: ['content', 'associated_with_type', 'associated_with_id'],
  }),
  tasks: object('Task', 'task', [
    field('subject', 'subject'),
    field('description', 'body'),
    taskDone('current_state', 'completed', 'scheduled'),
    computed('task_type', () => 'general'),
    field('due_date', 'dueDate', date),
    ...link('person', to('Contact', 'contactIds')),
    ...ownerLink('user'),
  ], { required: ['subject'], defaults: { status: 'Not Started', priority: 'Normal' } }),
  meetings: object('Event', 'meeting', [
    field('title', 'subject'),
    field('description', 'description'),
    field('location', 'location'),
    field('start_time', 'startDateTime', iso),
    field('end_time', 'endDateTime', iso),
    field('all_day', 'isAllDayEvent'),
    field('meeting_type', 'type'),
    computed('status', () => 'booked'),
    ...link('person', to('Contact', 'contactIds')),
    ...link('account', to('Account', 'accountIds')),
    ...ownerLink('user'),
  ]),
};

const notFound = () => reply(404, { status: 404, error: 'Not Found' }, HEADERS);

const errors: RouteErrors = {
  notFound,
  methodNotAllowed: notFound,
  invalid: (error) => {
    const key = error.kind === 'body' || !error.field ? 'base' : error.field;
    // Rails-style: the message without the field name it is filed under.
    const message = error.field && error.message.startsWith(`${error.field} `) ? error.message.slice(error.field.length + 1) : error.message;
    return reply(422, { errors: { [key]: [message] } }, HEADERS);
  },
};

const api: CollectionApi = {
  prefix: '',
  // `users` and `tasks` are the engagement users and tasks (salesloft-engagement.ts), not CRM records.
  collections: Object.fromEntries(
    Object.entries(COLLECTIONS)
      .filter(([name]) => !SALESLOFT_ENGAGEMENT_PATHS.includes(name))
      .map(([name, target]) => [name, [target]]),
  ),
  updateMethod: 'PUT',
  // Salesloft drops parameters it does not permit.
  policy: { unknown: 'ignore', readOnly: 'ignore' },
  window: (request) => {
    const page = intParam(request.query.page, 'page', 1, 1);
    const limit = intParam(request.query.per_page, 'per_page', 25, 1, 100);
    return { offset: (page - 1) * limit, limit };
  },
  unwrap: (body) => {
    if (!isPlainObject(body)) throw new FieldError(undefined, 'the request body must be a JSON object', 'body');
    return body;
  },
  render: (target, record, extra, context) => renderFields(target, record, extra, context),
  list: (items, window, _collection, request) => {
    const page = Math.floor(window.offset / window.limit) + 1;
    const pages = Math.max(1, Math.ceil(window.total / window.limit));
    const counts = request.query.include_paging_counts === 'true' ? { total_pages: pages, total_count: window.total } : {};
    const paging = { per_page: window.limit, current_page: page, next_page: page < pages ? page + 1 : null, prev_page: page > 1 ? page - 1 : null, ...counts };
    return reply(200, { metadata: { filtering: {}, paging, sorting: { sort_by: 'id', sort_direction: 'ASC' } }, data: items }, HEADERS);
  },
  one: (item) => reply(200, { data: item }, HEADERS),
  created: (item) => reply(200, { data: item }, HEADERS),
  updated: (item) => reply(200, { data: item }, HEADERS),
  deleted: () => reply(204, null, HEADERS),
  missing: notFound,
};

const crmUser = (id: string, context: DownstreamContext) => {
  const entry = context.data.crm.User.getByNativeId(id);
  return entry ? renderFields(COLLECTIONS.users!, entry.record, entry.extra, context) : undefined;
};
const ROUTES = [...salesloftEngagementRoutes({ users: crmUser }), ...collectionRoutes(api)];

export const salesloft: DownstreamSystem = {
  integrationId: 'salesloft',
  handle: (request, context) => dispatch(ROUTES, errors, request, context),
  nativeRecord: (type, record, extra, context) => {
    const target = Object.values(COLLECTIONS).find((candidate) => candidate.type === type);
    return target ? renderFields(target, record, extra, context) : { id: Number(record.nativeId), ...customFields.read(customOf(extra)) };
  },
  nativeEngagement: (collection, record, extra, context) => {
    const base = INTEGRATIONS.salesloft.apiBaseUrl(context.org);
    const id = engagementSeq(collection, record.id, context.data);
    const tail = { ...engagementTimes(record, ['created_at', 'updated_at']), ...customFields.read(customOf(extra)) };
    if (isMailbox(collection, record)) {
      const ownerId = record.associations.ownerUserId;
      const userId = ownerId ? engagementSeq('users', ownerId, context.data) : null;
      const user = userId === null ? null : { id: userId, _href: `${base}/users/${userId}` };
      return { id, email_address: record.email, default: record.isDefault ?? null, user, ...tail };
    }
    // The same object as GET users/{id} answers.
    return renderEngagementUser(record as EngagementUser, id ?? 0, extra);
  },
};
