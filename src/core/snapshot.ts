import * as z from 'zod';
import { CONNECTION_STATUSES } from '../model/connection.js';
import { CRM_OBJECT_TYPES, crmRecordSchema, type CrmObjectType } from '../model/crm.js';
import { engagementUserSchema, mailboxSchema } from '../model/engagement.js';
import { INTEGRATION_IDS } from '../model/integrations.js';
import type { ConnectionRegistry, ConnectionState, RegistryState } from './connections.js';
import type { PendingMove } from '../events/lifecycle.js';
import type { ChaosRecord, DeliveryRecord } from '../webhooks/dispatcher.js';
import { chaosSettingsSchema } from '../webhooks/chaos.js';
import { DOWNSTREAM_FAULT_KINDS } from '../downstream/faults.js';
import { ApiError } from '../shared/errors.js';
import { Random, type RandomState } from '../shared/random.js';
import { fakerState, restoreFaker } from '../store/seed/seeded-faker.js';
import type { DatasetSize } from '../store/seed/seed-connection.js';
import type { ConnectionData } from '../store/connection-data.js';
import type { CollectionDelta, DumpedEntry } from '../store/ordered-collection.js';
import { fixturesDigest, validateFixture, type FixtureSet } from '../store/fixtures.js';
import { BUNDLED_FIXTURES, BUNDLED_FIXTURE_SOURCES } from '../store/bundled-fixtures.js';
import { describeIssues, invalidFromIssues } from '../shared/validation.js';
import type { SandboxParts } from './sandbox-parts.js';
import { tenantDigest } from './tenants.js';

/*
 * Snapshots: the whole state of a sandbox as versioned JSON (docs/decisions/0070).
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
 * Tenants (docs/decisions/0121): a snapshot has a `scope`. A whole-server one (`server`: the
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

const uint32 = z.number().int().min(0).max(0xffffffff);
const int32 = z.number().int().min(-0x80000000).max(0xffffffff);
const time = z.number().int().nonnegative();
const count = z.number().int().nonnegative();
const digest = z.string().regex(/^[0-9a-f]{8}$/, 'must be 8 lowercase hex characters');
const randomState = z.object({ seed: uint32, position: z.tuple([int32, int32, int32, int32]) }).strict();
const fakerStateSchema = z.object({ seed: z.number().int().nonnegative(), draws: z.number().int().nonnegative() }).strict();
const extra = z.record(z.string(), z.unknown());
const entry = <T extends z.ZodType>(record: T) => z.object({ seq: z.number().int().positive(), record, extra }).strict();
/** Version 1: a collection in full. */
const fullCollection = <T extends z.ZodType>(record: T) =>
  z.object({ nextSeq: z.number().int().positive(), entries: z.array(entry(record)) }).strict();
/** Version 2: a collection as a delta over its seeded entries (`CollectionDelta`). */
const deltaCollection = <T extends z.ZodType>(record: T) =>
  z
    .object({
      nextSeq: z.number().int().positive(),
      base: count,
      digest,
      deleted: z.array(z.number().int().positive()),
      entries: z.array(entry(record)),
    })
    .strict();
type CollectionSchema = typeof fullCollection | typeof deltaCollection;

const webhookSchema = z.object({ webhookId: z.string(), connectionId: z.string(), webhookUrl: z.string(), createdTime: z.string() }).strict();
const archivedSchema = z.object({ type: z.enum(CRM_OBJECT_TYPES), record: z.record(z.string(), z.unknown()), extra, archivedAt: z.string() }).strict();
/** Engagement tasks and actions: checked loosely (the platforms' shapes), but each with its id. */
const activitySchema = z.looseObject({ id: z.string().min(1) });

const crmCollections = (collection: CollectionSchema) =>
  z
    .object(Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, collection(crmRecordSchema(type))])) as unknown as Record<CrmObjectType, ReturnType<CollectionSchema>>)
    .strict();

const dataV1Schema = z
  .object({
    random: randomState,
    faker: fakerStateSchema,
    crm: crmCollections(fullCollection),
    mailboxes: fullCollection(mailboxSchema),
    users: fullCollection(engagementUserSchema),
    // The engagement platforms' tasks and actions, and deleted records kept for native archived reads.
    engagementTasks: fullCollection(z.record(z.string(), z.unknown())).optional(),
    engagementActions: fullCollection(z.record(z.string(), z.unknown())).optional(),
    archived: z.array(archivedSchema).optional(),
  })
  .strict();

/**
 * A data set as what changed since it was seeded: the write streams' positions, each collection's
 * delta over its seeded entries, and the records deleted (kept for native archived reads).
 */
const dataSchema = z
  .object({
    random: randomState,
    faker: fakerStateSchema,
    crm: crmCollections(deltaCollection),
    mailboxes: deltaCollection(mailboxSchema),
    users: deltaCollection(engagementUserSchema),
    engagementTasks: deltaCollection(activitySchema),
    engagementActions: deltaCollection(activitySchema),
    archived: z.array(archivedSchema),
  })
  .strict();

/** The start of the SHA-256 of a tenant's API key: how a whole-server snapshot names the tenant. */
const tenant = z.string().regex(/^[0-9a-f]{16}$/, "must be 16 lowercase hex characters: the start of the SHA-256 of the tenant's API key");

/**
 * How a layout names the tenant of a connection or a token: version 1 by its API key, a
 * whole-server version 2 by the key's digest, a tenant's version 2 not at all.
 */
const BY_API_KEY = { apiKey: z.string().min(1) };
const BY_DIGEST = { tenant };
const UNNAMED = {};
type Owner = typeof BY_API_KEY | typeof BY_DIGEST | typeof UNNAMED;

const connectionSchema = <D extends z.ZodType, O extends Owner>(data: D, owner: O) =>
  z
    .object({
      connectionId: z.string().min(1),
      accessToken: z.string().min(1),
      ...owner,
      integrationId: z.enum(INTEGRATION_IDS),
      org: z.object({ nativeOrgId: z.string(), nativeUserId: z.string(), slug: z.string() }).strict(),
      nativeOrgURL: z.string(),
      orgName: z.string(),
      createdTime: time,
      status: z.enum(CONNECTION_STATUSES),
      lastActivity: time,
      webhook: webhookSchema.nullable(),
      pendingMoves: z.array(z.object({ status: z.enum(CONNECTION_STATUSES), at: time }).strict()),
      downstreamFaults: z
        .array(
          z
            .object({
              kind: z.enum(DOWNSTREAM_FAULT_KINDS),
              remaining: z.number().int().positive(),
              status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]),
              delayMs: z.number().int().nonnegative(),
              retryAfterSeconds: z.number().int().nonnegative(),
            })
            .strict(),
        )
        .optional(),
      random: randomState,
      ids: randomState,
      data: data.nullable(),
    })
    .strict();

/** What a data set's seeded base depends on besides the seed and the connection: the sandbox's dataset sizes and fixtures. */
const seedingSchema = z
  .object({
    dataset: z
      .object({
        engagement: z.object({ users: count, mailboxes: count }).strict(),
        crm: z.object(Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, count])) as Record<CrmObjectType, typeof count>).strict(),
      })
      .strict(),
    fixtures: z.object({ digest, sources: z.array(z.string()) }).strict(),
  })
  .strict();

const attemptChaosSchema = z
  .object({ delayMs: z.number().int().nonnegative().optional(), duplicate: z.literal(true).optional(), outage: z.literal(true).optional() })
  .strict();

const attemptSchema = z
  .object({
    attempt: z.number().int().positive(),
    time: z.string(),
    webhookUrl: z.string(),
    timestamp: z.string(),
    status: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().nonnegative(),
    trigger: z.enum(['schedule', 'redeliver', 'chaos']),
    chaos: attemptChaosSchema.optional(),
  })
  .strict();

const deliverySchema = z
  .object({
    eventId: z.string().min(1),
    connectionId: z.string().min(1),
    createdAt: time,
    body: z.string().refine(isJsonObject, 'must be the JSON text of an event'),
    state: z.enum(['pending', 'delivering', 'succeeded', 'retrying', 'failed']),
    attempts: z.array(attemptSchema),
    scheduledAttempts: z.number().int().nonnegative(),
    nextAttemptAt: time.nullable(),
    failureReason: z.string().nullable(),
    queued: z.boolean(),
    /** What chaos did to the automatic attempt already scheduled (its delay). */
    nextChaos: attemptChaosSchema.optional(),
  })
  .strict();

const tokenFields = <O extends Owner>(owner: O) => ({ token: z.string().min(1), ...owner, expiresAt: time });
/** The server's token stream and connection count: in a whole-server snapshot, not a tenant's. */
const SERVER_STREAMS = { tokens: randomState, created: z.number().int().nonnegative() };

/** Link and public tokens, each named as `owner` says, and `streams` (the server's, or none). */
const registrySchema = <O extends Owner, S extends typeof SERVER_STREAMS | typeof UNNAMED>(owner: O, streams: S) =>
  z
    .object({
      ...streams,
      linkTokens: z.array(z.object({ ...tokenFields(owner), used: z.boolean() }).strict()),
      publicTokens: z.array(
        z
          .object({
            ...tokenFields(owner),
            integrationId: z.enum(INTEGRATION_IDS),
            nativeOrgId: z.string().optional(),
            orgName: z.string().optional(),
            accessToken: z.string().optional(),
            used: z.boolean(),
          })
          .strict(),
      ),
    })
    .strict();

/** Per-connection delivery chaos and where its seeded stream stands. */
const chaosSchema = z.array(z.object({ connectionId: z.string().min(1), settings: chaosSettingsSchema, outageUntil: time.nullable(), stream: randomState.nullable() }).strict()).optional();

/**
 * A whole-server snapshot: every tenant's state (each named by its key's digest) and the
 * server's streams. Every field is checked, so a bad one is named before anything changes.
 */
export const serverSnapshotSchema = z
  .object({
    format: z.literal(SNAPSHOT_FORMAT),
    version: z.literal(SNAPSHOT_VERSION),
    scope: z.literal('server'),
    seed: uint32,
    time,
    seeding: seedingSchema,
    random: z.object({ events: randomState }).strict(),
    registry: registrySchema(BY_DIGEST, SERVER_STREAMS),
    connections: z.array(connectionSchema(dataSchema, BY_DIGEST)),
    deliveries: z.array(deliverySchema),
    chaos: chaosSchema,
  })
  .strict();

/** One tenant's snapshot: its connections, tokens, deliveries and chaos; no tenant named, no server stream. */
export const tenantSnapshotSchema = z
  .object({
    format: z.literal(SNAPSHOT_FORMAT),
    version: z.literal(SNAPSHOT_VERSION),
    scope: z.literal('tenant'),
    seed: uint32,
    time,
    seeding: seedingSchema,
    registry: registrySchema(UNNAMED, UNNAMED),
    connections: z.array(connectionSchema(dataSchema, UNNAMED)),
    deliveries: z.array(deliverySchema),
    chaos: chaosSchema,
  })
  .strict();

/** The zod schema of a snapshot of either scope (what `GET /sandbox/snapshot` answers and `PUT` takes). */
export const snapshotSchema = z.union([serverSnapshotSchema, tenantSnapshotSchema]);

/** A snapshot of layout version 1 (every record in full), as the releases before version 2 wrote it: still read. */
const snapshotV1Schema = z
  .object({
    format: z.literal(SNAPSHOT_FORMAT),
    version: z.literal(1),
    seed: uint32,
    time,
    random: z.object({ events: randomState }).strict(),
    registry: registrySchema(BY_API_KEY, SERVER_STREAMS),
    connections: z.array(connectionSchema(dataV1Schema, BY_API_KEY)),
    deliveries: z.array(deliverySchema),
    chaos: chaosSchema,
  })
  .strict();

/** The whole state of a sandbox as JSON, every tenant's: `sandbox.snapshot()`, `GET /sandbox/snapshot?all=true`, the state file. */
export type ServerSnapshot = z.infer<typeof serverSnapshotSchema>;
/** One tenant's state as JSON: `sandbox.snapshot({ apiKey })`, `GET /sandbox/snapshot`. */
export type TenantSnapshot = z.infer<typeof tenantSnapshotSchema>;
/** A snapshot of either scope: what `PUT /sandbox/snapshot` takes (a version-1 one too). */
export type SandboxSnapshot = ServerSnapshot | TenantSnapshot;
type SnapshotV1 = z.infer<typeof snapshotV1Schema>;
type SavedData = z.infer<typeof dataSchema>;
type SavedDataV1 = z.infer<typeof dataV1Schema>;

/** What a snapshot depends on beyond itself: the sandbox's seed, dataset sizes and fixtures. */
export interface SnapshotSource {
  seed: number;
  /** The accepted API keys: the tenants a whole-server snapshot's digests must name. */
  apiKeys: readonly string[];
  dataset: DatasetSize;
  fixtures: () => readonly FixtureSet[];
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
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
    random: { events: events.random.state() },
    registry: {
      tokens,
      created,
      linkTokens: linkTokens.map(({ token, apiKey, ...rest }) => ({ token, tenant: digestOf(apiKey), ...rest })),
      publicTokens: publicTokens.map(({ token, apiKey, ...rest }) => ({ token, tenant: digestOf(apiKey), ...rest })),
    },
    connections: registry.all().map((connection) => savedConnection(parts, connection, { tenant: digestOf(connection.apiKey) })),
    deliveries: dispatcher.exportState(),
    chaos: dispatcher.exportChaos(),
  } as ServerSnapshot;
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
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    scope: 'tenant',
    seed: source.seed,
    time: clock.now(),
    seeding: seedingOf(source),
    registry: { linkTokens: own(linkTokens), publicTokens: own(publicTokens) },
    connections: connections.map((connection) => savedConnection(parts, connection, {})),
    deliveries: dispatcher.exportState().filter((delivery) => ids.has(delivery.connectionId)),
    chaos: dispatcher.exportChaos().filter((chaos) => ids.has(chaos.connectionId)),
  } as TenantSnapshot;
}

/** A connection as a snapshot holds it, its tenant named as the layout says (`owner`). */
function savedConnection(parts: SandboxParts, connection: ConnectionState, owner: { tenant?: string }) {
  return {
    connectionId: connection.connectionId,
    accessToken: connection.accessToken,
    ...owner,
    integrationId: connection.integrationId,
    org: { ...connection.org },
    nativeOrgURL: connection.nativeOrgURL,
    orgName: connection.orgName,
    createdTime: connection.createdTime,
    status: connection.status,
    lastActivity: connection.lastActivity,
    webhook: connection.webhook ? { ...connection.webhook } : null,
    pendingMoves: parts.lifecycle.pending(connection),
    random: connection.random.state(),
    ids: connection.ids.state(),
    data: connection.data ? dataDelta(connection.data) : null,
    downstreamFaults: connection.downstreamFaults.map((fault) => ({ ...fault })),
  };
}

function dataDelta(data: ConnectionData): SavedData {
  return {
    random: data.streams.random.state(),
    faker: fakerState(data.streams.faker),
    crm: Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, data.crm[type].delta()])),
    mailboxes: data.mailboxes.delta(),
    users: data.users.delta(),
    engagementTasks: data.engagementTasks.delta(),
    engagementActions: data.engagementActions.delta(),
    archived: data.archived.map((item) => ({ ...item })),
  } as unknown as SavedData;
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
 */
export function parseSnapshot(value: unknown, source: SnapshotSource): ParsedSnapshot {
  const { version, scope } = (value ?? {}) as { version?: unknown; scope?: unknown };
  const schema = version === 1 ? snapshotV1Schema : scope === 'tenant' ? tenantSnapshotSchema : serverSnapshotSchema;
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw invalidFromIssues(describeIssues(result.error));
  const snapshot = value as ParsedSnapshot; // the input itself: parsing may reorder keys, and records must keep their bytes
  if (snapshot.seed !== source.seed) {
    throw ApiError.invalidField('seed', `seed is ${snapshot.seed}, but this sandbox runs with seed ${source.seed}; start it with --seed ${snapshot.seed}`);
  }
  if (snapshot.version === SNAPSHOT_VERSION) checkSeeding(snapshot.seeding, source);
  checkReferences(snapshot);
  return snapshot;
}

/** The dataset sizes and fixtures must be the ones the snapshot's data sets were seeded with. */
function checkSeeding(seeding: SandboxSnapshot['seeding'], source: SnapshotSource): void {
  const sizes = (dataset: DatasetSize): Array<[string, number]> => [
    ['engagement.users', dataset.engagement.users],
    ['engagement.mailboxes', dataset.engagement.mailboxes],
    ...CRM_OBJECT_TYPES.map((type): [string, number] => [`crm.${type}`, dataset.crm[type]]),
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
    if (ids.has(connection.connectionId)) throw ApiError.invalidField(`connections[${i}].connectionId`, `connections[${i}].connectionId repeats ${connection.connectionId}`);
    if (tokens.has(connection.accessToken)) throw ApiError.invalidField(`connections[${i}].accessToken`, `connections[${i}].accessToken repeats another connection's`);
    ids.add(connection.connectionId);
    tokens.add(connection.accessToken);
    if (!connection.data) return;
    if (snapshot.version === 1) {
      // As version 1 was always checked: the CRM collections, mailboxes and users.
      const data = connection.data as SavedDataV1;
      for (const type of CRM_OBJECT_TYPES) checkEntries(`connections[${i}].data.crm.${type}`, data.crm[type]);
      checkEntries(`connections[${i}].data.mailboxes`, data.mailboxes);
      checkEntries(`connections[${i}].data.users`, data.users);
      return;
    }
    for (const [name, delta] of savedCollections(connection.data as SavedData)) {
      const field = `connections[${i}].data.${name}`;
      checkEntries(field, delta);
      let last = 0;
      const replaced = new Set(delta.entries.map((item) => item.seq));
      delta.deleted.forEach((seq, j) => {
        if (seq <= last || seq > delta.base || replaced.has(seq)) {
          throw ApiError.invalidField(`${field}.deleted[${j}]`, `${field}.deleted[${j}] must be above the one before, at most base, and not the seq of an entry`);
        }
        last = seq;
      });
    }
  });
  const events = new Set<string>();
  snapshot.deliveries.forEach((delivery, i) => {
    if (!ids.has(delivery.connectionId)) throw ApiError.invalidField(`deliveries[${i}].connectionId`, `deliveries[${i}].connectionId names no connection of the snapshot`);
    if (events.has(delivery.eventId)) throw ApiError.invalidField(`deliveries[${i}].eventId`, `deliveries[${i}].eventId repeats ${delivery.eventId}`);
    events.add(delivery.eventId);
  });
}

/** Entries with ascending sequences below nextSeq, and no id twice. */
function checkEntries(field: string, dumped: { nextSeq: number; entries: ReadonlyArray<{ seq: number; record: unknown }> }): void {
  let last = 0;
  const seen = new Set<string>();
  dumped.entries.forEach((item, j) => {
    const at = `${field}.entries[${j}]`;
    if (item.seq <= last || item.seq >= dumped.nextSeq) throw ApiError.invalidField(`${at}.seq`, `${at}.seq must be above the one before and below nextSeq`);
    const id = (item.record as { id: string }).id;
    if (seen.has(id)) throw ApiError.invalidField(`${at}.record.id`, `${at}.record.id repeats ${id}`);
    seen.add(id);
    last = item.seq;
  });
}

/** A saved data set's collections, by the names {@link ConnectionData.collections} gives them. */
function savedCollections(data: SavedData): Array<[string, CollectionDelta<{ id: string }>]>;
function savedCollections(data: SavedDataV1): Array<[string, { nextSeq: number; entries: Array<DumpedEntry<{ id: string }>> } | undefined]>;
function savedCollections(data: SavedData | SavedDataV1): Array<[string, unknown]> {
  return [
    ...CRM_OBJECT_TYPES.map((type): [string, unknown] => [`crm.${type}`, data.crm[type]]),
    ['mailboxes', data.mailboxes],
    ['users', data.users],
    ['engagementTasks', data.engagementTasks],
    ['engagementActions', data.engagementActions],
  ];
}

type SavedConnection = ParsedSnapshot['connections'][number];
type SavedToken = ParsedSnapshot['registry']['linkTokens'][number] | ParsedSnapshot['registry']['publicTokens'][number];
/** How a saved connection or token names its tenant, whatever the layout (a tenant's snapshot names none). */
const named = (item: SavedConnection | SavedToken) => item as { apiKey?: string; tenant?: string };

/**
 * Loads a checked whole-server snapshot into fresh parts (built on a clock standing at
 * `snapshot.time`). Each connection and token goes back to the API key its digest (version 1:
 * its key) names; one that names no accepted key is a 400 naming the field. A tenant's
 * snapshot is refused: it says nothing of the other tenants or the server's streams.
 */
export function loadSnapshot(parts: SandboxParts, snapshot: ParsedSnapshot, source: SnapshotSource): void {
  if (snapshot.version === SNAPSHOT_VERSION && snapshot.scope === 'tenant') {
    throw ApiError.invalidField(
      'scope',
      "scope is tenant: a tenant's snapshot restores into one tenant (PUT /sandbox/snapshot with its API key, restore(snapshot, { apiKey }) in code), not over the whole server",
    );
  }
  const { registry, lifecycle, dispatcher } = parts;
  const keys = tenantKeys(source);
  const keyOf = (item: SavedConnection | SavedToken, field: string): string => {
    const { apiKey, tenant } = named(item);
    const key = apiKey !== undefined ? (source.apiKeys.includes(apiKey) ? apiKey : undefined) : keys.get(tenant!);
    if (key !== undefined) return key;
    const what = apiKey !== undefined ? `${field}.apiKey is not one of this sandbox's API keys` : `${field}.tenant is ${tenant}, the digest of none of this sandbox's API keys`;
    throw ApiError.invalidField(`${field}.${apiKey !== undefined ? 'apiKey' : 'tenant'}`, `${what}; start it with the API keys the snapshot was taken with (--api-key)`);
  };
  const tokens = (list: SavedToken[], field: string) =>
    list.map((item, i) => {
      const { apiKey: _, tenant: __, ...rest } = named(item) as SavedToken & { apiKey?: string; tenant?: string };
      return { ...rest, apiKey: keyOf(item, `registry.${field}[${i}]`) };
    });
  const saved = snapshot.registry as { tokens: RandomState; created: number; linkTokens: SavedToken[]; publicTokens: SavedToken[] };
  const state = { tokens: saved.tokens, created: saved.created, linkTokens: tokens(saved.linkTokens, 'linkTokens'), publicTokens: tokens(saved.publicTokens, 'publicTokens') };
  // The data sets first: one that does not rebuild as saved refuses the snapshot before any timer is set.
  const connections = snapshot.connections.map((item, i) => rebuildConnection(registry, item, keyOf(item, `connections[${i}]`), snapshot.version, i));
  parts.events.random = Random.fromState((snapshot as ServerSnapshot | SnapshotV1).random.events);
  registry.importState(state as unknown as RegistryState);
  connections.forEach((connection, i) => {
    registry.adopt(connection);
    lifecycle.resume(connection, snapshot.connections[i]!.pendingMoves as PendingMove[]);
  });
  dispatcher.importChaos(snapshot.chaos ?? []);
  dispatcher.importState(snapshot.deliveries as DeliveryRecord[]);
}

/** The accepted API keys by their digests. */
function tenantKeys(source: SnapshotSource): Map<string, string> {
  return new Map(source.apiKeys.map((apiKey) => [tenantDigest(apiKey), apiKey]));
}

/** A saved connection as the registry holds it, owned by `apiKey`, its data set rebuilt (a 400 naming the field if it does not fit). */
function rebuildConnection(registry: ConnectionRegistry, saved: SavedConnection, apiKey: string, version: number, i: number): ConnectionState {
  const connection: ConnectionState = {
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
    ids: Random.fromState(saved.ids),
    downstreamFaults: (saved.downstreamFaults ?? []).map((fault) => ({ ...fault })),
  };
  if (saved.data) connection.data = restoreData(registry, connection, saved.data, version, `connections[${i}].data`);
  return connection;
}

/** One tenant's part of a checked snapshot, every check passed and every data set rebuilt: what {@link loadTenantPart} lays in. */
export interface TenantPart {
  connections: Array<{ connection: ConnectionState; pendingMoves: PendingMove[] }>;
  tokens: Pick<RegistryState, 'linkTokens' | 'publicTokens'>;
  deliveries: DeliveryRecord[];
  chaos: ChaosRecord[];
}

/**
 * What a snapshot restores into the tenant of `apiKey`: all of a tenant's snapshot (whoever it
 * was taken from), or the part of a whole-server one (or a version-1 file) that names this
 * tenant; the rest is left out. Everything becomes this tenant's. A connection id, access token,
 * link or public token or event id that another tenant holds is a 400 naming the field, and so
 * is a data set that does not rebuild: nothing has changed yet when it is thrown.
 */
export function tenantPart(parts: SandboxParts, snapshot: ParsedSnapshot, apiKey: string): TenantPart {
  const { registry, dispatcher } = parts;
  const digest = tenantDigest(apiKey);
  const mine = (item: SavedConnection | SavedToken) => {
    const { apiKey: key, tenant } = named(item);
    return key !== undefined ? key === apiKey : tenant === undefined || tenant === digest;
  };
  const taken = (holder: string | undefined, field: string, what: string) => {
    if (holder !== undefined && holder !== apiKey) throw ApiError.invalidField(field, `${field} is ${what} of another tenant; a restore changes only your own tenant`);
  };
  const ids = new Set<string>();
  const connections = snapshot.connections.flatMap((saved, i) => {
    if (!mine(saved)) return [];
    taken(registry.holderOf('connectionId', saved.connectionId), `connections[${i}].connectionId`, 'the id of a connection');
    taken(registry.holderOf('accessToken', saved.accessToken), `connections[${i}].accessToken`, 'the accessToken of a connection');
    ids.add(saved.connectionId);
    return [{ connection: rebuildConnection(registry, saved, apiKey, snapshot.version, i), pendingMoves: saved.pendingMoves as PendingMove[] }];
  });
  const tokens = <T extends SavedToken>(list: T[], kind: 'linkToken' | 'publicToken', field: string) =>
    list.flatMap((item, i) => {
      if (!mine(item)) return [];
      taken(registry.holderOf(kind, item.token), `registry.${field}[${i}].token`, `a ${kind === 'linkToken' ? 'link' : 'public'} token`);
      const { apiKey: _, tenant: __, ...rest } = item as T & { apiKey?: string; tenant?: string };
      return [{ ...rest, apiKey }];
    });
  const deliveries = snapshot.deliveries.filter((delivery, i) => {
    if (!ids.has(delivery.connectionId)) return false;
    const held = dispatcher.get(delivery.eventId);
    taken(held && (registry.find(held.connectionId)?.apiKey ?? ''), `deliveries[${i}].eventId`, 'the eventId of a delivery');
    return true;
  });
  return {
    connections,
    tokens: {
      linkTokens: tokens(snapshot.registry.linkTokens, 'linkToken', 'linkTokens') as unknown as RegistryState['linkTokens'],
      publicTokens: tokens(snapshot.registry.publicTokens, 'publicToken', 'publicTokens') as unknown as RegistryState['publicTokens'],
    },
    deliveries: deliveries as DeliveryRecord[],
    // Only the chaos of the connections restored: a snapshot sets nothing on another tenant's.
    chaos: (snapshot.chaos ?? []).filter((chaos) => ids.has(chaos.connectionId)),
  };
}

/** Lays a tenant's part into the parts, once that tenant's connections and tokens are gone: its deliveries and moves go on. */
export function loadTenantPart(parts: SandboxParts, part: TenantPart): void {
  const { registry, lifecycle, dispatcher } = parts;
  registry.addTokens(part.tokens);
  for (const { connection, pendingMoves } of part.connections) {
    registry.adopt(connection);
    lifecycle.resume(connection, pendingMoves);
  }
  dispatcher.importChaos(part.chaos);
  dispatcher.importState(part.deliveries);
}

/**
 * A connection's data set as saved: its seeded base rebuilt, then the saved delta over it
 * (version 2), or every saved entry compared with it (version 1), writing on from the saved
 * stream positions.
 */
function restoreData(registry: ConnectionRegistry, connection: ConnectionState, saved: SavedData | SavedDataV1, version: number, field: string): ConnectionData {
  const seeded = new Map(registry.seededData(connection).collections());
  const data = registry.emptyData(connection, Random.fromState(saved.random), restoreFaker(registry.fakerModule(), saved.faker));
  const collections = new Map<string, unknown>(version === SNAPSHOT_VERSION ? savedCollections(saved as SavedData) : savedCollections(saved as SavedDataV1));
  for (const [name, collection] of data.collections()) {
    const base = seeded.get(name)!;
    if (version === SNAPSHOT_VERSION) collection.loadDelta(base, collections.get(name) as CollectionDelta<{ id: string }>, `${field}.${name}`);
    else collection.loadOverBase(base, (collections.get(name) as { nextSeq: number; entries: Array<DumpedEntry<{ id: string }>> } | undefined) ?? { nextSeq: 1, entries: [] });
  }
  data.archived.push(...((saved.archived ?? []) as unknown as ConnectionData['archived']));
  return data;
}
