import * as z from 'zod';
import { once } from '../shared/once.js';
import { CONNECTION_STATUSES, type ConnectionStatus } from './connection-statuses.js';
import type { IntegrationId } from './integrations.js';

/** What an access token looks like (`access_` + 40 lowercase hex); a token fixed ahead of a link must look the same. */
export const ACCESS_TOKEN_PATTERN = /^access_[0-9a-f]{40}$/;

// In a module of their own, without zod, so the inspector's browser bundle can import them.
export { CONNECTION_STATUSES, type ConnectionStatus } from './connection-statuses.js';
export const connectionStatusSchema = once(() => z.enum(CONNECTION_STATUSES));

/** What `POST /link/exchange` answers. */
export interface ExchangeResult {
  connectionId: string;
  accessToken: string;
  integrationId: IntegrationId;
  nativeOrgId: string;
  nativeUserId: string;
  nativeOrgURL: string;
}

/** An item of `GET /connection/connections`, and the `connection` of `GET /connection/connection`. */
export interface ConnectionSummary {
  connectionId: string;
  integrationId: IntegrationId;
  createdTime: string;
  status: ConnectionStatus;
  nativeOrgURL: string;
  lastActivityDate: string;
}

/** A connection's webhook, as `POST` and `GET /connection/webhook` answer it (and a snapshot keeps it). */
export const webhookSchema = once(() =>
  z.object({ webhookId: z.string(), connectionId: z.string(), webhookUrl: z.string(), createdTime: z.string() }).strict(),
);
export type Webhook = z.infer<ReturnType<typeof webhookSchema>>;
