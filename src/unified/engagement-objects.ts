import type { ActivityCollection } from '../downstream/engagement-activity.js';
import { factOfEach } from '../downstream/facts.js';
import type { EngagementIntegrationId } from '../model/integrations.js';
import type { FilterField } from './crm-objects.js';

/**
 * The service's unified engagement objects (Outreach, Salesloft, Apollo), one description each,
 * as the service's v1 document gives them (its `Eng*`, `Action`, `Call` and `CallDisposition`
 * schemas): the operations each has, the fields it answers, what a write takes and requires, the
 * filters its search takes, and where the store keeps it. The routes
 * (`src/core/routes/unified-engagement.ts`), their OpenAPI schemas and the reference page's
 * tables are derived from these.
 */

/** Where an object's records are: an engagement collection of the store, or a CRM collection (contacts and accounts are the CRM's records). */
export type EngagementSource = ActivityCollection | 'Contact' | 'Account';

export type EngagementOperation = 'list' | 'get' | 'create' | 'update' | 'search' | 'complete' | 'start';

/** What an answered field holds. */
export type EngagementKind = 'string' | 'number' | 'boolean' | 'date' | 'stringList' | 'address' | 'emails' | 'phones';

export interface EngagementField {
  key: string;
  kind: EngagementKind;
  /** The values of a pick list. */
  options?: readonly string[];
}

/** A field of a write body: the document's `<Object>Create` / `<Object>Update`, or a complete or start body's `fields`. */
export interface EngagementInput {
  key: string;
  kind: EngagementKind | 'contactId' | 'userId' | 'mailboxId';
  options?: readonly string[];
  required?: boolean;
  /** Taken though the document's schema does not list it (a contact's emails and phones: real clients send them). */
  beyondDocument?: boolean;
}

/** A nested filter over a list of objects (a contact's `emails: { address: { equals } }`): any item matches. */
export interface ListFilter {
  key: string;
  fields: readonly FilterField[];
}

export interface EngagementObject {
  /** The object's name, and the document's schema of it. */
  name: string;
  schema: string;
  /** Path segments: `/engagement/contact`, `/engagement/contacts`. */
  one?: string;
  many: string;
  /** Answer keys: `{ contact }`, `{ contacts }`. */
  key: string;
  listKey: string;
  source: EngagementSource;
  /** Where each platform keeps it, as its native API names it (the reference page's table). */
  native: Readonly<Record<EngagementIntegrationId, string>>;
  operations: readonly EngagementOperation[];
  /** What a record answers besides id, times, associations and additional, in the document's order. */
  fields: readonly EngagementField[];
  /** The keys of its `associations`; an empty single one is absent (decision 0045). */
  associations: readonly string[];
  /** Whether records carry createdTime and modifiedTime (sequences do not). */
  times: boolean;
  create?: readonly EngagementInput[];
  update?: readonly EngagementInput[];
  /** The body of complete (`fields`) and start (`fields`). */
  action?: readonly EngagementInput[];
  filters?: readonly FilterField[];
  listFilters?: readonly ListFilter[];
  /** Served though the document lacks it (emails/search: a real client used it in production). */
  beyondDocument?: readonly EngagementOperation[];
}

const text = (key: string): EngagementField => ({ key, kind: 'string' });
const input = (key: string, kind: EngagementInput['kind'], more: Partial<EngagementInput> = {}): EngagementInput => ({ key, kind, ...more });
const filter = (key: string, kind: FilterField['kind'], path?: string): FilterField => (path ? { key, kind, path } : { key, kind });
const times = [filter('createdTime', 'date'), filter('modifiedTime', 'date')];

export const TASK_TYPES = ['call', 'email', 'other'] as const;
export const TASK_STATUSES = ['in_progress', 'complete', 'to_do'] as const;
/** What a completed task or action was: the document's EngTaskComplete and ActionComplete. */
export const COMPLETION_TYPES = ['call', 'other'] as const;
const completion: EngagementInput[] = [
  input('type', 'string', { options: COMPLETION_TYPES }),
  input('body', 'string'),
  input('durationSeconds', 'number'),
  input('phone', 'string'),
  input('dispositionKey', 'string'),
];
const accountWrite = (required: boolean): EngagementInput[] => [
  input('name', 'string', required ? { required } : {}),
  input('description', 'string'),
  input('industry', 'string'),
  input('numberOfEmployees', 'number'),
  input('website', 'string'),
  input('phone', 'string'),
  input('address', 'address'),
];
const contactWrite: EngagementInput[] = [
  input('firstName', 'string'),
  input('lastName', 'string'),
  input('jobTitle', 'string'),
  input('address', 'address'),
  input('emails', 'emails', { beyondDocument: true }),
  input('phones', 'phones', { beyondDocument: true }),
];

export const UNIFIED_ENGAGEMENT_OBJECTS: readonly EngagementObject[] = [
  {
    name: 'User',
    schema: 'EngUser',
    one: 'user',
    many: 'users',
    key: 'user',
    listKey: 'users',
    source: 'users',
    native: { outreach: 'users', salesloft: 'users', apollo: 'users/search' },
    operations: ['list', 'get'],
    fields: [text('firstName'), text('lastName'), text('email')],
    associations: ['taskIds', 'actionIds'],
    times: true,
  },
  {
    name: 'Account',
    schema: 'EngAccount',
    one: 'account',
    many: 'accounts',
    key: 'account',
    listKey: 'accounts',
    source: 'Account',
    native: { outreach: 'accounts', salesloft: 'accounts', apollo: 'accounts' },
    operations: ['list', 'get', 'create', 'update'],
    fields: [
      text('name'),
      text('description'),
      text('industry'),
      text('locality'),
      { key: 'numberOfEmployees', kind: 'number' },
      text('website'),
      text('phone'),
      { key: 'address', kind: 'address' },
    ],
    associations: ['contactIds', 'actionIds', 'taskIds', 'ownerUserId'],
    times: true,
    create: accountWrite(true),
    update: accountWrite(false),
  },
  {
    name: 'Contact',
    schema: 'EngContact',
    one: 'contact',
    many: 'contacts',
    key: 'contact',
    listKey: 'contacts',
    source: 'Contact',
    native: { outreach: 'prospects', salesloft: 'people', apollo: 'contacts' },
    operations: ['list', 'get', 'create', 'update', 'search'],
    fields: [
      text('firstName'),
      text('lastName'),
      text('jobTitle'),
      { key: 'address', kind: 'address' },
      { key: 'emails', kind: 'emails' },
      { key: 'phones', kind: 'phones' },
    ],
    associations: ['accountId', 'actionIds', 'taskIds', 'ownerUserId'],
    times: true,
    create: contactWrite,
    update: contactWrite,
    filters: [
      filter('id', 'string'),
      filter('firstName', 'string'),
      filter('lastName', 'string'),
      filter('jobTitle', 'string'),
      filter('accountId', 'string', 'associations.accountId'),
      filter('ownerUserId', 'string', 'associations.ownerUserId'),
      ...times,
    ],
    listFilters: [
      { key: 'emails', fields: [filter('address', 'string'), filter('type', 'string')] },
      { key: 'phones', fields: [filter('number', 'string'), filter('type', 'string')] },
    ],
  },
  {
    name: 'Task',
    schema: 'EngTask',
    one: 'task',
    many: 'tasks',
    key: 'task',
    listKey: 'tasks',
    source: 'tasks',
    native: { outreach: 'tasks', salesloft: 'tasks', apollo: 'tasks/search' },
    operations: ['list', 'get', 'create', 'update', 'complete'],
    fields: [
      { key: 'type', kind: 'string', options: TASK_TYPES },
      text('body'),
      { key: 'dueDate', kind: 'date' },
      { key: 'status', kind: 'string', options: TASK_STATUSES },
      { key: 'completedTime', kind: 'date' },
    ],
    associations: ['callId', 'contactId', 'emailId', 'ownerUserId'],
    times: true,
    create: [
      input('type', 'string', { options: TASK_TYPES, required: true }),
      input('body', 'string'),
      input('dueDate', 'date', { required: true }),
      input('contactId', 'contactId', { required: true }),
      input('ownerUserId', 'userId', { required: true }),
    ],
    update: [input('body', 'string'), input('dueDate', 'date')],
    action: completion,
  },
  {
    name: 'Action',
    schema: 'Action',
    one: 'action',
    many: 'actions',
    key: 'action',
    listKey: 'actions',
    source: 'actions',
    native: { outreach: 'sequenceStates', salesloft: 'actions and cadence_memberships', apollo: 'a contact’s contact_campaign_statuses' },
    operations: ['list', 'get', 'complete'],
    fields: [
      { key: 'type', kind: 'string', options: TASK_TYPES },
      { key: 'dueDate', kind: 'date' },
      { key: 'status', kind: 'string', options: TASK_STATUSES },
      { key: 'completedTime', kind: 'date' },
    ],
    associations: ['callId', 'contactId', 'emailId', 'ownerUserId'],
    times: true,
    action: completion,
  },
  {
    name: 'Call',
    schema: 'Call',
    one: 'call',
    many: 'calls',
    key: 'call',
    listKey: 'calls',
    source: 'calls',
    native: { outreach: 'calls', salesloft: 'activities/calls', apollo: 'phone_calls/search' },
    operations: ['list', 'get'],
    fields: [
      text('phone'),
      { key: 'direction', kind: 'string', options: ['inbound', 'outbound'] },
      text('disposition'),
      { key: 'durationSeconds', kind: 'number' },
      text('note'),
    ],
    associations: ['taskId', 'contactId', 'actionId', 'ownerUserId'],
    times: true,
  },
  {
    name: 'Email',
    schema: 'EngEmail',
    one: 'email',
    many: 'emails',
    key: 'email',
    listKey: 'emails',
    source: 'emails',
    native: { outreach: 'mailings', salesloft: 'activities/emails', apollo: 'emailer_messages/search' },
    operations: ['list', 'get', 'search'],
    beyondDocument: ['search'],
    fields: [
      text('to'),
      { key: 'cc', kind: 'stringList' },
      { key: 'bcc', kind: 'stringList' },
      text('subject'),
      text('bodyText'),
      text('bodyHtml'),
      { key: 'isBounced', kind: 'boolean' },
    ],
    associations: ['taskId', 'contactId', 'actionId', 'ownerUserId', 'sequenceId'],
    times: true,
    filters: [
      filter('id', 'string'),
      filter('to', 'string'),
      filter('cc', 'stringList'),
      filter('bcc', 'stringList'),
      filter('subject', 'string'),
      filter('bodyText', 'string'),
      filter('bodyHtml', 'string'),
      filter('isBounced', 'boolean'),
      filter('contactId', 'string', 'associations.contactId'),
      filter('sequenceId', 'string', 'associations.sequenceId'),
      filter('taskId', 'string', 'associations.taskId'),
      filter('actionId', 'string', 'associations.actionId'),
      filter('ownerUserId', 'string', 'associations.ownerUserId'),
      ...times,
    ],
  },
  {
    name: 'CallDisposition',
    schema: 'CallDisposition',
    many: 'call-dispositions',
    key: 'disposition',
    listKey: 'dispositions',
    source: 'dispositions',
    native: { outreach: 'callDispositions', salesloft: 'call_dispositions', apollo: 'a phone call’s phone_call_outcome_id' },
    operations: ['list'],
    fields: [text('name'), text('key')],
    associations: [],
    times: true,
  },
  {
    name: 'Sequence',
    schema: 'EngSequence',
    one: 'sequence',
    many: 'sequences',
    key: 'sequence',
    listKey: 'sequences',
    source: 'sequences',
    native: { outreach: 'sequences', salesloft: 'cadences', apollo: 'emailer_campaigns/search' },
    operations: ['list', 'start'],
    fields: [
      { key: 'isEnabled', kind: 'boolean' },
      text('name'),
      { key: 'tags', kind: 'stringList' },
      { key: 'numSteps', kind: 'number' },
      { key: 'scheduledCount', kind: 'number' },
      { key: 'openedCount', kind: 'number' },
      { key: 'optedOutCount', kind: 'number' },
      { key: 'repliedCount', kind: 'number' },
      { key: 'clickedCount', kind: 'number' },
    ],
    associations: [],
    times: false,
    action: [input('contactId', 'contactId', { required: true }), input('mailboxId', 'mailboxId', { required: true })],
  },
  {
    name: 'Mailbox',
    schema: 'EngMailbox',
    many: 'mailboxes',
    key: 'mailbox',
    listKey: 'mailboxes',
    source: 'mailboxes',
    native: { outreach: 'mailboxes', salesloft: 'a user’s sending address (no route)', apollo: 'email_accounts' },
    operations: ['list'],
    fields: [text('email'), { key: 'isDefault', kind: 'boolean' }],
    associations: ['ownerUserId'],
    times: true,
  },
];

/** The description of an object by name. */
export const engagementObjectOf = (name: string): EngagementObject => UNIFIED_ENGAGEMENT_OBJECTS.find((object) => object.name === name)!;

/** Fields of Contact and Account each platform has no field for (`engagementUnmapped` of its `downstream/<system>/facts.ts`). */
export const ENGAGEMENT_UNMAPPED = factOfEach('engagementUnmapped');
