import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { nestedCustom } from '../custom-fields.js';
import {
  asNumber,
  computed,
  custom,
  date,
  field,
  locked,
  owner,
  type RefStyle,
  readOnly,
  ref,
  storedText,
  type Target,
  taskDone,
  time,
  timeFormat,
  to,
  writeOnly,
} from '../fields.js';
import { displayName, FieldError, type FieldMap, type NativeObject } from '../rest-engine.js';
import { type RouteErrors, reply } from '../router.js';
import type { DownstreamContext } from '../types.js';
import { facts } from './facts.js';

/**
 * Salesloft API v2 (`people`, `accounts`…): snake_case records under `data`. References read as
 * `{ id, _href }` and are written as `…_id`. The headers and error answers every Salesloft route
 * module uses.
 */

export const HEADERS = { 'x-ratelimit-limit-minute': '600', 'x-ratelimit-remaining-minute': '599' };
const iso = time(timeFormat.iso);
export const customFields = nestedCustom('custom_fields');
export const base = (context: DownstreamContext) => INTEGRATIONS.salesloft.apiBaseUrl(context.org);

const PATH_OF: Partial<Record<CrmObjectType, string>> = {
  Contact: 'people',
  Account: 'accounts',
  User: 'users',
  Note: 'notes',
  Task: 'tasks',
  Event: 'meetings',
};
const href: RefStyle = (nativeId, _target, type, context) => ({
  id: Number(nativeId),
  _href: `${base(context)}/${PATH_OF[type]}/${nativeId}`,
});

/** A reference shown as `{name}: { id, _href }` and written as `{name}_id`. */
function link(name: string, target: Target): FieldMap[] {
  return [locked(ref(name, target, href)), writeOnly(ref(`${name}_id`, target, asNumber))];
}
const ownerLink = (name: string) => [locked(owner(name, href)), writeOnly(owner(`${name}_id`, asNumber))];

/** A note hangs off a person or an account: `associated_with_type` and `associated_with_id`, written together. */
const NOTE_PARENTS: Record<string, Target> = { person: to('Contact', 'contactIds'), account: to('Account', 'accountIds') };
function noteParent(): FieldMap[] {
  const parent = (record: CrmRecord) => {
    const associations = record.associations as Record<string, string[]>;
    for (const [kind, target] of Object.entries(NOTE_PARENTS)) {
      const id = associations[target.assoc]?.[0];
      if (id) return { kind, target, id };
    }
    return undefined;
  };
  const write = (_value: unknown, { body, context }: { body: Record<string, unknown>; context: DownstreamContext }) => {
    const kind = body.associated_with_type;
    const id = body.associated_with_id;
    if (kind === undefined || id === undefined) {
      const missing = kind === undefined ? 'associated_with_type' : 'associated_with_id';
      throw new FieldError(missing, `${missing} is required with associated_with_${kind === undefined ? 'id' : 'type'}`, 'required');
    }
    const target = typeof kind === 'string' ? NOTE_PARENTS[kind] : undefined;
    if (!target) throw new FieldError('associated_with_type', 'associated_with_type must be person or account', 'value');
    const entry = context.data.crm[target.type].getByNativeId(String(id));
    if (!entry) throw new FieldError('associated_with_id', `associated_with_id ${JSON.stringify(id)} is not a ${kind}`, 'reference');
    return Object.fromEntries(Object.values(NOTE_PARENTS).map((item) => [`associations.${item.assoc}`, item === target ? [entry.record.id] : []]));
  };
  const covers = Object.values(NOTE_PARENTS).map((target) => `associations.${target.assoc}`);
  return [
    custom('associated_with_type', covers, (record) => parent(record)?.kind ?? null, write),
    custom(
      'associated_with_id',
      covers,
      (record, context) => {
        const hit = parent(record);
        const linked = hit ? context.data.crm[hit.target.type].get(hit.id) : undefined;
        return linked ? Number(linked.nativeId) : null;
      },
      write,
    ),
  ];
}

const object = (type: CrmObjectType, name: string, fields: FieldMap[], more: Partial<NativeObject> = {}): NativeObject => ({
  type,
  name,
  fields: [
    computed('id', (record) => Number(record.nativeId)),
    ...fields,
    readOnly('created_at', 'createdTime', iso),
    readOnly('updated_at', 'modifiedTime', iso),
  ],
  custom: customFields,
  ...more,
});

export const COLLECTIONS: Record<string, NativeObject> = {
  people: object('Contact', 'person', [
    field('first_name', 'firstName'),
    field('last_name', 'lastName'),
    computed('display_name', (record) => displayName(record)),
    field('email_address', 'email'),
    field('title', 'jobTitle'),
    field('phone', 'phone'),
    field('mobile_phone', 'mobilePhone'),
    ...Object.values(facts.contactAddressFields).map(storedText),
    ...link('account', to('Account', 'accountIds')),
    ...ownerLink('owner'),
  ]),
  accounts: object(
    'Account',
    'account',
    [
      field('name', 'name'),
      computed('domain', (record) => ((record as CrmRecord<'Account'>).website ?? '').replace(/^https?:\/\/(www\.)?/, '') || null),
      field('website', 'website'),
      field('description', 'description'),
      field('industry', 'industry'),
      field('phone', 'phone'),
      field('street', 'address.street'),
      field('city', 'address.city'),
      field('state', 'address.state'),
      field('postal_code', 'address.postalCode'),
      field('country', 'address.country'),
      ...ownerLink('owner'),
    ],
    { required: ['name'] },
  ),
  users: object(
    'User',
    'user',
    [
      computed('name', (record) => displayName(record)),
      field('first_name', 'firstName'),
      field('last_name', 'lastName'),
      field('email', 'email'),
      computed('active', () => true),
    ],
    { readOnly: true },
  ),
  notes: object('Note', 'note', [field('content', 'content'), ...noteParent(), ...ownerLink('user')], {
    required: ['content', 'associated_with_type', 'associated_with_id'],
  }),
  tasks: object(
    'Task',
    'task',
    [
      field('subject', 'subject'),
      field('description', 'body'),
      taskDone('current_state', 'completed', 'scheduled'),
      computed('task_type', () => 'general'),
      field('due_date', 'dueDate', date),
      ...link('person', to('Contact', 'contactIds')),
      ...ownerLink('user'),
    ],
    { required: ['subject'], defaults: { status: 'Not Started', priority: 'Normal' } },
  ),
  meetings: object('Event', 'meeting', [
    field('title', 'subject'),
    field('description', 'description'),
    field('location', 'location'),
    field('start_time', 'startDateTime', iso),
    field('end_time', 'endDateTime', iso),
    field('all_day', 'isAllDayEvent'),
    field('meeting_type', 'type'),
    computed('status', () => 'booked'),
    ...link('person', to('Contact', 'contactIds')),
    ...link('account', to('Account', 'accountIds')),
    ...ownerLink('user'),
  ]),
};

export const notFound = () => reply(404, { status: 404, error: 'Not Found' }, HEADERS);

export const errors: RouteErrors = {
  notFound,
  methodNotAllowed: notFound,
  invalid: (error) => {
    const key = error.kind === 'body' || !error.field ? 'base' : error.field;
    // Rails-style: the message without the field name it is filed under.
    const message = error.field && error.message.startsWith(`${error.field} `) ? error.message.slice(error.field.length + 1) : error.message;
    return reply(422, { errors: { [key]: [message] } }, HEADERS);
  },
};
