import type { EngagementUser } from '../../model/engagement.js';
import type {
  CallDisposition,
  EngagementAction,
  EngagementCall,
  EngagementEmail,
  EngagementSequence,
  EngagementTask,
} from '../../model/engagement-activity.js';
import { isRealInstant } from '../../shared/calendar.js';
import {
  type ActivityCollection,
  bySeq,
  contactOf,
  createTask,
  currentStep,
  deleteTask,
  EngagementRefusal,
  enrolmentIdOf,
  enrolmentState,
  entriesOf,
  isEnrolment,
  seqOf,
  sequenceOf,
  startSequence,
  type TaskWrite,
  updateTask,
} from '../engagement-activity.js';
import { engagementTimes, fullName } from '../engagement-native.js';
import { customOf, isPlainObject, type NativeFields } from '../rest-engine.js';
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

const userHref = (context: DownstreamContext, userId: string | null) => hrefTo(context, 'users', seqOf(context.data, 'users', userId));
const personHref = (context: DownstreamContext, record: { associations: { contactId: string | null } }) => {
  const contact = contactOf(context.data, record);
  return contact ? hrefTo(context, 'people', Number(contact.nativeId)) : null;
};

/** An engagement user as Salesloft's users endpoint shows it (and `additional` too). */
export function renderUser(user: EngagementUser, seq: number, extra: NativeFields): NativeFields {
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

export function renderTask(task: EngagementTask, seq: number, context: DownstreamContext): NativeFields {
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

export function renderAction(action: EngagementAction, seq: number, context: DownstreamContext): NativeFields {
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

/** A cadence: a disabled sequence is an archived cadence. */
export function renderCadence(sequence: EngagementSequence, id: number, context: DownstreamContext): NativeFields {
  const people = new Set<string | null>();
  for (const action of context.data.engagementActions.values()) if (action.sequence === id) people.add(action.associations.contactId);
  return {
    id,
    name: sequence.name,
    archived_at: sequence.enabled ? null : sequence.modifiedTime,
    team_cadence: false,
    shared: true,
    draft: false,
    cadence_function: 'outbound',
    counts: { cadence_people: people.size, target_daily_people: 0, opportunities_created: 0, meetings_booked: 0 },
    step_count: sequence.numSteps,
  };
}

const MEMBERSHIP_STATE: Record<EngagementAction['state'], string> = { active: 'active', paused: 'paused', finished: 'finished' };

/** A person's membership of a cadence: the action that holds their place in it. */
export function renderMembership(enrolment: EngagementAction, seq: number, context: DownstreamContext): NativeFields {
  const step = currentStep(context.data, context.data.engagementActions.entry(enrolment.id)!);
  const action = enrolmentState(context.data, context.data.engagementActions.entry(enrolment.id)!);
  const ofIt = (actionId: string | null) => enrolmentIdOf(context.data, actionId) === enrolment.id;
  let calls = 0;
  for (const call of context.data.calls.values()) if (ofIt(call.associations.actionId)) calls++;
  const emails = context.data.engagementEmails.values();
  const counts = { views: 0, clicks: 0, replies: 0, calls, sent_emails: 0, bounces: 0 };
  for (const email of emails) {
    if (!ofIt(email.associations.actionId)) continue;
    counts.sent_emails++;
    counts.views += email.openCount;
    counts.clicks += email.clickCount;
    if (email.replied) counts.replies++;
    if (email.isBounced) counts.bounces++;
  }
  return {
    id: seq,
    added_at: action.createdTime,
    created_at: action.createdTime,
    updated_at: action.modifiedTime,
    person_deleted: contactOf(context.data, action) === undefined,
    currently_on_cadence: action.state !== 'finished',
    current_state: MEMBERSHIP_STATE[action.state],
    cadence: hrefTo(context, 'cadences', sequenceOf(context.data, action)?.seq ?? null),
    person: personHref(context, action),
    user: userHref(context, action.associations.userId),
    latest_action: hrefTo(context, 'actions', step.seq),
    counts,
  };
}

/** A logged call, as Salesloft's call activities list it. */
export function renderCall(call: EngagementCall, seq: number, context: DownstreamContext): NativeFields {
  const disposition = call.dispositionId === null ? undefined : context.data.callDispositions.get(call.dispositionId);
  return {
    id: seq,
    to: call.phone,
    duration: call.durationSeconds,
    sentiment: null,
    disposition: disposition?.name ?? null,
    note: call.note,
    created_at: call.createdTime,
    updated_at: call.modifiedTime,
    user: userHref(context, call.associations.userId),
    action: hrefTo(context, 'actions', seqOf(context.data, 'actions', call.associations.actionId)),
    called_person: personHref(context, call),
    task: hrefTo(context, 'tasks', seqOf(context.data, 'tasks', call.associations.taskId)),
  };
}

export function renderCallDisposition(disposition: CallDisposition, seq: number): NativeFields {
  return { id: seq, name: disposition.name, created_at: disposition.createdTime, updated_at: disposition.modifiedTime };
}

/** An email, as Salesloft's email activities list it. */
export function renderEmail(email: EngagementEmail, seq: number, context: DownstreamContext): NativeFields {
  const sequence = email.associations.sequenceId === null ? null : seqOf(context.data, 'sequences', email.associations.sequenceId);
  return {
    id: seq,
    recipient_email_address: email.to,
    status: email.isBounced ? 'bounced' : 'sent',
    bounced: email.isBounced,
    subject: email.subject,
    sent_at: email.createdTime,
    created_at: email.createdTime,
    updated_at: email.modifiedTime,
    counts: { clicks: email.clickCount, views: email.openCount, replies: email.replied ? 1 : 0, unique_devices: 0, unique_locations: 0, attachments: 0 },
    recipient: personHref(context, email),
    user: userHref(context, email.associations.userId),
    action: hrefTo(context, 'actions', seqOf(context.data, 'actions', email.associations.actionId)),
    cadence: hrefTo(context, 'cadences', sequence),
    task: hrefTo(context, 'tasks', seqOf(context.data, 'tasks', email.associations.taskId)),
  };
}

interface Resource {
  path: string;
  /** Items in order, each with the values its filters test. */
  all(context: DownstreamContext): Array<{ item: NativeFields; keys: Record<string, string | null> }>;
  one(id: string, context: DownstreamContext): NativeFields | undefined;
  filters: readonly string[];
}

function stored<T>(
  path: string,
  collection: ActivityCollection,
  filters: readonly string[],
  render: (record: T, seq: number, extra: NativeFields, context: DownstreamContext) => NativeFields,
  keys: (item: NativeFields) => Record<string, string | null>,
  shown: (record: T) => boolean = () => true,
): Resource {
  return {
    path,
    filters,
    all: (context) =>
      entriesOf(context.data, collection)
        .filter((entry) => shown(entry.record as T))
        .map((entry) => {
          const item = render(entry.record as T, entry.seq, entry.extra, context);
          return { item, keys: { ids: String(entry.seq), ...keys(item) } };
        }),
    one: (id, context) => {
      const entry = bySeq(context.data, collection, id);
      return entry && shown(entry.record as T) ? render(entry.record as T, entry.seq, entry.extra, context) : undefined;
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
  cadences: stored<EngagementSequence>(
    'cadences',
    'sequences',
    ['ids'],
    (sequence, seq, _extra, context) => renderCadence(sequence, seq, context),
    () => ({}),
  ),
  // A membership is an enrolment (its first action), at its current step; each step is an action of its own (decision 0045).
  cadence_memberships: stored<EngagementAction>(
    'cadence_memberships',
    'actions',
    ['ids', 'person_id', 'cadence_id', 'currently_on_cadence'],
    (action, seq, _extra, context) => renderMembership(action, seq, context),
    (item) => ({ person_id: idIn(item.person), cadence_id: idIn(item.cadence), currently_on_cadence: String(item.currently_on_cadence) }),
    isEnrolment,
  ),
  'activities/calls': stored<EngagementCall>(
    'activities/calls',
    'calls',
    ['ids', 'user_id', 'person_id'],
    (call, seq, _extra, context) => renderCall(call, seq, context),
    (item) => ({ user_id: idIn(item.user), person_id: idIn(item.called_person) }),
  ),
  call_dispositions: stored<CallDisposition>(
    'call_dispositions',
    'dispositions',
    ['ids'],
    (disposition, seq) => renderCallDisposition(disposition, seq),
    () => ({}),
  ),
  'activities/emails': stored<EngagementEmail>(
    'activities/emails',
    'emails',
    ['ids', 'user_id', 'person_id', 'cadence_id', 'bounced'],
    (email, seq, _extra, context) => renderEmail(email, seq, context),
    (item) => ({ user_id: idIn(item.user), person_id: idIn(item.recipient), cadence_id: idIn(item.cadence), bounced: String(item.bounced) }),
  ),
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
    if (typeof body.due_date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(body.due_date) || !isRealInstant(body.due_date)) {
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

/**
 * `POST cadence_memberships` (`person_id`, `cadence_id`, `user_id`): a person is added to a
 * cadence, sending from the user's default mailbox. A 422 naming the parameter for a person,
 * cadence or user that is not there, an archived cadence, a person already on it.
 * https://developers.salesloft.com/docs/api/cadence-memberships-create/
 */
function membershipRoute(): Route {
  return {
    method: 'POST',
    pattern: 'cadence_memberships',
    run: (_params, request, context) => {
      // Its parameters come in the query, as Salesloft's docs give them, or the body.
      const params: NativeFields = { ...request.query, ...(isPlainObject(request.body) ? request.body : {}) };
      for (const name of ['person_id', 'cadence_id']) {
        if (params[name] === undefined || params[name] === null || params[name] === '') return unprocessable(name, "can't be blank");
      }
      const person = context.data.crm.Contact.getByNativeId(String(params.person_id));
      if (!person) return unprocessable('person_id', 'must name a person');
      const cadence = bySeq<EngagementSequence>(context.data, 'sequences', String(params.cadence_id));
      if (!cadence) return unprocessable('cadence_id', 'must name a cadence');
      const user = params.user_id === undefined ? undefined : bySeq<EngagementUser>(context.data, 'users', String(params.user_id));
      if (params.user_id !== undefined && !user) return unprocessable('user_id', 'must name a user');
      const userId = user?.record.id ?? context.data.users.slice(0, 1)[0]?.record.id;
      let mailbox: string | undefined;
      for (const candidate of context.data.mailboxes.values()) {
        if (candidate.associations.ownerUserId !== userId) continue;
        mailbox ??= candidate.id;
        if (candidate.isDefault) mailbox = candidate.id;
      }
      if (mailbox === undefined) return unprocessable('user_id', 'has no mailbox to send from');
      try {
        const entry = startSequence(
          context.data,
          { sequence: cadence, contactId: person.record.id, mailboxId: mailbox, ...(userId ? { userId } : {}) },
          context.now,
        );
        return reply(200, { data: renderMembership(entry.record, entry.seq, context) }, HEADERS);
      } catch (error) {
        if (!(error instanceof EngagementRefusal)) throw error;
        if (error.reason === 'disabled') return unprocessable('cadence_id', 'is archived');
        if (error.reason === 'active') return unprocessable('person_id', 'is already on this cadence');
        return unprocessable(error.part === 'mailbox' ? 'user_id' : 'person_id', error.message);
      }
    },
  };
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
export function engagementRoutes(fallback: Partial<Record<string, (id: string, context: DownstreamContext) => NativeFields | undefined>> = {}): Route[] {
  return [
    ...taskWriteRoutes(),
    membershipRoute(),
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
