import type { EngagementUser } from '../model/engagement.js';
import {
  type CallDisposition,
  type EngagementAction,
  type EngagementCall,
  type EngagementEmail,
  type EngagementSequence,
  type EngagementTask,
  SEQUENCE_STEP_KINDS,
} from '../model/engagement-activity.js';
import { hash32 } from '../shared/random.js';
import type { ConnectionData } from '../store/connection-data.js';
import type { Entry, OrderedCollection } from '../store/ordered-collection.js';

/**
 * Engagement tasks, actions and users as the engagement platforms number them: by insertion
 * sequence (Outreach, Salesloft), or by a 24-hex prefix of the id (Apollo), the same every time.
 */

export type ActivityCollection = 'users' | 'tasks' | 'actions' | 'sequences' | 'calls' | 'emails' | 'dispositions' | 'mailboxes';

type Stored = EngagementUser | EngagementTask | EngagementAction | EngagementSequence | EngagementCall | EngagementEmail | CallDisposition;

/** The store's collection of each kind of engagement record. */
export function collectionOf(data: ConnectionData, collection: ActivityCollection) {
  const sources = {
    users: data.users,
    tasks: data.engagementTasks,
    actions: data.engagementActions,
    sequences: data.sequences,
    calls: data.calls,
    emails: data.engagementEmails,
    dispositions: data.callDispositions,
    mailboxes: data.mailboxes,
  };
  return sources[collection] as unknown as OrderedCollection<Stored>;
}

export function entriesOf(data: ConnectionData, collection: ActivityCollection): Entry<Stored>[] {
  return collectionOf(data, collection).entries() as Entry<Stored>[];
}

/** The insertion number of an engagement record. */
export function seqOf(data: ConnectionData, collection: ActivityCollection, id: string | null): number | null {
  if (id === null) return null;
  return collectionOf(data, collection).entry(id)?.seq ?? null;
}

/** The entry with an insertion number given as a path id. */
export function bySeq<T extends Stored>(data: ConnectionData, collection: ActivityCollection, id: string): Entry<T> | undefined {
  if (!/^\d+$/.test(id)) return undefined;
  return entriesOf(data, collection).find((entry) => entry.seq === Number(id)) as Entry<T> | undefined;
}

/** The CRM Contact a task, action, call or email is about, if it still exists. */
export function contactOf(data: ConnectionData, record: { associations: { contactId: string | null } }) {
  const id = record.associations.contactId;
  return id === null ? undefined : data.crm.Contact.get(id);
}

/** Completes a task: state, completion time and modified time move together (a new value, as records are immutable). */
export function completeTask(data: ConnectionData, entry: Entry<EngagementTask>, now: number): EngagementTask {
  const at = new Date(now).toISOString();
  const task: EngagementTask = entry.record.state === 'complete' ? entry.record : { ...entry.record, state: 'complete', completedAt: at, modifiedTime: at };
  data.engagementTasks.replace(task);
  return task;
}

/** What a native task write sets, already translated by the platform. */
export interface TaskWrite {
  userId?: string;
  contactId?: string | null;
  kind?: EngagementTask['kind'];
  subject?: string;
  note?: string | null;
  dueAt?: string;
  state?: EngagementTask['state'];
}

/** A new 32-hex id, the same for the same store state and time (no random stream is shared). */
function newTaskId(data: ConnectionData, now: number): string {
  return newHexId(data, 'tasks', now);
}

/** A new 32-hex id of a record of `collection`, hashed from the store's state and the time ('task' keeps the ids tasks always had). */
function newHexId(data: ConnectionData, collection: ActivityCollection, now: number): string {
  const target = collectionOf(data, collection);
  const label = collection === 'tasks' ? 'task' : collection;
  for (let round = 0; ; round++) {
    let hex = '';
    for (let part = 0; hex.length < 32; part++) {
      hex += hash32(`${data.connectionId}:${label}:${target.size}:${now}:${round}:${part}`).toString(16).padStart(8, '0');
    }
    if (!target.has(hex)) return hex;
  }
}

/** Moves a task id between engagement users' `taskIds`, so each task is named by its user alone. */
function relinkUser(data: ConnectionData, taskId: string, from: string | null, to: string | null): void {
  if (from === to) return;
  if (from !== null) {
    const user = data.users.get(from);
    if (user) data.users.replace({ ...user, associations: { ...user.associations, taskIds: user.associations.taskIds.filter((id) => id !== taskId) } });
  }
  if (to !== null) {
    const user = data.users.get(to);
    if (user) data.users.replace({ ...user, associations: { ...user.associations, taskIds: [...user.associations.taskIds, taskId] } });
  }
}

/** Creates an engagement task for a user and names it in the user's `taskIds`. */
export function createTask(data: ConnectionData, write: TaskWrite & { userId: string }, now: number): Entry<EngagementTask> {
  data.checkRoom();
  const at = new Date(now).toISOString();
  const state = write.state ?? 'incomplete';
  const task: EngagementTask = {
    id: newTaskId(data, now),
    kind: write.kind ?? 'action_item',
    subject: write.subject ?? '',
    note: write.note ?? null,
    dueAt: write.dueAt ?? at,
    state,
    completedAt: state === 'complete' ? at : null,
    createdTime: at,
    modifiedTime: at,
    associations: { userId: write.userId, contactId: write.contactId ?? null },
  };
  const entry = data.engagementTasks.insert(task);
  relinkUser(data, task.id, null, task.associations.userId);
  return entry;
}

/** Changes a task; a new user takes it over in `taskIds`. */
export function updateTask(data: ConnectionData, entry: Entry<EngagementTask>, write: TaskWrite, now: number): EngagementTask {
  const before = entry.record;
  const at = new Date(now).toISOString();
  const state = write.state ?? before.state;
  const task: EngagementTask = {
    ...before,
    ...(write.kind === undefined ? {} : { kind: write.kind }),
    ...(write.subject === undefined ? {} : { subject: write.subject }),
    ...(write.note === undefined ? {} : { note: write.note }),
    ...(write.dueAt === undefined ? {} : { dueAt: write.dueAt }),
    state,
    completedAt: state === 'complete' ? (before.completedAt ?? at) : null,
    modifiedTime: at,
    associations: {
      userId: write.userId ?? before.associations.userId,
      contactId: write.contactId === undefined ? before.associations.contactId : write.contactId,
    },
  };
  data.engagementTasks.replace(task);
  relinkUser(data, task.id, before.associations.userId, task.associations.userId);
  return task;
}

/** Deletes a task and drops it from its user's `taskIds`. */
export function deleteTask(data: ConnectionData, entry: Entry<EngagementTask>): void {
  data.engagementTasks.delete(entry.record.id);
  relinkUser(data, entry.record.id, entry.record.associations.userId, null);
}

/** Why an engagement platform refuses a write, and the part of the request at fault, for each door to phrase: a sequence, a contact, a mailbox, a step. */
export class EngagementRefusal extends Error {
  constructor(
    readonly part: 'sequence' | 'contact' | 'mailbox' | 'action' | 'disposition',
    readonly reason: 'missing' | 'disabled' | 'active' | 'finished' | 'paused',
    message: string,
  ) {
    super(message);
    this.name = 'EngagementRefusal';
  }
}

/** Names an action in the owning user's `actionIds`. */
function nameAction(data: ConnectionData, userId: string, actionId: string): void {
  const user = data.users.get(userId);
  if (user) data.users.replace({ ...user, associations: { ...user.associations, actionIds: [...user.associations.actionIds, actionId] } });
}

/** What starting a sequence takes: the sequence (by its entry), the CRM Contact, and the mailbox it sends from. */
export interface SequenceStart {
  sequence: Entry<EngagementSequence>;
  contactId: string;
  mailboxId: string;
  /** The user it is for when the mailbox has no owner (the mailbox's owner otherwise). */
  userId?: string;
}

/**
 * Starts a contact on a sequence from a mailbox, as the platforms do (an Outreach sequence state,
 * a Salesloft cadence membership, an Apollo contact campaign status): an active action at the
 * first step, due now, owned by the mailbox's user and named in their `actionIds`. Refused, with
 * the part at fault, for a disabled sequence, a contact or mailbox not in the store, or a contact
 * already active or paused in the sequence. No event: it is no CRM record.
 */
export function startSequence(data: ConnectionData, start: SequenceStart, now: number): Entry<EngagementAction> {
  const sequence = start.sequence.record;
  if (!sequence.enabled) throw new EngagementRefusal('sequence', 'disabled', `sequence ${JSON.stringify(sequence.name)} is disabled: it takes no new contacts`);
  if (!data.crm.Contact.has(start.contactId)) throw new EngagementRefusal('contact', 'missing', 'no such contact');
  const mailbox = data.mailboxes.get(start.mailboxId);
  if (!mailbox) throw new EngagementRefusal('mailbox', 'missing', 'no such mailbox');
  for (const action of data.engagementActions.values()) {
    if (action.sequence === start.sequence.seq && action.associations.contactId === start.contactId && action.state !== 'finished') {
      throw new EngagementRefusal('contact', 'active', `the contact is already ${action.state} in sequence ${JSON.stringify(sequence.name)}`);
    }
  }
  const userId = mailbox.associations.ownerUserId ?? start.userId ?? data.users.slice(0, 1)[0]?.record.id;
  if (userId === undefined) throw new EngagementRefusal('mailbox', 'missing', 'the mailbox has no user to send as');
  data.checkRoom();
  const at = new Date(now).toISOString();
  const action: EngagementAction = {
    id: newHexId(data, 'actions', now),
    kind: SEQUENCE_STEP_KINDS[0]!,
    sequence: start.sequence.seq,
    step: 1,
    state: 'active',
    dueAt: at,
    createdTime: at,
    modifiedTime: at,
    associations: { userId, contactId: start.contactId },
    mailboxId: mailbox.id,
  };
  const entry = data.engagementActions.insert(action);
  nameAction(data, userId, action.id);
  return entry;
}

/** How long after a step is done the next one falls due. */
const STEP_INTERVAL_MS = 2 * 86_400_000;

/** The first action of an enrolment, by which the platforms show it (a sequence state): itself for a first step. */
export const isEnrolment = (action: EngagementAction) => action.enrolment === undefined;

/** The enrolment (its first action's id) an action is a step of: what a call or email of the step is shown under natively. */
export function enrolmentIdOf(data: ConnectionData, actionId: string | null): string | null {
  if (actionId === null) return null;
  return data.engagementActions.get(actionId)?.enrolment ?? actionId;
}

/** The step an enrolment is at: its latest action (the first, until a step of it is done). */
export function currentStep(data: ConnectionData, enrolment: Entry<EngagementAction>): Entry<EngagementAction> {
  if (!isEnrolment(enrolment.record)) return enrolment;
  let current = enrolment;
  for (const entry of data.engagementActions.entries()) {
    if (entry.record.enrolment === enrolment.record.id && entry.record.step > current.record.step) current = entry;
  }
  return current;
}

/**
 * An enrolment as the platforms show it (a sequence state, a cadence membership, a campaign
 * status): its first action, at the step, state and due time of its current one.
 */
export function enrolmentState(data: ConnectionData, enrolment: Entry<EngagementAction>): EngagementAction {
  const current = currentStep(data, enrolment).record;
  if (current === enrolment.record) return current;
  const { kind, step, state, dueAt, modifiedTime } = current;
  return { ...enrolment.record, kind, step, state, dueAt, modifiedTime };
}

/**
 * Completes an action's step, as the platforms move a prospect on (decision 0045): the step is done
 * (finished, with its completion time), and unless it was the sequence's last the next step falls
 * due as an action of its own (its kind the sequence's), named in the user's `actionIds`. A paused
 * or finished step has nothing to complete. (A native sequence state completes its
 * {@link currentStep}.)
 */
export function advanceAction(data: ConnectionData, entry: Entry<EngagementAction>, now: number): { done: EngagementAction; next?: EngagementAction } {
  const before = entry.record;
  if (before.state === 'finished') throw new EngagementRefusal('action', 'finished', 'the action is finished: it has no step left to complete');
  if (before.state === 'paused') throw new EngagementRefusal('action', 'paused', 'the action is paused: resume it before completing its step');
  const sequence = data.sequences.entries().find((candidate) => candidate.seq === before.sequence)?.record;
  const last = before.step >= (sequence?.numSteps ?? SEQUENCE_STEP_KINDS.length);
  if (!last) data.checkRoom();
  const at = new Date(now).toISOString();
  const done: EngagementAction = { ...before, state: 'finished', dueAt: null, modifiedTime: at, completedAt: at };
  data.engagementActions.replace(done);
  if (last) return { done };
  const next: EngagementAction = {
    id: newHexId(data, 'actions', now),
    kind: SEQUENCE_STEP_KINDS[before.step % SEQUENCE_STEP_KINDS.length]!,
    sequence: before.sequence,
    step: before.step + 1,
    state: 'active',
    dueAt: new Date(now + STEP_INTERVAL_MS).toISOString(),
    createdTime: at,
    modifiedTime: at,
    associations: { ...before.associations },
    ...(before.mailboxId === undefined ? {} : { mailboxId: before.mailboxId }),
    enrolment: before.enrolment ?? before.id,
  };
  data.engagementActions.insert(next);
  nameAction(data, next.associations.userId, next.id);
  return { done, next };
}

/** A call as logged: by whom, to whom, for which task or action, and how it went. */
export interface CallLog {
  userId: string | null;
  contactId: string | null;
  taskId?: string | null;
  actionId?: string | null;
  direction?: EngagementCall['direction'];
  phone?: string | null;
  dispositionId?: string | null;
  durationSeconds?: number | null;
  note?: string | null;
}

/** Logs a call (completing a call task or step does): a new engagement call record, no event. */
export function logCall(data: ConnectionData, log: CallLog, now: number): Entry<EngagementCall> {
  data.checkRoom();
  const at = new Date(now).toISOString();
  const contact = log.contactId === null ? undefined : (data.crm.Contact.get(log.contactId) as { phone?: string | null } | undefined);
  return data.calls.insert({
    id: newHexId(data, 'calls', now),
    direction: log.direction ?? 'outbound',
    phone: log.phone ?? contact?.phone ?? null,
    dispositionId: log.dispositionId ?? null,
    durationSeconds: log.durationSeconds ?? null,
    note: log.note ?? null,
    createdTime: at,
    modifiedTime: at,
    associations: { userId: log.userId, contactId: log.contactId, taskId: log.taskId ?? null, actionId: log.actionId ?? null },
  });
}

/** The disposition of a key (`answered_meeting_set`), or a refusal naming the disposition. */
export function dispositionByKey(data: ConnectionData, key: string): CallDisposition {
  for (const disposition of data.callDispositions.values()) if (disposition.key === key) return disposition;
  throw new EngagementRefusal('disposition', 'missing', `no call disposition has the key ${JSON.stringify(key)}`);
}

/** The sequence an action's `sequence` number names. */
export function sequenceOf(data: ConnectionData, action: EngagementAction): Entry<EngagementSequence> | undefined {
  return data.sequences.entries().find((entry) => entry.seq === action.sequence);
}

/** Pauses, resumes or finishes an action (an Outreach sequence state's pause, resume and finish, at its {@link currentStep}). */
export function setActionState(data: ConnectionData, entry: Entry<EngagementAction>, state: EngagementAction['state'], now: number): EngagementAction {
  const before = entry.record;
  if (before.state === 'finished') throw new EngagementRefusal('action', 'finished', 'the action is finished');
  if (state === 'active' && before.state !== 'paused') return before;
  if (state === 'paused' && before.state === 'paused') return before;
  const action: EngagementAction = { ...before, state, ...(state === 'finished' ? { dueAt: null } : {}), modifiedTime: new Date(now).toISOString() };
  data.engagementActions.replace(action);
  return action;
}
