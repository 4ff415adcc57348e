import type { EngagementUser } from '../model/engagement.js';
import type { EngagementAction, EngagementTask } from '../model/engagement-activity.js';
import { hash32 } from '../shared/random.js';
import type { ConnectionData } from '../store/connection-data.js';
import type { Entry } from '../store/ordered-collection.js';

/**
 * Engagement tasks, actions and users as the engagement platforms number them: by insertion
 * sequence (Outreach, Salesloft), or by a 24-hex prefix of the id (Apollo), the same every time.
 */

export type ActivityCollection = 'users' | 'tasks' | 'actions';

type Stored = EngagementUser | EngagementTask | EngagementAction;

export function entriesOf(data: ConnectionData, collection: ActivityCollection): Entry<Stored>[] {
  const source = collection === 'users' ? data.users : collection === 'tasks' ? data.engagementTasks : data.engagementActions;
  return source.entries() as Entry<Stored>[];
}

/** The insertion number of an engagement user, task or action. */
export function seqOf(data: ConnectionData, collection: ActivityCollection, id: string | null): number | null {
  if (id === null) return null;
  const source = collection === 'users' ? data.users : collection === 'tasks' ? data.engagementTasks : data.engagementActions;
  return source.entry(id)?.seq ?? null;
}

/** The entry with an insertion number given as a path id. */
export function bySeq<T extends Stored>(data: ConnectionData, collection: ActivityCollection, id: string): Entry<T> | undefined {
  if (!/^\d+$/.test(id)) return undefined;
  return entriesOf(data, collection).find((entry) => entry.seq === Number(id)) as Entry<T> | undefined;
}

/** The CRM Contact a task or action is about, if it still exists. */
export function contactOf(data: ConnectionData, record: EngagementTask | EngagementAction) {
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
  for (let round = 0; ; round++) {
    let hex = '';
    for (let part = 0; hex.length < 32; part++) {
      hex += hash32(`${data.connectionId}:task:${data.engagementTasks.size}:${now}:${round}:${part}`).toString(16).padStart(8, '0');
    }
    if (!data.engagementTasks.has(hex)) return hex;
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
