import type { CrmRecord } from '../model/crm.js';
import { mapPieces } from '../shared/pieces.js';
import {
  createRecord,
  deleteRecord,
  FieldError,
  type Found,
  findRecord,
  type NativeFields,
  type NativeObject,
  pageOf,
  updateRecord,
  type WritePolicy,
} from './rest-engine.js';
import type { Params, Route } from './router.js';
import type { DownstreamAnswer, DownstreamContext, DownstreamRequest, DownstreamResponse, PassthroughMethod } from './types.js';
import { collectInPieces, WALK_PIECE } from './walk-in-pieces.js';

/** A list request's window, and how many records there are in all. */
export interface Window {
  offset: number;
  limit: number;
  total: number;
}

/**
 * A REST API of collections and items (`v1/persons`, `v1/persons/{id}`), the shape most of the
 * systems share. The system supplies its paging, its envelopes and its error bodies.
 */
export interface CollectionApi {
  /** Path segment → the native objects served there (several for Pipedrive `activities`). */
  collections: Record<string, readonly NativeObject[]>;
  /** Path before the collection segment, without slashes (`crm/v3/objects`), or ''. */
  prefix: string;
  updateMethod: 'PUT' | 'PATCH';
  policy: WritePolicy;
  /** The offset and limit of a list request; a FieldError for bad paging. */
  window(request: DownstreamRequest): { offset: number; limit: number };
  /** The native fields of a write body; a FieldError (kind `body`) for a malformed one. */
  unwrap(body: unknown, collection: string): NativeFields;
  /** One record in its native shape; the request is there for systems whose query shapes it (`?properties=`). */
  render(object: NativeObject, record: CrmRecord, extra: Record<string, unknown>, context: DownstreamContext, request?: DownstreamRequest): unknown;
  list(items: unknown[], window: Window, collection: string, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse;
  one(item: unknown, found: Found, collection: string, context: DownstreamContext): DownstreamResponse;
  created(item: unknown, found: Found, collection: string, context: DownstreamContext): DownstreamResponse;
  updated(item: unknown, found: Found, collection: string, context: DownstreamContext): DownstreamResponse;
  deleted(found: Found, collection: string, context: DownstreamContext): DownstreamResponse;
  /** No record with this id in the collection. */
  missing(collection: string, id: string, request: DownstreamRequest): DownstreamResponse;
}

const renderFound = (api: CollectionApi, found: Found, context: DownstreamContext, request: DownstreamRequest) =>
  api.render(found.object, found.entry.record, found.entry.extra, context, request);

/** The handlers of one collection, for systems whose paths differ from the usual two (Apollo's `…/search`). */
export function collectionHandlers(api: CollectionApi, name: string) {
  const objects = api.collections[name]!;
  const withRecord =
    (run: (found: Found, request: DownstreamRequest, context: DownstreamContext) => DownstreamResponse) =>
    (params: Params, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse => {
      const found = findRecord(objects, params.id!, context.data);
      return found ? run(found, request, context) : api.missing(name, params.id!, request);
    };
  return {
    list: (_params: Params, request: DownstreamRequest, context: DownstreamContext): DownstreamAnswer => {
      const { offset, limit } = api.window(request);
      const { found, total } = pageOf(objects, offset, limit, context.data);
      const answer = (items: unknown[]) => api.list(items, { offset, limit, total }, name, request, context);
      const render = (item: Found) => renderFound(api, item, context, request);
      // A long page (Outreach takes up to 1,000 a page, Pipedrive 500) is rendered in pieces (decision 0042).
      return found.length <= WALK_PIECE ? answer(found.map(render)) : mapPieces(collectInPieces(found, render), answer);
    },
    create: (_params: Params, request: DownstreamRequest, context: DownstreamContext) => {
      const body = api.unwrap(request.body, name);
      const object = objects.find((candidate) => candidate.accepts?.(body) ?? true);
      if (!object) throw new FieldError(undefined, `request body matches no ${name} type`, 'value');
      const found = createRecord(object, body, api.policy, context);
      return api.created(renderFound(api, found, context, request), found, name, context);
    },
    get: withRecord((found, request, context) => api.one(renderFound(api, found, context, request), found, name, context)),
    update: withRecord((found, request, context) => {
      updateRecord(found, api.unwrap(request.body, name), api.policy, context);
      return api.updated(renderFound(api, found, context, request), found, name, context);
    }),
    remove: withRecord((found, _request, context) => {
      deleteRecord(found, context);
      return api.deleted(found, name, context);
    }),
  };
}

/**
 * `{prefix}/{collection}` (GET list, POST create) and `…/{id}` (GET, update, DELETE) for every
 * collection. `reads: false` leaves both GETs out, for a system that serves its reads with
 * routes of its own (HubSpot's archived and `idProperty` reads).
 */
export function collectionRoutes(api: CollectionApi, options: { reads?: boolean } = {}): Route[] {
  const reads = options.reads ?? true;
  const routes: Route[] = [];
  for (const name of Object.keys(api.collections)) {
    const handlers = collectionHandlers(api, name);
    const path = api.prefix ? `${api.prefix}/${name}` : name;
    const readOnly = api.collections[name]!.every((object) => object.readOnly);
    const itemMethods: PassthroughMethod[] = [...(reads ? ['GET' as const] : []), ...(readOnly ? [] : [api.updateMethod, 'DELETE' as const])];
    if (itemMethods.length === 0) continue;
    routes.push(
      ...(reads ? [{ method: 'GET' as const, pattern: path, run: handlers.list }] : []),
      ...(readOnly ? [] : [{ method: 'POST' as const, pattern: path, run: handlers.create }]),
      {
        method: itemMethods,
        pattern: `${path}/:id`,
        run: (params, request, context) =>
          request.method === 'GET'
            ? handlers.get(params, request, context)
            : request.method === 'DELETE'
              ? handlers.remove(params, request, context)
              : handlers.update(params, request, context),
      },
    );
  }
  return routes;
}
