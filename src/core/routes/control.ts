import * as z from 'zod';
import { connectionStatusSchema } from '../../model/connection.js';
import type { CrmObjectType } from '../../model/crm.js';
import { DELIVERY_STATES } from '../../webhooks/delivery.js';
import { connectionSummary, type ConnectionState } from '../connections.js';
import { ApiError } from '../../shared/errors.js';
import { queryParam } from '../http.js';
import { parseOrThrow } from '../../shared/validation.js';
import { parseObjectType } from '../../model/crm.js';
import type { Route, RouteContext } from './context.js';
import { pageBody, pageRequest } from './pagination.js';

/**
 * The sandbox's own control API, under `/sandbox`: change records (each change emits its
 * OBJECT_CHANGE event, exactly as the same call on the Sandbox object does), force a status,
 * read the delivery log, redeliver. Same `service-api-token` auth as the service's endpoints.
 */
const RECORDS = '/sandbox/connections/:connectionId/records/:objectType';
export const statusBody = z.object({ status: connectionStatusSchema });

function connectionOf(ctx: RouteContext): ConnectionState {
  return ctx.sandbox.parts.registry.get(ctx.apiKey, ctx.params.connectionId!);
}

function objectTypeOf(ctx: RouteContext): CrmObjectType {
  return parseObjectType(ctx.params.objectType!);
}

export const controlRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/sandbox/health',
    public: true,
    handler: () => ({ body: { status: 'ok' } }),
  },
  {
    method: 'GET',
    pattern: RECORDS,
    handler: (ctx) => {
      const connection = connectionOf(ctx);
      const objectType = objectTypeOf(ctx);
      const list = `records.${objectType}`;
      const page = pageRequest(ctx, list, connection.connectionId);
      const collection = ctx.sandbox.parts.registry.dataOf(connection).crm[objectType];
      return { body: pageBody(collection, page, { key: 'records', list, connectionId: connection.connectionId }, (entry) => entry.record) };
    },
  },
  {
    method: 'POST',
    pattern: RECORDS,
    handler: (ctx) => {
      const connection = connectionOf(ctx);
      const record = ctx.sandbox.createRecord(connection.connectionId, objectTypeOf(ctx), ctx.body());
      return { status: 201, body: { record } };
    },
  },
  {
    method: 'GET',
    pattern: `${RECORDS}/:id`,
    handler: (ctx) => {
      const connection = connectionOf(ctx);
      return { body: { record: ctx.sandbox.getRecord(connection.connectionId, objectTypeOf(ctx), ctx.params.id!) } };
    },
  },
  {
    method: 'PATCH',
    pattern: `${RECORDS}/:id`,
    handler: (ctx) => {
      const connection = connectionOf(ctx);
      const objectType = objectTypeOf(ctx);
      return { body: { record: ctx.sandbox.updateRecord(connection.connectionId, objectType, ctx.params.id!, ctx.body()) } };
    },
  },
  {
    method: 'DELETE',
    pattern: `${RECORDS}/:id`,
    handler: (ctx) => {
      const connection = connectionOf(ctx);
      ctx.sandbox.deleteRecord(connection.connectionId, objectTypeOf(ctx), ctx.params.id!);
      return { body: {} };
    },
  },
  {
    method: 'POST',
    pattern: '/sandbox/connections/:connectionId/status',
    handler: (ctx) => {
      const connection = connectionOf(ctx);
      const { status } = parseOrThrow(statusBody, ctx.body());
      ctx.sandbox.setStatus(connection.connectionId, status);
      return { body: { connection: connectionSummary(connection) } };
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId/deliveries',
    handler: (ctx) => {
      const connection = connectionOf(ctx);
      const state = queryParam(ctx.query, 'state');
      if (state !== undefined && !(DELIVERY_STATES as readonly string[]).includes(state)) {
        throw ApiError.invalidField('state', `state must be one of ${DELIVERY_STATES.join(', ')}, got ${JSON.stringify(state)}`);
      }
      const deliveries = ctx.sandbox.deliveries(connection.connectionId).filter((delivery) => state === undefined || delivery.state === state);
      return { body: { deliveries } };
    },
  },
  {
    method: 'POST',
    pattern: '/sandbox/deliveries/:eventId/redeliver',
    handler: async (ctx) => {
      const eventId = ctx.params.eventId!;
      const delivery = ctx.sandbox.parts.dispatcher.get(eventId);
      // Another API token's events are as unknown as missing ones.
      if (!delivery || ctx.sandbox.parts.registry.find(delivery.connectionId)?.apiKey !== ctx.apiKey) {
        throw ApiError.notFound('Delivery', eventId, 'eventId');
      }
      return { body: { delivery: await ctx.sandbox.redeliver(eventId) } };
    },
  },
];
