import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import type { EngagementAction } from '../../model/engagement-activity.js';
import { hash32 } from '../../shared/random.js';
import type { CollectionApi } from '../collection-api.js';
import { nestedCustom } from '../custom-fields.js';
import { enrolmentState, isEnrolment } from '../engagement-activity.js';
import { engagementHex24 } from '../engagement-native.js';
import { computed, custom, date, field, owner, readOnly, ref, STAGE_COVERS, stageWrites, storedText, time, timeFormat, to } from '../fields.js';
import { displayName, FieldError, type FieldMap, isPlainObject, type NativeFields, type NativeObject, renderFields } from '../rest-engine.js';
import { intParam, type RouteErrors, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest } from '../types.js';
import { facts } from './facts.js';

/**
 * Apollo API v1: create at `{collection}`, list through `{collection}/search` (paging in the
 * body), one record under its singular name (`{ contact }`), 24-hex ids, snake_case; the
 * headers and error answers every Apollo route module uses.
 */

export const HEADERS = { 'x-rate-limit-minute': '200', 'x-minute-requests-left': '199' };
const iso = time(timeFormat.iso);
export const customFields = nestedCustom('typed_custom_fields');

/** Apollo stage ids are 24-hex; these are stable per stage name. */
const STAGES = ['Prospecting', 'Qualification', 'Needs Analysis', 'Proposal', 'Negotiation', 'Closed Won', 'Closed Lost'];
const stageId = (name: string) => [0, 1, 2].map((round) => hash32(`${round}:stage:${name}`).toString(16).padStart(8, '0')).join('');
const stage = custom(
  'opportunity_stage_id',
  STAGE_COVERS,
  (record) => {
    const name = (record as CrmRecord<'Deal'>).stage;
    return name ? stageId(name) : null;
  },
  (value) => {
    const name = STAGES.find((candidate) => stageId(candidate) === value);
    if (!name) throw new FieldError('opportunity_stage_id', `opportunity_stage_id ${JSON.stringify(value)} is not a stage`, 'value');
    return stageWrites(name);
  },
);

const accountName = computed('organization_name', (record, context) => {
  const accountId = (record as CrmRecord<'Contact'>).associations.accountIds[0];
  const account = accountId ? context.data.crm.Account.get(accountId) : undefined;
  return account ? displayName(account) : null;
});
const phoneNumbers = computed('phone_numbers', (record) => {
  const { phone, mobilePhone } = record as CrmRecord<'Contact'>;
  const numbers = [
    { raw_number: phone, type: 'work_direct' },
    { raw_number: mobilePhone, type: 'mobile' },
  ].filter((item) => item.raw_number);
  return numbers.map((item, position) => ({ ...item, sanitized_number: `+1${String(item.raw_number).replace(/\D/g, '').slice(-10)}`, position }));
});

/** Where a contact stands in each sequence it was added to: the engagement actions about it. */
const campaignStatuses = computed('contact_campaign_statuses', (record, context) => {
  const out: NativeFields[] = [];
  // One status an enrolment (its first action), at its current step (decision 0045).
  for (const entry of context.data.engagementActions.entries()) {
    const action = entry.record;
    if (action.associations.contactId === record.id && isEnrolment(action)) out.push(renderCampaignStatus(enrolmentState(context.data, entry), context));
  }
  return out;
});

/** An engagement action as the contact campaign status Apollo shows on a contact. */
export function renderCampaignStatus(action: EngagementAction, context: DownstreamContext): NativeFields {
  const sequence = context.data.sequences.entries().find((entry) => entry.seq === action.sequence)?.record;
  return {
    id: engagementHex24(action.id),
    emailer_campaign_id: sequence ? engagementHex24(sequence.id) : null,
    send_email_from_user_id: engagementHex24(action.associations.userId),
    send_email_from_email_account_id: action.mailboxId === undefined ? null : engagementHex24(action.mailboxId),
    status: action.state,
    current_step_position: action.step,
    added_at: action.createdTime,
    finished_at: action.state === 'finished' ? action.modifiedTime : null,
  };
}

const object = (type: CrmObjectType, singular: string, fields: FieldMap[], more: Partial<NativeObject> = {}): NativeObject => ({
  type,
  name: singular,
  fields: [computed('id', (record) => record.nativeId), ...fields],
  custom: customFields,
  ...more,
});

export const COLLECTIONS: Record<string, NativeObject> = {
  contacts: object('Contact', 'contact', [
    field('first_name', 'firstName'),
    field('last_name', 'lastName'),
    computed('name', (record) => displayName(record)),
    field('title', 'jobTitle'),
    field('email', 'email'),
    accountName,
    ref('account_id', to('Account', 'accountIds')),
    owner('owner_id'),
    field('direct_phone', 'phone'),
    field('mobile_phone', 'mobilePhone'),
    phoneNumbers,
    ...Object.values(facts.contactAddressFields).map(storedText),
    campaignStatuses,
    readOnly('created_at', 'createdTime', iso),
    readOnly('updated_at', 'modifiedTime', iso),
  ]),
  accounts: object(
    'Account',
    'account',
    [
      field('name', 'name'),
      computed('domain', (record) => ((record as CrmRecord<'Account'>).website ?? '').replace(/^https?:\/\/(www\.)?/, '') || null),
      field('website_url', 'website'),
      field('phone', 'phone'),
      field('industry', 'industry'),
      field('estimated_num_employees', 'numberOfEmployees'),
      field('annual_revenue', 'annualRevenue'),
      computed('raw_address', (record) => {
        const address = (record as CrmRecord<'Account'>).address;
        return address ? [address.street, address.city, address.state, address.postalCode, address.country].filter(Boolean).join(', ') : null;
      }),
      owner('owner_id'),
      readOnly('created_at', 'createdTime', iso),
      readOnly('updated_at', 'modifiedTime', iso),
    ],
    { required: ['name'] },
  ),
  opportunities: object(
    'Deal',
    'opportunity',
    [
      field('name', 'name'),
      field('amount', 'amount'),
      field('closed_date', 'closeDate', date),
      stage,
      readOnly('stage_name', 'stage'),
      readOnly('is_closed', 'isClosed'),
      readOnly('is_won', 'isWon'),
      ref('account_id', to('Account', 'accountIds')),
      owner('owner_id'),
      readOnly('created_at', 'createdTime', iso),
    ],
    { required: ['name'] },
  ),
  // Apollo users have no update time (a quirk the unified engagement users keep too).
  users: object(
    'User',
    'user',
    [
      field('first_name', 'firstName'),
      field('last_name', 'lastName'),
      computed('name', (record) => displayName(record)),
      field('email', 'email'),
      readOnly('created_at', 'createdTime', iso),
    ],
    { readOnly: true },
  ),
};

const apolloError = (statusCode: number, error: string) => reply(statusCode, { error }, HEADERS);
export const errors: RouteErrors = {
  notFound: () => apolloError(404, 'Not found'),
  methodNotAllowed: () => apolloError(404, 'Not found'),
  invalid: (error) => apolloError(422, error.message),
};

/** Search paging comes in the body of a POST, or the query of a GET. */
function window(request: DownstreamRequest) {
  const source = request.method === 'POST' ? (request.body ?? {}) : request.query;
  if (!isPlainObject(source)) throw new FieldError(undefined, 'the request body must be a JSON object', 'body');
  const page = intParam(source.page, 'page', 1, 1);
  const limit = intParam(source.per_page, 'per_page', 25, 1, 100);
  return { offset: (page - 1) * limit, limit };
}

const singular = (collection: string) => COLLECTIONS[collection]!.name;

export const api: CollectionApi = {
  prefix: '',
  collections: Object.fromEntries(Object.entries(COLLECTIONS).map(([name, target]) => [name, [target]])),
  updateMethod: 'PUT',
  // Apollo ignores attributes it does not take.
  policy: { unknown: 'ignore', readOnly: 'ignore' },
  window,
  unwrap: (body) => {
    if (!isPlainObject(body)) throw new FieldError(undefined, 'the request body must be a JSON object', 'body');
    return body;
  },
  render: (target, record, extra, context) => renderFields(target, record, extra, context),
  list: (items, page, collection) => {
    const pagination = {
      page: Math.floor(page.offset / page.limit) + 1,
      per_page: page.limit,
      total_entries: page.total,
      total_pages: Math.ceil(page.total / page.limit),
    };
    return reply(200, { breadcrumbs: [], [collection]: items, pagination }, HEADERS);
  },
  one: (item, _found, collection) => reply(200, { [singular(collection)]: item }, HEADERS),
  created: (item, _found, collection) => reply(200, { [singular(collection)]: item }, HEADERS),
  updated: (item, _found, collection) => reply(200, { [singular(collection)]: item }, HEADERS),
  deleted: () => reply(200, { deleted: true }, HEADERS),
  missing: () => apolloError(404, 'Not found'),
};
