import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import { type CollectionApi, collectionRoutes } from '../collection-api.js';
import { nestedCustom } from '../custom-fields.js';
import { asNumber, asString, computed, custom, date, field, percent, readOnly, ref, stored, taskDone, time, to } from '../fields.js';
import { FieldError, type FieldMap, isPlainObject, type NativeObject, renderFields } from '../rest-engine.js';
import { intParam, type Route, type RouteErrors, reply } from '../router.js';
import { activityType, connectionUserId, idList, isType, nothing, ownerIdOrCaller } from './details.js';
import {
  DEAL_DEFAULTS,
  dealStatus,
  emailList,
  errors,
  failure,
  fullName,
  HEADERS,
  isTask,
  madeByApi,
  origin,
  phoneList,
  schedule,
  stageId,
} from './objects.js';

/**
 * Pipedrive API v2 (`api/v2/persons`…), which the current SDK uses for persons, organizations,
 * deals and activities: the same records as v1 in v2's shapes — plain integer references
 * (`owner_id`, `org_id`), ISO times, custom fields in `custom_fields` — PATCH to update, and
 * cursor paging (`cursor`, `limit` ≤ 500, `additional_data.next_cursor`).
 * https://developers.pipedrive.com/docs/api/v1/Persons#getPersons (v2 tab)
 */

const isoTime = time((iso) => iso.replace(/\.\d+Z$/, 'Z'));
const customFields = nestedCustom('custom_fields');

const id = computed('id', (record) => Number(record.nativeId));
const stamps = [readOnly('add_time', 'createdTime', isoTime), readOnly('update_time', 'modifiedTime', isoTime), computed('is_deleted', () => false)];
/** v2's owner: the user's id, or the connected user for records without one. */
const ownerId = ownerIdOrCaller('owner_id');
const labelIds = stored('label_ids', () => [], idList('number'));
const visibleTo = computed('visible_to', () => 3);

/** v2 addresses are objects of parts, `value` the whole. */
const addressOf = (record: CrmRecord) => {
  const address = (record as CrmRecord<'Account'>).address;
  if (!address) return null;
  const value = [address.street, address.city, [address.state, address.postalCode].filter(Boolean).join(' '), address.country].filter(Boolean).join(', ');
  return {
    value,
    country: address.country,
    admin_area_level_1: address.state,
    admin_area_level_2: null,
    locality: address.city,
    sublocality: null,
    route: address.street,
    street_number: null,
    subpremise: null,
    postal_code: address.postalCode,
  };
};
const ADDRESS_PARTS: Record<string, string> = { country: 'country', admin_area_level_1: 'state', locality: 'city', route: 'street', postal_code: 'postalCode' };
const address = custom('address', ['address'], addressOf, (value) => {
  if (value === null) return { address: null };
  if (!isPlainObject(value)) throw new FieldError('address', 'address must be an object', 'type');
  const out: Record<string, unknown> = {};
  for (const [part, unified] of Object.entries(ADDRESS_PARTS)) if (part in value) out[`address.${unified}`] = value[part] ?? null;
  if (typeof value.value === 'string' && !('route' in value)) out['address.street'] = value.value;
  return out;
});

const object = (type: CrmObjectType, name: string, fields: FieldMap[], more: Partial<NativeObject> = {}): NativeObject => ({
  type,
  name,
  fields: [id, ...fields, ...stamps],
  custom: customFields,
  ...more,
});

const dealOf = (record: CrmRecord) => record as CrmRecord<'Deal'>;
const closeTime = (record: CrmRecord) => {
  const deal = dealOf(record);
  return deal.isClosed && deal.closeDate ? deal.closeDate.replace(/\.\d+Z$/, 'Z') : null;
};

/** What activities link to, as plain ids (a lead's a UUID). */
const activityLinks = [
  ref('deal_id', to('Deal', 'dealIds'), asNumber),
  ref('lead_id', to('Lead', 'leadIds'), asString),
  ref('person_id', to('Contact', 'contactIds'), asNumber),
  ref('org_id', to('Account', 'accountIds'), asNumber),
];
const activityTail = (note: string): FieldMap[] => [
  computed('project_id', nothing),
  computed('busy', () => false),
  computed('marked_as_done_time', nothing),
  computed('location', nothing),
  computed('participants', (record, context) => {
    const person = ref('person_id', to('Contact', 'contactIds'), asNumber).read!(record, context, {});
    return person === null ? [] : [{ person_id: person, primary: true }];
  }),
  computed('attendees', () => []),
  computed('conference_meeting_client', nothing),
  computed('conference_meeting_url', nothing),
  computed('conference_meeting_id', nothing),
  computed('public_description', nothing),
  computed('priority', nothing),
  field('note', note),
];
const creator = computed('creator_user_id', (_record, context) => connectionUserId(context));

export const V2_COLLECTIONS: Record<string, NativeObject[]> = {
  persons: [
    object(
      'Contact',
      'Person',
      [
        fullName('name'),
        field('first_name', 'firstName'),
        field('last_name', 'lastName'),
        ownerId,
        ref('org_id', to('Account', 'accountIds'), asNumber),
        emailList('emails'),
        phoneList('phones'),
        visibleTo,
        labelIds,
        computed('picture_id', nothing),
        computed('postal_address', nothing),
        computed('notes', nothing),
        computed('im', () => []),
        computed('birthday', nothing),
        field('job_title', 'jobTitle'),
      ],
      { required: ['name'] },
    ),
  ],
  organizations: [object('Account', 'Organization', [field('name', 'name'), ownerId, visibleTo, address, labelIds], { required: ['name'] })],
  deals: [
    object(
      'Deal',
      'Deal',
      [
        madeByApi(field('title', 'name')),
        creator,
        ownerId,
        field('value', 'amount'),
        ref('person_id', to('Contact', 'contactIds'), asNumber),
        ref('org_id', to('Account', 'accountIds'), asNumber),
        stageId,
        computed('pipeline_id', () => 1),
        computed('currency', () => 'USD'),
        computed('stage_change_time', (record) => record.modifiedTime.replace(/\.\d+Z$/, 'Z')),
        dealStatus,
        stored('is_archived', () => false, isType('boolean')),
        field('probability', 'probability', percent),
        stored('lost_reason', nothing, isType('string', true)),
        visibleTo,
        computed('close_time', closeTime),
        computed('won_time', (record) => (dealOf(record).isWon ? closeTime(record) : null)),
        computed('lost_time', (record) => (dealOf(record).isClosed && !dealOf(record).isWon ? closeTime(record) : null)),
        field('expected_close_date', 'closeDate', date),
        labelIds,
        origin('ManuallyCreated'),
        computed('origin_id', nothing),
        stored('channel', nothing, isType('number', true)),
        stored('channel_id', nothing, isType('string', true)),
        computed('source_lead_id', nothing),
        computed('arr', nothing),
        computed('mrr', nothing),
        computed('acv', nothing),
      ],
      { required: ['title'], defaults: DEAL_DEFAULTS },
    ),
  ],
  // One collection for both, as in v1: `type: 'task'` (or none) is a Task, any other type an Event.
  activities: [
    object(
      'Task',
      'Activity',
      [
        field('subject', 'subject'),
        computed('type', () => 'task'),
        ownerId,
        creator,
        ...activityLinks,
        ...schedule('dueDate'),
        computed('duration', nothing),
        taskDone('done', true, false, (value) => (value === 1 || value === true ? true : value === 0 || value === false ? false : undefined)),
        ...activityTail('body'),
      ],
      { accepts: isTask, defaults: { status: 'Not Started', priority: 'Normal' } },
    ),
    object(
      'Event',
      'Activity',
      [
        field('subject', 'subject'),
        custom(
          'type',
          ['type'],
          (record) => activityType(record as CrmRecord<'Event'>),
          (value) => {
            if (typeof value !== 'string') throw new FieldError('type', 'type must be a string', 'type');
            return { type: value.charAt(0).toUpperCase() + value.slice(1) };
          },
        ),
        ownerId,
        creator,
        ...activityLinks,
        ...schedule('startDateTime', 'endDateTime'),
        computed('done', (record, context) => {
          const end = (record as CrmRecord<'Event'>).endDateTime;
          return end !== null && Date.parse(end) < context.now;
        }),
        ...activityTail('description'),
      ],
      { accepts: (body) => !isTask(body) },
    ),
  ],
};

/** A cursor is the position of the next page, opaque to clients (base64 of `{"offset":N}`). */
const cursorOf = (offset: number) => btoa(JSON.stringify({ offset }));
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  let offset: unknown;
  try {
    offset = (JSON.parse(atob(cursor)) as { offset?: unknown }).offset;
  } catch {
    offset = undefined;
  }
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw new FieldError('cursor', `Validation failed: cursor: Invalid cursor ${JSON.stringify(cursor)}`, 'param');
  }
  return offset;
}

export const v2Api: CollectionApi = {
  prefix: 'v2',
  collections: V2_COLLECTIONS,
  updateMethod: 'PATCH',
  policy: { unknown: 'ignore', readOnly: 'ignore' },
  window: (request) => ({ offset: offsetOf(request.query.cursor), limit: intParam(request.query.limit, 'limit', 100, 1, 500) }),
  unwrap: (body) => {
    if (!isPlainObject(body)) throw new FieldError(undefined, 'Bad request: the body must be a JSON object', 'body');
    return body;
  },
  render: (target, record, extra, context) => renderFields(target, record, extra, context),
  list: (items, window) => {
    const next = window.offset + items.length < window.total ? cursorOf(window.offset + items.length) : null;
    return reply(200, { success: true, data: items, additional_data: { next_cursor: next } }, HEADERS);
  },
  one: (item) => reply(200, { success: true, data: item }, HEADERS),
  created: (item) => reply(200, { success: true, data: item }, HEADERS),
  updated: (item) => reply(200, { success: true, data: item }, HEADERS),
  deleted: (found) => reply(200, { success: true, data: { id: Number(found.entry.record.nativeId) } }, HEADERS),
  missing: (collection) => failure(404, `${V2_COLLECTIONS[collection]![0]!.name} not found`),
};

/** v2 answers errors in v1's envelope. */
export const v2Errors: RouteErrors = errors;

export const v2Routes = (): Route[] => collectionRoutes(v2Api);
