import type { EngagementUser } from '../../model/engagement.js';
import { ENGAGEMENT_SEQUENCES, type EngagementAction, type EngagementTask, SEQUENCE_STEPS } from '../../model/engagement-activity.js';
import { type ActivityCollection, bySeq, contactOf, createTask, deleteTask, entriesOf, seqOf, type TaskWrite, updateTask } from '../engagement-activity.js';
import { engagementTimes, fullName } from '../engagement-native.js';
import { customOf, type Flat, isPlainObject } from '../rest-engine.js';
import { intParam, isResponse, type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { base, customFields, HEADERS, notFound } from './objects.js';

/**
 * Salesloft's engagement resources: `users` (the engagement users), `tasks`, `actions` and
 * `cadences`, with `page`/`per_page` (`include_paging_counts`) and the filters its docs list
 * (`user_id`, `person_id`, `current_state`, `type`, `cadence_id`, `ids`).
 * https://developers.salesloft.com/docs/api/
 */

const hrefTo = (context: DownstreamContext, path: string, id: number | null) => (id === null ? null : { id, _href: `${base(context)}/${path}/${id}` });

const userHref = (context: DownstreamContext, userId: string) => hrefTo(context, 'users', seqOf(context.data, 'users', userId));
const personHref = (context: DownstreamContext, record: EngagementTask | EngagementAction) => {
  const contact = contactOf(context.data, record);
  return contact ? hrefTo(context, 'people', Number(contact.nativeId)) : null;
};

/** An engagement user as Salesloft's users endpoint shows it (and `additional` too). */
export function renderUser(user: EngagementUser, seq: number, extra: Flat): Flat {
  const hex = user.id;
  return {
    id: seq,
    guid: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`,
    name: fullName(user),
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    active: true,
    time_zone: 'Etc/UTC',
    ...engagementTimes(user, ['created_at', 'updated_at']),
    ...customFields.read(customOf(extra)),
  };
}

const TASK_TYPE: Record<EngagementTask['kind'], string> = { call: 'call', email: 'email', action_item: 'general', linkedin: 'general' };

function renderTask(task: EngagementTask, seq: number, context: DownstreamContext): Flat {
  return {
    id: seq,
    subject: task.subject,
    task_type: TASK_TYPE[task.kind],
    current_state: task.state === 'complete' ? 'completed' : 'scheduled',
    due_date: task.dueAt.slice(0, 10),
    due_at: task.dueAt,
    description: task.note,
    remind_at: null,
    completed_at: task.completedAt,
    created_at: task.createdTime,
    updated_at: task.modifiedTime,
    user: userHref(context, task.associations.userId),
    person: personHref(context, task),
    created_by_user: userHref(context, task.associations.userId),
  };
}

const ACTION_TYPE: Record<EngagementAction['kind'], string> = { email: 'email', call: 'phone', linkedin: 'integration', other: 'other' };

function renderAction(action: EngagementAction, seq: number, context: DownstreamContext): Flat {
  return {
    id: seq,
    due: action.dueAt !== null && Date.parse(action.dueAt) <= context.now,
    due_on: action.dueAt,
    type: ACTION_TYPE[action.kind],
    status: action.state === 'finished' ? 'completed' : 'pending',
    created_at: action.createdTime,
    updated_at: action.modifiedTime,
    multitouch_group_id: null,
    user: userHref(context, action.associations.userId),
    person: personHref(context, action),
    cadence: hrefTo(context, 'cadences', action.sequence),
    step: hrefTo(context, 'steps', action.sequence * 100 + action.step),
  };
}

function renderCadence(index: number, context: DownstreamContext): Flat {
  const id = index + 1;
  const people = new Set(
    context.data.engagementActions
      .entries()
      .filter((entry) => entry.record.sequence === id)
      .map((entry) => entry.record.associations.contactId),
  );
  return {
    id,
    name: ENGAGEMENT_SEQUENCES[index],
    archived_at: null,
    team_cadence: false,
    shared: true,
    draft: false,
    cadence_function: 'outbound',
    counts: { cadence_people: people.size, target_daily_people: 0, opportunities_created: 0, meetings_booked: 0 },
    step_count: SEQUENCE_STEPS,
  };
}

interface Resource {
  path: string;
  /** Items in order, each with the values its filters test. */
  all(context: DownstreamContext): Array<{ item: Flat; keys: Record<string, string | null> }>;
  one(id: string, context: DownstreamContext): Flat | undefined;
  filters: readonly string[];
}

function stored<T>(
  path: string,
  collection: ActivityCollection,
  filters: readonly string[],
  render: (record: T, seq: number, extra: Flat, context: DownstreamContext) => Flat,
  keys: (item: Flat) => Record<string, string | null>,
): Resource {
  return {
    path,
    filters,
    all: (context) =>
      entriesOf(context.data, collection).map((entry) => {
        const item = render(entry.record as T, entry.seq, entry.extra, context);
        return { item, keys: { ids: String(entry.seq), ...keys(item) } };
      }),
    one: (id, context) => {
      const entry = bySeq(context.data, collection, id);
      return entry ? render(entry.record as T, entry.seq, entry.extra, context) : undefined;
    },
  };
}

const idIn = (value: unknown) => (value && typeof value === 'object' && 'id' in value ? String((value as { id: number }).id) : null);

const RESOURCES: Record<string, Resource> = {
  users: stored<EngagementUser>(
    'users',
    'users',
    ['ids', 'email'],
    (user, seq, extra) => renderUser(user, seq, extra),
    (item) => ({ email: item.email as string | null }),
  ),
  tasks: stored<EngagementTask>(
    'tasks',
    'tasks',
    ['ids', 'user_id', 'person_id', 'current_state', 'task_type'],
    (task, seq, _extra, context) => renderTask(task, seq, context),
    (item) => ({
      user_id: idIn(item.user),
      person_id: idIn(item.person),
      current_state: item.current_state as string,
      task_type: item.task_type as string,
    }),
  ),
  actions: stored<EngagementAction>(
    'actions',
    'actions',
    ['ids', 'user_id', 'person_id', 'cadence_id', 'type'],
    (action, seq, _extra, context) => renderAction(action, seq, context),
    (item) => ({
      user_id: idIn(item.user),
      person_id: idIn(item.person),
      cadence_id: idIn(item.cadence),
      type: item.type as string,
    }),
  ),
  cadences: {
    path: 'cadences',
    filters: ['ids'],
    all: (context) => ENGAGEMENT_SEQUENCES.map((_name, index) => ({ item: renderCadence(index, context), keys: { ids: String(index + 1) } })),
    one: (id, context) =>
      /^\d+$/.test(id) && Number(id) >= 1 && Number(id) <= ENGAGEMENT_SEQUENCES.length ? renderCadence(Number(id) - 1, context) : undefined,
  },
};

/** A filter value as Salesloft takes it: `user_id=3`, `user_id[]=3`, comma lists. */
function filterValues(request: DownstreamRequest, name: string): string[] | undefined {
  const raw = request.query[name] ?? request.query[`${name}[]`];
  return raw === undefined || raw === '' ? undefined : raw.split(',').map((value) => value.trim());
}

function list(resource: Resource, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const page = intParam(request.query.page, 'page', 1, 1);
  const perPage = intParam(request.query.per_page, 'per_page', 25, 1, 100);
  const wanted = resource.filters.flatMap((name) => {
    const values = filterValues(request, name);
    return values ? [{ name, values }] : [];
  });
  // Sets: one lookup an item, however long the lists.
  const sets = wanted.map(({ name, values }) => ({ name, values: new Set(values) }));
  const matching = resource
    .all(context)
    .filter(({ keys }) => sets.every(({ name, values }) => keys[name] !== null && keys[name] !== undefined && values.has(keys[name]!)))
    .map(({ item }) => item);
  const offset = (page - 1) * perPage;
  const pages = Math.max(1, Math.ceil(matching.length / perPage));
  const counts = request.query.include_paging_counts === 'true' ? { total_pages: pages, total_count: matching.length } : {};
  const paging = { per_page: perPage, current_page: page, next_page: page < pages ? page + 1 : null, prev_page: page > 1 ? page - 1 : null, ...counts };
  const filtering = Object.fromEntries(wanted.map(({ name, values }) => [name, values.join(',')]));
  return reply(
    200,
    { metadata: { filtering, paging, sorting: { sort_by: 'id', sort_direction: 'ASC' } }, data: matching.slice(offset, offset + perPage) },
    HEADERS,
  );
}

const KIND_OF: Record<string, EngagementTask['kind']> = { call: 'call', email: 'email', general: 'action_item' };
const unprocessable = (field: string, message: string) => reply(422, { errors: { [field]: [message] } }, HEADERS);

/** A task write as Salesloft takes it (flat fields; `user_id`, `person_id`); a 422 naming the field when bad. */
function taskWrite(body: unknown, context: DownstreamContext, creating: boolean): TaskWrite | DownstreamResponse {
  if (!isPlainObject(body)) return unprocessable('base', 'the request body must be a JSON object');
  const write: TaskWrite = {};
  if (creating) {
    for (const name of ['subject', 'person_id', 'user_id', 'task_type', 'due_date']) {
      if (body[name] === undefined || body[name] === null || body[name] === '') return unprocessable(name, "can't be blank");
    }
  }
  if (body.subject !== undefined) {
    if (typeof body.subject !== 'string') return unprocessable('subject', 'must be a string');
    write.subject = body.subject;
  }
  if (body.description !== undefined) {
    if (body.description !== null && typeof body.description !== 'string') return unprocessable('description', 'must be a string');
    write.note = body.description as string | null;
  }
  if (body.task_type !== undefined) {
    const kind = typeof body.task_type === 'string' ? KIND_OF[body.task_type] : undefined;
    if (!kind) return unprocessable('task_type', `must be one of ${Object.keys(KIND_OF).join(', ')}`);
    write.kind = kind;
  }
  if (body.due_date !== undefined) {
    if (typeof body.due_date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(body.due_date) || Number.isNaN(Date.parse(body.due_date))) {
      return unprocessable('due_date', 'must be a date as YYYY-MM-DD');
    }
    write.dueAt = new Date(`${body.due_date}T00:00:00Z`).toISOString();
  }
  if (body.current_state !== undefined) {
    if (body.current_state !== 'scheduled' && body.current_state !== 'completed') return unprocessable('current_state', 'must be scheduled or completed');
    write.state = body.current_state === 'completed' ? 'complete' : 'incomplete';
  }
  if (body.user_id !== undefined) {
    const user = bySeq<EngagementUser>(context.data, 'users', String(body.user_id));
    if (!user) return unprocessable('user_id', 'must name a user');
    write.userId = user.record.id;
  }
  if (body.person_id !== undefined) {
    const person = context.data.crm.Contact.getByNativeId(String(body.person_id));
    if (!person) return unprocessable('person_id', 'must name a person');
    write.contactId = person.record.id;
  }
  return write;
}

function taskWriteRoutes(): Route[] {
  return [
    {
      method: 'POST',
      pattern: 'tasks',
      run: (_params, request, context) => {
        const write = taskWrite(request.body, context, true);
        if (isResponse(write)) return write;
        const entry = createTask(context.data, write as TaskWrite & { userId: string }, context.now);
        return reply(200, { data: renderTask(entry.record, entry.seq, context) }, HEADERS);
      },
    },
    {
      method: ['PUT', 'DELETE'],
      pattern: 'tasks/:id',
      run: (params, request, context) => {
        const entry = bySeq<EngagementTask>(context.data, 'tasks', params.id!);
        if (!entry) return notFound();
        if (request.method === 'DELETE') {
          deleteTask(context.data, entry);
          return reply(204, null, HEADERS);
        }
        const write = taskWrite(request.body, context, false);
        if (isResponse(write)) return write;
        return reply(200, { data: renderTask(updateTask(context.data, entry, write, context.now), entry.seq, context) }, HEADERS);
      },
    },
  ];
}

/**
 * The engagement routes. `fallback` reads an id they do not know: a CRM user that owns a note or
 * meeting is still found at `users/{id}`, though `users` lists the engagement users.
 */
export function engagementRoutes(fallback: Partial<Record<string, (id: string, context: DownstreamContext) => Flat | undefined>> = {}): Route[] {
  return [
    ...taskWriteRoutes(),
    ...Object.values(RESOURCES).flatMap((resource): Route[] => [
      { method: 'GET', pattern: resource.path, run: (_params, request, context) => list(resource, request, context) },
      {
        method: 'GET',
        pattern: `${resource.path}/:id`,
        run: (params, _request, context) => {
          const item = resource.one(params.id!, context) ?? fallback[resource.path]?.(params.id!, context);
          return item ? reply(200, { data: item }, HEADERS) : notFound();
        },
      },
    ]),
  ];
}

/** Paths these routes own, so the CRM collections of the same names step aside. */
export const ENGAGEMENT_PATHS = Object.keys(RESOURCES);
