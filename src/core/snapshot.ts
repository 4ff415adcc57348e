import * as z from 'zod';
import { eventFactoryStateSchema } from '../events/event-factory.js';
import { type PendingMove, pendingMoveSchema } from '../events/lifecycle.js';
import { CRM_OBJECT_TYPES, type CrmObjectType } from '../model/crm.js';
import { ApiError } from '../shared/errors.js';
import { once } from '../shared/once.js';
import { passesInPieces as partsPassInPieces } from '../shared/passes-in-pieces.js';
import { randomStateSchema } from '../shared/random.js';
import { countSchema, digestSchema, timeMsSchema } from '../shared/state-schemas.js';
import { describeIssues, invalidFromIssues } from '../shared/validation.js';
import { BUNDLED_FIXTURE_SOURCES, BUNDLED_FIXTURES } from '../store/bundled-fixtures.js';
import {
  type ConnectionDataState,
  type ConnectionDataStateV1,
  checkDataState,
  checkDataStateV1,
  connectionDataStateSchema,
  connectionDataStateV1Schema,
  exportDataState,
} from '../store/connection-data-state.js';
import { type FixtureSet, fixturesDigest, validateFixture } from '../store/fixtures.js';
import type { DatasetSize } from '../store/seed/seed-connection.js';
import type { ChaosRecord } from '../webhooks/delivery-chaos.js';
import type { DeliveryRecord } from '../webhooks/delivery-log.js';
import { dispatcherStateSchema } from '../webhooks/dispatcher.js';
import {
  type ConnectionRegistry,
  type ConnectionState,
  connectionStateShapes,
  OWNED_BY_API_KEY,
  type RegistryState,
  registryStateSchema,
  tokenListsShape,
} from './connections.js';
import type { SandboxParts } from './sandbox-parts.js';
import { tenantDigest } from './tenants.js';

/*
 * Snapshots: the whole state of a sandbox as versioned JSON (docs/decisions/0007).
 *
 * Version 2 writes each connection's data set as what changed since it was seeded. The seeded
 * base (the records a connection gets on its first read) is a pure function of the connection's
 * stream seed, integration, creation time and org slug (all in its own record) and of the
 * sandbox's dataset sizes and fixtures (under `seeding`, checked on restore). Each collection is
 * `{ nextSeq, base, digest, deleted, entries }`: how many entries were seeded, a digest of those
 * still as seeded, the seeded ones deleted (by seq), then the seeded ones replaced and the ones
 * added (with their seq, so pages and cursors stay the same). The write streams' positions are
 * taken after all that, so ids and values after a restore are the ones the original would make.
 * A restore rebuilds each base, as a first read would, and lays the delta over it; a base that
 * does not rebuild the same (another dataset, fixtures or generator) refuses the snapshot.
 *
 * Version 1 (every record in full) is still read: each of its collections is compared with the
 * rebuilt base, so the next snapshot is a small version 2.
 *
 * Tenants (docs/decisions/0016): a snapshot has a `scope`. A whole-server one (`server`: the
 * state file, `?all=true` with the admin key, `snapshot()` in code) names the tenant of each
 * connection and token by a digest of its API key, never the key, and holds the server's own
 * streams (event ids, link and public tokens, the count of connections made). A tenant's
 * (`tenant`) holds only that tenant's connections, tokens, deliveries and chaos, names no
 * tenant (everything in it becomes the restoring tenant's) and no server stream: a tenant
 * restore must not rewind what other tenants draw from. Version 1 names tenants by API key.
 */

/** What `snapshot()` writes in `format`, so a foreign JSON file is told apart. */
export const SNAPSHOT_FORMAT = 'crm-sandbox-state';
/**
 * The snapshot layout's version. Version 2 (written) holds each data set as a delta over what
 * the seed rebuilds; version 1 (every record in full) is still read.
 */
export const SNAPSHOT_VERSION = 2;

/*
 * The layout. Each part's state schema is its own, beside its code: the registry's (tokens, a
 * connection's own fields), the lifecycle's (pending moves), a connection's data set's, the
 * event factory's stream, the delivery engine's (log and chaos). The snapshot composes them:
 * format, version, scope, seed, time, seeding, and how each tenant is named.
 */

/*
 * Each schema here is built on its first use (`once`), not as the module loads: `serve` loads it
 * before its first answer, and only a snapshot, a restore or the OpenAPI document reads them
 * (docs/decisions/0035).
 */

/**
 * How a layout names the tenant of a connection or a token: version 1 by its API key (as the
 * registry does), a whole-server version 2 by the key's digest (the start of the SHA-256 of the
 * tenant's API key), a tenant's version 2 not at all.
 */
const BY_DIGEST = once(() => ({
  tenant: z.string().regex(/^[0-9a-f]{16}$/, "must be 16 lowercase hex characters: the start of the SHA-256 of the tenant's API key"),
}));
const UNNAMED = {};
type Owner = ReturnType<typeof OWNED_BY_API_KEY> | ReturnType<typeof BY_DIGEST> | typeof UNNAMED;

/** A connection: its own state (the registry's) around its tenant, with its lifecycle's pending moves and its data set. */
const connectionSchema = <D extends z.ZodType, O extends Owner>(data: D, owner: O) => {
  const { keys, profile, faults, streams } = connectionStateShapes();
  return z.object({ ...keys, ...owner, ...profile, pendingMoves: z.array(pendingMoveSchema()), ...faults, ...streams, data: data.nullable() }).strict();
};

/** What a data set's seeded base depends on besides the seed and the connection: the sandbox's dataset sizes and fixtures. */
const seedingSchema = once(() =>
  z
    .object({
      dataset: z
        .object({
          engagement: z.object({ users: countSchema(), mailboxes: countSchema() }).strict(),
          // Email came later: a snapshot of an earlier release has no size for it (its data sets are seeded with today's).
          crm: z
            .object(
              Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, type === 'Email' ? countSchema().optional() : countSchema()])) as Record<
                CrmObjectType,
                ReturnType<typeof countSchema>
              >,
            )
            .strict(),
        })
        .strict(),
      fixtures: z.object({ digest: digestSchema(), sources: z.array(z.string()) }).strict(),
    })
    .strict(),
);

/**
 * A whole-server snapshot: every tenant's state (each named by its key's digest) and the
 * server's streams. Every field is checked, so a bad one is named before anything changes.
 */
export const serverSnapshotSchema = once(() =>
  z
    .object({
      format: z.literal(SNAPSHOT_FORMAT),
      version: z.literal(SNAPSHOT_VERSION),
      scope: z.literal('server'),
      seed: randomStateSchema().shape.seed,
      time: timeMsSchema(),
      seeding: seedingSchema(),
      random: z.object({ events: eventFactoryStateSchema() }).strict(),
      registry: registryStateSchema(BY_DIGEST()),
      connections: z.array(connectionSchema(connectionDataStateSchema(), BY_DIGEST())),
      ...dispatcherStateSchema().shape,
    })
    .strict(),
);

/**
 * One tenant's snapshot: its connections, tokens, deliveries and chaos; no tenant named, and no
 * server stream (the token stream, the count of connections made, the event ids): a tenant
 * restore must not rewind what other tenants draw from.
 */
export const tenantSnapshotSchema = once(() =>
  z
    .object({
      format: z.literal(SNAPSHOT_FORMAT),
      version: z.literal(SNAPSHOT_VERSION),
      scope: z.literal('tenant'),
      seed: randomStateSchema().shape.seed,
      time: timeMsSchema(),
      seeding: seedingSchema(),
      registry: z.object(tokenListsShape(UNNAMED)).strict(),
      connections: z.array(connectionSchema(connectionDataStateSchema(), UNNAMED)),
      ...dispatcherStateSchema().shape,
    })
    .strict(),
);

/** The zod schema of a snapshot of either scope (what `GET /sandbox/snapshot` answers and `PUT` takes). */
export const snapshotSchema = once(() => z.union([serverSnapshotSchema(), tenantSnapshotSchema()]));

/** A snapshot of layout version 1 (every record in full), as the releases before version 2 wrote it: still read. */
const snapshotV1Schema = once(() =>
  z
    .object({
      format: z.literal(SNAPSHOT_FORMAT),
      version: z.literal(1),
      seed: randomStateSchema().shape.seed,
      time: timeMsSchema(),
      random: z.object({ events: eventFactoryStateSchema() }).strict(),
      registry: registryStateSchema(OWNED_BY_API_KEY()),
      connections: z.array(connectionSchema(connectionDataStateV1Schema(), OWNED_BY_API_KEY())),
      ...dispatcherStateSchema().shape,
    })
    .strict(),
);

/** The whole state of a sandbox as JSON, every tenant's: `sandbox.snapshot()`, `GET /sandbox/snapshot?all=true`, the state file. */
export type ServerSnapshot = z.infer<ReturnType<typeof serverSnapshotSchema>>;
/** One tenant's state as JSON: `sandbox.snapshot({ apiKey })`, `GET /sandbox/snapshot`. */
export type TenantSnapshot = z.infer<ReturnType<typeof tenantSnapshotSchema>>;
/** A snapshot of either scope: what `PUT /sandbox/snapshot` takes (a version-1 one too). */
export type SandboxSnapshot = ServerSnapshot | TenantSnapshot;
type SnapshotV1 = z.infer<ReturnType<typeof snapshotV1Schema>>;

/** What a snapshot depends on beyond itself: the sandbox's seed, dataset sizes and fixtures. */
export interface SnapshotSource {
  seed: number;
  /** The accepted API keys: the tenants a whole-server snapshot's digests must name. */
  apiKeys: readonly string[];
  dataset: DatasetSize;
  fixtures: () => readonly FixtureSet[];
}

/**
 * Writes the state held by `parts` as a whole-server snapshot, each tenant named by its key's
 * digest. Records are shared, not copied: they are immutable values. A data set is written as
 * what changed since it was seeded (the seed rebuilds the rest), so a snapshot costs what was
 * done, not the size of the data sets.
 */
export function takeSnapshot(parts: SandboxParts, source: SnapshotSource): ServerSnapshot {
  const { registry, dispatcher, clock, events } = parts;
  const digests = new Map<string, string>();
  const digestOf = (apiKey: string) => digests.get(apiKey) ?? digests.set(apiKey, tenantDigest(apiKey)).get(apiKey)!;
  const { tokens, created, linkTokens, publicTokens } = registry.exportState();
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    scope: 'server',
    seed: source.seed,
    time: clock.now(),
    seeding: seedingOf(source),
    random: { events: events.exportState() },
    registry: {
      tokens,
      created,
      linkTokens: linkTokens.map(({ token, apiKey, ...rest }) => ({ token, tenant: digestOf(apiKey), ...rest })),
      publicTokens: publicTokens.map(({ token, apiKey, ...rest }) => ({ token, tenant: digestOf(apiKey), ...rest })),
    },
    connections: registry.all().map((connection) => savedConnection(parts, connection, { tenant: digestOf(connection.apiKey) })),
    ...dispatcher.exportState(),
  };
}

/**
 * Writes one tenant's state: its connections, link and public tokens, the deliveries and chaos
 * of its connections, and nothing that names a tenant or another tenant's state.
 */
export function takeTenantSnapshot(parts: SandboxParts, source: SnapshotSource, apiKey: string): TenantSnapshot {
  const { registry, dispatcher, clock } = parts;
  const connections = registry.list(apiKey);
  const ids = new Set(connections.map((connection) => connection.connectionId));
  const { linkTokens, publicTokens } = registry.exportState();
  const own = <T extends { apiKey: string }>(items: T[]) => items.filter((item) => item.apiKey === apiKey).map(({ apiKey: _, ...rest }) => rest);
  const { deliveries, chaos } = dispatcher.exportState();
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    scope: 'tenant',
    seed: source.seed,
    time: clock.now(),
    seeding: seedingOf(source),
    registry: { linkTokens: own(linkTokens), publicTokens: own(publicTokens) },
    connections: connections.map((connection) => savedConnection(parts, connection, {})),
    deliveries: deliveries.filter((delivery) => ids.has(delivery.connectionId)),
    chaos: chaos.filter((item) => ids.has(item.connectionId)),
  };
}

/** A connection as a snapshot holds it, its tenant named as the layout says (`owner`): each part's state of it, in the layout's order. */
function savedConnection<O extends { tenant?: string }>(parts: SandboxParts, connection: ConnectionState, owner: O) {
  const { connectionId, accessToken, random, ids, downstreamFaults, ...profile } = parts.registry.exportConnection(connection);
  return {
    connectionId,
    accessToken,
    ...owner,
    ...profile,
    pendingMoves: parts.lifecycle.exportState(connection),
    random,
    ids,
    data: connection.data ? exportDataState(connection.data) : null,
    downstreamFaults,
  };
}

function seedingOf(source: SnapshotSource): SandboxSnapshot['seeding'] {
  const fixtures = source.fixtures();
  return {
    dataset: { engagement: { ...source.dataset.engagement }, crm: { ...source.dataset.crm } },
    fixtures: { digest: fixturesDigest(fixtures), sources: fixtures.map((set) => set.source) },
  };
}

/** A checked snapshot, of either layout. */
export type ParsedSnapshot = SandboxSnapshot | SnapshotV1;

/**
 * Checks a snapshot: a 400 naming the first bad field (`connections[0].status must be one of …`),
 * or a snapshot of another seed, dataset or fixtures (its data sets would not rebuild the same).
 * Version 1 snapshots are read as they always were.
 *
 * In pieces: the two long lists (connections, deliveries) are checked an item at a time against
 * the schema of one, the rest of it at once. The schemas check each field on its own (no rule
 * spans fields), so this passes exactly when checking the whole at once does; when anything is
 * refused, the whole is checked at once, for the very error that gives.
 */
export function* parseSnapshotInPieces(value: unknown, source: SnapshotSource): Generator<void, ParsedSnapshot, void> {
  const { version, scope } = (value ?? {}) as { version?: unknown; scope?: unknown };
  const schema = version === 1 ? snapshotV1Schema() : scope === 'tenant' ? tenantSnapshotSchema() : serverSnapshotSchema();
  if (!(yield* passesInPieces(schema, value))) {
    const result = schema.safeParse(value, { reportInput: true });
    if (!result.success) throw invalidFromIssues(describeIssues(result.error));
  }
  const snapshot = value as ParsedSnapshot; // the input itself: parsing may reorder keys, and records must keep their bytes
  if (snapshot.seed !== source.seed) {
    throw ApiError.invalidField('seed', `seed is ${snapshot.seed}, but this sandbox runs with seed ${source.seed}; start it with --seed ${snapshot.seed}`);
  }
  if (snapshot.version === SNAPSHOT_VERSION) checkSeeding(snapshot.seeding, source);
  checkReferences(snapshot);
  return snapshot;
}

/** Whether `value` passes `schema`, its connections and deliveries checked an item a piece (false also when it is not an object with both lists). */
function* passesInPieces(
  schema: ReturnType<typeof serverSnapshotSchema | typeof tenantSnapshotSchema | typeof snapshotV1Schema>,
  value: unknown,
): Generator<void, boolean, void> {
  if (typeof value !== 'object' || value === null) return false;
  const { connections, deliveries } = value as { connections?: unknown; deliveries?: unknown };
  if (!Array.isArray(connections) || !Array.isArray(deliveries)) return false;
  if (!schema.safeParse({ ...value, connections: [], deliveries: [] }).success) return false;
  for (const [list, item] of [
    [connections, schema.shape.connections.element],
    [deliveries, schema.shape.deliveries.element],
  ] as const) {
    // A connection with a large data set a collection, a record, at a time.
    for (const element of list) if (!(yield* partsPassInPieces(item as z.ZodType, element))) return false;
  }
  return true;
}

/** The dataset sizes and fixtures must be the ones the snapshot's data sets were seeded with. */
function checkSeeding(seeding: SandboxSnapshot['seeding'], source: SnapshotSource): void {
  const sizes = (dataset: DatasetSize): Array<[string, number]> => [
    ['engagement.users', dataset.engagement.users],
    ['engagement.mailboxes', dataset.engagement.mailboxes],
    ...CRM_OBJECT_TYPES.filter((type) => dataset.crm[type] !== undefined).map((type): [string, number] => [`crm.${type}`, dataset.crm[type]]),
  ];
  const here = new Map(sizes(source.dataset));
  for (const [name, size] of sizes(seeding.dataset)) {
    if (size === here.get(name)) continue;
    const [group, key] = name.split('.');
    throw ApiError.invalidField(
      `seeding.dataset.${name}`,
      `seeding.dataset.${name} is ${size}, but this sandbox seeds ${here.get(name)}; create it with { dataset: { ${group}: { ${key}: ${size} } } }`,
    );
  }
  const fixtures = source.fixtures();
  const digest = fixturesDigest(fixtures);
  if (seeding.fixtures.digest === digest) return;
  const named = (sources: readonly string[]) => (sources.length === 0 ? 'no fixtures' : sources.join(', '));
  const advice =
    seeding.fixtures.sources.length === 0
      ? 'start it with --no-fixtures'
      : seeding.fixtures.digest === fixturesDigest(bundledFixtureSets())
        ? 'start it without --fixtures (the bundled ones)'
        : `start it with the same fixtures (${named(seeding.fixtures.sources)})`;
  throw ApiError.invalidField(
    'seeding.fixtures.digest',
    `seeding.fixtures.digest is ${seeding.fixtures.digest} (${named(seeding.fixtures.sources)}), but this sandbox's fixtures give ${digest} (${named(fixtures.map((set) => set.source))}); ${advice}`,
  );
}

/** The package's own fixtures as sets, for the advice above (the rare case of a mismatch). */
function bundledFixtureSets(): FixtureSet[] {
  return BUNDLED_FIXTURES.map((fixture, index) => validateFixture(fixture, BUNDLED_FIXTURE_SOURCES[index]!));
}

/** What zod cannot see: ids unique, deliveries of known connections, sequences ascending. */
function checkReferences(snapshot: ParsedSnapshot): void {
  const ids = new Set<string>();
  const tokens = new Set<string>();
  snapshot.connections.forEach((connection, i) => {
    if (ids.has(connection.connectionId))
      throw ApiError.invalidField(`connections[${i}].connectionId`, `connections[${i}].connectionId repeats ${connection.connectionId}`);
    if (tokens.has(connection.accessToken))
      throw ApiError.invalidField(`connections[${i}].accessToken`, `connections[${i}].accessToken repeats another connection's`);
    ids.add(connection.connectionId);
    tokens.add(connection.accessToken);
    const data = savedData(snapshot, i);
    if (data?.version === 1) checkDataStateV1(`connections[${i}].data`, data.state);
    else if (data) checkDataState(`connections[${i}].data`, data.state);
  });
  const events = new Set<string>();
  snapshot.deliveries.forEach((delivery, i) => {
    if (!ids.has(delivery.connectionId))
      throw ApiError.invalidField(`deliveries[${i}].connectionId`, `deliveries[${i}].connectionId names no connection of the snapshot`);
    if (events.has(delivery.eventId)) throw ApiError.invalidField(`deliveries[${i}].eventId`, `deliveries[${i}].eventId repeats ${delivery.eventId}`);
    events.add(delivery.eventId);
  });
}

/** A saved data set, with the layout it is in. */
type SavedData = { version: 1; state: ConnectionDataStateV1 } | { version: typeof SNAPSHOT_VERSION; state: ConnectionDataState };

/** The data set of the snapshot's `i`-th connection, if it has one. */
function savedData(snapshot: ParsedSnapshot, i: number): SavedData | null {
  if (snapshot.version === 1) {
    const state = snapshot.connections[i]!.data;
    return state && { version: 1, state };
  }
  const state = snapshot.connections[i]!.data;
  return state && { version: SNAPSHOT_VERSION, state };
}

type SavedConnection = ParsedSnapshot['connections'][number];
type SavedLinkToken = ParsedSnapshot['registry']['linkTokens'][number];
type SavedPublicToken = ParsedSnapshot['registry']['publicTokens'][number];
/** How a saved connection or token names its tenant, whatever the layout (a tenant's snapshot names none). */
const named = (item: SavedConnection | SavedLinkToken | SavedPublicToken) => item as { apiKey?: string; tenant?: string };

/** A saved token's fields without the tenant it names, owned by `apiKey`: as the registry holds it. */
function ownedBy<T extends SavedLinkToken | SavedPublicToken>(item: T, apiKey: string): Omit<T, 'apiKey' | 'tenant'> & { apiKey: string } {
  const { apiKey: _, tenant: __, ...rest } = item as T & { apiKey?: string; tenant?: string };
  return { ...rest, apiKey };
}

const isTenantScope = (snapshot: ParsedSnapshot): snapshot is TenantSnapshot => snapshot.version === SNAPSHOT_VERSION && snapshot.scope === 'tenant';

/**
 * Loads a checked whole-server snapshot into fresh parts (built on a clock standing at
 * `snapshot.time`). Each connection and token goes back to the API key its digest (version 1:
 * its key) names; one that names no accepted key is a 400 naming the field. A tenant's
 * snapshot is refused: it says nothing of the other tenants or the server's streams.
 *
 * In pieces: each data set is rebuilt a record at a time; the rest is laid in at once, after the last piece.
 */
export function* loadSnapshotInPieces(parts: SandboxParts, snapshot: ParsedSnapshot, source: SnapshotSource): Generator<void, void, void> {
  if (isTenantScope(snapshot)) {
    throw ApiError.invalidField(
      'scope',
      "scope is tenant: a tenant's snapshot restores into one tenant (PUT /sandbox/snapshot with its API key, restore(snapshot, { apiKey }) in code), not over the whole server",
    );
  }
  const { registry, lifecycle, dispatcher } = parts;
  const keys = tenantKeys(source);
  const keyOf = (item: SavedConnection | SavedLinkToken | SavedPublicToken, field: string): string => {
    const { apiKey, tenant } = named(item);
    const key = apiKey !== undefined ? (source.apiKeys.includes(apiKey) ? apiKey : undefined) : keys.get(tenant!);
    if (key !== undefined) return key;
    const what =
      apiKey !== undefined
        ? `${field}.apiKey is not one of this sandbox's API keys`
        : `${field}.tenant is ${tenant}, the digest of none of this sandbox's API keys`;
    throw ApiError.invalidField(
      `${field}.${apiKey !== undefined ? 'apiKey' : 'tenant'}`,
      `${what}; start it with the API keys the snapshot was taken with (--api-key)`,
    );
  };
  const { tokens, created } = snapshot.registry;
  const linkTokens: SavedLinkToken[] = snapshot.registry.linkTokens;
  const publicTokens: SavedPublicToken[] = snapshot.registry.publicTokens;
  const state: RegistryState = {
    tokens,
    created,
    linkTokens: linkTokens.map((item, i) => ownedBy(item, keyOf(item, `registry.linkTokens[${i}]`))),
    publicTokens: publicTokens.map((item, i) => ownedBy(item, keyOf(item, `registry.publicTokens[${i}]`))),
  };
  // The data sets first: one that does not rebuild as saved refuses the snapshot before any timer is set.
  const connections: ConnectionState[] = [];
  for (const [i, item] of snapshot.connections.entries()) {
    connections.push(yield* rebuildConnection(registry, item, keyOf(item, `connections[${i}]`), savedData(snapshot, i), i));
  }
  parts.events.importState(snapshot.random.events);
  registry.importState(state);
  connections.forEach((connection, i) => {
    registry.adopt(connection);
    lifecycle.importState(connection, snapshot.connections[i]!.pendingMoves);
  });
  dispatcher.importState({ deliveries: snapshot.deliveries, chaos: snapshot.chaos });
}

/** The accepted API keys by their digests. */
function tenantKeys(source: SnapshotSource): Map<string, string> {
  return new Map(source.apiKeys.map((apiKey) => [tenantDigest(apiKey), apiKey]));
}

/** A saved connection as the registry holds it, owned by `apiKey`, its data set rebuilt (a 400 naming the field if it does not fit). */
function* rebuildConnection(
  registry: ConnectionRegistry,
  saved: SavedConnection,
  apiKey: string,
  data: SavedData | null,
  i: number,
): Generator<void, ConnectionState, void> {
  const connection = registry.importConnection(saved, apiKey);
  if (data?.version === 1) yield* registry.importDataV1InPieces(connection, data.state);
  else if (data) yield* registry.importDataInPieces(connection, data.state, `connections[${i}].data`);
  return connection;
}

/** One tenant's part of a checked snapshot, every check passed and every data set rebuilt: what {@link loadTenantPart} lays in. */
export interface TenantPart {
  connections: Array<{ connection: ConnectionState; pendingMoves: PendingMove[] }>;
  tokens: Pick<RegistryState, 'linkTokens' | 'publicTokens'>;
  deliveries: DeliveryRecord[];
  chaos: ChaosRecord[];
  /**
   * Makes again, against the registry and log as they are now, the checks that no id the part
   * holds is another tenant's: for a part built in pieces, as other requests went on, just before it is laid in.
   */
  checkAgain(): void;
}

/**
 * What a snapshot restores into the tenant of `apiKey`: all of a tenant's snapshot (whoever it
 * was taken from), or the part of a whole-server one (or a version-1 file) that names this
 * tenant; the rest is left out. Everything becomes this tenant's. A connection id, access token,
 * link or public token or event id that another tenant holds is a 400 naming the field, and so
 * is a data set that does not rebuild: nothing has changed yet when it is thrown.
 *
 * In pieces: each data set is rebuilt a record at a time.
 */
export function* tenantPartInPieces(parts: SandboxParts, snapshot: ParsedSnapshot, apiKey: string): Generator<void, TenantPart, void> {
  const { registry, dispatcher } = parts;
  const digest = tenantDigest(apiKey);
  const mine = (item: SavedConnection | SavedLinkToken | SavedPublicToken) => {
    const { apiKey: key, tenant } = named(item);
    return key !== undefined ? key === apiKey : tenant === undefined || tenant === digest;
  };
  // Each check is kept, in the order made, to be made again (checkAgain).
  const checks: Array<() => void> = [];
  const check = (holderNow: () => string | undefined, field: string, what: string) => {
    const made = () => {
      const holder = holderNow();
      if (holder !== undefined && holder !== apiKey)
        throw ApiError.invalidField(field, `${field} is ${what} of another tenant; a restore changes only your own tenant`);
    };
    made();
    checks.push(made);
  };
  const ids = new Set<string>();
  const connections: TenantPart['connections'] = [];
  for (const [i, saved] of snapshot.connections.entries()) {
    if (!mine(saved)) continue;
    check(() => registry.holderOf('connectionId', saved.connectionId), `connections[${i}].connectionId`, 'the id of a connection');
    check(() => registry.holderOf('accessToken', saved.accessToken), `connections[${i}].accessToken`, 'the accessToken of a connection');
    ids.add(saved.connectionId);
    connections.push({ connection: yield* rebuildConnection(registry, saved, apiKey, savedData(snapshot, i), i), pendingMoves: saved.pendingMoves });
  }
  const tokens = <T extends SavedLinkToken | SavedPublicToken>(list: T[], kind: 'linkToken' | 'publicToken', field: string) =>
    list.flatMap((item, i) => {
      if (!mine(item)) return [];
      check(() => registry.holderOf(kind, item.token), `registry.${field}[${i}].token`, `a ${kind === 'linkToken' ? 'link' : 'public'} token`);
      return [ownedBy(item, apiKey)];
    });
  const linkTokens: SavedLinkToken[] = snapshot.registry.linkTokens;
  const publicTokens: SavedPublicToken[] = snapshot.registry.publicTokens;
  const deliveries = snapshot.deliveries.filter((delivery, i) => {
    if (!ids.has(delivery.connectionId)) return false;
    check(
      () => {
        const held = dispatcher.get(delivery.eventId);
        return held && (registry.find(held.connectionId)?.apiKey ?? '');
      },
      `deliveries[${i}].eventId`,
      'the eventId of a delivery',
    );
    return true;
  });
  return {
    connections,
    tokens: { linkTokens: tokens(linkTokens, 'linkToken', 'linkTokens'), publicTokens: tokens(publicTokens, 'publicToken', 'publicTokens') },
    deliveries,
    // Only the chaos of the connections restored: a snapshot sets nothing on another tenant's.
    chaos: (snapshot.chaos ?? []).filter((chaos) => ids.has(chaos.connectionId)),
    checkAgain: () => {
      for (const made of checks) made();
    },
  };
}

/** Lays a tenant's part into the parts, once that tenant's connections and tokens are gone: its deliveries and moves go on. */
export function loadTenantPart(parts: SandboxParts, part: TenantPart): void {
  const { registry, lifecycle, dispatcher } = parts;
  registry.addTokens(part.tokens);
  for (const { connection, pendingMoves } of part.connections) {
    registry.adopt(connection);
    lifecycle.importState(connection, pendingMoves);
  }
  dispatcher.importState({ deliveries: part.deliveries, chaos: part.chaos });
}
