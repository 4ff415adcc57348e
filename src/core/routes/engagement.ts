import type * as z from 'zod';
import type { downstreamFor as DownstreamFor } from '../../downstream/index.js';
import { loadDownstream } from '../../downstream/load.js';
import type { EngagementCollection, EngagementUser, Mailbox } from '../../model/engagement.js';
import type { OrderedCollection } from '../../store/ordered-collection.js';
import { queryParam } from '../http.js';
import type * as ResponseSchemas from '../openapi/response-schemas.js';
import {
  accessTokenQuery,
  checkSynced,
  type QueryParameter,
  type Route,
  type RouteContext,
  type RouteDeps,
  type RouteHandler,
  requiredQuery,
} from './context.js';
import { pageBody, pageQuery, pageRequest, parseBoolean } from './pagination.js';

/**
 * `GET /engagement/mailboxes` and `/engagement/users`: a page of records, `additional` only with
 * `allFields=true`, 409 while the connection is still NEW_CONNECTION. Pages are served from a
 * cache of their JSON until the collection changes.
 */
type Uses = 'registry' | 'clock' | 'pages';

function listEngagement(list: EngagementCollection): RouteHandler<Uses> {
  return (ctx, deps) => {
    const accessToken = requiredQuery(ctx, 'accessToken');
    const allFields = parseBoolean(queryParam(ctx.query, 'allFields'), 'allFields');
    if (!allFields) return answer(ctx, deps, list, accessToken, undefined);
    // Only `additional` needs the simulated systems: loaded first, before anything is read.
    return loadDownstream().then(({ downstreamFor }) => answer(ctx, deps, list, accessToken, downstreamFor));
  };
}

/** One page; with `allFields` when given the simulated systems (`downstreamFor`). */
function answer(
  ctx: RouteContext,
  { registry, clock, pages }: Pick<RouteDeps, Uses>,
  list: EngagementCollection,
  accessToken: string,
  downstreamFor: typeof DownstreamFor | undefined,
) {
  const allFields = downstreamFor !== undefined;
  const connection = ctx.connectionByToken(accessToken);
  const page = pageRequest(ctx, list, connection.connectionId);
  checkSynced(connection);
  // A connection's first read seeds its data set in pieces (decision 0038), then answers.
  return registry.withData(connection, (data) => {
    const collection = data[list] as OrderedCollection<Mailbox | EngagementUser>;
    const names = { key: list, list, connectionId: connection.connectionId };
    return pages.get(
      collection,
      `${page.afterSeq}:${page.limit}:${allFields}`,
      () => {
        if (!downstreamFor) return JSON.stringify(pageBody(collection, page, names, (entry) => entry.record));
        const system = downstreamFor(connection.integrationId);
        const context = { org: connection.org, data, now: clock.now() };
        return JSON.stringify(
          pageBody(collection, page, names, (entry) => ({
            ...entry.record,
            additional: system.nativeEngagement(list, entry.record, entry.extra, context),
          })),
        );
      },
      data,
    );
  });
}

const allFieldsQuery: QueryParameter = {
  name: 'allFields',
  description: 'Also answer the native record as `additional`',
  schema: { type: 'boolean', default: false },
};

const engagementList = (list: EngagementCollection, operationId: string, item: (out: typeof ResponseSchemas) => z.ZodType): Route<Uses> => ({
  method: 'GET',
  pattern: `/engagement/${list}`,
  operationId,
  summary: `A page of the connection's engagement ${list} (409 while it is NEW_CONNECTION)`,
  tag: 'Engagement',
  query: [accessTokenQuery, allFieldsQuery, ...pageQuery],
  ok: { status: 200, schema: (out) => out.pageSchema(list, item(out)), description: `A page of ${list}` },
  errors: [409],
  handler: listEngagement(list),
});

export const engagementRoutes: Route<Uses>[] = [
  engagementList('mailboxes', 'listMailboxes', (out) => out.mailboxItemSchema),
  engagementList('users', 'listEngagementUsers', (out) => out.engagementUserItemSchema),
];
