import type { EngagementAction, EngagementTask } from '../model/engagement-activity.js';
import type { EngagementUser } from '../model/engagement.js';
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
