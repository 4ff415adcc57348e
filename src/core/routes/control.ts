import * as z from 'zod';
import { connectionStatusSchema } from '../../model/connection.js';
import { CRM_OBJECT_TYPES, type CrmObjectType, type CrmRecord, crmWriteSchema, parseObjectType } from '../../model/crm.js';
import { durationProblem, parseDuration } from '../../shared/duration.js';
import { ApiError } from '../../shared/errors.js';
import { jsonInPieces } from '../../shared/json-in-pieces.js';
import { once } from '../../shared/once.js';
import { runInTurns, runToEnd } from '../../shared/pieces.js';
import { parseOrThrow } from '../../shared/validation.js';
import type { Entry } from '../../store/ordered-collection.js';
import { unifiedView } from '../../unified/view.js';
import { DELIVERY_STATES } from '../../webhooks/delivery.js';
import { connectionSummary } from '../connections.js';
import { queryParam } from '../http.js';
import type { Route, RouteContext } from './context.js';
import { pageBody, pageQuery, pageRequest } from './pagination.js';

/**
 * The sandbox's own control API, under `/sandbox`: change records (each change emits its
 * OBJECT_CHANGE event, exactly as the same call on the Sandbox object does), force a status,
 * read the delivery log, redeliver. Same `service-api-token` auth as the service's endpoints.
 */
const RECORDS = '/sandbox/connections/:connectionId/records/:objectType';
export const statusBody = once(() => z.object({ status: connectionStatusSchema() }));
/**
 * A record's fields, as the document shows them (the routes check them per type): made on first
 * use, as building every type's write schema would slow every sandbox's start.
 */
let recordWriteSchema: z.ZodType | undefined;
const recordWrite = () =>
  (recordWriteSchema ??= z
    .union(CRM_OBJECT_TYPES.map((type) => crmWriteSchema(type)))
    .describe("The fields of the path's objectType (see the record schemas); unknown fields are a 400"));

function objectTypeOf(ctx: RouteContext): CrmObjectType {
  return parseObjectType(ctx.params.objectType!);
}

export const controlRoutes: Route<'registry' | 'dispatcher' | 'records' | 'connections' | 'deliveries' | 'clock'>[] = [
  {
    method: 'GET',
    pattern: '/sandbox/health',
    public: true,
    operationId: 'health',
    summary: 'Liveness',
    tag: 'Sandbox control',
    ok: { status: 200, schema: () => z.object({ status: z.literal('ok') }), description: 'Up' },
    handler: () => ({ body: { status: 'ok' } }),
  },
  {
    method: 'GET',
    pattern: RECORDS,
    operationId: 'listRecords',
    summary: 'A page of records of one type',
    tag: 'Sandbox control',
    query: pageQuery,
    ok: { status: 200, schema: (out) => out.pageSchema('records', out.anyRecordSchema), description: 'A page of records' },
    handler: (ctx, { registry }) => {
      const connection = ctx.connection();
      const objectType = objectTypeOf(ctx);
      const list = `records.${objectType}`;
      const page = pageRequest(ctx, list, connection.connectionId);
      return registry.withData(connection, (data) => {
        const collection = data.crm[objectType];
        const view = (entry: Entry<CrmRecord>) => unifiedView(connection.integrationId, objectType, entry.record);
        return { body: pageBody(collection, page, { key: 'records', list, connectionId: connection.connectionId }, view) };
      });
    },
  },
  {
    method: 'POST',
    pattern: RECORDS,
    operationId: 'createRecord',
    summary: 'Create a record (emits OBJECT_CHANGE CREATE)',
    tag: 'Sandbox control',
    body: recordWrite,
    ok: { status: 201, schema: (out) => out.recordBodySchema, description: 'The record' },
    // Checked as before; a connection's first write seeds its data set in pieces (withData), then writes.
    handler: (ctx, { records, registry }) => {
      const connection = ctx.connection();
      const objectType = objectTypeOf(ctx);
      const fields = ctx.body();
      return registry.withData(connection, () => ({ status: 201, body: { record: records.createRecord(connection.connectionId, objectType, fields) } }));
    },
  },
  {
    method: 'GET',
    pattern: `${RECORDS}/:id`,
    operationId: 'getRecord',
    summary: 'One record',
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => out.recordBodySchema, description: 'The record' },
    handler: (ctx, { records, registry }) => {
      const connection = ctx.connection();
      const objectType = objectTypeOf(ctx);
      return registry.withData(connection, () => ({ body: { record: records.getRecord(connection.connectionId, objectType, ctx.params.id!) } }));
    },
  },
  {
    method: 'PATCH',
    pattern: `${RECORDS}/:id`,
    operationId: 'updateRecord',
    summary: 'Update a record (emits OBJECT_CHANGE UPDATE)',
    tag: 'Sandbox control',
    body: recordWrite,
    ok: { status: 200, schema: (out) => out.recordBodySchema, description: 'The record' },
    handler: (ctx, { records, registry }) => {
      const connection = ctx.connection();
      const objectType = objectTypeOf(ctx);
      const fields = ctx.body();
      return registry.withData(connection, () => ({ body: { record: records.updateRecord(connection.connectionId, objectType, ctx.params.id!, fields) } }));
    },
  },
  {
    method: 'DELETE',
    pattern: `${RECORDS}/:id`,
    operationId: 'deleteRecord',
    summary: 'Delete a record (emits OBJECT_CHANGE DELETE)',
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => out.emptySchema, description: 'Deleted' },
    handler: (ctx, { records, registry }) => {
      const connection = ctx.connection();
      const objectType = objectTypeOf(ctx);
      return registry.withData(connection, () => {
        records.deleteRecord(connection.connectionId, objectType, ctx.params.id!);
        return { body: {} };
      });
    },
  },
  {
    method: 'POST',
    pattern: '/sandbox/connections/:connectionId/status',
    operationId: 'setConnectionStatus',
    summary: 'Force a status (emits STATUS_CHANGE)',
    tag: 'Sandbox control',
    body: statusBody,
    ok: { status: 200, schema: (out) => z.object({ connection: out.connectionSummarySchema }), description: 'The connection' },
    handler: (ctx, { connections }) => {
      const connection = ctx.connection();
      const { status } = parseOrThrow(statusBody(), ctx.body());
      connections.setStatus(connection.connectionId, status);
      return { body: { connection: connectionSummary(connection) } };
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/connections/:connectionId/deliveries',
    operationId: 'listDeliveries',
    summary: "The connection's delivery log",
    tag: 'Sandbox control',
    query: [{ name: 'state', description: 'Only deliveries in this state', schema: { type: 'string', enum: [...DELIVERY_STATES] } }],
    ok: { status: 200, schema: (out) => z.object({ deliveries: z.array(out.deliverySchema) }), description: 'The deliveries' },
    handler: (ctx, { dispatcher, clock }) => {
      const connection = ctx.connection();
      const state = queryParam(ctx.query, 'state');
      if (state !== undefined && !(DELIVERY_STATES as readonly string[]).includes(state)) {
        throw ApiError.invalidField('state', `state must be one of ${DELIVERY_STATES.join(', ')}, got ${JSON.stringify(state)}`);
      }
      // Read at one moment, then written a delivery a piece, with turns of the event loop between on a real clock
      // (10,000 are 8 MB of JSON; docs/decisions/0040); at once on a virtual one, as calls made together always ran.
      const moments = dispatcher.moments(connection.connectionId).filter((moment) => state === undefined || moment.state === state);
      const pieces = jsonInPieces(
        (function* () {
          yield '{"deliveries":[';
          for (const [index, moment] of moments.entries()) yield `${index === 0 ? '' : ','}${dispatcher.momentJson(moment)}`;
          yield ']}';
        })(),
      );
      return clock.kind === 'real' ? runInTurns(pieces) : runToEnd(pieces);
    },
  },
  {
    method: 'GET',
    pattern: '/sandbox/attempts',
    operationId: 'listAttempts',
    summary: "The caller's delivery attempts after a point, as they are made: what crm-sandbox listen prints",
    tag: 'Sandbox control',
    query: [
      { name: 'after', description: 'The `next` of the answer before (0 or absent: from the first read on)', schema: { type: 'integer', minimum: 0 } },
      { name: 'connectionId', description: "Only this connection's attempts", schema: { type: 'string' } },
      {
        name: 'wait',
        description: 'On a real clock, wait up to this long (at most 30s) for an attempt when there is none yet: 25s',
        schema: { type: 'string' },
      },
    ],
    ok: { status: 200, schema: (out) => out.attemptFeedSchema, description: 'The attempts after `after`, oldest first' },
    handler: async (ctx, { dispatcher }) => {
      const after = queryParam(ctx.query, 'after') ?? '0';
      if (!/^\d+$/.test(after))
        throw ApiError.invalidField('after', `after must be the next of the answer before (an integer of 0 or more), got ${JSON.stringify(after)}`);
      const connectionId = queryParam(ctx.query, 'connectionId');
      if (connectionId !== undefined) ctx.connection(connectionId);
      const wait = queryParam(ctx.query, 'wait');
      const problem = wait === undefined ? undefined : durationProblem(wait);
      if (problem !== undefined) throw ApiError.invalidField('wait', `wait ${problem}`);
      const waitMs = wait === undefined ? 0 : parseDuration(wait, 'wait');
      return { body: await dispatcher.readAttempts(ctx.apiKey, Number(after), { connectionId, waitMs }) };
    },
  },
  {
    method: 'POST',
    pattern: '/sandbox/connections/:connectionId/deliveries/retry',
    operationId: 'retryDeliveries',
    summary: 'Retry now: the failed event its later events wait behind is sent again at once; once accepted, they follow',
    tag: 'Sandbox control',
    ok: {
      status: 200,
      schema: (out) => z.object({ deliveries: z.array(out.deliverySchema) }),
      description: 'The deliveries retried, after their attempt (none when nothing waits on a retry)',
    },
    handler: async (ctx, { deliveries }) => {
      const connection = ctx.connection();
      return { body: { deliveries: await deliveries.retryDeliveries(connection.connectionId) } };
    },
  },
  {
    method: 'POST',
    pattern: '/sandbox/deliveries/:eventId/redeliver',
    operationId: 'redeliver',
    summary: 'Deliver an event again now',
    tag: 'Sandbox control',
    ok: { status: 200, schema: (out) => z.object({ delivery: out.deliverySchema }), description: 'The delivery' },
    errors: [409],
    handler: async (ctx, { dispatcher, registry, deliveries }) => {
      const eventId = ctx.params.eventId!;
      const delivery = dispatcher.get(eventId);
      // Another API token's events are as unknown as missing ones.
      if (!delivery || registry.find(delivery.connectionId)?.apiKey !== ctx.apiKey) {
        throw ApiError.notFound('Delivery', eventId, 'eventId');
      }
      return { body: { delivery: await deliveries.redeliver(eventId) } };
    },
  },
];
