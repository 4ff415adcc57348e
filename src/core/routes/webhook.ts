import * as z from 'zod';
import type { ConnectionState } from '../connections.js';
import { ApiError, ErrorCode } from '../../shared/errors.js';
import type { Webhook } from '../../model/connection.js';
import { parseOrThrow } from '../../shared/validation.js';
import { connectionByToken, requiredQuery, type Route } from './context.js';

export const createBody = z.object({
  accessToken: z.string().min(1),
  webhook: z.object({ webhookUrl: z.string().min(1) }),
});
export const deleteBody = z.object({ accessToken: z.string().min(1), webhookId: z.string().min(1) });

/** A webhook URL must be absolute http(s). */
function checkWebhookUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw ApiError.invalidField('webhook.webhookUrl', `webhook.webhookUrl must be an absolute http or https URL, got ${JSON.stringify(text)}`);
  }
  return text;
}

function webhookOf(connection: ConnectionState, webhookId: string): Webhook {
  if (connection.webhook?.webhookId !== webhookId) throw ApiError.notFound('Webhook', webhookId, 'webhookId');
  return connection.webhook;
}

/** One webhook per connection: create, read, delete. No PUT or PATCH: a change is delete then create. */
export const webhookRoutes: Route[] = [
  {
    method: 'POST',
    pattern: '/connection/webhook',
    handler: (ctx) => {
      const body = parseOrThrow(createBody, ctx.body());
      const connection = connectionByToken(ctx, body.accessToken);
      const webhookUrl = checkWebhookUrl(body.webhook.webhookUrl);
      if (connection.webhook) {
        throw new ApiError(400, ErrorCode.WEBHOOK_ALREADY_EXISTS, 'this connection already has a webhook; delete it before creating another', {
          webhookId: connection.webhook.webhookId,
        });
      }
      const { clock, dispatcher } = ctx.sandbox.parts;
      const webhook: Webhook = {
        webhookId: connection.ids.hex(32),
        connectionId: connection.connectionId,
        webhookUrl,
        createdTime: new Date(clock.now()).toISOString(),
      };
      connection.webhook = webhook;
      dispatcher.webhookCreated(connection.connectionId);
      return { body: { webhook } };
    },
  },
  {
    method: 'GET',
    pattern: '/connection/webhook',
    handler: (ctx) => {
      const connection = connectionByToken(ctx, requiredQuery(ctx, 'accessToken'));
      return { body: { webhook: webhookOf(connection, requiredQuery(ctx, 'webhookId')) } };
    },
  },
  {
    method: 'DELETE',
    pattern: '/connection/webhook',
    handler: (ctx) => {
      const body = parseOrThrow(deleteBody, ctx.body());
      const connection = connectionByToken(ctx, body.accessToken);
      webhookOf(connection, body.webhookId);
      connection.webhook = undefined;
      ctx.sandbox.parts.dispatcher.webhookDeleted(connection.connectionId);
      return { body: {} };
    },
  },
];
