import { loadDownstream } from '../../downstream/load.js';
import type { downstreamFor as DownstreamFor } from '../../downstream/index.js';
import type { EngagementCollection, EngagementUser, Mailbox } from '../../model/engagement.js';
import type { OrderedCollection } from '../../store/ordered-collection.js';
import { ApiError, ErrorCode } from '../../shared/errors.js';
import { queryParam } from '../http.js';
import { connectionByToken, requiredQuery, type Route, type RouteContext, type RouteHandler } from './context.js';
import { pageBody, pageRequest, parseBoolean } from './pagination.js';

/**
 * `GET /engagement/mailboxes` and `/engagement/users`: a page of records, `additional` only with
 * `allFields=true`, 409 while the connection is still NEW_CONNECTION. Pages are served from a
 * cache of their JSON until the collection changes.
 */
function listEngagement(list: EngagementCollection): RouteHandler {
  return (ctx) => {
    const accessToken = requiredQuery(ctx, 'accessToken');
    const allFields = parseBoolean(queryParam(ctx.query, 'allFields'), 'allFields');
    if (!allFields) return answer(ctx, list, accessToken, undefined);
    // Only `additional` needs the simulated systems: loaded first, before anything is read.
    return loadDownstream().then(({ downstreamFor }) => answer(ctx, list, accessToken, downstreamFor));
  };
}

/** One page; with `allFields` when given the simulated systems (`downstreamFor`). */
function answer(ctx: RouteContext, list: EngagementCollection, accessToken: string, downstreamFor: typeof DownstreamFor | undefined) {
  const allFields = downstreamFor !== undefined;
  const connection = connectionByToken(ctx, accessToken);
  const page = pageRequest(ctx, list, connection.connectionId);
  if (connection.status === 'NEW_CONNECTION') {
    throw new ApiError(409, ErrorCode.CONNECTION_SYNCING, 'data still syncing: the connection has not finished its initial sync', {
      status: connection.status,
    });
  }
  const { registry, clock, pages } = ctx.sandbox.parts;
  const data = registry.dataOf(connection);
  const collection = data[list] as OrderedCollection<Mailbox | EngagementUser>;
  const names = { key: list, list, connectionId: connection.connectionId };
  return pages.get(collection, `${page.afterSeq}:${page.limit}:${allFields}`, () => {
    if (!downstreamFor) return JSON.stringify(pageBody(collection, page, names, (entry) => entry.record));
    const system = downstreamFor(connection.integrationId);
    const context = { org: connection.org, data, now: clock.now() };
    return JSON.stringify(
      pageBody(collection, page, names, (entry) => ({
        ...entry.record,
        additional: system.nativeEngagement(list, entry.record, entry.extra, context),
      })),
    );
  });
}

export const engagementRoutes: Route[] = [
  { method: 'GET', pattern: '/engagement/mailboxes', handler: listEngagement('mailboxes') },
  { method: 'GET', pattern: '/engagement/users', handler: listEngagement('users') },
];
