import type { Faker } from '@faker-js/faker';
import * as z from 'zod';
import type { Clock } from '../clock/clock.js';
import {
  ADDRESS_PARTS,
  CRM_ASSOCIATIONS,
  CRM_FIELDS,
  CRM_OBJECT_TYPES,
  type CrmObjectType,
  type CrmRecord,
  crmWriteSchema,
  DERIVED_ASSOCIATIONS,
  DERIVED_FIELDS,
  ID_PREFIX,
  OWNED_TYPES,
  READ_ONLY_FIELDS,
  REQUIRED_FIELDS,
} from '../model/crm.js';
import type { EngagementUser, Mailbox } from '../model/engagement.js';
import type { CallDisposition, EngagementAction, EngagementCall, EngagementEmail, EngagementSequence, EngagementTask } from '../model/engagement-activity.js';
import { INTEGRATIONS, type IntegrationId } from '../model/integrations.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import { once } from '../shared/once.js';
import type { Random } from '../shared/random.js';
import type { Reservation } from '../shared/reservation.js';
import { type FieldIssue, invalidFromIssues, parseOrThrow } from '../shared/validation.js';
import { derivedAssociationHint, type Edge, edgeKey, edgesOf, isManyField, linkOf, ONE_WAY_INTO } from './associations.js';
import { collectionsByName } from './collection-names.js';
import { entryExtraSchema, OrderedCollection } from './ordered-collection.js';
import { RetiredNativeIds } from './retired-native-ids.js';
import { expectedRevenue, fakeFields } from './seed/fake-fields.js';
import { fakerState } from './seed/seeded-faker.js';

/**
 * Where every connection's store reports its changes: one sink for a sandbox's stores, given to
 * each at construction (src/core/event-sink.ts turns a change into an event and delivers it).
 */
export interface ChangeSink {
  recordChanged(connectionId: string, integrationId: IntegrationId, change: RecordChange): void;
}

/** A change to a CRM record, reported once the store holds it. */
export interface RecordChange {
  objectType: CrmObjectType;
  eventType: 'CREATE' | 'UPDATE' | 'DELETE';
  /** The record after the change; for DELETE, as it was just before. Records are never edited in place. */
  record: CrmRecord;
}

/**
 * A deleted record as a snapshot keeps it. Its record is checked as an object only: it was a
 * valid record when it was deleted, and a snapshot of an earlier release must not be refused
 * for a field added to records since.
 */
export const archivedRecordSchema = once(() =>
  z.object({ type: z.enum(CRM_OBJECT_TYPES), record: z.record(z.string(), z.unknown()), extra: entryExtraSchema(), archivedAt: z.string() }).strict(),
);
/** A deleted record, kept for native `archived` reads: its record is the one the store deleted. */
export type ArchivedRecord = Omit<z.infer<ReturnType<typeof archivedRecordSchema>>, 'record'> & { record: CrmRecord };

export interface ConnectionDataOptions {
  connectionId: string;
  integrationId: IntegrationId;
  clock: Clock;
  /** Ids and native ids of records created after seeding. */
  random: Random;
  /** Values for the fields a create leaves out. */
  faker: Faker;
  /** Most records the connection holds, of every collection, seeded ones included (`Infinity`: no cap). Default: no cap. */
  recordLimit?: number;
  /** Told of every change once the store holds it. */
  events: ChangeSink;
}

type Associations = Record<string, string[] | string | null>;
const iso = (ms: number) => new Date(ms).toISOString();
/** A Deal created without a close date closes this long after its creation (the document requires one). */
const DEFAULT_CLOSE_AFTER = 30 * 86_400_000;
const nativeIdOf = (record: { nativeId?: string }) => record.nativeId;

/**
 * One connection's records: the ten CRM collections and the eight engagement collections
 * (mailboxes, users, tasks, actions, sequences, calls, emails, call dispositions). A snapshot
 * saves and loads them through connection-data-state.ts; the ids a crash may have issued are
 * retired through {@link RetiredNativeIds}.
 *
 * Every write goes through `create`, `update` and `delete`, which validate, keep associations
 * consistent on both ends, and report the change; nothing else changes a record. Records are
 * immutable values: a change stores a new object, so a reported record never changes later.
 */
export class ConnectionData {
  readonly crm: { [T in CrmObjectType]: OrderedCollection<CrmRecord> };
  readonly mailboxes = new OrderedCollection<Mailbox>();
  readonly users = new OrderedCollection<EngagementUser>();
  /** Engagement tasks and actions (Outreach, Salesloft, Apollo), named by their users' taskIds and actionIds. */
  readonly engagementTasks = new OrderedCollection<EngagementTask>();
  readonly engagementActions = new OrderedCollection<EngagementAction>();
  /** The org's sequences (cadences), their insertion numbers what actions' `sequence` names. */
  readonly sequences = new OrderedCollection<EngagementSequence>();
  /** Calls, engagement emails and call dispositions of the engagement platforms. */
  readonly calls = new OrderedCollection<EngagementCall>();
  readonly engagementEmails = new OrderedCollection<EngagementEmail>();
  readonly callDispositions = new OrderedCollection<CallDisposition>();
  /**
   * Deleted CRM records as they were, oldest first: plain data, for the downstream systems that
   * keep deleted records readable (HubSpot's `archived=true`).
   */
  readonly archived: ArchivedRecord[] = [];
  /** Native ids no new record takes: the deleted records', and those of the draws a crash may have lost. */
  readonly retiredNativeIds: RetiredNativeIds;
  private readonly options: ConnectionDataOptions;

  constructor(options: ConnectionDataOptions) {
    this.options = options;
    this.retiredNativeIds = new RetiredNativeIds(options.integrationId, this.archived);
    this.crm = Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, new OrderedCollection<CrmRecord>(nativeIdOf)])) as ConnectionData['crm'];
  }

  /** Every collection, by the name a snapshot gives it (`crm.Contact`, `users`, …). */
  collections(): Array<[string, OrderedCollection<{ id: string }>]> {
    // Each holds its own record type; a snapshot handles them all as records with an id.
    return collectionsByName<unknown>(this) as Array<[string, OrderedCollection<{ id: string }>]>;
  }

  /** Marks what every collection holds now as the seeded data set: a snapshot holds only what changes from here on. */
  markSeeded(): void {
    for (const [, collection] of this.collections()) collection.markBase();
  }

  /** The streams new records draw from. */
  get streams(): { random: Random; faker: Faker } {
    return { random: this.options.random, faker: this.options.faker };
  }

  /** Counts the record stream's draws (ids and native ids) against a state file's reservation (docs/decisions/0030). */
  reserve(reservation: Reservation | undefined): void {
    this.options.random.reserve(reservation);
  }

  /** After a crash: the next `draws` of the record stream are retired (see {@link RetiredNativeIds.retire}). */
  retire(draws: number): void {
    this.retiredNativeIds.retire(this.options.random, draws);
  }

  /**
   * After a saved data set is laid in: what a data set of an earlier release lacks, made good as
   * a write would have. Seeded emails laid over one saved before emails existed lose their links
   * to records deleted since; records without an owner get one.
   */
  settleLoaded({ emailsSaved }: { emailsSaved: boolean }): void {
    if (!emailsSaved) this.dropDanglingEmailLinks();
    this.giveOwnersToOwnerless();
  }

  /**
   * Records saved by an earlier release may have no owner where every record now has one
   * ({@link OWNED_TYPES}): they get the connection's first user, as a write would give them.
   */
  private giveOwnersToOwnerless(): void {
    if (this.crm.User.size === 0) return;
    for (const type of OWNED_TYPES) {
      for (const record of [...this.crm[type].values()]) {
        if ((record.associations as Associations).ownerUserId !== null) continue;
        const after = { ...record, associations: { ...record.associations } } as CrmRecord;
        this.giveOwner(type, after);
        this.crm[type].replace(after);
        this.relink(
          after.id,
          [],
          edgesOf(type, after).filter((edge) => edge.field === 'ownerUserId'),
        );
      }
    }
  }

  /**
   * Seeded emails laid over a data set saved before emails existed: the records they name may have
   * been deleted since. Their links to those go, as a delete would have taken them (silently).
   */
  private dropDanglingEmailLinks(): void {
    for (const email of [...this.crm.Email.values()]) {
      const associations = email.associations as Associations;
      let changed = false;
      const kept: Associations = {};
      for (const [field, value] of Object.entries(associations)) {
        const target = linkOf('Email', field, email)!.target;
        const exists = (id: string) => this.crm[target].has(id);
        kept[field] = Array.isArray(value) ? value.filter(exists) : value !== null && exists(value) ? value : null;
        if (JSON.stringify(kept[field]) !== JSON.stringify(value)) changed = true;
      }
      if (!changed) continue;
      const after = { ...email, associations: kept } as CrmRecord;
      this.giveOwner('Email', after);
      this.crm.Email.replace(after);
    }
  }

  /** Changes whenever any collection or the archive changes: for answers that show more than one collection. */
  get version(): number {
    let versions = this.archived.length + this.mailboxes.version + this.users.version + this.engagementTasks.version + this.engagementActions.version;
    versions += this.sequences.version + this.calls.version + this.engagementEmails.version + this.callDispositions.version;
    for (const type of CRM_OBJECT_TYPES) versions += this.crm[type].version;
    return versions;
  }

  /**
   * Changes whenever anything a read can see changes (any collection, the archive) or one of the
   * connection's streams is drawn from, even by a write that then failed: two calls that find the
   * same mark before and after them saw the same data and changed nothing.
   */
  changeMark(): string {
    const { random, faker } = this.options;
    return `${this.version}:${random.state().position.join(',')}:${fakerState(faker).draws}`;
  }

  get connectionId(): string {
    return this.options.connectionId;
  }

  get integrationId(): IntegrationId {
    return this.options.integrationId;
  }

  /** How many records the connection holds, in every collection. */
  get recordCount(): number {
    let count = this.mailboxes.size + this.users.size + this.engagementTasks.size + this.engagementActions.size;
    count += this.sequences.size + this.calls.size + this.engagementEmails.size + this.callDispositions.size;
    for (const type of CRM_OBJECT_TYPES) count += this.crm[type].size;
    return count;
  }

  /**
   * Throws the 400 `RECORD_LIMIT_REACHED` unless `count` more records fit under the connection's
   * cap. Every create checks it; a batch checks for all its records first, so it writes all or none.
   */
  checkRoom(count = 1): void {
    const limit = this.options.recordLimit ?? Infinity;
    const held = limit === Infinity ? 0 : this.recordCount;
    if (held + count <= limit) return;
    throw new ApiError(
      400,
      ErrorCode.RECORD_LIMIT_REACHED,
      `connection ${this.connectionId} holds ${held} records${count > 1 ? ` and this write adds ${count}` : ''}, and may hold at most ${limit} (the sandbox's record cap: recordLimit, --record-limit); delete records or raise the cap`,
      { limit, held, option: 'recordLimit', flag: '--record-limit' },
    );
  }

  get(type: CrmObjectType, id: string): CrmRecord {
    const record = this.crm[type].get(id);
    if (!record) throw ApiError.notFound(type, id, 'id');
    return record;
  }

  /** A new id for a record of the type: `v.<prefix>.<32 hex>`. */
  newId(type: CrmObjectType): string {
    for (;;) {
      const id = `v.${ID_PREFIX[type]}.${this.options.random.hex(32)}`;
      if (!this.crm[type].has(id)) return id;
    }
  }

  /** A new downstream id in the integration's own format, never one a record of the type had. */
  newNativeId(type: CrmObjectType): string {
    for (;;) {
      const nativeId = INTEGRATIONS[this.integrationId].newNativeId(type, this.options.random);
      if (!this.crm[type].getByNativeId(nativeId) && !this.retiredNativeIds.has(type, nativeId)) return nativeId;
    }
  }

  /**
   * Creates a record from the fields given; fields left out are generated, associations left
   * out are empty. Throws a 400 naming the first bad field.
   */
  create(type: CrmObjectType, input: unknown, extra: Record<string, unknown> = {}): CrmRecord {
    this.checkRoom();
    const write = this.parseWrite(type, input);
    const now = this.options.clock.now();
    const generated = fakeFields[type]({ faker: this.options.faker, now }) as Record<string, unknown>;
    const record = assemble(type, {
      id: this.newId(type),
      nativeId: (write.nativeId as string | undefined) ?? this.newNativeId(type),
      createdTime: iso(now),
      modifiedTime: iso(now),
      fields: mergeFields(generated, write.fields),
      associations: write.associations,
      explicitFields: write.fields,
    });
    this.deriveLeadAccount(type, record, write);
    if (type === 'Deal' && (record as CrmRecord<'Deal'>).closeDate === null) (record as CrmRecord<'Deal'>).closeDate = iso(now + DEFAULT_CLOSE_AFTER);
    this.giveOwner(type, record);
    this.checkRecord(type, record, write.associations);
    this.crm[type].insert(record, extra);
    this.relink(record.id, [], edgesOf(type, record));
    this.reported({ objectType: type, eventType: 'CREATE', record });
    return record;
  }

  /**
   * Changes the fields given; association fields given replace the old ones. `extra` (native
   * custom fields, from a passthrough write) replaces the record's extras with it.
   */
  update(type: CrmObjectType, id: string, input: unknown, extra?: Record<string, unknown>): CrmRecord {
    const before = this.get(type, id);
    const write = this.parseWrite(type, input);
    const after = assemble(type, {
      id,
      nativeId: (write.nativeId as string | undefined) ?? before.nativeId,
      createdTime: before.createdTime,
      modifiedTime: iso(this.options.clock.now()),
      fields: mergeFields(before as unknown as Record<string, unknown>, write.fields),
      associations: { ...(before.associations as Associations), ...write.associations },
      explicitFields: write.fields,
    });
    this.deriveLeadAccount(type, after, write);
    this.giveOwner(type, after);
    this.checkRecord(type, after, write.associations);
    this.crm[type].replace(after, extra);
    this.relink(after.id, edgesOf(type, before), edgesOf(type, after));
    if (type === 'Account') this.renameLeadAccounts(before as CrmRecord<'Account'>, after as CrmRecord<'Account'>);
    this.reported({ objectType: type, eventType: 'UPDATE', record: after });
    return after;
  }

  /**
   * Deletes a record and unlinks it everywhere. Attendees of a deleted Event, or of the Contact,
   * Lead or User they stand for, are deleted first, each with its own change.
   */
  delete(type: CrmObjectType, id: string): void {
    this.get(type, id);
    for (const attendeeId of this.attendeesOf(type, id)) {
      if (this.crm.EventAttendee.has(attendeeId)) this.delete('EventAttendee', attendeeId);
    }
    const current = this.get(type, id);
    this.relink(id, edgesOf(type, current), []);
    this.unlinkOneWay(type, id);
    this.archived.push({ type, record: current, extra: this.crm[type].entry(id)?.extra ?? {}, archivedAt: iso(this.options.clock.now()) });
    this.crm[type].delete(id);
    if (type === 'User') this.reassignOwned(current as CrmRecord<'User'>);
    this.reported({ objectType: type, eventType: 'DELETE', record: current });
  }

  /** Tells the sandbox's event sink of a change the store now holds. */
  private reported(change: RecordChange): void {
    this.options.events.recordChanged(this.options.connectionId, this.options.integrationId, change);
  }

  /**
   * Stores seeded or fixture records (complete and valid) and links them, reporting nothing.
   * Records may point at each other in any order within the batch.
   */
  insertBatch(items: ReadonlyArray<{ type: CrmObjectType; record: CrmRecord; extra?: Record<string, unknown> }>): void {
    for (const { type, record, extra } of items) this.crm[type].insert(record, extra);
    // The records are not published yet, so their back links can be filled in place.
    const touched = new Set<Associations>();
    for (const { type, record } of items) {
      for (const edge of edgesOf(type, record)) {
        if (!edge.inverse) continue;
        const target = this.crm[edge.target].get(edge.id);
        if (!target) continue;
        const associations = target.associations as Associations;
        if (isManyField(edge.inverse)) {
          (associations[edge.inverse] as string[]).push(record.id);
          touched.add(associations);
        } else {
          associations[edge.inverse] = record.id;
        }
      }
    }
    for (const associations of touched) {
      for (const [field, value] of Object.entries(associations)) {
        if (Array.isArray(value)) associations[field] = [...new Set(value)];
      }
    }
  }

  /** A Lead's `account` is its account's name: it follows a newly written first account unless written too. */
  private deriveLeadAccount(type: CrmObjectType, record: CrmRecord, write: { fields: Record<string, unknown>; associations: Associations }): void {
    if (type !== 'Lead' || 'account' in write.fields || !write.associations.accountIds) return;
    const first = (write.associations.accountIds as string[])[0];
    const account = first === undefined ? undefined : (this.crm.Account.get(first) as CrmRecord<'Account'> | undefined);
    if (account) (record as CrmRecord<'Lead'>).account = account.name;
  }

  /** A Lead's `account` is its account's name: a renamed account renames it in its leads (no event, like a back link). */
  private renameLeadAccounts(before: CrmRecord<'Account'>, after: CrmRecord<'Account'>): void {
    if (before.name === after.name) return;
    for (const leadId of after.associations.leadIds) {
      const lead = this.crm.Lead.get(leadId) as CrmRecord<'Lead'> | undefined;
      if (lead && lead.account === before.name) this.crm.Lead.replace({ ...lead, account: after.name } as CrmRecord);
    }
  }

  private attendeesOf(type: CrmObjectType, id: string): string[] {
    if (type === 'Event' || type === 'Contact' || type === 'Lead') {
      return [...((this.get(type, id).associations as Associations).eventAttendeeIds as string[])];
    }
    if (type === 'User') {
      const ids: string[] = [];
      for (const attendee of this.crm.EventAttendee.values()) {
        const a = attendee as CrmRecord<'EventAttendee'>;
        if (a.associatedObjectType === 'User' && a.associations.associationId === id) ids.push(a.id);
      }
      return ids;
    }
    return [];
  }

  /**
   * Links with no list on the far end (a Contact's owner, an Email's records) that point at a
   * deleted record: found by a scan (deletes of such records are rare) and cleared, silently, as
   * back links are.
   */
  private unlinkOneWay(type: CrmObjectType, id: string): void {
    for (const { type: from, field } of ONE_WAY_INTO.get(type) ?? []) {
      const collection = this.crm[from];
      for (const record of [...collection.values()]) {
        const value = (record.associations as Associations)[field];
        const holds = Array.isArray(value) ? value.includes(id) : value === id;
        if (!holds) continue;
        const cleared = Array.isArray(value) ? value.filter((other) => other !== id) : null;
        const after = { ...record, associations: { ...record.associations, [field]: cleared } } as CrmRecord;
        // One-way owners list back nowhere, so the new owner needs no back link either.
        this.giveOwner(from, after);
        collection.replace(after);
      }
    }
  }

  /** The records a deleted user owned (its lists, as they were) go to the connection's first user, silently. */
  private reassignOwned(user: CrmRecord<'User'>): void {
    const owned: Array<[CrmObjectType, readonly string[]]> = [
      ['Task', user.associations.taskIds],
      ['Note', user.associations.noteIds],
      ['Event', user.associations.eventIds],
      ['Deal', user.associations.dealIds],
      ['Account', user.associations.accountIds],
    ];
    for (const [type, ids] of owned) {
      for (const id of ids) {
        const record = this.crm[type].get(id);
        if (!record) continue;
        const after = { ...record, associations: { ...record.associations } } as CrmRecord;
        this.giveOwner(type, after);
        if ((after.associations as Associations).ownerUserId === null) continue;
        this.crm[type].replace(after);
        this.relink(
          id,
          [],
          edgesOf(type, after).filter((edge) => edge.field === 'ownerUserId'),
        );
      }
    }
  }

  /** A record of an {@link OWNED_TYPES} type without an owner gets the connection's first user (in place: the record is not stored yet). */
  private giveOwner(type: CrmObjectType, record: CrmRecord): void {
    const associations = record.associations as Associations;
    if (!OWNED_TYPES.includes(type) || associations.ownerUserId !== null) return;
    associations.ownerUserId = this.crm.User.slice(0, 1)[0]?.record.id ?? null;
  }

  /** Brings the far ends of a record's links in step with its new links. */
  private relink(id: string, before: Edge[], after: Edge[]): void {
    const kept = new Set(after.map(edgeKey));
    const had = new Set(before.map(edgeKey));
    for (const edge of before) if (!kept.has(edgeKey(edge))) this.setBackLink(edge, id, false);
    for (const edge of after) if (!had.has(edgeKey(edge))) this.setBackLink(edge, id, true);
  }

  private setBackLink(edge: Edge, id: string, linked: boolean): void {
    if (!edge.inverse) return;
    const collection = this.crm[edge.target];
    const target = collection.get(edge.id);
    if (!target) return;
    const associations = { ...(target.associations as Associations) };
    const current = associations[edge.inverse];
    if (isManyField(edge.inverse)) {
      const list = (current as string[]).filter((other) => other !== id);
      if (linked) list.push(id);
      associations[edge.inverse] = list;
    } else if (linked) {
      associations[edge.inverse] = id;
    } else if (current === id) {
      associations[edge.inverse] = null;
    }
    collection.replace({ ...target, associations } as CrmRecord);
  }

  /** Validates a write's shape: known fields, right types, nothing read-only. */
  private parseWrite(type: CrmObjectType, input: unknown): { fields: Record<string, unknown>; associations: Associations; nativeId?: string } {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw ApiError.invalidField('', 'request body must be a JSON object with the record fields');
    }
    const body = input as Record<string, unknown>;
    const issues = readOnlyIssues(type, body);
    if (issues.length > 0) throw invalidFromIssues(issues);
    const parsed = parseOrThrow(crmWriteSchema(type), body) as Record<string, unknown>;
    const { nativeId, associations: links, ...fields } = parsed;
    const deduped: Associations = {};
    for (const [field, value] of Object.entries((links ?? {}) as Associations)) {
      deduped[field] = Array.isArray(value) ? [...new Set(value)] : value;
    }
    return { fields, associations: deduped, ...(nativeId === undefined ? {} : { nativeId: nativeId as string }) };
  }

  /**
   * Checks what depends on other records: the nativeId is the record's own, links point at
   * records of this connection, attendees agree with themselves.
   */
  private checkRecord(type: CrmObjectType, record: CrmRecord, written: Associations): void {
    const sameNative = this.crm[type].getByNativeId(record.nativeId);
    if (sameNative && sameNative.record.id !== record.id) {
      throw ApiError.invalidField('nativeId', `nativeId ${JSON.stringify(record.nativeId)} is already used by another ${type}`);
    }
    const issues: FieldIssue[] = [];
    const associations = record.associations as Associations;
    for (const field of REQUIRED_FIELDS[type] ?? []) {
      if ((record as unknown as Record<string, unknown>)[field] === null) issues.push({ field, message: `is required: every ${type} has one` });
    }
    if (type === 'EventAttendee') {
      const attendee = record as CrmRecord<'EventAttendee'>;
      if (attendee.associations.eventId === null) issues.push({ field: 'associations.eventId', message: 'is required: an attendee belongs to an Event' });
      if (attendee.associatedObjectType === 'Other') {
        if (attendee.associations.associationId !== null) {
          issues.push({ field: 'associations.associationId', message: 'must be null when associatedObjectType is Other' });
        }
      } else {
        if (attendee.associations.associationId === null) {
          issues.push({ field: 'associations.associationId', message: `is required when associatedObjectType is ${attendee.associatedObjectType}` });
        }
        if (attendee.email !== null) issues.push({ field: 'email', message: 'must be null unless associatedObjectType is Other' });
      }
    }
    for (const field of Object.keys(written)) {
      const link = linkOf(type, field, record);
      const value = associations[field];
      if (!link || value === null || value === undefined) continue;
      const ids = Array.isArray(value) ? value : [value];
      ids.forEach((id, index) => {
        if (!this.crm[link.target].has(id)) {
          const at = Array.isArray(value) ? `associations.${field}[${index}]` : `associations.${field}`;
          issues.push({ field: at, message: `points at no ${link.target} of this connection: ${JSON.stringify(id)}` });
        }
      });
    }
    if (issues.length > 0) throw invalidFromIssues(issues);
  }
}

/**
 * Fields a write names but may not set: assigned ones (id, times), derived ones
 * (expectedRevenue) and derived association lists, each with a hint. Fixtures may set the
 * assigned ones, so they pass those in `allowed`.
 */
export function readOnlyIssues(type: CrmObjectType, body: Record<string, unknown>, allowed: readonly string[] = []): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const field of [...READ_ONLY_FIELDS, ...(DERIVED_FIELDS[type] ?? [])]) {
    if (field in body && !allowed.includes(field)) issues.push({ field, message: 'is set by the sandbox and cannot be written' });
  }
  const associations = body.associations;
  if (typeof associations === 'object' && associations !== null) {
    for (const field of Object.keys(associations)) {
      if (DERIVED_ASSOCIATIONS[type]?.includes(field)) {
        issues.push({ field: `associations.${field}`, message: `is derived: ${derivedAssociationHint(type, field)}` });
      }
    }
  }
  return issues;
}

/** Written fields over base ones; a written object (an address) changes only the parts it gives. */
export function mergeFields(base: Record<string, unknown>, written: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base, ...written };
  for (const [field, value] of Object.entries(written)) {
    const before = base[field];
    if (isObject(value) && isObject(before)) merged[field] = { ...before, ...value };
  }
  return merged;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

interface AssembleInput {
  id: string;
  nativeId: string;
  createdTime: string;
  modifiedTime: string;
  fields: Record<string, unknown>;
  associations: Associations;
  /** Fields the caller wrote, which derived values must respect. */
  explicitFields: Record<string, unknown>;
}

/** Builds a record with its keys in the documented order, so the same data always serialises the same. */
export function assemble(type: CrmObjectType, input: AssembleInput): CrmRecord {
  const record: Record<string, unknown> = {
    id: input.id,
    nativeId: input.nativeId,
    createdTime: input.createdTime,
    modifiedTime: input.modifiedTime,
  };
  for (const field of Object.keys(CRM_FIELDS[type].shape)) record[field] = input.fields[field] ?? null;
  if (type === 'Account' && isObject(record.address)) {
    const given = record.address;
    record.address = Object.fromEntries(ADDRESS_PARTS.map((part) => [part, given[part] ?? null]));
  }
  if (type === 'Deal') {
    record.expectedRevenue = expectedRevenue(record.amount as number | null, record.probability as string | null);
  }
  if (type === 'EventAttendee' && record.associatedObjectType !== 'Other' && !('email' in input.explicitFields)) {
    record.email = null;
  }
  const associations: Associations = {};
  for (const field of Object.keys(CRM_ASSOCIATIONS[type].shape)) {
    const value = input.associations[field];
    associations[field] = Array.isArray(value) ? [...value] : (value ?? (isManyField(field) ? [] : null));
  }
  record.associations = associations;
  return record as unknown as CrmRecord;
}
