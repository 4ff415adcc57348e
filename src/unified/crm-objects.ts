import type { CrmObjectType } from '../model/crm.js';
import { DEAL_STAGES, EVENT_TYPES, TASK_PRIORITIES, TASK_STATUSES } from '../model/vocabularies.js';

/**
 * The service's unified CRM objects, one description each, as the service's v1 document
 * (`docs/openapi.yaml` of vesselapi/all-api-docs, Feb 2023) gives them: their fields and types,
 * which a create and an update may write and which they require, the ids a write links with,
 * the filters a search takes, and the keys a record is found by. The routes
 * (`src/core/routes/unified-crm.ts`), their request and answer schemas, the OpenAPI paths, the
 * `details` field lists and the reference page are all derived from these: a new field is a
 * line here, not code in five places.
 */

/** What a field holds: it decides the write check and the search filter. */
export type ValueKind = 'string' | 'number' | 'decimalString' | 'date' | 'boolean' | 'stringList' | 'address';

/** The document's `Field.type` values (`GET /crm/<object>/details`). */
export type DetailType =
  | 'string'
  | 'number'
  | 'datetime'
  | 'date'
  | 'boolean'
  | 'reference'
  | 'phone'
  | 'url'
  | 'id'
  | 'email'
  | 'percent'
  | 'singleselect'
  | 'multiselect'
  | 'address'
  | 'decimal'
  | 'time'
  | 'daterange'
  | 'object';

export interface UnifiedField {
  key: string;
  /** Its display name, as `details` answers it. */
  label: string;
  kind: ValueKind;
  detail: DetailType;
  /** The values of a pick list. */
  options?: readonly string[];
  /** In the document's `<Object>Create` / `<Object>Update` schema. */
  create?: boolean;
  update?: boolean;
  /** In that schema's `required` list. */
  requiredOnCreate?: boolean;
  requiredOnUpdate?: boolean;
}

/** An id a write links with (`accountId`, `userId`, Email's `contacts: [{ id, role }]`): the association it sets. */
export interface LinkInput {
  input: string;
  association: string;
  /** The type it points at; `undefined` for an attendee's `associationId`, whose type `associatedObjectType` names. */
  target: CrmObjectType | undefined;
  /** Email's participants: one `{ id, role }` (`contact`) or an array of them (`contacts`). */
  form: 'id' | 'participant' | 'participants';
  create?: boolean;
  update?: boolean;
  requiredOnCreate?: boolean;
}

/** The filter kinds of a search (the document's StringFilter, NumberFilter, DateFilter, BooleanFilter, StringListFilter). */
export type FilterKind = 'string' | 'number' | 'date' | 'boolean' | 'stringList';

export interface FilterField {
  key: string;
  kind: FilterKind;
  /** Where the value is in a record, when not at `key` (an account's `street` is `address.street`). */
  path?: string;
}

export interface UnifiedObject {
  type: CrmObjectType;
  /** The record's path segment and body key: `/crm/contact`, `{ contact: … }`; an attendee's path is `event/attendee`. */
  one: string;
  /** The list's path segment: `/crm/contacts`. */
  many: string;
  /** Answer keys: `{ contact }`, `{ contacts }` (`eventAttendee`, `eventAttendees`). */
  key: string;
  listKey: string;
  fields: readonly UnifiedField[];
  links: readonly LinkInput[];
  filters: readonly FilterField[];
  /** Keys besides `id` a record can be read by (`GET /crm/contact?email=`). */
  lookups?: readonly string[];
  /** No create or update (users). */
  readOnly?: boolean;
}

const both = { create: true, update: true } as const;
const text = (key: string, label: string, more: Partial<UnifiedField> = {}): UnifiedField => ({
  key,
  label,
  kind: 'string',
  detail: 'string',
  ...both,
  ...more,
});
const pick = (key: string, label: string, options: readonly string[], more: Partial<UnifiedField> = {}): UnifiedField =>
  text(key, label, { detail: 'singleselect', options, ...more });
const link = (input: string, association: string, target: CrmObjectType | undefined, more: Partial<LinkInput> = {}): LinkInput => ({
  input,
  association,
  target,
  form: 'id',
  create: true,
  ...more,
});
const base: FilterField[] = [
  { key: 'id', kind: 'string' },
  { key: 'nativeId', kind: 'string' },
];
const times: FilterField[] = [
  { key: 'createdTime', kind: 'date' },
  { key: 'modifiedTime', kind: 'date' },
];
const filters = (...fields: Array<[string, FilterKind, string?]>): FilterField[] => [
  ...base,
  ...fields.map(([key, kind, path]) => (path ? { key, kind, path } : { key, kind })),
  ...times,
];

const person = (extra: readonly UnifiedField[] = []): UnifiedField[] => [
  text('email', 'Email', { detail: 'email' }),
  text('firstName', 'First name'),
  text('lastName', 'Last name'),
  text('jobTitle', 'Job title'),
  ...extra,
  text('phone', 'Phone', { detail: 'phone' }),
  text('mobilePhone', 'Mobile phone', { detail: 'phone' }),
];

export const UNIFIED_CRM_OBJECTS: readonly UnifiedObject[] = [
  {
    type: 'User',
    one: 'user',
    many: 'users',
    key: 'user',
    listKey: 'users',
    readOnly: true,
    fields: [
      text('firstName', 'First name', { create: false, update: false }),
      text('lastName', 'Last name', { create: false, update: false }),
      text('email', 'Email', { detail: 'email', create: false, update: false }),
    ],
    links: [],
    filters: filters(['firstName', 'string'], ['lastName', 'string'], ['email', 'string']),
  },
  {
    type: 'Contact',
    one: 'contact',
    many: 'contacts',
    key: 'contact',
    listKey: 'contacts',
    lookups: ['email'],
    fields: person().map((field) => (field.key === 'lastName' ? { ...field, requiredOnCreate: true } : field)),
    links: [],
    filters: filters(
      ['firstName', 'string'],
      ['lastName', 'string'],
      ['jobTitle', 'string'],
      ['email', 'string'],
      ['phone', 'string'],
      ['mobilePhone', 'string'],
    ),
  },
  {
    type: 'Deal',
    one: 'deal',
    many: 'deals',
    key: 'deal',
    listKey: 'deals',
    fields: [
      text('name', 'Deal name', { requiredOnCreate: true }),
      pick(
        'stage',
        'Stage',
        DEAL_STAGES.map(({ stage }) => stage),
      ),
      { key: 'amount', label: 'Amount', kind: 'number', detail: 'number', ...both },
      // The document requires closeDate in DealUpdate too.
      { key: 'closeDate', label: 'Close date', kind: 'date', detail: 'datetime', ...both, requiredOnCreate: true, requiredOnUpdate: true },
      // A decimal string ("0.4"), as the service answers it.
      { key: 'probability', label: 'Probability', kind: 'decimalString', detail: 'percent', ...both },
      { key: 'expectedRevenue', label: 'Expected revenue', kind: 'number', detail: 'number' },
      { key: 'isWon', label: 'Won', kind: 'boolean', detail: 'boolean' },
      { key: 'isClosed', label: 'Closed', kind: 'boolean', detail: 'boolean' },
    ],
    links: [link('accountId', 'accountIds', 'Account', { update: true })],
    filters: filters(
      ['closeDate', 'date'],
      ['name', 'string'],
      ['amount', 'number'],
      ['probability', 'number'],
      ['stage', 'string'],
      ['isWon', 'boolean'],
      ['isClosed', 'boolean'],
      ['expectedRevenue', 'number'],
    ),
  },
  {
    type: 'Account',
    one: 'account',
    many: 'accounts',
    key: 'account',
    listKey: 'accounts',
    fields: [
      text('name', 'Account name', { requiredOnCreate: true }),
      text('description', 'Description'),
      text('industry', 'Industry'),
      { key: 'annualRevenue', label: 'Annual revenue', kind: 'number', detail: 'number', ...both },
      { key: 'numberOfEmployees', label: 'Number of employees', kind: 'number', detail: 'number', ...both },
      text('website', 'Website', { detail: 'url' }),
      text('phone', 'Phone', { detail: 'phone' }),
      { key: 'address', label: 'Address', kind: 'address', detail: 'address', ...both },
    ],
    links: [],
    filters: filters(
      ['name', 'string'],
      ['description', 'string'],
      ['industry', 'string'],
      ['website', 'string'],
      ['street', 'string', 'address.street'],
      ['city', 'string', 'address.city'],
      ['state', 'string', 'address.state'],
      ['postalCode', 'string', 'address.postalCode'],
      ['country', 'string', 'address.country'],
      ['phone', 'string'],
      ['annualRevenue', 'number'],
      ['numberOfEmployees', 'number'],
    ),
  },
  {
    type: 'Lead',
    one: 'lead',
    many: 'leads',
    key: 'lead',
    listKey: 'leads',
    fields: [
      text('firstName', 'First name'),
      text('lastName', 'Last name', { requiredOnCreate: true }),
      text('jobTitle', 'Job title'),
      text('email', 'Email', { detail: 'email' }),
      text('account', 'Company'),
      text('phone', 'Phone', { detail: 'phone' }),
      text('mobilePhone', 'Mobile phone', { detail: 'phone' }),
    ],
    links: [],
    filters: filters(
      ['lastName', 'string'],
      ['firstName', 'string'],
      ['jobTitle', 'string'],
      ['email', 'string'],
      ['account', 'string'],
      ['phone', 'string'],
      ['mobilePhone', 'string'],
    ),
  },
  {
    type: 'Note',
    one: 'note',
    many: 'notes',
    key: 'note',
    listKey: 'notes',
    fields: [text('content', 'Content', { requiredOnCreate: true })],
    links: [
      link('userId', 'ownerUserId', 'User', { update: true }),
      link('dealId', 'dealIds', 'Deal'),
      link('leadId', 'leadIds', 'Lead'),
      link('accountId', 'accountIds', 'Account'),
      link('contactId', 'contactIds', 'Contact'),
    ],
    // The document's contentText and contentHtml: the sandbox's notes hold one text, so both search it.
    filters: filters(['content', 'string'], ['contentText', 'string', 'content'], ['contentHtml', 'string', 'content']),
  },
  {
    type: 'Task',
    one: 'task',
    many: 'tasks',
    key: 'task',
    listKey: 'tasks',
    fields: [
      text('subject', 'Subject'),
      text('body', 'Body'),
      { key: 'isDone', label: 'Done', kind: 'boolean', detail: 'boolean', ...both },
      { key: 'dueDate', label: 'Due date', kind: 'date', detail: 'datetime', ...both },
      pick('status', 'Status', [...TASK_STATUSES, 'Completed']),
      pick('priority', 'Priority', TASK_PRIORITIES),
    ],
    links: [
      link('userId', 'ownerUserId', 'User', { update: true }),
      link('leadId', 'leadIds', 'Lead'),
      link('dealId', 'dealIds', 'Deal'),
      link('accountId', 'accountIds', 'Account'),
      link('contactId', 'contactIds', 'Contact'),
    ],
    filters: filters(['body', 'string'], ['subject', 'string'], ['dueDate', 'date'], ['priority', 'string'], ['status', 'string'], ['isDone', 'boolean']),
  },
  {
    type: 'Event',
    one: 'event',
    many: 'events',
    key: 'event',
    listKey: 'events',
    fields: [
      text('subject', 'Subject'),
      text('description', 'Description'),
      pick('type', 'Type', EVENT_TYPES),
      text('location', 'Location'),
      { key: 'startDateTime', label: 'Start', kind: 'date', detail: 'datetime', ...both, requiredOnCreate: true },
      { key: 'endDateTime', label: 'End', kind: 'date', detail: 'datetime', ...both, requiredOnCreate: true },
      { key: 'isAllDayEvent', label: 'All-day event', kind: 'boolean', detail: 'boolean', ...both },
    ],
    links: [
      link('dealId', 'dealIds', 'Deal'),
      link('accountId', 'accountIds', 'Account'),
      link('contactId', 'contactIds', 'Contact'),
      link('leadId', 'leadIds', 'Lead'),
      link('ownerUserId', 'ownerUserId', 'User', { update: true }),
    ],
    filters: filters(
      ['subject', 'string'],
      ['description', 'string'],
      ['type', 'string'],
      ['location', 'string'],
      ['endDateTime', 'date'],
      ['startDateTime', 'date'],
      ['isAllDayEvent', 'boolean'],
    ),
  },
  {
    type: 'EventAttendee',
    one: 'event/attendee',
    many: 'event/attendees',
    key: 'eventAttendee',
    listKey: 'eventAttendees',
    fields: [
      pick('status', 'Status', ['Confirmed', 'Declined', 'Tentative', 'NeedsAction']),
      pick('associatedObjectType', 'Associated object type', ['Contact', 'Lead', 'User', 'Other'], { update: false, requiredOnCreate: true }),
      text('email', 'Email', { detail: 'email', update: false }),
    ],
    links: [link('associationId', 'associationId', undefined), link('eventId', 'eventId', 'Event', { requiredOnCreate: true })],
    filters: filters(['email', 'string'], ['status', 'string'], ['associatedObjectType', 'string']),
  },
  {
    type: 'Email',
    one: 'email',
    many: 'emails',
    key: 'email',
    listKey: 'emails',
    fields: [
      text('from', 'From', { detail: 'email', update: false, requiredOnCreate: true }),
      { key: 'to', label: 'To', kind: 'stringList', detail: 'email', create: true, requiredOnCreate: true },
      { key: 'cc', label: 'Cc', kind: 'stringList', detail: 'email', create: true },
      { key: 'bcc', label: 'Bcc', kind: 'stringList', detail: 'email', create: true },
      text('subject', 'Subject', { update: false, requiredOnCreate: true }),
      text('body', 'Body', { update: false }),
      text('bodyHtml', 'HTML body', { update: false }),
      { key: 'messageDate', label: 'Message date', kind: 'date', detail: 'datetime', create: true },
      { key: 'isIncoming', label: 'Incoming', kind: 'boolean', detail: 'boolean', ...both },
      { key: 'isBounced', label: 'Bounced', kind: 'boolean', detail: 'boolean' },
      { key: 'hasAttachment', label: 'Has attachment', kind: 'boolean', detail: 'boolean' },
      // CRM-specific, as the document says: any text (the seed uses SENT and BOUNCED).
      text('status', 'Status'),
    ],
    links: [
      link('accountId', 'accountIds', 'Account'),
      link('dealId', 'dealIds', 'Deal'),
      // The document's EmailCreate has `lead` and `contact` objects; its examples send `leads` and `contacts` arrays: both are taken.
      link('lead', 'leadIds', 'Lead', { form: 'participant' }),
      link('leads', 'leadIds', 'Lead', { form: 'participants' }),
      link('contact', 'contactIds', 'Contact', { form: 'participant' }),
      link('contacts', 'contactIds', 'Contact', { form: 'participants' }),
      link('ownerUserId', 'ownerUserId', 'User', { update: true }),
    ],
    filters: filters(
      ['from', 'string'],
      ['to', 'stringList'],
      ['cc', 'stringList'],
      ['bcc', 'stringList'],
      ['subject', 'string'],
      ['body', 'string'],
      ['bodyHtml', 'string'],
      ['messageDate', 'date'],
      ['isIncoming', 'boolean'],
      ['isBounced', 'boolean'],
      ['hasAttachment', 'boolean'],
      ['status', 'string'],
    ),
  },
];

/** The description of a type. */
export const unifiedObjectOf = (type: CrmObjectType): UnifiedObject => UNIFIED_CRM_OBJECTS.find((object) => object.type === type)!;

/** Roles an Email participant may have. */
export const PARTICIPANT_ROLES = ['from', 'to', 'cc', 'bcc'] as const;
