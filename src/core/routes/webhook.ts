import * as z from 'zod';
import type { Webhook } from '../../model/connection.js';
import { ApiError, ErrorCode } from '../../shared/errors.js';
import { once } from '../../shared/once.js';
import { parseOrThrow } from '../../shared/validation.js';
import type { ConnectionState } from '../connections.js';
import { accessTokenQuery, type Route, type RouteDeps, requiredQuery } from './context.js';

export const createBody = once(() =>
  z.object({
    accessToken: z.string().min(1),
    webhook: z.object({ webhookUrl: z.string().min(1) }),
  }),
);
/** The part of {@link createBody} that describes the webhook, for `sandbox.createWebhook()`. */
const webhookPart = once(() => createBody().pick({ webhook: true }));
export const deleteBody = once(() => z.object({ accessToken: z.string().min(1), webhookId: z.string().min(1) }));

/** A webhook URL must be absolute http(s). */
function checkWebhookUrl(text: string): void {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw ApiError.invalidField('webhook.webhookUrl', `webhook.webhookUrl must be an absolute http or https URL, got ${JSON.stringify(text)}`);
  }
}

function webhookOf(connection: ConnectionState, webhookId: string): Webhook {
  if (connection.webhook?.webhookId !== webhookId) throw ApiError.notFound('Webhook', webhookId, 'webhookId');
  return connection.webhook;
}

/**
 * Creates a connection's webhook, checked as `POST /connection/webhook` checks its body's
 * `webhook` (`webhook.webhookUrl` named in a 400); events waiting for it go out. The route and
 * `sandbox.createWebhook()` both come here.
 */
export function addWebhook({ clock, dispatcher }: Pick<RouteDeps, 'clock' | 'dispatcher'>, connection: ConnectionState, webhook: unknown): Webhook {
  const { webhookUrl } = parseOrThrow(webhookPart(), { webhook }).webhook;
  checkWebhookUrl(webhookUrl);
  if (connection.webhook) {
    throw new ApiError(400, ErrorCode.WEBHOOK_ALREADY_EXISTS, 'this connection already has a webhook; delete it before creating another', {
      webhookId: connection.webhook.webhookId,
    });
  }
  const created: Webhook = {
    webhookId: connection.ids.hex(32),
    connectionId: connection.connectionId,
    webhookUrl,
    createdTime: new Date(clock.now()).toISOString(),
  };
  connection.webhook = created;
  dispatcher.webhookCreated(connection.connectionId);
  return created;
}

/** Deletes a connection's webhook (404 unless `webhookId` is its webhook's); what was pending for it is dropped. */
export function removeWebhook({ dispatcher }: Pick<RouteDeps, 'dispatcher'>, connection: ConnectionState, webhookId: string): void {
  webhookOf(connection, webhookId);
  connection.webhook = undefined;
  dispatcher.webhookDeleted(connection.connectionId);
}

/** One webhook per connection: create, read, delete. No PUT or PATCH: a change is delete then create. */
export const webhookRoutes: Route<'clock' | 'dispatcher'>[] = [
  {
    method: 'POST',
    pattern: '/connection/webhook',
    operationId: 'createWebhook',
    summary: "Create the connection's webhook (one per connection)",
    tag: 'Webhooks',
    body: createBody,
    ok: { status: 200, schema: (out) => z.object({ webhook: out.webhookSchema }), description: 'The webhook' },
    handler: (ctx, deps) => {
      const body = parseOrThrow(createBody(), ctx.body());
      const connection = ctx.connectionByToken(body.accessToken);
      return { body: { webhook: addWebhook(deps, connection, body.webhook) } };
    },
  },
  {
    method: 'GET',
    pattern: '/connection/webhook',
    operationId: 'getWebhook',
    summary: "Read the connection's webhook",
    tag: 'Webhooks',
    query: [accessTokenQuery, { name: 'webhookId', required: true, description: 'The webhook', schema: { type: 'string', minLength: 1 } }],
    ok: { status: 200, schema: (out) => z.object({ webhook: out.webhookSchema }), description: 'The webhook' },
    handler: (ctx) => {
      const connection = ctx.connectionByToken(requiredQuery(ctx, 'accessToken'));
      return { body: { webhook: webhookOf(connection, requiredQuery(ctx, 'webhookId')) } };
    },
  },
  {
    method: 'DELETE',
    pattern: '/connection/webhook',
    operationId: 'deleteWebhook',
    summary: "Delete the connection's webhook",
    tag: 'Webhooks',
    body: deleteBody,
    ok: { status: 200, schema: (out) => out.emptySchema, description: 'Deleted' },
    handler: (ctx, deps) => {
      const body = parseOrThrow(deleteBody(), ctx.body());
      removeWebhook(deps, ctx.connectionByToken(body.accessToken), body.webhookId);
      return { body: {} };
    },
  },
];
