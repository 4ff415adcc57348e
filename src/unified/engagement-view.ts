import { CONTACT_ADDRESS_FIELDS } from '../downstream/engagement-native.js';
import type { CrmObjectType, CrmRecord } from '../model/crm.js';
import type { EngagementUser, Mailbox } from '../model/engagement.js';
import type { CallDisposition, EngagementAction, EngagementCall, EngagementEmail, EngagementSequence, EngagementTask } from '../model/engagement-activity.js';
import type { IntegrationId } from '../model/integrations.js';
import { ENGAGEMENT_ADDRESS_PARTS } from '../model/vocabularies.js';
import type { ConnectionData } from '../store/connection-data.js';
import type { Entry } from '../store/ordered-collection.js';
import { ENGAGEMENT_UNMAPPED, type EngagementObject } from './engagement-objects.js';

/**
 * The unified engagement records as the service answers them, rendered from the store: the
 * platform's own records (tasks, sequence states, calls, emails, sequences, dispositions) and,
 * for contacts and accounts, the CRM records the platform keeps them in. Ids are 32 hex
 * characters: a contact's or account's is the hex of its CRM id (`v.contact.<hex>`), so it maps
 * back without a table. Fields without a value are left out, as the document types them without
 * null; an association the document requires is null when there is none.
 */

/** A 32-hex engagement id of a CRM record (`v.contact.<hex>` → `<hex>`). */
export const engagementIdOf = (crmId: string): string => crmId.slice(crmId.lastIndexOf('.') + 1);
/**
 * The CRM id of an engagement id of a type, or undefined when it is none. The CRM id itself is
 * taken too: it is what the record's OBJECT_CHANGE events carry (decision 0027).
 */
export const crmIdOf = (prefix: 'contact' | 'account' | 'user', id: string): string | undefined =>
  /^[0-9a-f]{32}$/.test(id) ? `v.${prefix}.${id}` : id.startsWith(`v.${prefix}.`) && /^[0-9a-f]{32}$/.test(id.slice(prefix.length + 3)) ? id : undefined;
const hexOf = (id: string | null | undefined): string | null => (id === null || id === undefined ? null : engagementIdOf(id));

/** Links between the engagement records, worked out once per version of a connection's data. */
export interface EngagementIndex {
  tasksByContact: Map<string, string[]>;
  actionsByContact: Map<string, string[]>;
  callByTask: Map<string, string>;
  callByAction: Map<string, string>;
  emailByTask: Map<string, string>;
  emailByAction: Map<string, string>;
  /** Per sequence number: contacts active in it, and its emails opened, replied to, clicked. */
  sequenceCounts: Map<number, { scheduled: number; opened: number; replied: number; clicked: number }>;
  dispositionNames: Map<string, string>;
}

const indexes = new WeakMap<ConnectionData, { version: number; index: EngagementIndex }>();

/** The links of a connection's engagement records, rebuilt when its data changed. */
export function engagementIndex(data: ConnectionData): EngagementIndex {
  const cached = indexes.get(data);
  if (cached && cached.version === data.version) return cached.index;
  const push = (map: Map<string, string[]>, key: string | null, id: string) => {
    if (key === null) return;
    const list = map.get(key);
    if (list) list.push(id);
    else map.set(key, [id]);
  };
  const index: EngagementIndex = {
    tasksByContact: new Map(),
    actionsByContact: new Map(),
    callByTask: new Map(),
    callByAction: new Map(),
    emailByTask: new Map(),
    emailByAction: new Map(),
    sequenceCounts: new Map(),
    dispositionNames: new Map(),
  };
  const counts = (seq: number) => {
    let found = index.sequenceCounts.get(seq);
    if (!found) index.sequenceCounts.set(seq, (found = { scheduled: 0, opened: 0, replied: 0, clicked: 0 }));
    return found;
  };
  for (const task of data.engagementTasks.values()) push(index.tasksByContact, task.associations.contactId, task.id);
  for (const action of data.engagementActions.values()) {
    push(index.actionsByContact, action.associations.contactId, action.id);
    if (action.state === 'active') counts(action.sequence).scheduled++;
  }
  for (const call of data.calls.values()) {
    if (call.associations.taskId) index.callByTask.set(call.associations.taskId, call.id);
    if (call.associations.actionId) index.callByAction.set(call.associations.actionId, call.id);
  }
  const sequenceSeq = new Map(data.sequences.entries().map((entry) => [entry.record.id, entry.seq]));
  for (const email of data.engagementEmails.values()) {
    if (email.associations.taskId) index.emailByTask.set(email.associations.taskId, email.id);
    if (email.associations.actionId) index.emailByAction.set(email.associations.actionId, email.id);
    const seq = email.associations.sequenceId === null ? undefined : sequenceSeq.get(email.associations.sequenceId);
    if (seq === undefined) continue;
    const count = counts(seq);
    if (email.openCount > 0) count.opened++;
    if (email.clickCount > 0) count.clicked++;
    if (email.replied) count.replied++;
  }
  for (const disposition of data.callDispositions.values()) index.dispositionNames.set(disposition.id, disposition.name);
  indexes.set(data, { version: data.version, index });
  return index;
}

/** What a view needs of the connection. */
export interface ViewContext {
  integrationId: IntegrationId;
  data: ConnectionData;
  index: EngagementIndex;
}

/** Leaves out what has no value (the document's types have no null; an empty single association is absent too, as the CRM views have it: decision 0045). */
function compact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== null && value !== undefined) out[key] = value;
  return out;
}

const unmapped = (context: ViewContext, type: 'Contact' | 'Account') => ENGAGEMENT_UNMAPPED[context.integrationId][type];

function accountView(entry: Entry<CrmRecord>, context: ViewContext): Record<string, unknown> {
  const account = entry.record as CrmRecord<'Account'>;
  const skip = unmapped(context, 'Account');
  const keep = (key: string, value: unknown) => (skip.includes(key) ? undefined : value);
  const address = account.address;
  const parts = address
    ? compact({
        line1: keep('address.line1', address.street),
        city: keep('address.city', address.city),
        state: keep('address.state', address.state),
        postalCode: keep('address.postalCode', address.postalCode),
        country: keep('address.country', address.country),
      })
    : {};
  const contactIds = account.associations.contactIds;
  return {
    id: engagementIdOf(account.id),
    ...compact({
      name: account.name,
      description: keep('description', account.description),
      industry: account.industry,
      locality: keep('address.city', address?.city),
      numberOfEmployees: keep('numberOfEmployees', account.numberOfEmployees),
      website: account.website,
      phone: keep('phone', account.phone),
      address: Object.keys(parts).length > 0 ? parts : undefined,
    }),
    createdTime: account.createdTime,
    modifiedTime: account.modifiedTime,
    associations: compact({
      contactIds: contactIds.map(engagementIdOf),
      actionIds: contactIds.flatMap((id) => context.index.actionsByContact.get(id) ?? []),
      taskIds: contactIds.flatMap((id) => context.index.tasksByContact.get(id) ?? []),
      ownerUserId: hexOf(account.associations.ownerUserId),
    }),
  };
}

/** A contact's address, from the native fields its platform keeps it in. */
export function contactAddress(integrationId: IntegrationId, extra: Record<string, unknown>): Record<string, string> | undefined {
  const names = CONTACT_ADDRESS_FIELDS[integrationId];
  const native = (extra.native ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const part of ENGAGEMENT_ADDRESS_PARTS) {
    const name = names[part];
    const value = name === undefined ? undefined : native[name];
    if (typeof value === 'string' && value !== '') out[part] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function contactView(entry: Entry<CrmRecord>, context: ViewContext): Record<string, unknown> {
  const contact = entry.record as CrmRecord<'Contact'>;
  const phones: Array<{ number: string; type: string; isPrimary: boolean }> = [];
  if (contact.phone) phones.push({ number: contact.phone, type: 'work', isPrimary: true });
  if (contact.mobilePhone) phones.push({ number: contact.mobilePhone, type: 'personal', isPrimary: phones.length === 0 });
  return {
    id: engagementIdOf(contact.id),
    ...compact({
      firstName: contact.firstName,
      lastName: contact.lastName,
      jobTitle: contact.jobTitle,
      address: contactAddress(context.integrationId, entry.extra),
    }),
    emails: contact.email ? [{ address: contact.email, type: 'work', isPrimary: true }] : [],
    phones,
    createdTime: contact.createdTime,
    modifiedTime: contact.modifiedTime,
    associations: compact({
      accountId: hexOf(contact.associations.accountIds[0]),
      actionIds: context.index.actionsByContact.get(contact.id) ?? [],
      taskIds: context.index.tasksByContact.get(contact.id) ?? [],
      ownerUserId: hexOf(contact.associations.ownerUserId),
    }),
  };
}

/** The document's task and action types: the platforms' other kinds (action items, LinkedIn steps) are `other`. */
const typeOf = (kind: string) => (kind === 'call' || kind === 'email' ? kind : 'other');

function taskView(entry: Entry<EngagementTask>, context: ViewContext): Record<string, unknown> {
  const task = entry.record;
  return {
    id: task.id,
    type: typeOf(task.kind),
    ...compact({ body: task.note ?? (task.subject === '' ? null : task.subject), dueDate: task.dueAt }),
    status: task.state === 'complete' ? 'complete' : 'to_do',
    ...compact({ completedTime: task.completedAt }),
    createdTime: task.createdTime,
    modifiedTime: task.modifiedTime,
    associations: compact({
      callId: context.index.callByTask.get(task.id),
      contactId: hexOf(task.associations.contactId),
      emailId: context.index.emailByTask.get(task.id),
      ownerUserId: task.associations.userId,
    }),
  };
}

/** A sequence state's state as the document's status: active is to do, paused in progress, finished complete. */
const ACTION_STATUS = { active: 'to_do', paused: 'in_progress', finished: 'complete' } as const;

function actionView(entry: Entry<EngagementAction>, context: ViewContext): Record<string, unknown> {
  const action = entry.record;
  return {
    id: action.id,
    type: typeOf(action.kind),
    ...compact({ dueDate: action.dueAt }),
    status: ACTION_STATUS[action.state],
    // A done step keeps when it was done; one finished otherwise (seeded so, or its sequence finished) when it was.
    ...compact({ completedTime: action.state === 'finished' ? (action.completedAt ?? action.modifiedTime) : null }),
    createdTime: action.createdTime,
    modifiedTime: action.modifiedTime,
    associations: compact({
      callId: context.index.callByAction.get(action.id),
      contactId: hexOf(action.associations.contactId),
      emailId: context.index.emailByAction.get(action.id),
      ownerUserId: action.associations.userId,
    }),
  };
}

function callView(entry: Entry<EngagementCall>, context: ViewContext): Record<string, unknown> {
  const call = entry.record;
  return {
    id: call.id,
    ...compact({
      phone: call.phone,
      direction: call.direction,
      disposition: call.dispositionId === null ? null : context.index.dispositionNames.get(call.dispositionId),
      durationSeconds: call.durationSeconds,
      note: call.note,
    }),
    createdTime: call.createdTime,
    modifiedTime: call.modifiedTime,
    associations: compact({
      taskId: call.associations.taskId,
      contactId: hexOf(call.associations.contactId),
      actionId: call.associations.actionId,
      ownerUserId: call.associations.userId,
    }),
  };
}

function emailView(entry: Entry<EngagementEmail>): Record<string, unknown> {
  const email = entry.record;
  return {
    id: email.id,
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    subject: email.subject,
    ...compact({ bodyText: email.bodyText, bodyHtml: email.bodyHtml }),
    isBounced: email.isBounced,
    createdTime: email.createdTime,
    modifiedTime: email.modifiedTime,
    associations: compact({
      taskId: email.associations.taskId,
      contactId: hexOf(email.associations.contactId),
      actionId: email.associations.actionId,
      ownerUserId: email.associations.userId,
      sequenceId: email.associations.sequenceId,
    }),
  };
}

function sequenceView(entry: Entry<EngagementSequence>, context: ViewContext): Record<string, unknown> {
  const sequence = entry.record;
  const counts = context.index.sequenceCounts.get(entry.seq);
  return {
    id: sequence.id,
    isEnabled: sequence.enabled,
    name: sequence.name,
    tags: sequence.tags,
    numSteps: sequence.numSteps,
    scheduledCount: counts?.scheduled ?? 0,
    openedCount: counts?.opened ?? 0,
    // Opt-outs are not simulated.
    optedOutCount: 0,
    repliedCount: counts?.replied ?? 0,
    clickedCount: counts?.clicked ?? 0,
  };
}

const dispositionView = (entry: Entry<CallDisposition>) => entry.record;

/** A CRM user (the owner of contacts and accounts) as an engagement user: the hex of its id, no tasks or actions of its own. */
export function crmUserView(record: CrmRecord): Record<string, unknown> {
  const user = record as CrmRecord<'User'>;
  return {
    id: engagementIdOf(user.id),
    ...compact({ firstName: user.firstName, lastName: user.lastName, email: user.email }),
    createdTime: user.createdTime,
    modifiedTime: user.modifiedTime,
    associations: { taskIds: [], actionIds: [] },
  };
}

type View = (entry: Entry<never>, context: ViewContext) => Record<string, unknown>;

const VIEWS: Record<string, View> = {
  User: (entry: Entry<EngagementUser>) => entry.record,
  Mailbox: (entry: Entry<Mailbox>) => entry.record,
  Account: accountView,
  Contact: contactView,
  Task: taskView,
  Action: actionView,
  Call: callView,
  Email: emailView,
  CallDisposition: dispositionView,
  Sequence: sequenceView,
} as Record<string, View>;

/** The view of an object's records. */
export function engagementView(object: EngagementObject): (entry: Entry<unknown>, context: ViewContext) => Record<string, unknown> {
  return VIEWS[object.name] as (entry: Entry<unknown>, context: ViewContext) => Record<string, unknown>;
}

/** The CRM type an object's records are, for contacts and accounts. */
export const crmTypeOf = (object: EngagementObject): CrmObjectType | undefined =>
  object.source === 'Contact' || object.source === 'Account' ? object.source : undefined;
