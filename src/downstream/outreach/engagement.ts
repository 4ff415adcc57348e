import type { EngagementUser } from '../../model/engagement.js';
import type {
  CallDisposition,
  EngagementAction,
  EngagementCall,
  EngagementEmail,
  EngagementSequence,
  EngagementTask,
} from '../../model/engagement-activity.js';
import type { Pieces } from '../../shared/pieces.js';
import type { Entry } from '../../store/ordered-collection.js';
import {
  type ActivityCollection,
  advanceAction,
  bySeq,
  completeTask,
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
  setActionState,
  startSequence,
  type TaskWrite,
  updateTask,
} from '../engagement-activity.js';
import { engagementTimes, fullName } from '../engagement-native.js';
import { parseTime } from '../fields.js';
import { customOf, FieldError, isPlainObject, type NativeFields } from '../rest-engine.js';
import { intParam, isResponse, type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { collectInPieces, sortInPieces } from '../walk-in-pieces.js';
import { outreachCustom } from './formats.js';
import { base, HEADERS, outreachError } from './objects.js';

/**
 * Outreach's engagement resources (JSON:API): `users` (the engagement users), `tasks`,
 * `sequences` and `sequenceStates` (the actions), with `page[size]`/`page[offset]` and
 * `links.next`, `filter[attribute]` and `filter[relationship][id]`, and `include`.
 * https://developers.outreach.io/api/reference/overview/
 */

type Ref = { type: string; id: number } | null;

/** A listable JSON:API resource: its records as resource objects. */
export interface Resource {
  type: string;
  path: string;
  /** Where its records live; undefined for the static sequences. */
  collection?: ActivityCollection;
  count(context: DownstreamContext): number;
  /** The first record as a resource object (what a filter may name), if any. */
  first(context: DownstreamContext): NativeFields | undefined;
  /** Every record as a resource object, in order, bar those `test` refuses: a walk in pieces. */
  passing(context: DownstreamContext, test: (item: NativeFields) => boolean): Pieces<NativeFields[]>;
  one(id: string, context: DownstreamContext): NativeFields | undefined;
}

function resourceObject(
  type: string,
  path: string,
  id: number,
  attributes: NativeFields,
  relationships: Record<string, Ref>,
  context: DownstreamContext,
): NativeFields {
  return {
    type,
    id,
    attributes,
    relationships: Object.fromEntries(Object.entries(relationships).map(([name, data]) => [name, { data }])),
    links: { self: `${base(context)}/${path}/${id}` },
  };
}

const userRef = (context: DownstreamContext, userId: string): Ref => {
  const id = seqOf(context.data, 'users', userId);
  return id === null ? null : { type: 'user', id };
};
const prospectRef = (context: DownstreamContext, record: { associations: { contactId: string | null } }): Ref => {
  const contact = contactOf(context.data, record);
  return contact ? { type: 'prospect', id: Number(contact.nativeId) } : null;
};
/** A reference to an engagement record by its insertion number. */
const seqRef = (context: DownstreamContext, type: string, collection: ActivityCollection, id: string | null): Ref => {
  const seq = seqOf(context.data, collection, id);
  return seq === null ? null : { type, id: seq };
};

/** An engagement user as Outreach's users endpoint shows it (and `additional` too). */
export function renderUser(user: EngagementUser, seq: number, extra: NativeFields, context: DownstreamContext): NativeFields {
  return resourceObject(
    'user',
    'users',
    seq,
    {
      firstName: user.firstName,
      lastName: user.lastName,
      name: fullName(user),
      email: user.email,
      locked: false,
      ...engagementTimes(user, ['createdAt', 'updatedAt']),
      ...outreachCustom.read(customOf(extra)),
    },
    {},
    context,
  );
}

const TASK_ACTION: Record<EngagementTask['kind'], string> = { call: 'call', email: 'email', action_item: 'action_item', linkedin: 'in_person' };

export function renderTask(task: EngagementTask, seq: number, context: DownstreamContext): NativeFields {
  return resourceObject(
    'task',
    'tasks',
    seq,
    {
      action: TASK_ACTION[task.kind],
      taskType: 'manual',
      subject: task.subject,
      note: task.note,
      dueAt: task.dueAt,
      state: task.state,
      completed: task.state === 'complete',
      completedAt: task.completedAt,
      createdAt: task.createdTime,
      updatedAt: task.modifiedTime,
    },
    { owner: userRef(context, task.associations.userId), prospect: prospectRef(context, task) },
    context,
  );
}

const stepId = (sequence: number, step: number) => sequence * 100 + step;

export function renderSequenceState(action: EngagementAction, seq: number, context: DownstreamContext): NativeFields {
  // The mailbox it sends from: a sequence state started since sequence starts are simulated names one.
  const mailbox: Record<string, Ref> = action.mailboxId === undefined ? {} : { mailbox: seqRef(context, 'mailbox', 'mailboxes', action.mailboxId) };
  return resourceObject(
    'sequenceState',
    'sequenceStates',
    seq,
    {
      state: action.state,
      stateChangedAt: action.modifiedTime,
      activeAt: action.state === 'active' ? action.createdTime : null,
      stepType: action.kind,
      dueAt: action.dueAt,
      createdAt: action.createdTime,
      updatedAt: action.modifiedTime,
    },
    {
      creator: userRef(context, action.associations.userId),
      owner: userRef(context, action.associations.userId),
      prospect: prospectRef(context, action),
      sequence: { type: 'sequence', id: action.sequence },
      sequenceStep: { type: 'sequenceStep', id: stepId(action.sequence, action.step) },
      ...mailbox,
    },
    context,
  );
}

export function renderSequence(sequence: EngagementSequence, id: number, context: DownstreamContext): NativeFields {
  let active = 0;
  for (const action of context.data.engagementActions.values()) if (action.sequence === id && action.state === 'active') active++;
  return resourceObject(
    'sequence',
    'sequences',
    id,
    {
      name: sequence.name,
      enabled: sequence.enabled,
      sequenceType: 'interval',
      sequenceStepCount: sequence.numSteps,
      activeProspectsCount: active,
    },
    {},
    context,
  );
}

/** A logged call: its outcome from its disposition, its duration between answer and completion. */
export function renderCall(call: EngagementCall, seq: number, context: DownstreamContext): NativeFields {
  const disposition = call.dispositionId === null ? undefined : context.data.callDispositions.get(call.dispositionId);
  const started = Date.parse(call.createdTime);
  const answered = disposition?.key.startsWith('answered') === true;
  return resourceObject(
    'call',
    'calls',
    seq,
    {
      direction: call.direction,
      outcome: disposition === undefined ? null : answered ? 'Answered' : 'Not Answered',
      note: call.note,
      from: call.direction === 'inbound' ? call.phone : null,
      to: call.direction === 'outbound' ? call.phone : null,
      state: 'completed',
      dialedAt: call.createdTime,
      answeredAt: answered ? call.createdTime : null,
      completedAt: new Date(started + (call.durationSeconds ?? 0) * 1000).toISOString(),
      createdAt: call.createdTime,
      updatedAt: call.modifiedTime,
    },
    {
      callDisposition: seqRef(context, 'callDisposition', 'dispositions', call.dispositionId),
      prospect: prospectRef(context, call),
      user: seqRef(context, 'user', 'users', call.associations.userId),
      task: seqRef(context, 'task', 'tasks', call.associations.taskId),
      sequenceState: seqRef(context, 'sequenceState', 'actions', enrolmentIdOf(context.data, call.associations.actionId)),
    },
    context,
  );
}

export function renderCallDisposition(disposition: CallDisposition, seq: number, context: DownstreamContext): NativeFields {
  return resourceObject(
    'callDisposition',
    'callDispositions',
    seq,
    {
      name: disposition.name,
      outcome: disposition.key.startsWith('answered') ? 'Answered' : 'Not Answered',
      order: seq,
      defaultForOutboundCalls: false,
      createdAt: disposition.createdTime,
      updatedAt: disposition.modifiedTime,
    },
    {},
    context,
  );
}

/** An email as Outreach's mailings show it: delivered or bounced, its opens, clicks and reply. */
export function renderMailing(email: EngagementEmail, seq: number, context: DownstreamContext): NativeFields {
  const mailbox = email.associations.mailboxId === null ? undefined : context.data.mailboxes.get(email.associations.mailboxId);
  const sequence = email.associations.sequenceId === null ? null : seqRef(context, 'sequence', 'sequences', email.associations.sequenceId);
  return resourceObject(
    'mailing',
    'mailings',
    seq,
    {
      subject: email.subject,
      bodyText: email.bodyText,
      bodyHtml: email.bodyHtml,
      mailboxAddress: mailbox?.email ?? null,
      mailingType: sequence ? 'sequence' : 'single',
      state: email.isBounced ? 'bounced' : 'delivered',
      bouncedAt: email.isBounced ? email.createdTime : null,
      deliveredAt: email.isBounced ? null : email.createdTime,
      openCount: email.openCount,
      clickCount: email.clickCount,
      repliedAt: email.replied ? email.modifiedTime : null,
      createdAt: email.createdTime,
      updatedAt: email.modifiedTime,
    },
    {
      mailbox: seqRef(context, 'mailbox', 'mailboxes', email.associations.mailboxId),
      prospect: prospectRef(context, email),
      sequence,
      sequenceState: seqRef(context, 'sequenceState', 'actions', enrolmentIdOf(context.data, email.associations.actionId)),
      task: seqRef(context, 'task', 'tasks', email.associations.taskId),
      user: seqRef(context, 'user', 'users', email.associations.userId),
    },
    context,
  );
}

/** A resource's `first` and `passing`, over its entries as each renders. */
export function walkable<E>(
  entries: (context: DownstreamContext) => readonly E[],
  render: (entry: E, context: DownstreamContext) => NativeFields,
): Pick<Resource, 'first' | 'passing'> {
  return {
    first: (context) => {
      const [entry] = entries(context);
      return entry === undefined ? undefined : render(entry, context);
    },
    passing: (context, test) =>
      collectInPieces(entries(context), (entry) => {
        const item = render(entry, context);
        return test(item) ? item : undefined;
      }),
  };
}

function stored(
  type: string,
  path: string,
  collection: ActivityCollection,
  render: (record: never, seq: number, extra: NativeFields, context: DownstreamContext) => NativeFields,
  shown: (entry: Entry<unknown>) => boolean = () => true,
): Resource {
  const entries = (context: DownstreamContext) => entriesOf(context.data, collection).filter(shown);
  return {
    type,
    path,
    collection,
    count: (context) => entries(context).length,
    ...walkable(entries, (entry, context) => render(entry.record as never, entry.seq, entry.extra, context)),
    one: (id, context) => {
      const entry = bySeq(context.data, collection, id);
      return entry && shown(entry) ? render(entry.record as never, entry.seq, entry.extra, context) : undefined;
    },
  };
}

const RESOURCES: Record<string, Resource> = {
  users: stored('user', 'users', 'users', (user: EngagementUser, seq, extra, context) => renderUser(user, seq, extra, context)),
  tasks: stored('task', 'tasks', 'tasks', (task: EngagementTask, seq, _extra, context) => renderTask(task, seq, context)),
  // A sequence state is an enrolment (its first action), at its current step (decision 0045).
  sequenceStates: stored(
    'sequenceState',
    'sequenceStates',
    'actions',
    (action: EngagementAction, seq, _extra, context) =>
      renderSequenceState(enrolmentState(context.data, context.data.engagementActions.entry(action.id)!), seq, context),
    (entry) => isEnrolment(entry.record as EngagementAction),
  ),
  sequences: stored('sequence', 'sequences', 'sequences', (sequence: EngagementSequence, seq, _extra, context) => renderSequence(sequence, seq, context)),
  calls: stored('call', 'calls', 'calls', (call: EngagementCall, seq, _extra, context) => renderCall(call, seq, context)),
  callDispositions: stored('callDisposition', 'callDispositions', 'dispositions', (disposition: CallDisposition, seq, _extra, context) =>
    renderCallDisposition(disposition, seq, context),
  ),
  mailings: stored('mailing', 'mailings', 'emails', (email: EngagementEmail, seq, _extra, context) => renderMailing(email, seq, context)),
};

/** `filter[state]=…` tests an attribute, `filter[owner][id]=…` a relationship; an unknown one is a 400. */
function filtersOf(request: DownstreamRequest, sample: NativeFields | undefined): Array<(item: NativeFields) => boolean> {
  const out: Array<(item: NativeFields) => boolean> = [];
  for (const [key, value] of Object.entries(request.query)) {
    const m = /^filter\[(\w+)\](?:\[id\])?$/.exec(key);
    if (!key.startsWith('filter[')) continue;
    const name = m?.[1];
    const isRelationship = /\]\[id\]$/.test(key);
    const known =
      sample && name ? (isRelationship ? name in (sample.relationships as NativeFields) : name in (sample.attributes as NativeFields) || name === 'id') : false;
    if (!name || (sample && !known)) throw new FieldError(key, `${key} is not a valid filter for this resource.`, 'param');
    // A Set: one lookup an item, however long the list.
    const wanted = new Set(value.split(','));
    out.push((item) => {
      if (name === 'id' && !isRelationship) return wanted.has(String(item.id));
      if (isRelationship) {
        const data = ((item.relationships as Record<string, { data: Ref }>)[name]?.data ?? null) as Ref;
        return data !== null && wanted.has(String(data.id));
      }
      return wanted.has(String((item.attributes as NativeFields)[name]));
    });
  }
  return out;
}

/** Resolves a relationship's target for `include` when it is not an engagement resource (a CRM record). */
export type Resolver = (ref: { type: string; id: number }, context: DownstreamContext) => NativeFields | undefined;

/** The resources named by `include` (relationship names), each once. */
function included(items: NativeFields[], request: DownstreamRequest, context: DownstreamContext, resolver?: Resolver): NativeFields[] | undefined {
  const asked = request.query.include
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!asked || asked.length === 0) return undefined;
  // Each relationship the items have, once: a name asked for again, or one no item has, adds nothing.
  const held = new Set(items.flatMap((item) => Object.keys(item.relationships as NativeFields)));
  const names = [...new Set(asked)].filter((name) => held.has(name));
  const seen = new Set<string>();
  const out: NativeFields[] = [];
  for (const item of items) {
    for (const name of names) {
      const data = ((item.relationships as Record<string, { data: Ref }>)[name]?.data ?? null) as Ref;
      if (!data || seen.has(`${data.type}:${data.id}`)) continue;
      seen.add(`${data.type}:${data.id}`);
      const found = resolver?.(data, context) ?? resolve(data, context);
      if (found) out.push(found);
    }
  }
  return out;
}

function resolve(ref: { type: string; id: number }, context: DownstreamContext): NativeFields | undefined {
  if (ref.type === 'prospect') {
    const entry = context.data.crm.Contact.getByNativeId(String(ref.id));
    if (!entry) return undefined;
    const c = entry.record as unknown as { firstName: string | null; lastName: string | null; email: string | null };
    return {
      type: 'prospect',
      id: ref.id,
      attributes: { firstName: c.firstName, lastName: c.lastName, emails: c.email ? [c.email] : [] },
      links: { self: `${base(context)}/prospects/${ref.id}` },
    };
  }
  const resource = Object.values(RESOURCES).find((candidate) => candidate.type === ref.type);
  return resource?.one(String(ref.id), context);
}

/** `sort=name,-updatedAt`: attributes (or `id`), `-` for descending; nulls last. */
function* sorted(items: NativeFields[], request: DownstreamRequest): Pieces<NativeFields[]> {
  const keys = request.query.sort
    ?.split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  if (!keys || keys.length === 0) return items;
  const sample = items[0];
  // An attribute sorted by again never decides: the items it would compare are equal on it already.
  const byName = new Map<string, { name: string; sign: number }>();
  for (const key of keys) {
    const name = key.replace(/^-/, '');
    if (!byName.has(name)) byName.set(name, { name, sign: key.startsWith('-') ? -1 : 1 });
  }
  const fields = [...byName.values()];
  for (const { name } of fields) {
    if (sample && name !== 'id' && !(name in (sample.attributes as NativeFields)))
      throw new FieldError('sort', `sort: '${name}' is not a sortable attribute of this resource.`, 'param');
  }
  const fieldOf = (item: NativeFields, name: string) => (name === 'id' ? item.id : (item.attributes as NativeFields)[name]);
  const ordered = yield* sortInPieces(
    items.map((item, index) => ({ item, index })),
    (a, b) => {
      for (const { name, sign } of fields) {
        const x = fieldOf(a.item, name);
        const y = fieldOf(b.item, name);
        if (x === y) continue;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
      }
      return a.index - b.index;
    },
  );
  return ordered.map(({ item }) => item);
}

/** A page of a resource, filtered (`filter[...]`), sorted (`sort`) and with `include`d resources. */
export function list(resource: Resource, request: DownstreamRequest, context: DownstreamContext, resolver?: Resolver): Pieces<DownstreamResponse> {
  const offset = intParam(request.query['page[offset]'], 'page[offset]', 0, 0);
  const limit = intParam(request.query['page[size]'], 'page[size]', 50, 1, 1000);
  const tests = filtersOf(request, resource.first(context));
  return listInPieces(resource, tests, offset, limit, request, context, resolver);
}

function* listInPieces(
  resource: Resource,
  tests: Array<(item: NativeFields) => boolean>,
  offset: number,
  limit: number,
  request: DownstreamRequest,
  context: DownstreamContext,
  resolver: Resolver | undefined,
): Pieces<DownstreamResponse> {
  // Every record is rendered and tested, then sorted: in pieces (decision 0042).
  const found = yield* resource.passing(context, (item) => tests.every((test) => test(item)));
  const matching = yield* sorted(found, request);
  const page = matching.slice(offset, offset + limit);
  const link = (at: number) =>
    `${base(context)}/${resource.path}?${new URLSearchParams({ ...request.query, 'page[offset]': String(at), 'page[size]': String(limit) })}`;
  const next = offset + limit;
  const extra = included(page, request, context, resolver);
  return reply(
    200,
    {
      data: page,
      ...(extra ? { included: extra } : {}),
      meta: { count: matching.length },
      links: { first: link(0), ...(offset > 0 ? { prev: link(Math.max(0, offset - limit)) } : {}), ...(next < matching.length ? { next: link(next) } : {}) },
    },
    HEADERS,
  );
}

const missing = (resource: Resource, id: string) =>
  outreachError(404, 'resourceNotFound', 'Resource Not Found', `Could not find '${resource.type}' with ID '${id}'.`);

/**
 * The engagement routes; they take `users` and `tasks` from the CRM collections of the same
 * names. `fallback` reads an id these do not know (a CRM user that owns a prospect, say).
 */
export function engagementRoutes(fallback: Partial<Record<string, (id: string, context: DownstreamContext) => NativeFields | undefined>> = {}): Route[] {
  const routes: Route[] = [];
  for (const resource of Object.values(RESOURCES)) {
    routes.push(
      { method: 'GET', pattern: resource.path, run: (_params, request, context) => list(resource, request, context) },
      {
        method: 'GET',
        pattern: `${resource.path}/:id`,
        run: (params, request, context) => {
          const item = resource.one(params.id!, context) ?? fallback[resource.path]?.(params.id!, context);
          if (!item) return missing(resource, params.id!);
          const extra = included([item], request, context);
          return reply(200, { data: item, ...(extra ? { included: extra } : {}) }, HEADERS);
        },
      },
    );
  }
  routes.push(...taskWriteRoutes(), {
    method: 'POST',
    pattern: 'tasks/:id/actions/markComplete',
    run: (params, _request, context) => {
      const entry = bySeq<EngagementTask>(context.data, 'tasks', params.id!);
      if (!entry) return missing(RESOURCES.tasks!, params.id!);
      const task = completeTask(context.data, entry, context.now);
      return reply(200, { data: renderTask(task, entry.seq, context) }, HEADERS);
    },
  });
  routes.push(...sequenceStateRoutes());
  return routes;
}

const ACTION_KIND: Record<string, EngagementTask['kind']> = { call: 'call', email: 'email', action_item: 'action_item', in_person: 'linkedin' };
const TASK_ATTRIBUTES = ['action', 'subject', 'note', 'dueAt'];

const invalid = (detail: string, pointer: string) => outreachError(422, 'validationError', 'Validation Error', detail, { source: { pointer } });

/** A task write from a JSON:API document: `attributes` and the `owner` and `prospect` (or `subject`) relationships. */
function taskWrite(body: unknown, context: DownstreamContext, creating: boolean): TaskWrite | DownstreamResponse {
  const data = isPlainObject(body) ? body.data : undefined;
  if (!isPlainObject(data)) return outreachError(400, 'badRequest', 'Bad Request', 'The request body must be a JSON:API document with a data object.');
  if (data.type !== 'task') return outreachError(409, 'typeMismatch', 'Type Mismatch', `Expected resource type "task", got ${JSON.stringify(data.type)}.`);
  const attributes = data.attributes ?? {};
  const relationships = data.relationships ?? {};
  if (!isPlainObject(attributes) || !isPlainObject(relationships))
    return outreachError(400, 'badRequest', 'Bad Request', 'data.attributes and data.relationships must be objects.');
  const write: TaskWrite = {};
  for (const [name, value] of Object.entries(attributes)) {
    const pointer = `/data/attributes/${name}`;
    if (!TASK_ATTRIBUTES.includes(name))
      return invalid(
        name === 'state' ? 'state is read-only: complete a task with POST tasks/{id}/actions/markComplete.' : `${name} is not a writable attribute of task.`,
        pointer,
      );
    if (name === 'action') {
      if (typeof value !== 'string' || !ACTION_KIND[value]) return invalid(`action must be one of ${Object.keys(ACTION_KIND).join(', ')}.`, pointer);
      write.kind = ACTION_KIND[value];
    } else if (name === 'dueAt') {
      try {
        const at = parseTime(value, 'dueAt');
        if (at === null) return invalid('dueAt cannot be blank.', pointer);
        write.dueAt = at;
      } catch (error) {
        if (error instanceof FieldError) return invalid(error.message, pointer);
        throw error;
      }
    } else if (name === 'note') {
      if (value !== null && typeof value !== 'string') return invalid('note must be a string.', pointer);
      write.note = value as string | null;
    } else {
      if (typeof value !== 'string') return invalid(`${name} must be a string.`, pointer);
      write.subject = value;
    }
  }
  const owner = relationships.owner;
  if (owner !== undefined) {
    const id = isPlainObject(owner) && isPlainObject(owner.data) ? String(owner.data.id) : '';
    const user = bySeq<EngagementUser>(context.data, 'users', id);
    if (!user) return invalid(`owner must name a user, got ${JSON.stringify(isPlainObject(owner) ? owner.data : owner)}.`, '/data/relationships/owner');
    write.userId = user.record.id;
  } else if (creating) {
    return invalid('owner cannot be blank.', '/data/relationships/owner');
  }
  const prospect = relationships.prospect ?? relationships.subject;
  if (prospect !== undefined) {
    const pointer = `/data/relationships/${relationships.prospect !== undefined ? 'prospect' : 'subject'}`;
    const ref = isPlainObject(prospect) ? prospect.data : undefined;
    if (ref === null) write.contactId = null;
    else {
      const contact =
        isPlainObject(ref) && (ref.type === undefined || ref.type === 'prospect') ? context.data.crm.Contact.getByNativeId(String(ref.id)) : undefined;
      if (!contact) return invalid(`prospect must name a prospect, got ${JSON.stringify(ref)}.`, pointer);
      write.contactId = contact.record.id;
    }
  }
  if (creating && write.kind === undefined) return invalid('action cannot be blank.', '/data/attributes/action');
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
        return reply(201, { data: renderTask(entry.record, entry.seq, context) }, HEADERS);
      },
    },
    {
      method: ['PATCH', 'DELETE'],
      pattern: 'tasks/:id',
      run: (params, request, context) => {
        const entry = bySeq<EngagementTask>(context.data, 'tasks', params.id!);
        if (!entry) return missing(RESOURCES.tasks!, params.id!);
        if (request.method === 'DELETE') {
          deleteTask(context.data, entry);
          return reply(204, null, HEADERS);
        }
        const write = taskWrite(request.body, context, false);
        if (isResponse(write)) return write;
        const task = updateTask(context.data, entry, write, context.now);
        return reply(200, { data: renderTask(task, entry.seq, context) }, HEADERS);
      },
    },
  ];
}

/** Paths these routes own, so the CRM collections of the same names step aside. */
export const ENGAGEMENT_PATHS = Object.keys(RESOURCES);

/** `relationships.<name>.data.id` of a JSON:API write, as text; undefined when it is not there. */
function relationshipId(relationships: NativeFields, name: string): string | undefined {
  const value = relationships[name];
  const data = isPlainObject(value) ? value.data : undefined;
  return isPlainObject(data) && (typeof data.id === 'number' || typeof data.id === 'string') ? String(data.id) : undefined;
}

/** The 422 of a refused sequence start or state change, pointing at the relationship at fault. */
function refused(error: EngagementRefusal): DownstreamResponse {
  const pointer =
    error.part === 'contact' ? '/data/relationships/prospect' : error.part === 'mailbox' ? '/data/relationships/mailbox' : '/data/relationships/sequence';
  const detail =
    error.reason === 'active'
      ? 'Prospect is already active in this sequence.'
      : error.reason === 'disabled'
        ? 'Sequence is disabled and cannot accept new prospects.'
        : error.reason === 'finished'
          ? 'Sequence state is already finished.'
          : error.reason === 'paused'
            ? 'Sequence state is paused.'
            : `${error.part} ${error.message}.`;
  return invalid(detail, error.part === 'action' ? '/data' : pointer);
}

/**
 * `POST sequenceStates` (a prospect, a sequence and a mailbox: the prospect starts the sequence),
 * and the state's actions `advance` (its step done, the next falls due), `pause`, `resume` and
 * `finish`. https://developers.outreach.io/api/reference/tag/Sequence-State/
 */
function sequenceStateRoutes(): Route[] {
  const change = (verb: 'advance' | 'pause' | 'resume' | 'finish'): Route => ({
    method: 'POST',
    pattern: `sequenceStates/:id/actions/${verb}`,
    run: (params, _request, context) => {
      const entry = bySeq<EngagementAction>(context.data, 'actions', params.id!);
      if (!entry || !isEnrolment(entry.record)) return missing(RESOURCES.sequenceStates!, params.id!);
      try {
        // A sequence state is its enrolment: what it does, it does at its current step.
        const step = currentStep(context.data, entry);
        if (verb === 'advance') advanceAction(context.data, step, context.now);
        else setActionState(context.data, step, verb === 'pause' ? 'paused' : verb === 'resume' ? 'active' : 'finished', context.now);
        const state = enrolmentState(context.data, context.data.engagementActions.entry(entry.record.id)!);
        return reply(200, { data: renderSequenceState(state, entry.seq, context) }, HEADERS);
      } catch (error) {
        if (error instanceof EngagementRefusal) return refused(error);
        throw error;
      }
    },
  });
  return [
    {
      method: 'POST',
      pattern: 'sequenceStates',
      run: (_params, request, context) => {
        const data = isPlainObject(request.body) ? request.body.data : undefined;
        if (!isPlainObject(data)) return outreachError(400, 'badRequest', 'Bad Request', 'The request body must be a JSON:API document with a data object.');
        if (data.type !== 'sequenceState')
          return outreachError(409, 'typeMismatch', 'Type Mismatch', `Expected resource type "sequenceState", got ${JSON.stringify(data.type)}.`);
        const relationships = isPlainObject(data.relationships) ? data.relationships : {};
        const prospectId = relationshipId(relationships, 'prospect');
        const sequenceId = relationshipId(relationships, 'sequence');
        const mailboxId = relationshipId(relationships, 'mailbox');
        const prospect = prospectId === undefined ? undefined : context.data.crm.Contact.getByNativeId(prospectId);
        if (!prospect) return invalid(`prospect must name a prospect, got ${JSON.stringify(prospectId ?? null)}.`, '/data/relationships/prospect');
        const sequence = sequenceId === undefined ? undefined : bySeq<EngagementSequence>(context.data, 'sequences', sequenceId);
        if (!sequence) return invalid(`sequence must name a sequence, got ${JSON.stringify(sequenceId ?? null)}.`, '/data/relationships/sequence');
        const mailbox = mailboxId === undefined ? undefined : (bySeq(context.data, 'mailboxes', mailboxId) as Entry<{ id: string }> | undefined);
        if (!mailbox) return invalid(`mailbox must name a mailbox, got ${JSON.stringify(mailboxId ?? null)}.`, '/data/relationships/mailbox');
        try {
          const entry = startSequence(context.data, { sequence, contactId: prospect.record.id, mailboxId: mailbox.record.id }, context.now);
          return reply(201, { data: renderSequenceState(entry.record, entry.seq, context) }, HEADERS);
        } catch (error) {
          if (error instanceof EngagementRefusal) return refused(error);
          throw error;
        }
      },
    },
    change('advance'),
    change('pause'),
    change('resume'),
    change('finish'),
  ];
}
