import type { CrmRecord } from '../../model/crm.js';
import { isRealInstant } from '../../shared/calendar.js';
import { asNumber, owner } from '../fields.js';
import { FieldError, type FieldMap, isPlainObject } from '../rest-engine.js';
import type { DownstreamContext } from '../types.js';

/**
 * What Pipedrive shows about a record beyond its own fields, worked out from the records linked
 * to it: the connected user (creator of what the API makes), a deal's or lead's activities, money
 * as the app formats it. Shared by API v1 (`objects.ts`) and v2 (`v2.ts`).
 */

/** For fields Pipedrive answers null while there is nothing to say. */
export const nothing = () => null;

/** The connected account's user id: the creator (and default owner) of what the API makes (1 if the org's user id is no integer). */
export function connectionUserId(context: DownstreamContext): number {
  const id = Number(context.org.nativeUserId);
  return Number.isSafeInteger(id) ? id : 1;
}

/** An owner's user id (`user_id`, `owner_id`): the owner's, else the connected user's, as Pipedrive makes the API's caller the owner. */
export function ownerIdOrCaller(native: string): FieldMap {
  const map = owner(native, asNumber);
  return { ...map, read: (record, context, extra) => map.read!(record, context, extra) ?? connectionUserId(context) };
}

/** `{ id, name, email, has_pic, pic_hash, active_flag, value }`: a user as v1 deals show one. */
export function userSummary(id: number, name: string | null, email: string | null) {
  return { id, name, email, has_pic: false, pic_hash: null, active_flag: true, value: id };
}

/** The connected user, for records with no owner of their own. */
export const connectionUser = (context: DownstreamContext) => userSummary(connectionUserId(context), context.org.slug, `${context.org.slug}@pipedrive.example`);

type Activity = CrmRecord<'Task'> | CrmRecord<'Event'>;

/** A record's activities (tasks and events linked to it), each with its time and whether it is done. */
function activitiesOf(record: CrmRecord, context: DownstreamContext): Array<{ activity: Activity; at: string | null; done: boolean }> {
  const links = record.associations as { taskIds?: string[]; eventIds?: string[] };
  const tasks = (links.taskIds ?? []).flatMap((id) => {
    const task = context.data.crm.Task.get(id) as CrmRecord<'Task'> | undefined;
    return task ? [{ activity: task as Activity, at: task.dueDate, done: task.isDone }] : [];
  });
  const events = (links.eventIds ?? []).flatMap((id) => {
    const event = context.data.crm.Event.get(id) as CrmRecord<'Event'> | undefined;
    return event
      ? [{ activity: event as Activity, at: event.startDateTime, done: event.endDateTime !== null && Date.parse(event.endDateTime) < context.now }]
      : [];
  });
  return [...tasks, ...events];
}

const byTime = (a: { at: string | null }, b: { at: string | null }) => (a.at ?? '9999').localeCompare(b.at ?? '9999');

/** Counts of a record's activities, done and not. */
export function activityCounts(record: CrmRecord, context: DownstreamContext) {
  const all = activitiesOf(record, context);
  const done = all.filter((item) => item.done).length;
  return { all: all.length, done, undone: all.length - done };
}

/** The next undone activity (earliest first) and the last done one, as Pipedrive names them on deals and leads. */
export function nextAndLast(record: CrmRecord, context: DownstreamContext) {
  const all = activitiesOf(record, context);
  const next = all.filter((item) => !item.done).sort(byTime)[0];
  const last = all
    .filter((item) => item.done)
    .sort(byTime)
    .at(-1);
  return { next, last };
}

/** An activity's Pipedrive type: `task` for tasks, the lower-cased event type otherwise. */
export const activityType = (activity: Activity) => ('isDone' in activity ? 'task' : ((activity as CrmRecord<'Event'>).type ?? 'meeting').toLowerCase());

/** An amount as the app shows it: `$12,500`, `$1,234.5`. */
export function formatMoney(amount: number | null): string {
  const value = amount ?? 0;
  const [whole = '0', cents] = Math.abs(value).toString().split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${value < 0 ? '-' : ''}$${grouped}${cents ? `.${cents}` : ''}`;
}

/** A lead's `value`: `{ amount, currency }` or null. */
export function leadValue(value: unknown, native: string): unknown {
  if (value === null) return null;
  if (
    !isPlainObject(value) ||
    typeof value.amount !== 'number' ||
    !Number.isFinite(value.amount) ||
    typeof value.currency !== 'string' ||
    !/^[A-Z]{3}$/.test(value.currency)
  ) {
    throw new FieldError(native, `${native} must be an object with a numeric amount and a 3-letter currency code`, 'type');
  }
  return { amount: value.amount, currency: value.currency };
}

/** A `YYYY-MM-DD` date or null. */
export function dateOnly(value: unknown, native: string): unknown {
  if (value === null) return null;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || !isRealInstant(value)) {
    throw new FieldError(native, `${native} must be a date as YYYY-MM-DD`, 'value');
  }
  return value;
}

/** Checks for simple stored values. */
export const isType =
  (kind: 'boolean' | 'number' | 'string', nullable = false) =>
  (value: unknown, native: string): unknown => {
    if ((value === null && nullable) || typeof value === kind) return value;
    throw new FieldError(native, `${native} must be a ${kind}${nullable ? ' or null' : ''}`, 'type');
  };

/** A list of ids (lead label UUIDs, v2 label ids). */
export const idList =
  (kind: 'number' | 'string') =>
  (value: unknown, native: string): unknown => {
    if (Array.isArray(value) && value.every((item) => typeof item === kind)) return value;
    throw new FieldError(native, `${native} must be an array of ${kind}s`, 'type');
  };
