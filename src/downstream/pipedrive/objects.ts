import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import type { CollectionApi } from '../collection-api.js';
import {
  asNumber,
  asString,
  computed,
  custom,
  date,
  field,
  locked,
  numericString,
  owner,
  percent,
  type RefStyle,
  readOnly,
  ref,
  STAGE_COVERS,
  stageWrites,
  stored,
  taskDone,
  time,
  to,
} from '../fields.js';
import {
  displayName,
  FieldError,
  type FieldMap,
  isPlainObject,
  NATIVE_PATH,
  type NativeFields,
  type NativeObject,
  nativeOf,
  renderFields,
  valueAt,
  type WriteContext,
} from '../rest-engine.js';
import { intParam, type RouteErrors, reply } from '../router.js';
import type { DownstreamContext } from '../types.js';
import {
  activityCounts,
  activityType,
  connectionUser,
  connectionUserId,
  dateOnly,
  formatMoney,
  idList,
  isType,
  leadValue,
  nextAndLast,
  nothing,
  ownerIdOrCaller,
  userSummary,
} from './details.js';
import { pipedriveHashCustom, pipedriveTimeFormat } from './formats.js';

/**
 * Pipedrive API v1 (`v1/persons`…): `{ success, data }` envelopes, numeric ids, PUT to update;
 * the headers and error answers every Pipedrive route module uses.
 */

export const HEADERS = { 'x-ratelimit-limit': '80', 'x-ratelimit-remaining': '79', 'x-daily-requests-left': '9999' };
const ERROR_INFO = 'Please check developers.pipedrive.com for more information about Pipedrive API.';
const pdTime = time(pipedriveTimeFormat);
/** v1 shows each custom field at the top level under its 40-hex key (v2 nests them in `custom_fields`). */
export const customFields = pipedriveHashCustom;

/** Stages of the default pipeline; won and lost are a deal's status, not a stage. */
export const PIPELINE = ['Prospecting', 'Qualification', 'Needs Analysis', 'Proposal', 'Negotiation'];

// How references look in a GET: the linked record summarised, its id under `value`.
const userRef: RefStyle = (nativeId, user) => {
  const id = Number(nativeId);
  return { id, name: displayName(user), email: (user as CrmRecord<'User'>).email, has_pic: 0, active_flag: true, value: id };
};
const orgRef: RefStyle = (nativeId, org) => ({ name: displayName(org), active_flag: true, value: Number(nativeId) });
const _personRef: RefStyle = (nativeId, person) => ({ name: displayName(person), active_flag: true, value: Number(nativeId) });

const id = computed('id', (record) => Number(record.nativeId));
const stamps = [readOnly('add_time', 'createdTime', pdTime), readOnly('update_time', 'modifiedTime', pdTime), computed('active_flag', () => true)];

/** `name` (or a lead's `title`): one string natively, first and last name in the unified record. */
export const fullName = (native: string) =>
  custom(
    native,
    ['firstName', 'lastName'],
    (record) => displayName(record),
    (value) => {
      if (value === null) return { firstName: null, lastName: null };
      if (typeof value !== 'string') throw new FieldError(native, `${native} must be a string`, 'type');
      const parts = value.trim().split(/\s+/);
      return parts.length > 1 ? { firstName: parts.slice(0, -1).join(' '), lastName: parts.at(-1) } : { firstName: null, lastName: parts[0] ?? null };
    },
  );

/** The title written on create also marks the record as made through the API (its `origin`). */
export function madeByApi(map: FieldMap): FieldMap {
  return { ...map, write: (value, write) => ({ ...map.write!(value, write), ...(write.current ? {} : { [`${NATIVE_PATH}.origin`]: 'API' }) }) };
}
/** Where a record came from: `API` when the API made it, else as the app's users make them. */
export const origin = (fallback: string) =>
  locked(
    stored(
      'origin',
      () => fallback,
      (value) => value,
    ),
  );

/** Emails and phones are lists of `{ value, primary, label }`; a write may also send a bare string. */
function contactList(value: unknown, native: string): Array<{ value: string; label: string; primary: boolean }> {
  if (value === null) return [];
  if (typeof value === 'string') return [{ value, label: 'work', primary: true }];
  if (!Array.isArray(value)) throw new FieldError(native, `${native} must be a string or an array`, 'type');
  return value.map((item) => {
    if (typeof item === 'string') return { value: item, label: 'work', primary: false };
    if (!isPlainObject(item) || typeof item.value !== 'string') throw new FieldError(native, `${native} items must have a string value`, 'type');
    return { value: item.value, label: typeof item.label === 'string' ? item.label : 'work', primary: item.primary === true };
  });
}
export const emailList = (native: string) =>
  custom(
    native,
    ['email'],
    (record) => {
      const email = (record as CrmRecord<'Contact'>).email;
      return [{ label: 'work', value: email ?? '', primary: true }];
    },
    (value) => {
      const list = contactList(value, native);
      return { email: (list.find((item) => item.primary) ?? list[0])?.value ?? null };
    },
  );
export const phoneList = (native: string) =>
  custom(
    native,
    ['phone', 'mobilePhone'],
    (record) => {
      const { phone, mobilePhone } = record as CrmRecord<'Contact'>;
      const list = [{ label: 'work', value: phone ?? '', primary: true }];
      if (mobilePhone) list.push({ label: 'mobile', value: mobilePhone, primary: false });
      return list;
    },
    (value) => {
      const list = contactList(value, native);
      return { phone: list.find((item) => item.label !== 'mobile')?.value ?? null, mobilePhone: list.find((item) => item.label === 'mobile')?.value ?? null };
    },
  );

/** A deal's status: open, won or lost. Writing it moves the unified stage and flags. */
export const dealStatus = custom(
  'status',
  STAGE_COVERS,
  (record) => {
    const deal = record as CrmRecord<'Deal'>;
    return deal.isWon ? 'won' : deal.isClosed ? 'lost' : 'open';
  },
  (value, { body, current, context }) => {
    // Winning or losing a deal with no close date closes it now (its won_time or lost_time).
    const closing = () =>
      (current as CrmRecord<'Deal'> | undefined)?.closeDate || body.expected_close_date ? {} : { closeDate: new Date(context.now).toISOString() };
    if (value === 'won') return { ...stageWrites('Closed Won'), ...closing() };
    if (value === 'lost') return { ...stageWrites('Closed Lost'), ...closing() };
    if (value === 'open') {
      const stage = (current as CrmRecord<'Deal'> | undefined)?.stage;
      return stageWrites(stage && PIPELINE.includes(stage) ? stage : PIPELINE[0]);
    }
    throw new FieldError('status', `status must be one of open, won, lost`, 'value');
  },
);
export const stageId = custom(
  'stage_id',
  STAGE_COVERS,
  (record) => {
    const stage = (record as CrmRecord<'Deal'>).stage ?? '';
    const index = PIPELINE.indexOf(stage);
    return index >= 0 ? index + 1 : stage.startsWith('Closed') ? PIPELINE.length : null;
  },
  (value) => {
    const stage = typeof value === 'number' || typeof value === 'string' ? PIPELINE[Number(value) - 1] : undefined;
    if (!stage) throw new FieldError('stage_id', `stage_id ${JSON.stringify(value)} is not a stage of the pipeline`, 'value');
    return stageWrites(stage);
  },
);

/**
 * An activity's `due_date` + `due_time` (+ `duration` for meetings) stand for the unified start
 * (and end). Each of them, when written, works out the whole new span from the body and the
 * current record, so the three agree in whatever order they come.
 */
export function schedule(startField: string, endField?: string): FieldMap[] {
  const span = (_value: unknown, { body, current }: WriteContext): Record<string, unknown> => {
    const start = current ? (valueAt(current, startField) as string | null) : null;
    const day = body.due_date ?? start?.slice(0, 10);
    const clock = body.due_time ?? start?.slice(11, 16) ?? '00:00';
    if (day === null || day === undefined || day === '') return { [startField]: null };
    if (typeof day !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new FieldError('due_date', 'due_date must be a date as YYYY-MM-DD', 'value');
    if (typeof clock !== 'string' || !/^\d{2}:\d{2}(:\d{2})?$/.test(clock)) throw new FieldError('due_time', 'due_time must be a time as HH:MM', 'value');
    const startIso = new Date(`${day}T${clock.slice(0, 5)}:00Z`).toISOString();
    if (!endField) return { [startField]: startIso };
    const end = current ? (valueAt(current, endField) as string | null) : null;
    const currentMinutes = start && end ? (Date.parse(end) - Date.parse(start)) / 60_000 : 0;
    const duration = body.duration ?? null;
    if (duration !== null && (typeof duration !== 'string' || !/^\d{1,2}:\d{2}$/.test(duration))) {
      throw new FieldError('duration', 'duration must be a duration as HH:MM', 'value');
    }
    const minutes = duration === null ? currentMinutes : Number(duration.split(':')[0]) * 60 + Number(duration.split(':')[1]);
    return { [startField]: startIso, [endField]: new Date(Date.parse(startIso) + minutes * 60_000).toISOString() };
  };
  const at = (record: CrmRecord) => valueAt(record, startField) as string | null;
  const fields = [
    custom('due_date', [startField], (record) => at(record)?.slice(0, 10) ?? null, span),
    custom('due_time', [startField], (record) => at(record)?.slice(11, 16) ?? null, span),
  ];
  if (endField) {
    fields.push(
      custom(
        'duration',
        [endField],
        (record) => {
          const start = at(record);
          const end = valueAt(record, endField) as string | null;
          if (!start || !end) return null;
          const minutes = Math.max(0, Math.round((Date.parse(end) - Date.parse(start)) / 60_000));
          return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
        },
        span,
      ),
    );
  }
  return fields;
}

/** What activities link to, shown as plain ids. */
const activityLinks = [
  ref('person_id', to('Contact', 'contactIds'), asNumber),
  ref('org_id', to('Account', 'accountIds'), asNumber),
  ref('deal_id', to('Deal', 'dealIds'), asNumber),
  ref('lead_id', to('Lead', 'leadIds'), asString),
  ownerIdOrCaller('user_id'),
];

const dealOf = (record: CrmRecord) => record as CrmRecord<'Deal'>;
const linkedName = (record: CrmRecord, type: 'Contact' | 'Account', assoc: 'contactIds' | 'accountIds', context: DownstreamContext) => {
  const id = (record.associations as Record<string, string[]>)[assoc]?.[0];
  const linked = id ? context.data.crm[type].get(id) : undefined;
  return linked ? displayName(linked) : null;
};
/** A deal's close time: when it was won or lost, null while open. */
const closeTime = (record: CrmRecord) => {
  const deal = dealOf(record);
  return deal.isClosed && deal.closeDate ? pipedriveTimeFormat(deal.closeDate) : null;
};
const dealUserRef: RefStyle = (nativeId, user) => {
  const { email } = user as CrmRecord<'User'>;
  return userSummary(Number(nativeId), displayName(user), email);
};
const ownerName = (record: CrmRecord, context: DownstreamContext) => {
  const ownerId = (record.associations as { ownerUserId?: string | null }).ownerUserId;
  const user = ownerId ? context.data.crm.User.get(ownerId) : undefined;
  return user ? displayName(user) : context.org.slug;
};
// A deal's person and organization as v1 deals show them: summaries with the id under `value`.
const dealPersonRef: RefStyle = (nativeId, person, _type, context) => {
  const contact = person as CrmRecord<'Contact'>;
  const ownerId = contact.associations.ownerUserId;
  const ownerUser = ownerId ? context.data.crm.User.get(ownerId) : undefined;
  return {
    active_flag: true,
    name: displayName(contact),
    email: [{ label: 'work', value: contact.email ?? '', primary: true }],
    phone: [{ label: 'work', value: contact.phone ?? '', primary: true }],
    owner_id: ownerUser ? Number(ownerUser.nativeId) : connectionUserId(context),
    value: Number(nativeId),
  };
};
const dealOrgRef: RefStyle = (nativeId, org, _type, context) => {
  const account = org as CrmRecord<'Account'>;
  const ownerId = account.associations.ownerUserId;
  const ownerUser = ownerId ? context.data.crm.User.get(ownerId) : undefined;
  const address = account.address ? [account.address.street, account.address.city, account.address.country].filter(Boolean).join(', ') : '';
  return {
    name: displayName(account),
    people_count: account.associations.contactIds.length,
    owner_id: ownerUser ? Number(ownerUser.nativeId) : connectionUserId(context),
    address,
    active_flag: true,
    cc_email: `${context.org.slug}@pipedrivemail.com`,
    value: Number(nativeId),
  };
};
const nextActivity = (pick: (next: NonNullable<ReturnType<typeof nextAndLast>['next']>) => unknown) => (record: CrmRecord, context: DownstreamContext) => {
  const { next } = nextAndLast(record, context);
  return next ? pick(next) : null;
};
const ccEmail = (record: CrmRecord, context: DownstreamContext, kind: string) => `${context.org.slug}+${kind}${record.nativeId}@pipedrivemail.com`;

/** Every field of the SDK's v1 `Deal` model, in its order. */
const DEAL_FIELDS: FieldMap[] = [
  custom(
    'creator_user_id',
    [],
    (_record, context) => connectionUser(context),
    () => ({}),
  ),
  owner('user_id', dealUserRef),
  ref('person_id', to('Contact', 'contactIds'), dealPersonRef),
  ref('org_id', to('Account', 'accountIds'), dealOrgRef),
  stageId,
  madeByApi(field('title', 'name')),
  // v1 takes a deal's value as a number or a numeric string (the SDK's AddDealRequest sends a string).
  field('value', 'amount', { out: (value) => value, in: numericString.in }),
  computed('currency', () => 'USD'),
  computed('stage_change_time', (record) => pipedriveTimeFormat(record.modifiedTime)),
  computed('active', (record) => !dealOf(record).isClosed),
  computed('deleted', () => false),
  stored('is_archived', () => false, isType('boolean')),
  dealStatus,
  field('probability', 'probability', percent),
  computed(
    'next_activity_date',
    nextActivity((next) => next.at?.slice(0, 10) ?? null),
  ),
  computed(
    'next_activity_time',
    nextActivity((next) => next.at?.slice(11, 19) ?? null),
  ),
  computed(
    'next_activity_id',
    nextActivity((next) => Number(next.activity.nativeId)),
  ),
  computed('last_activity_id', (record, context) => {
    const { last } = nextAndLast(record, context);
    return last ? Number(last.activity.nativeId) : null;
  }),
  computed('last_activity_date', (record, context) => nextAndLast(record, context).last?.at?.slice(0, 10) ?? null),
  stored('lost_reason', nothing, isType('string', true)),
  computed('visible_to', () => '3'),
  computed('close_time', closeTime),
  computed('pipeline_id', () => 1),
  computed('won_time', (record) => (dealOf(record).isWon ? closeTime(record) : null)),
  computed('first_won_time', (record) => (dealOf(record).isWon ? closeTime(record) : null)),
  computed('lost_time', (record) => (dealOf(record).isClosed && !dealOf(record).isWon ? closeTime(record) : null)),
  computed('products_count', () => 0),
  computed('files_count', () => 0),
  computed('notes_count', (record) => dealOf(record).associations.noteIds.length),
  computed('followers_count', () => 1),
  computed('email_messages_count', () => 0),
  computed('activities_count', (record, context) => activityCounts(record, context).all),
  computed('done_activities_count', (record, context) => activityCounts(record, context).done),
  computed('undone_activities_count', (record, context) => activityCounts(record, context).undone),
  computed('participants_count', (record) => dealOf(record).associations.contactIds.length),
  field('expected_close_date', 'closeDate', date),
  computed('last_incoming_mail_time', nothing),
  computed('last_outgoing_mail_time', nothing),
  computed('label', nothing),
  computed('stage_order_nr', (record, context) => stageId.read!(record, context, {})),
  computed('person_name', (record, context) => linkedName(record, 'Contact', 'contactIds', context)),
  computed('org_name', (record, context) => linkedName(record, 'Account', 'accountIds', context)),
  computed(
    'next_activity_subject',
    nextActivity((next) => next.activity.subject),
  ),
  computed(
    'next_activity_type',
    nextActivity((next) => activityType(next.activity)),
  ),
  computed('next_activity_duration', nothing),
  computed('next_activity_note', nothing),
  computed('formatted_value', (record) => formatMoney(dealOf(record).amount)),
  readOnly('weighted_value', 'expectedRevenue'),
  computed('formatted_weighted_value', (record) => formatMoney(dealOf(record).expectedRevenue)),
  computed('weighted_value_currency', () => 'USD'),
  computed('rotten_time', nothing),
  computed('owner_name', ownerName),
  computed('cc_email', (record, context) => ccEmail(record, context, 'deal')),
  computed('org_hidden', () => false),
  computed('person_hidden', () => false),
  origin('ManuallyCreated'),
  computed('origin_id', nothing),
  stored('channel', nothing, isType('number', true)),
  stored('channel_id', nothing, isType('string', true)),
  computed('arr', nothing),
  computed('mrr', nothing),
  computed('acv', nothing),
  computed('arr_currency', nothing),
  computed('mrr_currency', nothing),
  computed('acv_currency', nothing),
];

export const DEAL_DEFAULTS = stageWrites(PIPELINE[0]);

/** Leads keep their times in ISO-8601 with milliseconds, unlike the other v1 objects. */
const LEAD_STAMPS = [readOnly('add_time', 'createdTime'), readOnly('update_time', 'modifiedTime')];

/** Every field of the SDK's `Lead` model, in its order. */
const LEAD_FIELDS: FieldMap[] = [
  madeByApi(fullName('title')),
  stored('owner_id', (_record, context) => connectionUserId(context), isType('number')),
  computed('creator_id', (_record, context) => connectionUserId(context)),
  stored('label_ids', () => [], idList('string')),
  ref('person_id', to('Contact', 'contactIds'), asNumber),
  ref('organization_id', to('Account', 'accountIds'), asNumber),
  { native: 'source_name', covers: [], read: (_record, _context, extra) => (nativeOf(extra).origin === 'API' ? 'API' : 'Manually created') },
  origin('ManuallyCreated'),
  computed('origin_id', nothing),
  stored('channel', nothing, isType('number', true)),
  stored('channel_id', nothing, isType('string', true)),
  computed('source_deal_id', nothing),
  stored('is_archived', () => false, isType('boolean')),
  stored('was_seen', () => false, isType('boolean')),
  stored('value', nothing, leadValue),
  stored('expected_close_date', nothing, dateOnly),
  computed(
    'next_activity_id',
    nextActivity((next) => Number(next.activity.nativeId)),
  ),
  computed('visible_to', () => '3'),
  computed('cc_email', (record, context) => ccEmail(record, context, 'lead')),
];

const object = (type: CrmObjectType, name: string, fields: FieldMap[], more: Partial<NativeObject> = {}, idField = id, tail = stamps): NativeObject => ({
  type,
  name,
  fields: [idField, ...fields, ...tail],
  custom: customFields,
  ...more,
});

export const isTask = (body: NativeFields) => body.type === undefined || body.type === 'task';

export const COLLECTIONS: Record<string, NativeObject[]> = {
  persons: [
    object(
      'Contact',
      'Person',
      [
        fullName('name'),
        field('first_name', 'firstName'),
        field('last_name', 'lastName'),
        emailList('email'),
        phoneList('phone'),
        field('job_title', 'jobTitle'),
        ref('org_id', to('Account', 'accountIds'), orgRef),
        owner('owner_id', userRef),
        computed('org_name', (record, context) => {
          const accountId = (record as CrmRecord<'Contact'>).associations.accountIds[0];
          const account = accountId ? context.data.crm.Account.get(accountId) : undefined;
          return account ? displayName(account) : null;
        }),
        computed('visible_to', () => '3'),
      ],
      { required: ['name'] },
    ),
  ],
  organizations: [
    object(
      'Account',
      'Organization',
      [
        field('name', 'name'),
        owner('owner_id', userRef),
        computed('address', (record) => {
          const address = (record as CrmRecord<'Account'>).address;
          if (!address) return null;
          const region = [address.state, address.postalCode].filter(Boolean).join(' ');
          return [address.street, address.city, region, address.country].filter(Boolean).join(', ');
        }),
        field('address_route', 'address.street'),
        field('address_locality', 'address.city'),
        field('address_admin_area_level_1', 'address.state'),
        field('address_postal_code', 'address.postalCode'),
        field('address_country', 'address.country'),
        field('website', 'website'),
        field('industry', 'industry'),
        field('annual_revenue', 'annualRevenue'),
        field('employee_count', 'numberOfEmployees'),
        computed('people_count', (record) => (record as CrmRecord<'Account'>).associations.contactIds.length),
      ],
      { required: ['name'] },
    ),
  ],
  // A deal made without a stage starts in the pipeline's first.
  deals: [object('Deal', 'Deal', DEAL_FIELDS, { required: ['title'], defaults: DEAL_DEFAULTS })],
  // Pipedrive lead ids are UUIDs; a lead's title is the person it is about.
  leads: [
    object(
      'Lead',
      'Lead',
      LEAD_FIELDS,
      { required: ['title'] },
      computed('id', (record) => record.nativeId),
      LEAD_STAMPS,
    ),
  ],
  users: [
    object(
      'User',
      'User',
      [
        computed('name', (record) => displayName(record)),
        field('email', 'email'),
        computed('is_admin', () => 0),
        readOnly('created', 'createdTime', pdTime),
        readOnly('modified', 'modifiedTime', pdTime),
      ],
      { readOnly: true },
    ),
  ],
  notes: [object('Note', 'Note', [field('content', 'content'), ...activityLinks], { required: ['content'] })],
  // One collection for both: `type: 'task'` is a Task, any other type (meeting, call…) an Event.
  activities: [
    object(
      'Task',
      'Activity',
      [
        computed('type', () => 'task'),
        field('subject', 'subject'),
        field('note', 'body'),
        // Pipedrive takes 0/1 as well as booleans.
        taskDone('done', true, false, (value) => (value === 1 || value === true ? true : value === 0 || value === false ? false : undefined)),
        ...schedule('dueDate'),
        ...activityLinks,
      ],
      { accepts: isTask, defaults: { status: 'Not Started', priority: 'Normal' } },
    ),
    object(
      'Event',
      'Activity',
      [
        custom(
          'type',
          ['type'],
          (record) => ((record as CrmRecord<'Event'>).type ?? 'meeting').toLowerCase(),
          (value) => {
            if (typeof value !== 'string') throw new FieldError('type', 'type must be a string', 'type');
            return { type: value.charAt(0).toUpperCase() + value.slice(1) };
          },
        ),
        field('subject', 'subject'),
        field('note', 'description'),
        field('location', 'location'),
        computed('done', (record, context) => {
          const end = (record as CrmRecord<'Event'>).endDateTime;
          return end !== null && Date.parse(end) < context.now;
        }),
        ...schedule('startDateTime', 'endDateTime'),
        ...activityLinks,
      ],
      { accepts: (body) => !isTask(body) },
    ),
  ],
};

export const failure = (statusCode: number, error: string) =>
  reply(statusCode, { success: false, error, error_info: ERROR_INFO, data: null, additional_data: null }, HEADERS);

export const errors: RouteErrors = {
  notFound: () => failure(404, 'Unknown method .'),
  methodNotAllowed: () => failure(404, 'Unknown method .'),
  invalid: (error) => {
    if (error.kind === 'required' && error.field) return failure(400, `${error.field.charAt(0).toUpperCase()}${error.field.slice(1)} must be given.`);
    return failure(400, error.message);
  },
};

export const api: CollectionApi = {
  prefix: 'v1',
  collections: COLLECTIONS,
  updateMethod: 'PUT',
  // Pipedrive ignores fields it does not know and ones it sets itself.
  policy: { unknown: 'ignore', readOnly: 'ignore' },
  window: (request) => ({ offset: intParam(request.query.start, 'start', 0, 0), limit: intParam(request.query.limit, 'limit', 100, 1, 500) }),
  unwrap: (body) => {
    if (!isPlainObject(body)) throw new FieldError(undefined, 'Bad request: the body must be a JSON object', 'body');
    return body;
  },
  render: (target, record, extra, context) => renderFields(target, record, extra, context),
  list: (items, window) => {
    const more = window.offset + items.length < window.total;
    const pagination = {
      start: window.offset,
      limit: window.limit,
      more_items_in_collection: more,
      ...(more ? { next_start: window.offset + window.limit } : {}),
    };
    // Pipedrive answers an empty page with `data: null`.
    return reply(200, { success: true, data: items.length > 0 ? items : null, additional_data: { pagination } }, HEADERS);
  },
  one: (item) => reply(200, { success: true, data: item }, HEADERS),
  // Pipedrive's document gives adding a note 200, every other add 201.
  created: (item, found) => reply(found.object.type === 'Note' ? 200 : 201, { success: true, data: item }, HEADERS),
  updated: (item) => reply(200, { success: true, data: item }, HEADERS),
  deleted: (found) => {
    const { nativeId } = found.entry.record;
    return reply(200, { success: true, data: { id: found.object.type === 'Lead' ? nativeId : Number(nativeId) } }, HEADERS);
  },
  missing: (collection) => failure(404, `${COLLECTIONS[collection]![0]!.name} not found`),
};
