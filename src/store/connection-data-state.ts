import * as z from 'zod';
import { CRM_OBJECT_TYPES, type CrmObjectType, type CrmRecord, crmRecordSchema } from '../model/crm.js';
import { engagementUserSchema, mailboxSchema } from '../model/engagement.js';
import { once } from '../shared/once.js';
import { randomStateSchema } from '../shared/random.js';
import { collectionsByName, LATER_ENGAGEMENT_COLLECTIONS } from './collection-names.js';
import { type ArchivedRecord, archivedRecordSchema, type ConnectionData } from './connection-data.js';
import { type CollectionDelta, type CollectionDump, checkDelta, checkDump, collectionDeltaSchema, collectionDumpSchema } from './ordered-collection.js';
import { retiredDrawsSchema } from './retired-native-ids.js';
import { fakerState, fakerStateSchema } from './seed/seeded-faker.js';

// A connection's data set as a snapshot keeps it: its schemas (this release's and version 1's),
// the checks zod cannot make, and the export and import of a ConnectionData, reading what an
// earlier release saved as this one would have.

/** Engagement tasks and actions: checked loosely (the platforms' shapes), but each with its id. */
const activitySchema = once(() => z.looseObject({ id: z.string().min(1) }));

/** The ten CRM collections, each saved as `collection` makes it of its type's record schema. */
const crmCollectionsSchema = <C extends z.ZodType>(collection: (type: CrmObjectType) => C) =>
  z
    .object(
      // Email came later: a data set saved by an earlier release has none (read: as seeded).
      Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, type === 'Email' ? collection(type).optional() : collection(type)])) as Record<CrmObjectType, C>,
    )
    .strict();

/**
 * A data set as a snapshot keeps it: the write streams' positions, each collection's delta over
 * its seeded entries, the records deleted (kept for native archived reads), and the runs of
 * draws that crashes may have lost (only after one).
 */
export const connectionDataStateSchema = once(() =>
  z
    .object({
      random: randomStateSchema(),
      faker: fakerStateSchema(),
      crm: crmCollectionsSchema((type): z.ZodType<CollectionDelta<CrmRecord>> => collectionDeltaSchema(crmRecordSchema(type))),
      mailboxes: collectionDeltaSchema(mailboxSchema()),
      users: collectionDeltaSchema(engagementUserSchema()),
      engagementTasks: collectionDeltaSchema(activitySchema()),
      engagementActions: collectionDeltaSchema(activitySchema()),
      // Sequences, calls, engagement emails and call dispositions came later: a data set saved by an earlier release has none (read: as seeded).
      sequences: collectionDeltaSchema(activitySchema()).optional(),
      calls: collectionDeltaSchema(activitySchema()).optional(),
      engagementEmails: collectionDeltaSchema(activitySchema()).optional(),
      callDispositions: collectionDeltaSchema(activitySchema()).optional(),
      archived: z.array(archivedRecordSchema()),
      retired: z.array(retiredDrawsSchema()).optional(),
    })
    .strict(),
);
export type ConnectionDataState = z.infer<ReturnType<typeof connectionDataStateSchema>>;

/** A data set as version-1 snapshots keep it: every collection in full (still read). */
export const connectionDataStateV1Schema = once(() =>
  z
    .object({
      random: randomStateSchema(),
      faker: fakerStateSchema(),
      crm: crmCollectionsSchema((type): z.ZodType<CollectionDump<CrmRecord>> => collectionDumpSchema(crmRecordSchema(type))),
      mailboxes: collectionDumpSchema(mailboxSchema()),
      users: collectionDumpSchema(engagementUserSchema()),
      // The engagement platforms' tasks and actions, and deleted records kept for native archived reads.
      engagementTasks: collectionDumpSchema(z.record(z.string(), z.unknown())).optional(),
      engagementActions: collectionDumpSchema(z.record(z.string(), z.unknown())).optional(),
      archived: z.array(archivedRecordSchema()).optional(),
    })
    .strict(),
);
export type ConnectionDataStateV1 = z.infer<ReturnType<typeof connectionDataStateV1Schema>>;

/** A version-1 data set's collections by name. Its tasks and actions were checked as objects only (without their ids). */
function collectionsV1(state: ConnectionDataStateV1): Array<[string, CollectionDump<{ id: string }> | undefined]> {
  const { engagementTasks, engagementActions } = state as {
    engagementTasks?: CollectionDump<{ id: string }>;
    engagementActions?: CollectionDump<{ id: string }>;
  };
  return collectionsByName({ ...state, engagementTasks, engagementActions });
}

/** What zod cannot see in a saved data set: each collection's sequences and ids (a 400 naming the field under `field`). */
export function checkDataState(field: string, state: ConnectionDataState): void {
  // A collection an earlier release did not save (crm.Email) is not there to check.
  for (const [name, delta] of collectionsByName(state)) if (delta !== undefined) checkDelta(`${field}.${name}`, delta);
}

/** The same for version 1, as it was always checked: the CRM collections, mailboxes and users. */
export function checkDataStateV1(field: string, state: ConnectionDataStateV1): void {
  for (const type of CRM_OBJECT_TYPES) if (state.crm[type]) checkDump(`${field}.crm.${type}`, state.crm[type]);
  checkDump(`${field}.mailboxes`, state.mailboxes);
  checkDump(`${field}.users`, state.users);
}

/**
 * The data set as a snapshot keeps it: where its write streams stand and what changed since it
 * was seeded (the seed rebuilds the rest). Records are shared, not copied: they are immutable values.
 */
export function exportDataState(data: ConnectionData): ConnectionDataState {
  const { random, faker } = data.streams;
  const retired = data.retiredNativeIds.state();
  return {
    random: random.state(),
    faker: fakerState(faker),
    crm: Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, data.crm[type].delta()])) as ConnectionDataState['crm'],
    mailboxes: data.mailboxes.delta(),
    users: data.users.delta(),
    engagementTasks: data.engagementTasks.delta(),
    engagementActions: data.engagementActions.delta(),
    sequences: data.sequences.delta(),
    calls: data.calls.delta(),
    engagementEmails: data.engagementEmails.delta(),
    callDispositions: data.callDispositions.delta(),
    archived: data.archived.map((item) => ({ ...item })),
    ...(retired.length > 0 ? { retired } : {}),
  };
}

/**
 * Fills `data`, an empty store (writing with the saved streams), with a saved data set laid over
 * `seeded`, the same connection's store just seeded. A delta that does not fit that base is a
 * 400 naming the field under `field` (`connections[0].data`). In pieces: a collection at a time
 * (each laid in and its digest checked in one piece).
 */
export function* importDataStateInPieces(data: ConnectionData, seeded: ConnectionData, state: ConnectionDataState, field: string): Generator<void, void, void> {
  const bases = new Map(seeded.collections());
  const saved = new Map(collectionsByName<CollectionDelta<{ id: string }>>(state));
  for (const [name, collection] of data.collections()) {
    const base = bases.get(name)!;
    // A collection the data set does not name (Email, sequences…, saved by an earlier release) is as seeded.
    collection.loadDelta(base, saved.get(name) ?? base.delta(), `${field}.${name}`);
    yield;
  }
  data.settleLoaded({ emailsSaved: saved.get('crm.Email') !== undefined });
  data.archived.push(...(state.archived as ArchivedRecord[]));
  data.retiredNativeIds.load(state.retired ?? []);
}

/** The same for a version-1 data set: each saved collection compared with the seeded one, so the next snapshot is a small version 2. */
export function* importDataStateV1InPieces(data: ConnectionData, seeded: ConnectionData, state: ConnectionDataStateV1): Generator<void, void, void> {
  const bases = new Map(seeded.collections());
  const saved = new Map(collectionsV1(state));
  for (const [name, collection] of data.collections()) {
    const base = bases.get(name)!;
    const dumped = saved.get(name);
    // Emails and the later engagement collections came after version 1: as seeded. (Tasks and actions a version-1 file lacks were empty then.)
    if (!dumped && (name === 'crm.Email' || (LATER_ENGAGEMENT_COLLECTIONS as readonly string[]).includes(name))) collection.loadDelta(base, base.delta(), name);
    else collection.loadOverBase(base, dumped ?? { nextSeq: 1, entries: [] });
    yield;
  }
  data.settleLoaded({ emailsSaved: saved.get('crm.Email') !== undefined });
  data.archived.push(...((state.archived ?? []) as ArchivedRecord[]));
}
