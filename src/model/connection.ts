import { z } from 'zod';
import type { IntegrationId } from './integrations.js';

/** Connection statuses, in lifecycle order. */
export const CONNECTION_STATUSES = ['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
export const connectionStatusSchema = z.enum(CONNECTION_STATUSES);

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

/** A connection's webhook, as `POST` and `GET /connection/webhook` answer it. */
export interface Webhook {
  webhookId: string;
  connectionId: string;
  webhookUrl: string;
  createdTime: string;
}
