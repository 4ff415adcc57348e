import * as z from 'zod';
import { CONNECTION_STATUSES } from '../model/connection.js';
import { CRM_OBJECT_TYPES, crmRecordSchema, type CrmObjectType, type CrmRecord } from '../model/crm.js';
import { engagementUserSchema, mailboxSchema, type EngagementUser, type Mailbox } from '../model/engagement.js';
import { INTEGRATION_IDS } from '../model/integrations.js';
import type { ConnectionState, RegistryState } from './connections.js';
import type { PendingMove } from '../events/lifecycle.js';
import type { DeliveryRecord } from '../webhooks/dispatcher.js';
import { chaosSettingsSchema } from '../webhooks/chaos.js';
import { DOWNSTREAM_FAULT_KINDS } from '../downstream/faults.js';
import { ApiError } from '../shared/errors.js';
import { Random } from '../shared/random.js';
import { fakerState, restoreFaker } from '../store/seed/seeded-faker.js';
import { describeIssues, invalidFromIssues } from '../shared/validation.js';
import type { SandboxParts } from './sandbox-parts.js';

/** What `snapshot()` writes in `format`, so a foreign JSON file is told apart. */
export const SNAPSHOT_FORMAT = 'crm-sandbox-state';
/** The snapshot layout's version; a snapshot of another version is refused. */
export const SNAPSHOT_VERSION = 1;

const uint32 = z.number().int().min(0).max(0xffffffff);
const int32 = z.number().int().min(-0x80000000).max(0xffffffff);
const time = z.number().int().nonnegative();
const randomState = z.object({ seed: uint32, position: z.tuple([int32, int32, int32, int32]) }).strict();
const fakerStateSchema = z.object({ seed: z.number().int().nonnegative(), draws: z.number().int().nonnegative() }).strict();
const extra = z.record(z.string(), z.unknown());
const entry = <T extends z.ZodType>(record: T) => z.object({ seq: z.number().int().positive(), record, extra }).strict();
const collection = <T extends z.ZodType>(record: T) =>
  z.object({ nextSeq: z.number().int().positive(), entries: z.array(entry(record)) }).strict();

const webhookSchema = z.object({ webhookId: z.string(), connectionId: z.string(), webhookUrl: z.string(), createdTime: z.string() }).strict();

const dataSchema = z
  .object({
    random: randomState,
    faker: fakerStateSchema,
    crm: z
      .object(Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, collection(crmRecordSchema(type))])) as unknown as Record<CrmObjectType, ReturnType<typeof collection>>)
      .strict(),
    mailboxes: collection(mailboxSchema),
    users: collection(engagementUserSchema),
    // The engagement platforms' tasks and actions, and deleted records kept for native archived reads.
    engagementTasks: collection(z.record(z.string(), z.unknown())).optional(),
    engagementActions: collection(z.record(z.string(), z.unknown())).optional(),
    archived: z
      .array(z.object({ type: z.enum(CRM_OBJECT_TYPES), record: z.record(z.string(), z.unknown()), extra, archivedAt: z.string() }).strict())
      .optional(),
  })
  .strict();

const connectionSchema = z
  .object({
    connectionId: z.string().min(1),
    accessToken: z.string().min(1),
    apiKey: z.string().min(1),
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
    data: dataSchema.nullable(),
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

const tokenFields = { token: z.string().min(1), apiKey: z.string().min(1), expiresAt: time };

/** The zod schema of a snapshot: every field checked, so a bad one is named before anything changes. */
export const snapshotSchema = z
  .object({
    format: z.literal(SNAPSHOT_FORMAT),
    version: z.literal(SNAPSHOT_VERSION),
    seed: uint32,
    time,
    random: z.object({ events: randomState }).strict(),
    registry: z
      .object({
        tokens: randomState,
        created: z.number().int().nonnegative(),
        linkTokens: z.array(z.object({ ...tokenFields, used: z.boolean() }).strict()),
        publicTokens: z.array(
          z
            .object({
              ...tokenFields,
              integrationId: z.enum(INTEGRATION_IDS),
              nativeOrgId: z.string().optional(),
              orgName: z.string().optional(),
              accessToken: z.string().optional(),
              used: z.boolean(),
            })
            .strict(),
        ),
      })
      .strict(),
    connections: z.array(connectionSchema),
    deliveries: z.array(deliverySchema),
    /** Per-connection delivery chaos and where its seeded stream stands. */
    chaos: z.array(z.object({ connectionId: z.string().min(1), settings: chaosSettingsSchema, outageUntil: time.nullable(), stream: randomState.nullable() }).strict()).optional(),
  })
  .strict();

/** The whole state of a sandbox as JSON: what `GET /sandbox/snapshot` answers and `PUT` takes. */
export type SandboxSnapshot = z.infer<typeof snapshotSchema>;

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Writes the state held by `parts` as a snapshot. Records are shared, not copied: they are immutable values. */
export function takeSnapshot(parts: SandboxParts, seed: number): SandboxSnapshot {
  const { registry, lifecycle, dispatcher, clock, events } = parts;
  const connections = [...registryConnections(parts)].map((connection) => ({
    connectionId: connection.connectionId,
    accessToken: connection.accessToken,
    apiKey: connection.apiKey,
    integrationId: connection.integrationId,
    org: { ...connection.org },
    nativeOrgURL: connection.nativeOrgURL,
    orgName: connection.orgName,
    createdTime: connection.createdTime,
    status: connection.status,
    lastActivity: connection.lastActivity,
    webhook: connection.webhook ? { ...connection.webhook } : null,
    pendingMoves: lifecycle.pending(connection),
    random: connection.random.state(),
    ids: connection.ids.state(),
    data: connection.data
      ? {
          random: connection.data.streams.random.state(),
          faker: fakerState(connection.data.streams.faker),
          crm: Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, connection.data!.crm[type].dump()])),
          mailboxes: connection.data.mailboxes.dump(),
          users: connection.data.users.dump(),
          engagementTasks: connection.data.engagementTasks.dump(),
          engagementActions: connection.data.engagementActions.dump(),
          archived: connection.data.archived.map((item) => ({ ...item })),
        }
      : null,
    downstreamFaults: connection.downstreamFaults.map((fault) => ({ ...fault })),
  }));
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    seed,
    time: clock.now(),
    random: { events: events.random.state() },
    registry: registry.exportState(),
    connections,
    deliveries: dispatcher.exportState(),
    chaos: dispatcher.exportChaos(),
  } as SandboxSnapshot;
}

function registryConnections(parts: SandboxParts): ConnectionState[] {
  return parts.registry.all();
}

/**
 * Checks a snapshot: a 400 naming the first bad field (`connections[0].status must be one of …`),
 * or a snapshot of another seed (ids would no longer follow from it).
 */
export function parseSnapshot(value: unknown, seed: number): SandboxSnapshot {
  const result = snapshotSchema.safeParse(value, { reportInput: true });
  if (!result.success) throw invalidFromIssues(describeIssues(result.error));
  const snapshot = value as SandboxSnapshot; // the input itself: parsing may reorder keys, and records must keep their bytes
  if (snapshot.seed !== seed) {
    throw ApiError.invalidField('seed', `seed is ${snapshot.seed}, but this sandbox runs with seed ${seed}; start it with --seed ${snapshot.seed}`);
  }
  checkReferences(snapshot);
  return snapshot;
}

/** What zod cannot see: ids unique, deliveries of known connections, sequences ascending. */
function checkReferences(snapshot: SandboxSnapshot): void {
  const ids = new Set<string>();
  const tokens = new Set<string>();
  snapshot.connections.forEach((connection, i) => {
    if (ids.has(connection.connectionId)) throw ApiError.invalidField(`connections[${i}].connectionId`, `connections[${i}].connectionId repeats ${connection.connectionId}`);
    if (tokens.has(connection.accessToken)) throw ApiError.invalidField(`connections[${i}].accessToken`, `connections[${i}].accessToken repeats another connection's`);
    ids.add(connection.connectionId);
    tokens.add(connection.accessToken);
    if (!connection.data) return;
    const collections: Array<[string, { nextSeq: number; entries: Array<{ seq: number; record: unknown }> }]> = [
      ...CRM_OBJECT_TYPES.map((type): [string, { nextSeq: number; entries: Array<{ seq: number; record: unknown }> }] => [`crm.${type}`, connection.data!.crm[type]]),
      ['mailboxes', connection.data.mailboxes],
      ['users', connection.data.users],
    ];
    for (const [name, dumped] of collections) {
      let last = 0;
      const seen = new Set<string>();
      dumped.entries.forEach((item, j) => {
        const field = `connections[${i}].data.${name}.entries[${j}]`;
        if (item.seq <= last || item.seq >= dumped.nextSeq) throw ApiError.invalidField(`${field}.seq`, `${field}.seq must be above the one before and below nextSeq`);
        const id = (item.record as { id: string }).id;
        if (seen.has(id)) throw ApiError.invalidField(`${field}.record.id`, `${field}.record.id repeats ${id}`);
        seen.add(id);
        last = item.seq;
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

/** Loads a checked snapshot into fresh parts (built on a clock standing at `snapshot.time`). */
export function loadSnapshot(parts: SandboxParts, snapshot: SandboxSnapshot): void {
  const { registry, lifecycle, dispatcher } = parts;
  parts.events.random = Random.fromState(snapshot.random.events);
  registry.importState(snapshot.registry as unknown as RegistryState);
  for (const saved of snapshot.connections) {
    const connection: ConnectionState = {
      connectionId: saved.connectionId,
      accessToken: saved.accessToken,
      apiKey: saved.apiKey,
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
    if (saved.data) {
      const data = registry.emptyData(connection, Random.fromState(saved.data.random), restoreFaker(saved.data.faker));
      for (const type of CRM_OBJECT_TYPES) data.crm[type].load(saved.data.crm[type] as Parameters<typeof data.crm.Contact.load>[0] & { entries: Array<{ record: CrmRecord }> });
      data.mailboxes.load(saved.data.mailboxes as { nextSeq: number; entries: Array<{ seq: number; record: Mailbox; extra: Record<string, unknown> }> });
      data.users.load(saved.data.users as { nextSeq: number; entries: Array<{ seq: number; record: EngagementUser; extra: Record<string, unknown> }> });
      if (saved.data.engagementTasks) data.engagementTasks.load(saved.data.engagementTasks as unknown as Parameters<typeof data.engagementTasks.load>[0]);
      if (saved.data.engagementActions) data.engagementActions.load(saved.data.engagementActions as unknown as Parameters<typeof data.engagementActions.load>[0]);
      data.archived.push(...((saved.data.archived ?? []) as unknown as typeof data.archived));
      connection.data = data;
    }
    registry.adopt(connection);
    lifecycle.resume(connection, saved.pendingMoves as PendingMove[]);
  }
  dispatcher.importChaos(snapshot.chaos ?? []);
  dispatcher.importState(snapshot.deliveries as DeliveryRecord[]);
}
