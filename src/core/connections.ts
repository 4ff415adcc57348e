import type { Faker } from '@faker-js/faker';
import * as z from 'zod';
import type { Clock, Timer } from '../clock/clock.js';
import { DOWNSTREAM_FAULT_KINDS, type DownstreamFault } from '../downstream/faults.js';
import {
  ACCESS_TOKEN_PATTERN,
  type ConnectionStatus,
  type ConnectionSummary,
  connectionStatusSchema,
  type ExchangeResult,
  type Webhook,
  webhookSchema,
} from '../model/connection.js';
import { INTEGRATION_IDS, INTEGRATIONS, type IntegrationId, type NativeOrg, nativeOrgSchema } from '../model/integrations.js';
import { type FakerModule, type Platform, unguessableHex } from '../model/platform.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import { once } from '../shared/once.js';
import { Breather, runToEnd } from '../shared/pieces.js';
import { Random, randomStateSchema } from '../shared/random.js';
import { Allowance, type Reservation } from '../shared/reservation.js';
import { countSchema, timeMsSchema } from '../shared/state-schemas.js';
import { type ChangeSink, ConnectionData } from '../store/connection-data.js';
import { type ConnectionDataState, type ConnectionDataStateV1, importDataStateInPieces, importDataStateV1InPieces } from '../store/connection-data-state.js';
import type { FixtureSet } from '../store/fixtures.js';
import { companyDomain } from '../store/seed/fake-fields.js';
import { type DatasetSize, seedConnectionInPieces } from '../store/seed/seed-connection.js';
import { orgFaker, restoreFaker, seededFaker } from '../store/seed/seeded-faker.js';
import { LinkTokens, linkTokenSchema } from './link-tokens.js';

/** Everything the sandbox knows about one connection. */
export interface ConnectionState {
  readonly connectionId: string;
  readonly accessToken: string;
  /** The API token that exchanged it: only that token sees it. */
  readonly apiKey: string;
  readonly integrationId: IntegrationId;
  readonly org: NativeOrg;
  /** The organisation's name (the one given in the link widget, else generated). */
  readonly orgName: string;
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
  /** Pending downstream faults, in order (plain data): the next passthrough calls take them. */
  downstreamFaults: DownstreamFault[];
}

/** How the registry names the tenant of a connection or a token: by its API key (a snapshot may name it otherwise). */
export const OWNED_BY_API_KEY = once(() => ({ apiKey: z.string().min(1) }));

/** Link and public tokens as a snapshot keeps them, each naming its tenant as `owner` says. */
export const tokenListsShape = <O extends z.ZodRawShape>(owner: O) => ({
  linkTokens: z.array(linkTokenSchema(owner)),
  publicTokens: z.array(
    z
      .object({
        token: z.string().min(1),
        ...owner,
        expiresAt: timeMsSchema(),
        integrationId: z.enum(INTEGRATION_IDS),
        nativeOrgId: z.string().optional(),
        orgName: z.string().optional(),
        /** The accessToken the exchange will give, when the caller fixed it. */
        accessToken: z.string().optional(),
        used: z.boolean(),
      })
      .strict(),
  ),
});

/** The registry's state beyond its connections: its token stream, how many connections it made, and its tokens. */
export const registryStateSchema = <O extends z.ZodRawShape>(owner: O) =>
  z.object({ tokens: randomStateSchema(), created: countSchema(), ...tokenListsShape(owner) }).strict();
export type RegistryState = z.infer<ReturnType<typeof registryStateSchema<ReturnType<typeof OWNED_BY_API_KEY>>>>;
type PublicToken = Omit<RegistryState['publicTokens'][number], 'token'>;

/**
 * A pending downstream fault as a snapshot keeps it. (The connection holds them; the type is
 * src/downstream/faults.ts's, which this schema is checked against.)
 */
const downstreamFaultStateSchema = () =>
  z
    .object({
      kind: z.enum(DOWNSTREAM_FAULT_KINDS),
      remaining: z.number().int().positive(),
      status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]),
      delayMs: z.number().int().nonnegative(),
      retryAfterSeconds: z.number().int().nonnegative(),
    })
    .strict() satisfies z.ZodType<DownstreamFault>;

/**
 * A connection's own state as a snapshot keeps it, in the groups a snapshot lays out around the
 * tenant it names and the state other parts keep of the connection (its lifecycle's moves, its
 * data set): its keys, its profile, its pending downstream faults, its random streams.
 */
export const connectionStateShapes = once(() => ({
  keys: { connectionId: z.string().min(1), accessToken: z.string().min(1) },
  profile: {
    integrationId: z.enum(INTEGRATION_IDS),
    org: nativeOrgSchema(),
    nativeOrgURL: z.string(),
    orgName: z.string(),
    createdTime: timeMsSchema(),
    status: connectionStatusSchema(),
    lastActivity: timeMsSchema(),
    webhook: webhookSchema().nullable(),
  },
  faults: { downstreamFaults: z.array(downstreamFaultStateSchema()).optional() },
  streams: { random: randomStateSchema(), ids: randomStateSchema() },
}));
type Shapes = ReturnType<typeof connectionStateShapes>;
/** A connection's own state (without its tenant, lifecycle or data set), as {@link ConnectionRegistry.exportConnection} gives it. */
export type ConnectionRecord = z.infer<z.ZodObject<Shapes['keys'] & Shapes['profile'] & Shapes['faults'] & Shapes['streams']>>;

/** What a public token stands for: the account the user linked. */
export interface PublicTokenRequest {
  integrationId: IntegrationId;
  linkToken?: string;
  nativeOrgId?: string;
  /** The organisation's name as typed in the widget's sign-in step; generated when absent. */
  orgName?: string;
  /** The accessToken the exchange will give (`access_` + 40 hex), so a receiver can know it ahead. */
  accessToken?: string;
}

export interface ConnectionRegistryOptions {
  clock: Clock;
  random: Random;
  tokenTtlMs: number;
  /** Link, public and access tokens from the seed, or from the platform's cryptographic randomness. */
  tokens: 'seeded' | 'random';
  /** The sandbox's platform: its cryptographic randomness (random tokens) and faker's loader (seeded data). */
  platform: Pick<Platform, 'fillRandom' | 'loadFaker'>;
  /** Most connections per API token (`Infinity`: no cap). */
  connectionLimit: number;
  /** Most records a connection holds (`Infinity`: no cap). */
  recordLimit: number;
  dataset: DatasetSize;
  fixtures: () => readonly FixtureSet[];
  /** Where every connection's store reports its changes (src/core/event-sink.ts). */
  events: ChangeSink;
  /** A state file's reservation, which the streams that issue ids count their draws against (docs/decisions/0030). */
  reservation?: Reservation | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Public tokens and connections (with the link tokens public tokens are made with), and who may see which. */
export class ConnectionRegistry {
  /** Drawn from the same token stream as public tokens. */
  readonly linkTokens: LinkTokens;
  private readonly publicTokens = new Map<string, PublicToken>();
  private readonly byId = new Map<string, ConnectionState>();
  private readonly byAccessToken = new Map<string, ConnectionState>();
  private tokens: Random;
  /** How many connections were ever created: the n-th gets the stream `connection:n`. */
  private created = 0;
  private readonly options: ConnectionRegistryOptions;
  private reservation: Reservation | undefined;
  /** Data sets being seeded in pieces (withData), by connection. */
  private readonly seeding = new Map<ConnectionState, { pieces: Generator<void, ConnectionData, void>; done: Promise<void> }>();
  /** Counts the connections made since the last save against the reservation (each takes a connection stream). */
  private creations: Allowance | undefined;

  constructor(options: ConnectionRegistryOptions) {
    this.options = options;
    this.tokens = options.random.fork('tokens');
    this.linkTokens = new LinkTokens({ clock: options.clock, ttlMs: options.tokenTtlMs, tokenHex: (length) => this.tokenHex(length) });
    this.reserve(options.reservation);
  }

  /**
   * Counts what the streams that issue ids draw (link and public tokens, connection streams,
   * webhook ids, record ids) against a state file's reservation, from where they stand now.
   */
  reserve(reservation: Reservation | undefined): void {
    this.reservation = reservation;
    this.tokens.reserve(reservation);
    this.creations = reservation && new Allowance(reservation);
    for (const connection of this.byId.values()) {
      connection.ids.reserve(reservation);
      connection.data?.reserve(reservation);
    }
  }

  /**
   * After a crash: moves every stream that issues ids `draws` on (and the count of connections
   * made as far), past anything the lost run may have drawn. A data set not built yet is built
   * now, so that its record stream has a position to move from.
   */
  skipDraws(draws: number): void {
    this.tokens.skipDraws(draws);
    this.created += draws;
    for (const connection of this.byId.values()) {
      connection.ids.skipDraws(draws);
      this.dataOf(connection).retire(draws);
    }
  }

  /** Stands in for the browser widget: a public token for an integration, as if a user had linked an account. */
  createPublicToken(apiKey: string, request: PublicTokenRequest): string {
    if (request.linkToken !== undefined) this.linkTokens.checkNamedBy(apiKey, request.linkToken);
    return this.mintPublicToken(apiKey, request);
  }

  /**
   * What the link widget does when the user confirms: the link token alone authenticates it
   * (the end user's browser holds no API token), the public token belongs to the link token's
   * API token, and the link token is used up.
   */
  createPublicTokenForLink(linkToken: string, request: Omit<PublicTokenRequest, 'linkToken'>): string {
    const link = this.linkTokens.use(linkToken);
    return this.mintPublicToken(link.apiKey, { ...request, linkToken });
  }

  private mintPublicToken(apiKey: string, request: PublicTokenRequest): string {
    if (request.accessToken !== undefined) this.checkFreeAccessToken(request.accessToken);
    const publicToken = `public_${this.tokenHex(32)}`;
    this.publicTokens.set(publicToken, {
      apiKey,
      integrationId: request.integrationId,
      nativeOrgId: request.nativeOrgId,
      accessToken: request.accessToken,
      orgName: request.orgName,
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
    if (this.countOf(apiKey) >= limit) {
      // The original's message for development accounts, word for word; the metadata names the sandbox's cap.
      throw new ApiError(400, ErrorCode.CONNECTION_LIMIT_REACHED, 'Maximum number of connections reached for development account', {
        limit,
        option: 'connectionLimit',
        flag: '--connection-limit',
      });
    }
    if (token.accessToken !== undefined) this.checkFreeAccessToken(token.accessToken);
    token.used = true;
    return this.add(apiKey, token);
  }

  /** A fixed accessToken (for receivers configured ahead of a run) must look real and be free. */
  private checkFreeAccessToken(accessToken: string): void {
    if (!ACCESS_TOKEN_PATTERN.test(accessToken)) {
      throw ApiError.invalidField('accessToken', `accessToken must be access_ followed by 40 lowercase hex characters, got ${JSON.stringify(accessToken)}`);
    }
    if (this.byAccessToken.has(accessToken)) throw ApiError.invalidField('accessToken', 'accessToken is already the token of another connection');
  }

  private add(apiKey: string, token: PublicToken): ConnectionState {
    // A tenant's restore may have brought in a connection another server (or an earlier life of
    // this one) made from the stream the next one would get: skip streams whose ids are taken.
    for (;;) {
      const connection = this.draw(apiKey, token);
      // (A fixed accessToken was checked free before: only a drawn one can be taken.)
      if (this.byId.has(connection.connectionId) || (token.accessToken === undefined && this.byAccessToken.has(connection.accessToken))) continue;
      this.byId.set(connection.connectionId, connection);
      this.byAccessToken.set(connection.accessToken, connection);
      return connection;
    }
  }

  /** A new connection from the next connection stream (`connection:n`). */
  private draw(apiKey: string, { integrationId, nativeOrgId, orgName: givenName, accessToken: fixedAccessToken }: PublicToken): ConnectionState {
    this.creations?.take();
    const random = this.options.random.fork(`connection:${this.created++}`);
    const facts = INTEGRATIONS[integrationId];
    const drawn = orgFaker(this.fakerModule(), random);
    // A name given in the link widget: its slug. The generated name is drawn all the same, so the connection's streams stay the same.
    const givenSlug = givenName === undefined ? '' : companyDomain(drawn.faker, givenName).replace(/\.com$/, '');
    const orgName = givenSlug === '' ? drawn.orgName : givenName!;
    const org: NativeOrg = {
      nativeOrgId: nativeOrgId ?? facts.newOrgId(random),
      nativeUserId: facts.newUserId(random),
      slug: givenSlug || drawn.slug,
    };
    const now = this.options.clock.now();
    const connectionId = random.hex(32);
    // Drawn even when fixed or random, so that the rest of the connection's stream (its ids and data) stays the same.
    const seededAccessToken = `access_${random.hex(40)}`;
    const accessToken = fixedAccessToken ?? (this.options.tokens === 'random' ? `access_${unguessableHex(this.options.platform, 40)}` : seededAccessToken);
    return {
      connectionId,
      accessToken,
      apiKey,
      integrationId,
      org,
      orgName,
      nativeOrgURL: facts.orgUrl(org),
      createdTime: now,
      random,
      status: 'NEW_CONNECTION',
      lastActivity: now,
      webhook: undefined,
      lifecycle: [],
      data: undefined,
      downstreamFaults: [],
      ids: this.reserved(random.fork('ids')),
    };
  }

  /** A stream that issues ids, counted against the reservation if there is one. */
  private reserved(random: Random): Random {
    random.reserve(this.reservation);
    return random;
  }

  /** Hex for a link or public token: the registry's seeded stream, or unguessable (which leaves the stream where it is). */
  private tokenHex(length: number): string {
    return this.options.tokens === 'random' ? unguessableHex(this.options.platform, length) : this.tokens.hex(length);
  }

  /** Tokens and counters, for a snapshot. */
  exportState(): RegistryState {
    return {
      tokens: this.tokens.state(),
      created: this.created,
      linkTokens: this.linkTokens.state(),
      publicTokens: [...this.publicTokens].map(([token, publicToken]) => ({ token, ...publicToken })),
    };
  }

  /** Takes over a snapshot's tokens and counters (on a fresh registry). */
  importState(state: RegistryState): void {
    this.tokens = this.reserved(Random.fromState(state.tokens));
    this.created = state.created;
    this.addTokens(state);
  }

  /** Adds link and public tokens of a snapshot (a tenant's restore: the token stream and counters stay the server's). */
  addTokens(state: Pick<RegistryState, 'linkTokens' | 'publicTokens'>): void {
    this.linkTokens.add(state.linkTokens);
    for (const { token, ...publicToken } of state.publicTokens) this.publicTokens.set(token, publicToken);
  }

  /** The API token holding a connection id, an access token, a link or a public token; undefined when none does. */
  holderOf(kind: 'connectionId' | 'accessToken' | 'linkToken' | 'publicToken', value: string): string | undefined {
    if (kind === 'linkToken') return this.linkTokens.holderOf(value);
    const held = { connectionId: this.byId, accessToken: this.byAccessToken, publicToken: this.publicTokens }[kind].get(value);
    return held?.apiKey;
  }

  /** A connection's own state, for a snapshot (its lifecycle and data set are their parts' to save). */
  exportConnection(connection: ConnectionState): ConnectionRecord {
    return {
      connectionId: connection.connectionId,
      accessToken: connection.accessToken,
      integrationId: connection.integrationId,
      org: { ...connection.org },
      nativeOrgURL: connection.nativeOrgURL,
      orgName: connection.orgName,
      createdTime: connection.createdTime,
      status: connection.status,
      lastActivity: connection.lastActivity,
      webhook: connection.webhook ? { ...connection.webhook } : null,
      random: connection.random.state(),
      ids: connection.ids.state(),
      downstreamFaults: connection.downstreamFaults.map((fault) => ({ ...fault })),
    };
  }

  /** A connection rebuilt from its saved state, owned by `apiKey`, without its data set yet; not added (see {@link adopt}). */
  importConnection(saved: ConnectionRecord, apiKey: string): ConnectionState {
    return {
      connectionId: saved.connectionId,
      accessToken: saved.accessToken,
      apiKey,
      integrationId: saved.integrationId,
      org: { ...saved.org },
      nativeOrgURL: saved.nativeOrgURL,
      orgName: saved.orgName,
      createdTime: saved.createdTime,
      random: Random.fromState(saved.random),
      status: saved.status,
      lastActivity: saved.lastActivity,
      webhook: saved.webhook ?? undefined,
      lifecycle: [],
      data: undefined,
      ids: this.reserved(Random.fromState(saved.ids)),
      downstreamFaults: (saved.downstreamFaults ?? []).map((fault) => ({ ...fault })),
    };
  }

  /**
   * Gives a rebuilt connection its saved data set: the seeded base rebuilt (as a first read
   * would), the saved delta laid over it, writing on from the saved stream positions. One that
   * does not fit is a 400 naming the field under `field`. In pieces: the base a record at a time,
   * the delta a collection at a time.
   */
  *importDataInPieces(connection: ConnectionState, state: ConnectionDataState, field: string): Generator<void, void, void> {
    const seeded = yield* this.seedingPieces(connection);
    yield;
    const data = this.emptyData(connection, Random.fromState(state.random), restoreFaker(this.fakerModule(), state.faker));
    yield* importDataStateInPieces(data, seeded, state, field);
    data.reserve(this.reservation);
    connection.data = data;
  }

  /** The same from a version-1 snapshot's data set (every record in full): each record compared with the seeded ones. */
  *importDataV1InPieces(connection: ConnectionState, state: ConnectionDataStateV1): Generator<void, void, void> {
    const seeded = yield* this.seedingPieces(connection);
    yield;
    const data = this.emptyData(connection, Random.fromState(state.random), restoreFaker(this.fakerModule(), state.faker));
    yield* importDataStateV1InPieces(data, seeded, state);
    data.reserve(this.reservation);
    connection.data = data;
  }

  /**
   * Works out, a collection at a time, the digests a snapshot of these connections' data sets
   * writes (each kept until its collection changes): the snapshot itself then costs only what
   * changed, so it can be taken at once, one moment's state, without holding the event loop.
   */
  *snapshotDigestPieces(connections: readonly ConnectionState[]): Generator<void, void, void> {
    for (const connection of connections) {
      if (!connection.data) continue;
      for (const [, collection] of connection.data.collections()) {
        collection.baseDigest();
        yield;
      }
    }
  }

  /** Adds a connection rebuilt from a snapshot, as it was. */
  adopt(connection: ConnectionState): void {
    this.byId.set(connection.connectionId, connection);
    this.byAccessToken.set(connection.accessToken, connection);
  }

  /** Forgets an API token's link and public tokens (a reset of its tenancy). */
  forgetTokens(apiKey: string): void {
    this.linkTokens.forget(apiKey);
    for (const [token, publicToken] of this.publicTokens) if (publicToken.apiKey === apiKey) this.publicTokens.delete(token);
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

  /** Every connection, oldest first. */
  all(): ConnectionState[] {
    return [...this.byId.values()];
  }

  /** How many connections the API token has (no list built: asked at every exchange). */
  private countOf(apiKey: string): number {
    let count = 0;
    for (const connection of this.byId.values()) if (connection.apiKey === apiKey) count++;
    return count;
  }

  /** The API token's connections, oldest first. */
  list(apiKey: string): ConnectionState[] {
    return [...this.byId.values()].filter((connection) => connection.apiKey === apiKey);
  }

  /** The connection's records, seeded on first use (one being seeded in pieces is finished at once). */
  dataOf(connection: ConnectionState): ConnectionData {
    connection.data ??= this.finishSeeding(connection) ?? this.seededData(connection);
    return connection.data;
  }

  /**
   * The one door to a connection's records for a caller that can wait (a route): `answer(data)` at
   * once when the data set is there, else after seeding it in pieces with turns of the event loop
   * between (the default data set takes 15-40 ms in one piece, which every other request would
   * wait behind; decision 0038). On a virtual clock it is seeded at once, as `dataOf` does: calls
   * made together then interleave as they always did, whatever the machine's speed. The data set
   * is the same either way.
   *
   * @example return registry.withData(connection, (data) => ({ body: page(data) }));
   */
  withData<T>(connection: ConnectionState, answer: (data: ConnectionData) => T | Promise<T>): T | Promise<T> {
    if (connection.data !== undefined) return answer(connection.data);
    if (this.options.clock.kind !== 'real') return answer(this.dataOf(connection));
    return this.seedInTurns(connection).then(() => answer(this.dataOf(connection)));
  }

  /** Seeds the connection's data set a piece at a time, with turns of the event loop between (one seeding per connection, however many wait). */
  private seedInTurns(connection: ConnectionState): Promise<void> {
    const running = this.seeding.get(connection);
    if (running) return running.done;
    const seeding = { pieces: this.seedingPieces(connection), done: Promise.resolve() };
    this.seeding.set(connection, seeding);
    seeding.done = (async () => {
      const breather = new Breather();
      try {
        for (;;) {
          await breather.breathe();
          // Finished at once meanwhile (dataOf, for a caller that cannot wait): nothing left to do.
          if (this.seeding.get(connection) !== seeding) return;
          const piece = seeding.pieces.next();
          if (piece.done) {
            connection.data ??= piece.value;
            return;
          }
        }
      } finally {
        if (this.seeding.get(connection) === seeding) this.seeding.delete(connection);
      }
    })();
    return seeding.done;
  }

  /** The rest of a seeding in pieces, done at once; undefined when none is under way. */
  private finishSeeding(connection: ConnectionState): ConnectionData | undefined {
    const seeding = this.seeding.get(connection);
    if (!seeding) return undefined;
    this.seeding.delete(connection);
    return runToEnd(seeding.pieces);
  }

  /**
   * A new store holding the connection's seeded data set, writing with fresh streams. The same
   * every time: a function of the connection's stream seed, integration, creation time and org
   * slug, and of the sandbox's dataset sizes and fixtures (a snapshot rebuilds it from those).
   */
  seededData(connection: ConnectionState): ConnectionData {
    return runToEnd(this.seedingPieces(connection));
  }

  /** {@link seededData} in pieces of about a record each (see seedConnectionInPieces). */
  private *seedingPieces(connection: ConnectionState): Generator<void, ConnectionData, void> {
    const { random } = connection;
    const fakerModule = this.fakerModule();
    const data = this.emptyData(connection, random.fork('writes'), seededFaker(fakerModule, random.fork('write-values').uint32()));
    yield* seedConnectionInPieces({
      data,
      integrationId: connection.integrationId,
      // The same Faker, at the same point, as the one that drew the org at creation.
      faker: orgFaker(fakerModule, random).faker,
      fakerModule,
      random: random.fork('seed-ids'),
      now: connection.createdTime,
      orgDomain: `${connection.org.slug}.com`,
      size: this.options.dataset,
      fixtures: this.options.fixtures(),
    });
    data.markSeeded();
    data.reserve(this.reservation);
    return data;
  }

  /** The faker module seeded fakers are made from: the platform's, loaded by the first connection. */
  fakerModule(): FakerModule {
    return this.options.platform.loadFaker();
  }

  /** A connection's store with no records yet, writing with the streams given (a snapshot's, on restore). */
  emptyData(connection: ConnectionState, random: Random, faker: Faker): ConnectionData {
    return new ConnectionData({
      connectionId: connection.connectionId,
      integrationId: connection.integrationId,
      clock: this.options.clock,
      random,
      faker,
      recordLimit: this.options.recordLimit,
      events: this.options.events,
    });
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
