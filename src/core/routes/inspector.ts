import * as z from 'zod';
import type { Webhook } from '../../model/connection.js';
import { ApiError } from '../../shared/errors.js';
import { signedHeaders } from '../../webhooks/signed-headers.js';
import { type ConnectionState, connectionSummary } from '../connections.js';
import type { Route } from './context.js';

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

export const inspectorRoutes: Route<'registry' | 'dispatcher' | 'deliveries'>[] = [
  {
    method: 'GET',
    pattern: '/sandbox/connections',
    operationId: 'inspectConnections',
    summary: 'Connections with their org and webhook',
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ connections: z.array(out.inspectedConnectionSchema) }), description: 'The connections' },
    handler: (ctx, { registry }) => ({ body: { connections: registry.list(ctx.apiKey).map(inspectedConnection) } }),
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId',
    operationId: 'inspectConnection',
    summary: 'One connection with its org, webhook, accessToken and chaos',
    tag: 'Sandbox control',
    ok: {
      status: 200,
      schema: (out) => z.object({ connection: out.inspectedConnectionSchema.extend({ accessToken: z.string(), chaos: out.chaosOutputSchema }) }),
      description: 'The connection',
    },
    // One connection also says what a scenario or a receiver needs: its accessToken, and its delivery chaos.
    handler: (ctx, { deliveries }) => {
      const connection = ctx.connection();
      return {
        body: { connection: { ...inspectedConnection(connection), accessToken: connection.accessToken, chaos: deliveries.chaos(connection.connectionId) } },
      };
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId/webhook',
    operationId: 'inspectWebhook',
    summary: "The connection's webhook, or null",
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ webhook: out.webhookSchema.nullable() }), description: 'The webhook' },
    handler: (ctx): { body: { webhook: Webhook | null } } => ({ body: { webhook: ctx.connection().webhook ?? null } }),
  },
  {
    method: 'GET',
    pattern: '/sandbox/deliveries/:eventId',
    operationId: 'inspectDelivery',
    summary: 'A delivery with its exact body and the signed headers of each attempt',
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ delivery: out.deliveryDetailSchema }), description: 'The delivery' },
    handler: (ctx, { dispatcher, registry }) => {
      const eventId = ctx.params.eventId!;
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
