import type { downstreamFor as DownstreamFor } from '../../downstream/index.js';
import { loadDownstream } from '../../downstream/load.js';
import type { CrmRecord } from '../../model/crm.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { ApiError, ErrorCode } from '../../shared/errors.js';
import { pascal } from '../../shared/pascal-case.js';
import type { ConnectionData } from '../../store/connection-data.js';
import type { Entry, OrderedCollection } from '../../store/ordered-collection.js';
import { UNIFIED_CRM_OBJECTS, type UnifiedObject } from '../../unified/crm-objects.js';
import { loadFieldDetails, loadUnifiedWrites } from '../../unified/load.js';
import { searchBodySchema, writeBodySchema } from '../../unified/schemas.js';
import { unifiedView } from '../../unified/view.js';
import type { ConnectionState } from '../connections.js';
import { encodeCursor } from '../cursor.js';
import { queryParam, type Reply } from '../http.js';
import { accessTokenQuery, checkSynced, type QueryParameter, type Route, type RouteContext, type RouteDeps, requiredQuery } from './context.js';
import { MAX_LIMIT, pageBody, pageQuery, pageRequest, parseBoolean, readPage } from './pagination.js';
import {
  bodyToken,
  matchingFor,
  onceThere,
  pageReply,
  searchAllFields,
  searchFilter,
  searchKey,
  searchPage,
  unifiedWrite,
  withSystems,
} from './unified-shared.js';

/**
 * The service's unified CRM objects, ten families of seven operations each (users are read
 * only): list, search, get, create, update, details and batch, all derived from one description
 * per object (src/unified/crm-objects.ts). Every one reads and writes the connection's own
 * records, the ones the passthrough shows natively and events carry: a create here is a native
 * create, with its OBJECT_CHANGE event.
 */
type Uses = 'registry' | 'clock' | 'pages';
type Deps = Pick<RouteDeps, Uses>;

/** Most ids one batch read takes. */
export const MAX_BATCH_IDS = MAX_LIMIT;
/** Fields a write named that were not written (now in ./unified-shared.ts; the MCP tools read it from here too). */
export { IGNORED_FIELDS_HEADER } from './unified-shared.js';

const allFieldsQuery: QueryParameter = {
  name: 'allFields',
  description: "Also answer each record in its CRM's native shape, as `additional`",
  schema: { type: 'boolean', default: false },
};
const CRM_INTEGRATIONS = Object.keys(INTEGRATIONS).filter((id) => INTEGRATIONS[id as keyof typeof INTEGRATIONS].category === 'crm');

/**
 * The caller's connection for a unified CRM route: a CRM's (an engagement connection's objects are
 * under /engagement), and synced (409 while NEW_CONNECTION).
 */
function crmConnection(ctx: RouteContext, accessToken: string, object: UnifiedObject): ConnectionState {
  const connection = ctx.connectionByToken(accessToken);
  if (INTEGRATIONS[connection.integrationId].category !== 'crm') {
    throw new ApiError(
      400,
      ErrorCode.INTEGRATION_NOT_SUPPORTED,
      `/crm/${object.many} serves CRM connections (${CRM_INTEGRATIONS.join(', ')}); this connection is ${connection.integrationId}, an engagement integration: use /engagement/…`,
      { field: 'accessToken', integrationId: connection.integrationId },
    );
  }
  checkSynced(connection);
  return connection;
}

/** Renders records of a connection as the unified reads answer them, with `additional` when the systems are given. */
function renderer(connection: ConnectionState, data: ConnectionData, object: UnifiedObject, now: number, downstreamFor?: typeof DownstreamFor) {
  if (!downstreamFor) return (entry: Entry<CrmRecord>) => unifiedView(connection.integrationId, object.type, entry.record);
  const system = downstreamFor(connection.integrationId);
  const context = { org: connection.org, data, now };
  return (entry: Entry<CrmRecord>) => ({
    ...unifiedView(connection.integrationId, object.type, entry.record),
    additional: system.nativeRecord(object.type, entry.record, entry.extra, context),
  });
}

/**
 * Where an answer of a collection is cached: reads of the same page give the same bytes until the
 * data changes. Without `additional` a record shows only itself; with it, its native shape names
 * other records (their native ids), so that answer is kept only while nothing in the connection changed.
 */
interface CacheSlot {
  holder: { version: number };
  key: string;
  /** The connection's data set, which the cache's limit per connection is counted on. */
  owner: ConnectionData;
}
const slotOf = (data: ConnectionData, collection: OrderedCollection<CrmRecord>, key: string, allFields: boolean, type: string): CacheSlot =>
  allFields ? { holder: data, key: `${type}:${key}`, owner: data } : { holder: collection, key, owner: data };

/** The answer cached in `slot`, or the one `render` makes (then cached). */
function cached(deps: Deps, { holder, key, owner }: CacheSlot, render: () => string): Reply {
  const page = deps.pages.get(holder, key, render, owner);
  return pageReply(page);
}

/** The answer cached in `slot`, if there is one now. */
function cachedNow(deps: Deps, { holder, key }: CacheSlot): Reply | undefined {
  const page = deps.pages.peek(holder, key);
  return page && pageReply(page);
}

function list(object: UnifiedObject): Route<Uses> {
  return {
    method: 'GET',
    pattern: `/crm/${object.many}`,
    operationId: `listCrm${pascal(object.listKey)}`,
    summary: `A page of the connection's ${object.listKey} (409 while it is NEW_CONNECTION)`,
    tag: 'CRM',
    query: [accessTokenQuery, allFieldsQuery, ...pageQuery],
    ok: { status: 200, schema: (out) => out.unifiedPageSchema(object), description: `A page of ${object.listKey}` },
    errors: [409],
    handler: (ctx, deps) => {
      const accessToken = requiredQuery(ctx, 'accessToken');
      const allFields = parseBoolean(queryParam(ctx.query, 'allFields'), 'allFields');
      const connection = crmConnection(ctx, accessToken, object);
      const page = pageRequest(ctx, object.many, connection.connectionId);
      // A connection's first call seeds its data set in pieces (decision 0038).
      return deps.registry.withData(connection, (data) => {
        const collection = data.crm[object.type];
        const names = { key: object.listKey, list: object.many, connectionId: connection.connectionId };
        return withSystems(allFields, (downstreamFor) =>
          cached(deps, slotOf(data, collection, `${page.afterSeq}:${page.limit}`, allFields, object.type), () =>
            JSON.stringify(pageBody(collection, page, names, renderer(connection, data, object, deps.clock.now(), downstreamFor))),
          ),
        );
      });
    },
  };
}

function search(object: UnifiedObject): Route<Uses> {
  return {
    method: 'POST',
    pattern: `/crm/${object.many}/search`,
    operationId: `searchCrm${pascal(object.listKey)}`,
    summary: `A page of the ${object.listKey} that match every filter (409 while NEW_CONNECTION)`,
    tag: 'CRM',
    query: [{ ...accessTokenQuery, required: false, description: "The connection's accessToken (here or in the body)" }, allFieldsQuery, ...pageQuery],
    body: () => searchBodySchema(object),
    ok: { status: 200, schema: (out) => out.unifiedPageSchema(object), description: `A page of matching ${object.listKey}` },
    errors: [409],
    handler: (ctx, deps) => {
      // Read only: parsed once per distinct body text, and its filters' key made once per body.
      const body = ctx.sharedBody();
      const accessToken = bodyToken(ctx, true);
      const allFields = searchAllFields(ctx, body);
      const connection = crmConnection(ctx, accessToken, object);
      const list = `${object.many}/search`;
      const page = searchPage(ctx, body, list, connection.connectionId);
      // A connection's first call seeds its data set in pieces (decision 0038).
      return deps.registry.withData(connection, (data) => {
        const collection = data.crm[object.type];
        const key = searchKey(ctx, body, page, 'search');
        return withSystems(allFields, (downstreamFor) => {
          const slot = slotOf(data, collection, key, allFields, object.type);
          const known = cachedNow(deps, slot);
          if (known) return known;
          // Filters are compiled (and checked) only for an answer not cached yet: a bad one is never cached. A 1 MiB
          // body's lists compile in pieces, and the walk goes in pieces by its work (decision 0049); the page is
          // rendered (and kept, when it is of the data as it is now) at once after it.
          return onceThere(searchFilter(deps.clock, body.filters, object.filters), (filter) => {
            const passes = (entry: Entry<CrmRecord>) => filter(unifiedView(connection.integrationId, object.type, entry.record));
            return onceThere(
              matchingFor(deps.clock, collection, page, () => collection.version, passes, true),
              (found) => {
                const render = () =>
                  JSON.stringify({
                    [object.listKey]: found.entries.map(renderer(connection, data, object, deps.clock.now(), downstreamFor)),
                    nextPageCursor: found.lastSeq === undefined ? null : encodeCursor(list, connection.connectionId, found.lastSeq),
                  });
                return found.current ? cached(deps, slot, render) : { json: render() };
              },
            );
          });
        });
      });
    },
  };
}

function get(object: UnifiedObject): Route<Uses> {
  const lookups = object.lookups ?? [];
  return {
    method: 'GET',
    pattern: `/crm/${object.one}`,
    operationId: `getCrm${pascal(object.key)}`,
    summary: `One ${object.type} by id${lookups.map((key) => ` or ${key} (id wins when both are given)`).join('')}`,
    tag: 'CRM',
    query: [
      accessTokenQuery,
      { name: 'id', required: lookups.length === 0, description: `The ${object.type}'s id`, schema: { type: 'string' } },
      ...lookups.map((key) => ({ name: key, description: `Find the ${object.type} by ${key} instead`, schema: { type: 'string' } })),
      allFieldsQuery,
    ],
    ok: { status: 200, schema: (out) => out.unifiedOneSchema(object), description: `The ${object.type}` },
    errors: [409],
    handler: (ctx, deps) => {
      const accessToken = requiredQuery(ctx, 'accessToken');
      const allFields = parseBoolean(queryParam(ctx.query, 'allFields'), 'allFields');
      const id = queryParam(ctx.query, 'id');
      const lookup = lookups.find((key) => queryParam(ctx.query, key));
      if (!id && !lookup) throw ApiError.invalidField('id', `id${lookups.map((key) => ` or ${key}`).join('')} is required`);
      const connection = crmConnection(ctx, accessToken, object);
      // A connection's first call seeds its data set in pieces (decision 0038).
      return deps.registry.withData(connection, (data) => {
        const entry = id ? data.crm[object.type].entry(id) : findBy(connection, data, object, lookup!, queryParam(ctx.query, lookup!)!);
        if (!entry) throw ApiError.notFound(object.type, id || queryParam(ctx.query, lookup!)!, id ? 'id' : lookup);
        return withSystems(allFields, (downstreamFor) => ({
          body: { [object.key]: renderer(connection, data, object, deps.clock.now(), downstreamFor)(entry) },
        }));
      });
    },
  };
}

/** The first record whose field (as answered) equals the value, oldest first. */
function findBy(connection: ConnectionState, data: ConnectionData, object: UnifiedObject, field: string, value: string): Entry<CrmRecord> | undefined {
  for (const entry of data.crm[object.type].entriesAfter(0)) {
    if ((unifiedView(connection.integrationId, object.type, entry.record) as Record<string, unknown>)[field] === value) return entry;
  }
  return undefined;
}

function batch(object: UnifiedObject): Route<Uses> {
  return {
    method: 'GET',
    pattern: `/crm/${object.one}/batch`,
    operationId: `batchCrm${pascal(object.listKey)}`,
    summary: `The ${object.listKey} of the ids given, and the ids that name none`,
    tag: 'CRM',
    query: [
      accessTokenQuery,
      { name: 'ids', required: true, description: `Comma-separated ids, at most ${MAX_BATCH_IDS}`, schema: { type: 'string' } },
      allFieldsQuery,
    ],
    ok: { status: 200, schema: (out) => out.unifiedBatchSchema(object), description: `The ${object.listKey} found and the invalid ids` },
    errors: [409],
    handler: (ctx, deps) => {
      const accessToken = requiredQuery(ctx, 'accessToken');
      const allFields = parseBoolean(queryParam(ctx.query, 'allFields'), 'allFields');
      const ids = [
        ...new Set(
          requiredQuery(ctx, 'ids')
            .split(',')
            .map((id) => id.trim())
            .filter(Boolean),
        ),
      ];
      if (ids.length === 0) throw ApiError.invalidField('ids', 'ids must name at least one id (comma-separated)');
      if (ids.length > MAX_BATCH_IDS)
        throw ApiError.invalidField('ids', `ids may name at most ${MAX_BATCH_IDS} ids, got ${ids.length}`, { limit: MAX_BATCH_IDS });
      const connection = crmConnection(ctx, accessToken, object);
      // A connection's first call seeds its data set in pieces (decision 0038).
      return deps.registry.withData(connection, (data) => {
        const collection = data.crm[object.type];
        return withSystems(allFields, (downstreamFor) => {
          const render = renderer(connection, data, object, deps.clock.now(), downstreamFor);
          const found = ids.flatMap((id) => {
            const entry = collection.entry(id);
            return entry ? [render(entry)] : [];
          });
          return { body: { [object.listKey]: found, invalidIds: ids.filter((id) => !collection.has(id)) } };
        });
      });
    },
  };
}

function details(object: UnifiedObject): Route<Uses> {
  return {
    method: 'GET',
    pattern: `/crm/${object.one}/details`,
    operationId: `getCrm${pascal(object.key)}Details`,
    summary: `The fields of ${object.type} on the connection's CRM: unified, custom and (allFields=true) native`,
    tag: 'CRM',
    query: [accessTokenQuery, { name: 'cursor', description: 'Unused: the fields come in one page', schema: { type: 'string' } }, allFieldsQuery],
    ok: { status: 200, schema: (out) => out.fieldDetailsSchema(), description: 'The fields, in one page' },
    errors: [409],
    handler: async (ctx) => {
      const accessToken = requiredQuery(ctx, 'accessToken');
      const allFields = parseBoolean(queryParam(ctx.query, 'allFields'), 'allFields');
      const connection = crmConnection(ctx, accessToken, object);
      readPage(undefined, queryParam(ctx.query, 'cursor'), `${object.one}/details`, connection.connectionId);
      const [{ fieldDetails }, { nativeObjectOf }] = await Promise.all([loadFieldDetails(), loadDownstream()]);
      const native = nativeObjectOf(connection.integrationId, object.type)?.object;
      return { body: { fields: fieldDetails(object, connection.integrationId, native, allFields), nextPageCursor: null } };
    },
  };
}

function write(object: UnifiedObject, mode: 'create' | 'update'): Route<Uses> {
  return {
    method: mode === 'create' ? 'POST' : 'PATCH',
    pattern: `/crm/${object.one}`,
    operationId: `${mode}Crm${pascal(object.key)}`,
    summary: `${mode === 'create' ? 'Create' : 'Update'} a ${object.type} in the connection's CRM (emits OBJECT_CHANGE ${mode === 'create' ? 'CREATE' : 'UPDATE'})`,
    tag: 'CRM',
    body: () => writeBodySchema(object, mode),
    ok: { status: 200, schema: (out) => out.idAnswerSchema, description: `The ${object.type}'s id` },
    errors: [409],
    handler: (ctx, deps) =>
      unifiedWrite(
        ctx,
        deps.registry,
        {
          ...(mode === 'update' ? { id: `the ${object.type} to update` } : {}),
          key: object.key,
          missing: `${object.key} is required: the ${object.type}'s fields`,
        },
        (accessToken) => crmConnection(ctx, accessToken, object),
        async ({ body, connection, data, id, answer }) => {
          const current = id === undefined ? undefined : data.get(object.type, id);
          const { writeCrm } = await loadUnifiedWrites();
          return answer(writeCrm({ object, mode, body: body[object.key], connection, data, now: deps.clock.now(), ...(current ? { current } : {}) }));
        },
      ),
  };
}

/** Every family's routes, in the order of the service's document: list, search, get, create, update, details, batch. */
export const unifiedCrmRoutes: Route<Uses>[] = UNIFIED_CRM_OBJECTS.flatMap((object) => [
  list(object),
  search(object),
  get(object),
  ...(object.readOnly ? [] : [write(object, 'create'), write(object, 'update')]),
  details(object),
  batch(object),
]);
