import type { Clock, Timer } from '../clock/clock.js';
import type { ConnectionStatus, ConnectionSummary, ExchangeResult, Webhook } from '../model/connection.js';
import { INTEGRATIONS, type IntegrationId, type NativeOrg } from '../model/integrations.js';
import { ConnectionData, type RecordChange } from '../store/connection-data.js';
import type { FixtureSet } from '../store/fixtures.js';
import { seedConnection, type DatasetSize } from '../store/seed/seed-connection.js';
import { orgFaker, seededFaker } from '../store/seed/seeded-faker.js';
import { ApiError, ErrorCode } from './errors.js';
import type { Random } from './random.js';

/** Everything the sandbox knows about one connection. */
export interface ConnectionState {
  readonly connectionId: string;
  readonly accessToken: string;
  /** The API token that exchanged it: only that token sees it. */
  readonly apiKey: string;
  readonly integrationId: IntegrationId;
  readonly org: NativeOrg;
  readonly nativeOrgURL: string;
  readonly createdTime: number;
  /** The connection's own random stream: its data, ids and values are forks of it. */
  readonly random: Random;
  status: ConnectionStatus;
  lastActivity: number;
  webhook: Webhook | undefined;
  /** Pending automatic status moves. */
  lifecycle: Timer[];
  /** Built on first use: many tests never read a connection's records. */
  data: ConnectionData | undefined;
  /** Ids minted for this connection after its creation (webhook ids). */
  readonly ids: Random;
}

interface LinkToken {
  apiKey: string;
  expiresAt: number;
}

interface PublicToken {
  apiKey: string;
  integrationId: IntegrationId;
  nativeOrgId: string | undefined;
  expiresAt: number;
  used: boolean;
}

export interface ConnectionRegistryOptions {
  clock: Clock;
  random: Random;
  tokenTtlMs: number;
  connectionLimit: number | undefined;
  dataset: DatasetSize;
  fixtures: readonly FixtureSet[];
  onRecordChange: (connection: ConnectionState, change: RecordChange) => void;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Link tokens, public tokens and connections, and who may see which. */
export class ConnectionRegistry {
  private readonly linkTokens = new Map<string, LinkToken>();
  private readonly publicTokens = new Map<string, PublicToken>();
  private readonly byId = new Map<string, ConnectionState>();
  private readonly byAccessToken = new Map<string, ConnectionState>();
  private readonly tokens: Random;
  /** How many connections were ever created: the n-th gets the stream `connection:n`. */
  private created = 0;
  private readonly options: ConnectionRegistryOptions;

  constructor(options: ConnectionRegistryOptions) {
    this.options = options;
    this.tokens = options.random.fork('tokens');
  }

  createLinkToken(apiKey: string): string {
    const linkToken = `link_${this.tokens.hex(32)}`;
    this.linkTokens.set(linkToken, { apiKey, expiresAt: this.options.clock.now() + this.options.tokenTtlMs });
    return linkToken;
  }

  /** Stands in for the browser widget: a public token for an integration, as if a user had linked an account. */
  createPublicToken(apiKey: string, request: { integrationId: IntegrationId; linkToken?: string; nativeOrgId?: string }): string {
    if (request.linkToken !== undefined) {
      const link = this.linkTokens.get(request.linkToken);
      if (!link || link.apiKey !== apiKey || link.expiresAt <= this.options.clock.now()) {
        throw new ApiError(401, ErrorCode.INVALID_LINK_TOKEN, 'linkToken is invalid or expired', { field: 'linkToken' });
      }
    }
    const publicToken = `public_${this.tokens.hex(32)}`;
    this.publicTokens.set(publicToken, {
      apiKey,
      integrationId: request.integrationId,
      nativeOrgId: request.nativeOrgId,
      expiresAt: this.options.clock.now() + this.options.tokenTtlMs,
      used: false,
    });
    return publicToken;
  }

  /** Turns a public token into a connection. Single use; expired tokens and the connection cap are 400s. */
  exchange(apiKey: string, publicToken: string): ConnectionState {
    const token = this.publicTokens.get(publicToken);
    if (!token || token.apiKey !== apiKey) {
      throw new ApiError(400, ErrorCode.INVALID_PUBLIC_TOKEN, 'publicToken is not a valid public token', { field: 'publicToken' });
    }
    if (token.used) {
      throw new ApiError(400, ErrorCode.PUBLIC_TOKEN_USED, 'publicToken has already been exchanged', { field: 'publicToken' });
    }
    if (token.expiresAt <= this.options.clock.now()) {
      throw new ApiError(400, ErrorCode.PUBLIC_TOKEN_EXPIRED, 'publicToken has expired', { field: 'publicToken' });
    }
    const limit = this.options.connectionLimit;
    if (limit !== undefined && this.list(apiKey).length >= limit) {
      // The original's message for development accounts, word for word.
      throw new ApiError(400, ErrorCode.CONNECTION_LIMIT_REACHED, 'Maximum number of connections reached for development account', { limit });
    }
    token.used = true;
    return this.add(apiKey, token.integrationId, token.nativeOrgId);
  }

  private add(apiKey: string, integrationId: IntegrationId, nativeOrgId: string | undefined): ConnectionState {
    const random = this.options.random.fork(`connection:${this.created++}`);
    const facts = INTEGRATIONS[integrationId];
    const { slug } = orgFaker(random);
    const org: NativeOrg = {
      nativeOrgId: nativeOrgId ?? facts.newOrgId(random),
      nativeUserId: facts.newUserId(random),
      slug,
    };
    const now = this.options.clock.now();
    const connection: ConnectionState = {
      connectionId: random.hex(32),
      accessToken: `access_${random.hex(40)}`,
      apiKey,
      integrationId,
      org,
      nativeOrgURL: facts.orgUrl(org),
      createdTime: now,
      random,
      status: 'NEW_CONNECTION',
      lastActivity: now,
      webhook: undefined,
      lifecycle: [],
      data: undefined,
      ids: random.fork('ids'),
    };
    this.byId.set(connection.connectionId, connection);
    this.byAccessToken.set(connection.accessToken, connection);
    return connection;
  }

  remove(connection: ConnectionState): void {
    this.byId.delete(connection.connectionId);
    this.byAccessToken.delete(connection.accessToken);
  }

  /** The connection of an access token, if the API token may reach it; else a 401. */
  byToken(apiKey: string, accessToken: string): ConnectionState {
    const connection = this.byAccessToken.get(accessToken);
    if (!connection || connection.apiKey !== apiKey) {
      throw new ApiError(401, ErrorCode.INVALID_ACCESS_TOKEN, 'accessToken is invalid', { field: 'accessToken' });
    }
    return connection;
  }

  /** A connection by id, if the API token may reach it; else a 404. */
  get(apiKey: string, connectionId: string): ConnectionState {
    const connection = this.byId.get(connectionId);
    if (!connection || connection.apiKey !== apiKey) throw ApiError.notFound('Connection', connectionId, 'connectionId');
    return connection;
  }

  /** Any connection by id, whoever owns it (for the sandbox's own code paths). */
  find(connectionId: string): ConnectionState | undefined {
    return this.byId.get(connectionId);
  }

  /** The API token's connections, oldest first. */
  list(apiKey: string): ConnectionState[] {
    return [...this.byId.values()].filter((connection) => connection.apiKey === apiKey);
  }

  /** The connection's records, seeded on first use. */
  dataOf(connection: ConnectionState): ConnectionData {
    if (connection.data) return connection.data;
    const { random } = connection;
    const data = new ConnectionData({
      connectionId: connection.connectionId,
      integrationId: connection.integrationId,
      clock: this.options.clock,
      random: random.fork('writes'),
      faker: seededFaker(random.fork('write-values')),
      onChange: (change) => this.options.onRecordChange(connection, change),
    });
    seedConnection({
      data,
      integrationId: connection.integrationId,
      // The same Faker, at the same point, as the one that drew the org at creation.
      faker: orgFaker(random).faker,
      random: random.fork('seed-ids'),
      now: connection.createdTime,
      orgDomain: `${connection.org.slug}.com`,
      size: this.options.dataset,
      fixtures: this.options.fixtures,
    });
    connection.data = data;
    return data;
  }
}

export function exchangeResult(connection: ConnectionState): ExchangeResult {
  return {
    connectionId: connection.connectionId,
    accessToken: connection.accessToken,
    integrationId: connection.integrationId,
    nativeOrgId: connection.org.nativeOrgId,
    nativeUserId: connection.org.nativeUserId,
    nativeOrgURL: connection.nativeOrgURL,
  };
}

export function connectionSummary(connection: ConnectionState): ConnectionSummary {
  return {
    connectionId: connection.connectionId,
    integrationId: connection.integrationId,
    createdTime: iso(connection.createdTime),
    status: connection.status,
    nativeOrgURL: connection.nativeOrgURL,
    lastActivityDate: iso(connection.lastActivity),
  };
}
