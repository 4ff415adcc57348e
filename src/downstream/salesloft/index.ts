import type { EngagementUser } from '../../model/engagement.js';
import type { Entry } from '../../store/ordered-collection.js';
import { type CollectionApi, collectionRoutes } from '../collection-api.js';
import { engagementSeq, engagementTimes, isMailbox } from '../engagement-native.js';
import { customOf, FieldError, isPlainObject, renderFields } from '../rest-engine.js';
import { answering, dispatch, intParam, reply } from '../router.js';
import type { DownstreamSystem } from '../system.js';
import type { DownstreamContext } from '../types.js';
import {
  ENGAGEMENT_PATHS,
  engagementRoutes,
  renderAction,
  renderCadence,
  renderCall,
  renderCallDisposition,
  renderEmail,
  renderUser as renderEngagementUser,
  renderTask,
} from './engagement.js';
import { faultAnswers } from './faults.js';
import { base, COLLECTIONS, customFields, errors, HEADERS, notFound } from './objects.js';

/** The simulated Salesloft: API v2 collections (`objects.ts`) and engagement resources (`engagement.ts`). */

const api: CollectionApi = {
  prefix: '',
  // `users` and `tasks` are the engagement users and tasks (engagement.ts), not CRM records.
  collections: Object.fromEntries(
    Object.entries(COLLECTIONS)
      .filter(([name]) => !ENGAGEMENT_PATHS.includes(name))
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
const ROUTES = [...engagementRoutes({ users: crmUser }), ...collectionRoutes(api)];

export const salesloft: DownstreamSystem = {
  integrationId: 'salesloft',
  faultAnswers,
  nativeObjects: Object.values(COLLECTIONS),
  writePolicy: api.policy,
  ...answering((request, context) => dispatch(ROUTES, errors, request, context)),
  nativeRecord: (type, record, extra, context) => {
    const target = Object.values(COLLECTIONS).find((candidate) => candidate.type === type);
    return target ? renderFields(target, record, extra, context) : { id: Number(record.nativeId), ...customFields.read(customOf(extra)) };
  },
  nativeEngagement: (collection, record, extra, context) => {
    const id = engagementSeq(collection, record.id, context.data);
    const tail = { ...engagementTimes(record, ['created_at', 'updated_at']), ...customFields.read(customOf(extra)) };
    if (isMailbox(collection, record)) {
      const ownerId = record.associations.ownerUserId;
      const userId = ownerId ? engagementSeq('users', ownerId, context.data) : null;
      const user = userId === null ? null : { id: userId, _href: `${base(context)}/users/${userId}` };
      return { id, email_address: record.email, default: record.isDefault ?? null, user, ...tail };
    }
    // The same object as GET users/{id} answers.
    return renderEngagementUser(record as EngagementUser, id ?? 0, extra);
  },
  // The same objects as GET tasks/{id}, actions/{id}, cadences/{id}, activities/calls/{id}, activities/emails/{id}, call_dispositions/{id} answer.
  nativeActivity: (collection, entry, context) => {
    const { record, seq } = entry as Entry<never>;
    switch (collection) {
      case 'tasks':
        return renderTask(record, seq, context);
      case 'actions':
        return renderAction(record, seq, context);
      case 'sequences':
        return renderCadence(record, seq, context);
      case 'calls':
        return renderCall(record, seq, context);
      case 'emails':
        return renderEmail(record, seq, context);
      case 'dispositions':
        return renderCallDisposition(record, seq);
    }
  },
};
