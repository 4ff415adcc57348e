import type { CrmRecord } from '../../model/crm.js';
import type { EngagementUser, Mailbox } from '../../model/engagement.js';
import type { Entry } from '../../store/ordered-collection.js';
import { type CollectionApi, collectionHandlers, collectionRoutes } from '../collection-api.js';
import { engagementSeq, engagementTimes, isMailbox } from '../engagement-native.js';
import { customOf, FieldError, isPlainObject, type NativeFields } from '../rest-engine.js';
import { answering, dispatch, type Params, type Route, reply } from '../router.js';
import type { DownstreamSystem } from '../system.js';
import type { DownstreamContext, DownstreamRequest } from '../types.js';
import {
  ENGAGEMENT_PATHS,
  engagementRoutes,
  list,
  type Resolver,
  type Resource,
  renderCall,
  renderCallDisposition,
  renderUser as renderEngagementUser,
  renderMailing,
  renderSequence,
  renderSequenceState,
  renderTask,
  walkable,
} from './engagement.js';
import { faultAnswers } from './faults.js';
import { outreachCustom } from './formats.js';
import { base, COLLECTIONS, errors, HEADERS, listBody, type OutreachObject, outreachError, pageWindow, renderResource } from './objects.js';

/** The simulated Outreach: API v2 resources (`objects.ts`), engagement resources (`engagement.ts`), mailboxes. */

/** Mailboxes are the engagement mailboxes, read-only; ids are their insertion numbers. */
function renderMailbox(mailbox: Mailbox, extra: Record<string, unknown>, context: DownstreamContext): NativeFields {
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

const api: CollectionApi = {
  prefix: '',
  // `users` and `tasks` are the engagement users and tasks (engagement.ts), not CRM records.
  collections: Object.fromEntries(
    Object.entries(COLLECTIONS)
      .filter(([name]) => !ENGAGEMENT_PATHS.includes(name))
      .map(([name, target]) => [name, [target]]),
  ),
  updateMethod: 'PATCH',
  // Outreach rejects unknown and read-only attributes.
  policy: { unknown: 'reject', readOnly: 'reject' },
  window: pageWindow,
  unwrap: (body, collection) => {
    const data = isPlainObject(body) ? body.data : undefined;
    if (!isPlainObject(data)) throw new FieldError(undefined, 'The request body must be a JSON:API document with a data object.', 'body');
    const expected = COLLECTIONS[collection]!.resource;
    if (data.type !== expected) throw new FieldError('type', `Expected resource type "${expected}", got ${JSON.stringify(data.type)}.`, 'body', 'typeMismatch');
    for (const part of ['attributes', 'relationships'] as const) {
      if (data[part] !== undefined && !isPlainObject(data[part])) throw new FieldError(undefined, `data.${part} must be an object.`, 'body');
    }
    return { ...(data.attributes as NativeFields | undefined), ...(data.relationships as NativeFields | undefined) };
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
      const page = pageWindow(request);
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
  const render = (entry: { record: CrmRecord; extra: Record<string, unknown> }, context: DownstreamContext) =>
    renderResource(target, entry.record, entry.extra, context);
  return {
    type: target.resource,
    path: name,
    count: (context) => context.data.crm[target.type].size,
    ...walkable((context) => context.data.crm[target.type].entries(), render),
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
  const name = Object.keys(COLLECTIONS).find((candidate) => COLLECTIONS[candidate]!.resource === ref.type && !ENGAGEMENT_PATHS.includes(candidate));
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

const ROUTES = [...engagementRoutes({ users: crmUser }), ...crmListRoutes, ...collectionRoutes(api), ...MAILBOX_ROUTES];

export const outreach: DownstreamSystem = {
  integrationId: 'outreach',
  faultAnswers,
  nativeObjects: Object.values(COLLECTIONS),
  writePolicy: api.policy,
  ...answering((request, context) => dispatch(ROUTES, errors, request, context)),
  nativeRecord: (type, record, extra, context) => {
    const target = Object.values(COLLECTIONS).find((candidate) => candidate.type === type);
    return target ? renderResource(target, record, extra, context) : { id: Number(record.nativeId), attributes: outreachCustom.read(customOf(extra)) };
  },
  // The same resource objects as GET mailboxes/{id} and users/{id} answer under `data`.
  nativeEngagement: (collection, record, extra, context) => {
    if (isMailbox(collection, record)) return renderMailbox(record, extra, context);
    return renderEngagementUser(record as EngagementUser, engagementSeq('users', record.id, context.data) ?? 0, extra, context);
  },
  // The same resource objects as GET tasks/{id}, sequenceStates/{id}, sequences/{id}, calls/{id}, mailings/{id} and callDispositions/{id} answer.
  nativeActivity: (collection, entry, context) => {
    const { record, seq } = entry as Entry<never>;
    switch (collection) {
      case 'tasks':
        return renderTask(record, seq, context);
      case 'actions':
        return renderSequenceState(record, seq, context);
      case 'sequences':
        return renderSequence(record, seq, context);
      case 'calls':
        return renderCall(record, seq, context);
      case 'emails':
        return renderMailing(record, seq, context);
      case 'dispositions':
        return renderCallDisposition(record, seq, context);
    }
  },
};
