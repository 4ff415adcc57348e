import type { downstreamFor as DownstreamFor } from '../../downstream/index.js';
import type { CrmRecord } from '../../model/crm.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { ApiError, ErrorCode } from '../../shared/errors.js';
import { pascal } from '../../shared/pascal-case.js';
import { type Pieces, runFromNow, runToEnd } from '../../shared/pieces.js';
import type { ConnectionData } from '../../store/connection-data.js';
import type { Entry, OrderedCollection } from '../../store/ordered-collection.js';
import type { FilterField } from '../../unified/crm-objects.js';
import { type EngagementObject, UNIFIED_ENGAGEMENT_OBJECTS } from '../../unified/engagement-objects.js';
import { engagementActionBodySchema, engagementSearchBodySchema, engagementWriteBodySchema } from '../../unified/engagement-schemas.js';
import { crmIdOf, crmUserView, engagementIndex, engagementView, type ViewContext } from '../../unified/engagement-view.js';
import { compileFiltersInPieces, type RecordFilter } from '../../unified/filters.js';
import { loadEngagementWrites } from '../../unified/load.js';
import type { ConnectionState } from '../connections.js';
import { encodeCursor } from '../cursor.js';
import { queryParam, type Reply } from '../http.js';
import { accessTokenQuery, checkSynced, type QueryParameter, type Route, type RouteContext, type RouteDeps, requiredQuery } from './context.js';
import { engagementRoutes } from './engagement.js';
import { pageBody, pageQuery, pageRequest, parseBoolean } from './pagination.js';
import { bodyToken, matchingFor, onceThere, pageReply, searchAllFields, searchKey, searchPage, unifiedWrite, withSystems } from './unified-shared.js';

/**
 * The service's unified engagement objects: users, accounts, contacts, tasks, actions, calls,
 * emails, call dispositions, sequences and mailboxes, each with the operations the document gives
 * it (list, get, create, update, search, complete, start), derived from one description per
 * object (src/unified/engagement-objects.ts). They read and write the platform's own records:
 * contacts and accounts are its CRM records (a write is a native write, with its OBJECT_CHANGE
 * event), the rest its engagement collections (no event: they are no CRM objects). The users and
 * mailboxes lists are the spec's routes (./engagement.ts), served on every integration as before;
 * the other objects are an engagement platform's.
 */
type Uses = 'registry' | 'clock' | 'pages';
type Deps = Pick<RouteDeps, Uses>;

const ENGAGEMENT_INTEGRATIONS = Object.keys(INTEGRATIONS).filter((id) => INTEGRATIONS[id as keyof typeof INTEGRATIONS].category === 'engagement');
/** Users and mailboxes are served on every connection, as the spec's lists always were. */
const everyIntegration = (object: EngagementObject) => object.source === 'users' || object.source === 'mailboxes';

const allFieldsQuery: QueryParameter = {
  name: 'allFields',
  description: "Also answer each record in its platform's native shape, as `additional`",
  schema: { type: 'boolean', default: false },
};

/** The caller's connection for a route of the object: an engagement platform's (users and mailboxes: any), synced. */
function engagementConnection(ctx: RouteContext, accessToken: string, object: EngagementObject): ConnectionState {
  const connection = ctx.connectionByToken(accessToken);
  if (!everyIntegration(object) && INTEGRATIONS[connection.integrationId].category !== 'engagement') {
    throw new ApiError(
      400,
      ErrorCode.INTEGRATION_NOT_SUPPORTED,
      `/engagement/${object.many} serves engagement connections (${ENGAGEMENT_INTEGRATIONS.join(', ')}); this connection is ${connection.integrationId}, a CRM: use /crm/…`,
      { field: 'accessToken', integrationId: connection.integrationId },
    );
  }
  checkSynced(connection);
  return connection;
}

/** The store collection an object's records are in. */
function collectionOf(data: ConnectionData, object: EngagementObject): OrderedCollection<{ id: string }> {
  return sourceOf(data, object) as unknown as OrderedCollection<{ id: string }>;
}

function sourceOf(data: ConnectionData, object: EngagementObject) {
  switch (object.source) {
    case 'Contact':
    case 'Account':
      return data.crm[object.source];
    case 'users':
      return data.users;
    case 'mailboxes':
      return data.mailboxes;
    case 'tasks':
      return data.engagementTasks;
    case 'actions':
      return data.engagementActions;
    case 'sequences':
      return data.sequences;
    case 'calls':
      return data.calls;
    case 'emails':
      return data.engagementEmails;
    case 'dispositions':
      return data.callDispositions;
  }
}

/** The entry an id names: a contact's or account's is the hex of its CRM id; a user may be a CRM user (the owner contacts name). */
function entryOf(data: ConnectionData, object: EngagementObject, id: string): { entry: Entry<unknown>; crmUser?: boolean } | undefined {
  if (object.source === 'Contact' || object.source === 'Account') {
    const crmId = crmIdOf(object.source === 'Contact' ? 'contact' : 'account', id);
    const entry = crmId === undefined ? undefined : data.crm[object.source].entry(crmId);
    return entry ? { entry } : undefined;
  }
  const entry = collectionOf(data, object).entry(id);
  if (entry) return { entry };
  if (object.source !== 'users') return undefined;
  const crmId = crmIdOf('user', id);
  const user = crmId === undefined ? undefined : data.crm.User.entry(crmId);
  return user ? { entry: user, crmUser: true } : undefined;
}

/** Renders an object's records; with the systems given, each with its native shape as `additional`. */
function renderer(connection: ConnectionState, data: ConnectionData, object: EngagementObject, now: number, downstreamFor?: typeof DownstreamFor) {
  const view = engagementView(object);
  const context: ViewContext = { integrationId: connection.integrationId, data, index: engagementIndex(data) };
  if (!downstreamFor) return (entry: Entry<unknown>) => view(entry, context);
  const system = downstreamFor(connection.integrationId);
  const native = { org: connection.org, data, now };
  return (entry: Entry<unknown>) => {
    let additional: Record<string, unknown>;
    if (object.source === 'Contact' || object.source === 'Account') {
      additional = system.nativeRecord(object.source, entry.record as CrmRecord, entry.extra, native);
    } else if (object.source === 'users' || object.source === 'mailboxes') {
      additional = system.nativeEngagement(object.source, entry.record as never, entry.extra, native);
    } else {
      additional = system.nativeActivity?.(object.source, entry as Entry<never>, native) ?? {};
    }
    return { ...view(entry, context), additional };
  };
}

/** A cached answer: the views show other collections (a contact its tasks), so an answer lives while nothing in the connection changed. */
function cached(deps: Deps, data: ConnectionData, key: string, render: () => string): Reply {
  const page = deps.pages.get(data, key, render);
  return pageReply(page);
}

const opId = (verb: string, object: EngagementObject, plural = false) => `${verb}Engagement${pascal(plural ? object.listKey : object.key)}`;

function list(object: EngagementObject): Route<Uses> {
  return {
    method: 'GET',
    pattern: `/engagement/${object.many}`,
    operationId: opId('list', object, true),
    summary: `A page of the connection's ${object.listKey} (409 while it is NEW_CONNECTION)`,
    tag: 'Engagement',
    query: [accessTokenQuery, allFieldsQuery, ...pageQuery],
    ok: { status: 200, schema: (out) => out.engagementPageSchema(object), description: `A page of ${object.listKey}` },
    errors: [409],
    handler: (ctx, deps) => {
      const accessToken = requiredQuery(ctx, 'accessToken');
      const allFields = parseBoolean(queryParam(ctx.query, 'allFields'), 'allFields');
      const connection = engagementConnection(ctx, accessToken, object);
      const page = pageRequest(ctx, object.many, connection.connectionId);
      // A connection's first call seeds its data set in pieces (decision 0038).
      return deps.registry.withData(connection, (data) => {
        const collection = collectionOf(data, object);
        const names = { key: object.listKey, list: object.many, connectionId: connection.connectionId };
        return withSystems(allFields, (downstreamFor) =>
          cached(deps, data, `engagement:${object.name}:${page.afterSeq}:${page.limit}:${allFields}`, () =>
            JSON.stringify(pageBody(collection, page, names, renderer(connection, data, object, deps.clock.now(), downstreamFor))),
          ),
        );
      });
    },
  };
}

function get(object: EngagementObject): Route<Uses> {
  return {
    method: 'GET',
    pattern: `/engagement/${object.one}`,
    operationId: opId('get', object),
    summary: `One ${object.name} by id`,
    tag: 'Engagement',
    query: [
      accessTokenQuery,
      { name: 'id', required: true, description: `The ${object.name}'s id (32 hex characters)`, schema: { type: 'string' } },
      allFieldsQuery,
    ],
    ok: { status: 200, schema: (out) => out.engagementOneSchema(object), description: `The ${object.name}` },
    errors: [409],
    handler: (ctx, deps) => {
      const accessToken = requiredQuery(ctx, 'accessToken');
      const allFields = parseBoolean(queryParam(ctx.query, 'allFields'), 'allFields');
      const id = requiredQuery(ctx, 'id');
      const connection = engagementConnection(ctx, accessToken, object);
      // A connection's first call seeds its data set in pieces (decision 0038).
      return deps.registry.withData(connection, (data) => {
        const found = entryOf(data, object, id);
        if (!found) throw ApiError.notFound(object.name, id, 'id');
        if (found.crmUser) {
          // A CRM user owns contacts and accounts: found as the native users/{id} finds it.
          return withSystems(allFields, (downstreamFor) => {
            const view = crmUserView(found.entry.record as CrmRecord);
            if (!downstreamFor) return { body: { [object.key]: view } };
            const native = downstreamFor(connection.integrationId).nativeRecord('User', found.entry.record as CrmRecord, found.entry.extra, {
              org: connection.org,
              data,
              now: deps.clock.now(),
            });
            return { body: { [object.key]: { ...view, additional: native } } };
          });
        }
        return withSystems(allFields, (downstreamFor) => ({
          body: { [object.key]: renderer(connection, data, object, deps.clock.now(), downstreamFor)(found.entry) },
        }));
      });
    },
  };
}

/** Compiles a search's filters, in pieces: flat ones by field, list ones (`emails: { address: { equals } }`) matching any item. */
function* compileSearch(filters: unknown, object: EngagementObject): Pieces<RecordFilter> {
  const flat = object.filters ?? [];
  const lists = object.listFilters ?? [];
  if (typeof filters !== 'object' || filters === null || Array.isArray(filters)) return yield* compileFiltersInPieces(filters, flat);
  const allowed = [...flat.map((field) => field.key), ...lists.map((list) => list.key)];
  const rest: Record<string, unknown> = {};
  const nested: Array<{ key: string; test: RecordFilter }> = [];
  for (const [key, condition] of Object.entries(filters)) {
    const list = lists.find((candidate) => candidate.key === key);
    if (list) nested.push({ key, test: yield* compileFiltersInPieces(condition, list.fields as FilterField[], `filters.${key}`) });
    else if (flat.some((field) => field.key === key)) rest[key] = condition;
    else throw ApiError.invalidField(`filters.${key}`, `filters.${key} is not a filter of ${object.listKey}; allowed: ${allowed.join(', ')}`, { allowed });
  }
  const test = yield* compileFiltersInPieces(rest, flat);
  return (record) =>
    test(record) &&
    nested.every(({ key, test: item }) => Array.isArray(record[key]) && (record[key] as Array<Record<string, unknown>>).some((value) => item(value)));
}

function search(object: EngagementObject): Route<Uses> {
  return {
    method: 'POST',
    pattern: `/engagement/${object.many}/search`,
    operationId: opId('search', object, true),
    summary: `A page of the ${object.listKey} that match every filter (409 while NEW_CONNECTION)${object.beyondDocument?.includes('search') ? '; not in the document of Feb 2023, used by real clients' : ''}`,
    tag: 'Engagement',
    query: [{ ...accessTokenQuery, required: false, description: "The connection's accessToken (here or in the body)" }, allFieldsQuery, ...pageQuery],
    body: () => engagementSearchBodySchema(object),
    ok: { status: 200, schema: (out) => out.engagementPageSchema(object), description: `A page of matching ${object.listKey}` },
    errors: [409],
    handler: (ctx, deps) => {
      // Read only: parsed once per distinct body text, and its key made once per body.
      const body = ctx.sharedBody();
      const accessToken = bodyToken(ctx, true);
      const allFields = searchAllFields(ctx, body);
      const connection = engagementConnection(ctx, accessToken, object);
      const listName = `${object.many}/search`;
      const page = searchPage(ctx, body, listName, connection.connectionId);
      // A connection's first call seeds its data set in pieces (decision 0038).
      return deps.registry.withData(connection, (data) => {
        const collection = collectionOf(data, object);
        const key = searchKey(ctx, body, page, `engagement:${object.name}:search:${allFields}`);
        return withSystems(allFields, (downstreamFor) => {
          const known = deps.pages.peek(data, key);
          if (known) return pageReply(known);
          // Filters are compiled (and checked) only for an answer not cached yet: a bad one is never cached. In pieces
          // on a real clock, as the walk (decision 0049).
          const compiled = deps.clock.kind === 'real' ? runFromNow(compileSearch(body.filters, object)) : runToEnd(compileSearch(body.filters, object));
          return onceThere(compiled, (filter) => {
            const view = engagementView(object);
            const context: ViewContext = { integrationId: connection.integrationId, data, index: engagementIndex(data) };
            // A view reads other collections (its index): the walk's moment is the whole data set's.
            const found = matchingFor(
              deps.clock,
              collection,
              page,
              () => data.version,
              (entry) => filter(view(entry, context)),
              false,
            );
            return onceThere(found, ({ entries, lastSeq }) =>
              cached(deps, data, key, () =>
                JSON.stringify({
                  [object.listKey]: entries.map(renderer(connection, data, object, deps.clock.now(), downstreamFor)),
                  nextPageCursor: lastSeq === undefined ? null : encodeCursor(listName, connection.connectionId, lastSeq),
                }),
              ),
            );
          });
        });
      });
    },
  };
}

function write(object: EngagementObject, mode: 'create' | 'update'): Route<Uses> {
  const events =
    object.source === 'Contact' || object.source === 'Account' ? ` (emits OBJECT_CHANGE ${object.source} ${mode === 'create' ? 'CREATE' : 'UPDATE'})` : '';
  return {
    method: mode === 'create' ? 'POST' : 'PATCH',
    pattern: `/engagement/${object.one}`,
    operationId: opId(mode, object),
    summary: `${mode === 'create' ? 'Create' : 'Update'} a ${object.name} in the connection's engagement platform${events}`,
    tag: 'Engagement',
    body: () => engagementWriteBodySchema(object, mode),
    ok: { status: 200, schema: (out) => out.idAnswerSchema, description: `The ${object.name}'s id` },
    errors: [409],
    handler: (ctx, deps) =>
      unifiedWrite(
        ctx,
        deps.registry,
        {
          ...(mode === 'update' ? { id: `the ${object.name} to update` } : {}),
          key: object.key,
          missing: `${object.key} is required: the ${object.name}'s fields`,
        },
        (accessToken) => engagementConnection(ctx, accessToken, object),
        async ({ body, connection, data, id, answer }) => {
          const found = id === undefined ? undefined : entryOf(data, object, id);
          if (id !== undefined && !found) throw ApiError.notFound(object.name, id, 'id');
          const { writeEngagement } = await loadEngagementWrites();
          const now = deps.clock.now();
          return answer(writeEngagement({ object, mode, body: body[object.key], connection, data, now, ...(found ? { current: found.entry } : {}) }));
        },
      ),
  };
}

/** POST /engagement/task/complete, /engagement/action/complete and /engagement/sequence/start: `{ accessToken, id, fields }`. */
function act(object: EngagementObject, verb: 'complete' | 'start'): Route<Uses> {
  const summary =
    verb === 'start'
      ? 'Start a contact on a sequence from a mailbox (as a sequence state, cadence membership or contact campaign status): 400 naming the field for a disabled sequence, an unknown contact or mailbox, a contact already in it'
      : object.name === 'Task'
        ? 'Complete a task (a call task logs its call)'
        : 'Complete an action: the contact moves to the next step of its sequence, or finishes it (a call logs its call)';
  return {
    method: 'POST',
    pattern: `/engagement/${object.one}/${verb}`,
    operationId: opId(verb, object),
    summary,
    tag: 'Engagement',
    body: () => engagementActionBodySchema(object),
    ok: {
      status: 200,
      schema: (out) => out.idAnswerSchema,
      description: verb === 'start' ? 'The id of the started sequence state (an action)' : `The ${object.name}'s id`,
    },
    errors: [409],
    handler: (ctx, deps) =>
      unifiedWrite(
        ctx,
        deps.registry,
        {
          id: `the ${object.name} to ${verb}`,
          key: 'fields',
          missing: `fields is required: ${(object.action ?? []).map((item) => item.key).join(', ')}`,
        },
        (accessToken) => engagementConnection(ctx, accessToken, object),
        async ({ body, connection, data, id, answer }) => {
          const found = entryOf(data, object, id!);
          if (!found) throw ApiError.notFound(object.name, id!, 'id');
          const { actEngagement } = await loadEngagementWrites();
          return answer(actEngagement({ object, verb, entry: found.entry, fields: body.fields, connection, data, now: deps.clock.now() }));
        },
      ),
  };
}

/** Every object's routes, in the document's order: list, get, create, update, search, complete, start. The users and mailboxes lists are the spec's. */
export const unifiedEngagementRoutes: Route<Uses>[] = UNIFIED_ENGAGEMENT_OBJECTS.flatMap((object) => {
  const has = (operation: string) => object.operations.includes(operation as never);
  const spec = engagementRoutes.find((route) => route.pattern === `/engagement/${object.many}`);
  return [
    ...(has('list') ? [spec ?? list(object)] : []),
    ...(has('get') ? [get(object)] : []),
    ...(has('create') ? [write(object, 'create')] : []),
    ...(has('update') ? [write(object, 'update')] : []),
    ...(has('search') ? [search(object)] : []),
    ...(has('complete') ? [act(object, 'complete')] : []),
    ...(has('start') ? [act(object, 'start')] : []),
  ];
});
