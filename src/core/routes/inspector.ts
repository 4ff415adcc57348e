import type { Webhook } from '../../model/connection.js';
import { signedHeaders } from '../../webhooks/signed-headers.js';
import { connectionSummary, type ConnectionState } from '../connections.js';
import { ApiError } from '../../shared/errors.js';
import type { Route, RouteContext } from './context.js';

/**
 * Control-API routes the inspector (`/sandbox/ui`) needs and the service's own API lacks: a
 * connection with its org and webhook by connectionId, and a delivery with the exact body and
 * the signed headers of each attempt. Same `service-api-token` auth and tenancy as the rest.
 */

/** A connection as the inspector shows it: the list item plus who the org is and its webhook. */
export function inspectedConnection(connection: ConnectionState) {
  return {
    ...connectionSummary(connection),
    nativeOrgId: connection.org.nativeOrgId,
    nativeUserId: connection.org.nativeUserId,
    orgName: connection.orgName,
    webhook: connection.webhook ?? null,
  };
}

function connectionOf(ctx: RouteContext): ConnectionState {
  return ctx.sandbox.parts.registry.get(ctx.apiKey, ctx.params.connectionId!);
}

export const inspectorRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/sandbox/connections',
    handler: (ctx) => ({ body: { connections: ctx.sandbox.parts.registry.list(ctx.apiKey).map(inspectedConnection) } }),
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId',
    // One connection also says what a scenario or a receiver needs: its accessToken, and its delivery chaos.
    handler: (ctx) => {
      const connection = connectionOf(ctx);
      return {
        body: { connection: { ...inspectedConnection(connection), accessToken: connection.accessToken, chaos: ctx.sandbox.chaos(connection.connectionId) } },
      };
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId/webhook',
    handler: (ctx): { body: { webhook: Webhook | null } } => ({ body: { webhook: connectionOf(ctx).webhook ?? null } }),
  },
  {
    method: 'GET',
    pattern: '/sandbox/deliveries/:eventId',
    handler: (ctx) => {
      const eventId = ctx.params.eventId!;
      const { dispatcher, registry } = ctx.sandbox.parts;
      const delivery = dispatcher.get(eventId);
      const connection = delivery && registry.find(delivery.connectionId);
      const body = dispatcher.bodyOf(eventId);
      // Another API token's events are as unknown as missing ones.
      if (!delivery || !connection || connection.apiKey !== ctx.apiKey || body === undefined) {
        throw ApiError.notFound('Delivery', eventId, 'eventId');
      }
      const attempts = delivery.attempts.map((attempt) => ({
        ...attempt,
        headers: signedHeaders(connection.accessToken, connection.connectionId, body, attempt.timestamp),
      }));
      return { body: { delivery: { ...delivery, attempts, body } } };
    },
  },
];
