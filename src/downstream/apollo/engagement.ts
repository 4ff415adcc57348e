import type { EngagementUser } from '../../model/engagement.js';
import type { CallDisposition, EngagementCall, EngagementEmail, EngagementSequence, EngagementTask } from '../../model/engagement-activity.js';
import { NeedleSet, needleFinder } from '../../shared/needles.js';
import { mapPieces, type Pieces } from '../../shared/pieces.js';
import type { Entry } from '../../store/ordered-collection.js';
import { contactOf, EngagementRefusal, startSequence } from '../engagement-activity.js';
import { engagementHex24, fullName } from '../engagement-native.js';
import { customOf, FieldError, isPlainObject, type NativeFields, renderFields } from '../rest-engine.js';
import { intParam, type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { collectInPieces } from '../walk-in-pieces.js';
import { COLLECTIONS, customFields, HEADERS } from './objects.js';

/**
 * Apollo's engagement resources: `users/search` (the engagement users) and `tasks/search`, both
 * by GET or POST with `page`/`per_page` and a `pagination` block; ids are 24 hex characters. And
 * its people searches over the connection's contacts and accounts (`mixed_people/search`,
 * `q_keywords`, `person_titles`, `q_organization_name`).
 * https://docs.apollo.io/reference/
 */

/** An engagement user as Apollo's users/search lists it (and `additional` too). */
export function renderUser(user: EngagementUser, extra: NativeFields): NativeFields {
  return {
    id: engagementHex24(user.id),
    first_name: user.firstName,
    last_name: user.lastName,
    name: fullName(user),
    email: user.email,
    created_at: user.createdTime ?? null,
    ...customFields.read(customOf(extra)),
  };
}

const TASK_TYPE: Record<EngagementTask['kind'], string> = {
  call: 'call',
  email: 'outreach_manual_email',
  action_item: 'action_item',
  linkedin: 'linkedin_step_message',
};

export function renderTask(task: EngagementTask, context: DownstreamContext): NativeFields {
  const contact = contactOf(context.data, task);
  return {
    id: engagementHex24(task.id),
    user_id: engagementHex24(task.associations.userId),
    contact_id: contact ? contact.nativeId : null,
    type: TASK_TYPE[task.kind],
    priority: 'medium',
    status: task.state === 'complete' ? 'completed' : 'scheduled',
    title: task.subject,
    note: task.note,
    due_at: task.dueAt,
    completed_at: task.completedAt,
    created_at: task.createdTime,
    updated_at: task.modifiedTime,
  };
}

/** A sequence as an Apollo emailer campaign: a disabled one is archived; its counts from its contacts' statuses and emails. */
export function renderCampaign(entry: Entry<EngagementSequence>, context: DownstreamContext): NativeFields {
  const sequence = entry.record;
  const counts = { unique_scheduled: 0, unique_delivered: 0, unique_bounced: 0, unique_opened: 0, unique_replied: 0, unique_clicked: 0 };
  for (const action of context.data.engagementActions.values()) if (action.sequence === entry.seq && action.state === 'active') counts.unique_scheduled++;
  for (const email of context.data.engagementEmails.values()) {
    if (email.associations.sequenceId !== sequence.id) continue;
    if (email.isBounced) counts.unique_bounced++;
    else counts.unique_delivered++;
    if (email.openCount > 0) counts.unique_opened++;
    if (email.replied) counts.unique_replied++;
    if (email.clickCount > 0) counts.unique_clicked++;
  }
  return {
    id: engagementHex24(sequence.id),
    name: sequence.name,
    archived: !sequence.enabled,
    active: sequence.enabled,
    num_steps: sequence.numSteps,
    label_ids: [],
    created_at: sequence.createdTime,
    ...counts,
  };
}

/** An email as Apollo's emailer messages show it. */
export function renderMessage(email: EngagementEmail, context: DownstreamContext): NativeFields {
  const contact = contactOf(context.data, email);
  const mailbox = email.associations.mailboxId === null ? undefined : context.data.mailboxes.get(email.associations.mailboxId);
  return {
    id: engagementHex24(email.id),
    emailer_campaign_id: email.associations.sequenceId === null ? null : engagementHex24(email.associations.sequenceId),
    contact_id: contact ? contact.nativeId : null,
    user_id: email.associations.userId === null ? null : engagementHex24(email.associations.userId),
    email_account_id: mailbox ? engagementHex24(mailbox.id) : null,
    from_email: mailbox?.email ?? null,
    to_email: email.to,
    subject: email.subject,
    body_text: email.bodyText,
    body_html: email.bodyHtml,
    status: email.isBounced ? 'bounced' : 'completed',
    num_opens: email.openCount,
    num_clicks: email.clickCount,
    replied: email.replied,
    completed_at: email.createdTime,
    created_at: email.createdTime,
  };
}

/** A logged call as Apollo's phone calls show it; its disposition is its outcome. */
export function renderPhoneCall(call: EngagementCall, context: DownstreamContext): NativeFields {
  const contact = contactOf(context.data, call);
  const end = Date.parse(call.createdTime) + (call.durationSeconds ?? 0) * 1000;
  return {
    id: engagementHex24(call.id),
    contact_id: contact ? contact.nativeId : null,
    user_id: call.associations.userId === null ? null : engagementHex24(call.associations.userId),
    status: 'completed',
    inbound: call.direction === 'inbound',
    to_number: call.direction === 'outbound' ? call.phone : null,
    from_number: call.direction === 'inbound' ? call.phone : null,
    duration: call.durationSeconds,
    phone_call_outcome_id: call.dispositionId === null ? null : engagementHex24(call.dispositionId),
    note: call.note,
    start_time: call.createdTime,
    end_time: new Date(end).toISOString(),
    created_at: call.createdTime,
  };
}

/** A call disposition as an Apollo phone call outcome. */
export const renderOutcome = (disposition: CallDisposition): NativeFields => ({
  id: engagementHex24(disposition.id),
  name: disposition.name,
  key: disposition.key,
});

/** Paging and filters come in the body of a POST, or the query of a GET. */
function paramsOf(request: DownstreamRequest): NativeFields {
  const source = request.method === 'POST' ? (request.body ?? {}) : request.query;
  if (!isPlainObject(source)) throw new FieldError(undefined, 'the request body must be a JSON object', 'body');
  return source;
}

function page(key: string, items: NativeFields[], params: NativeFields): DownstreamResponse {
  return pager(key, params)(items);
}

/** A page of `key` as `params` ask for it, checked now and answered from the items once there are. */
function pager(key: string, params: NativeFields): (items: NativeFields[]) => DownstreamResponse {
  const current = intParam(params.page, 'page', 1, 1);
  const perPage = intParam(params.per_page, 'per_page', 25, 1, 100);
  const offset = (current - 1) * perPage;
  return (items) =>
    reply(
      200,
      {
        breadcrumbs: [],
        [key]: items.slice(offset, offset + perPage),
        pagination: { page: current, per_page: perPage, total_entries: items.length, total_pages: Math.ceil(items.length / perPage) },
      },
      HEADERS,
    );
}

/** A list filter as Apollo takes it: an array in a POST body, a comma list in a query. */
function listParam(params: NativeFields, name: string): string[] | undefined {
  const value = params[name] ?? params[`${name}[]`];
  if (value === undefined || value === '') return undefined;
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string') return value.split(',');
  throw new FieldError(name, `${name} must be an array of strings`, 'type');
}

/** A list filter as a Set: one lookup a record, however long the list. */
const setOf = (list: string[] | undefined) => (list ? new Set(list) : undefined);

/**
 * People filtered as Apollo's searches take them: `q_keywords` (every word in the name, email or
 * title) and `person_titles`. `mixed_people/search` searches Apollo's people database; the
 * sandbox's people are the connection's contacts.
 */
export function peopleSearch(key: 'people' | 'contacts', request: DownstreamRequest, context: DownstreamContext): Pieces<DownstreamResponse> {
  const params = paramsOf(request);
  const keywords = typeof params.q_keywords === 'string' ? params.q_keywords.trim().toLowerCase() : '';
  // Every word, and any title, looked for in one pass over each person (a request may list thousands).
  const words = keywords ? new NeedleSet(keywords.split(/\s+/)) : undefined;
  const titles = listParam(params, 'person_titles');
  const anyTitle = titles && new NeedleSet(titles.map((title) => title.toLowerCase()));
  const target = COLLECTIONS.contacts!;
  const answer = pager(key, params);
  // Every person is rendered and tested: in pieces (decision 0042).
  const people = collectInPieces(context.data.crm.Contact.entries(), (entry) => {
    const person = renderFields(target, entry.record, entry.extra, context);
    const text = [person.first_name, person.last_name, person.name, person.email, person.title]
      .filter((value) => typeof value === 'string')
      .join(' ')
      .toLowerCase();
    if (words && !words.allIn(text)) return undefined;
    return !anyTitle || (typeof person.title === 'string' && anyTitle.someIn(person.title.toLowerCase())) ? person : undefined;
  });
  return mapPieces(people, answer);
}

/** Accounts whose name contains `q_organization_name`. */
export function accountSearch(request: DownstreamRequest, context: DownstreamContext): Pieces<DownstreamResponse> {
  const params = paramsOf(request);
  const name = typeof params.q_organization_name === 'string' ? params.q_organization_name.trim().toLowerCase() : '';
  const firstAt = needleFinder(name);
  const target = COLLECTIONS.accounts!;
  const answer = pager('accounts', params);
  const accounts = collectInPieces(context.data.crm.Account.entries(), (entry) => {
    const account = renderFields(target, entry.record, entry.extra, context);
    return typeof account.name === 'string' && firstAt(account.name.toLowerCase()) >= 0 ? account : undefined;
  });
  return mapPieces(accounts, answer);
}

/**
 * `POST emailer_campaigns/{id}/add_contact_ids` (`contact_ids`, `send_email_from_email_account_id`):
 * each contact starts the sequence from that email account, all or none; a 422 for an account
 * that is not there, an archived campaign, a contact already in it.
 * https://docs.apollo.io/reference/add-contacts-to-sequence
 */
function addContactIds(): Route {
  return {
    method: 'POST',
    pattern: 'emailer_campaigns/:id/add_contact_ids',
    run: (params, request, context) => {
      const body = paramsOf(request);
      const campaign = context.data.sequences.entries().find((entry) => engagementHex24(entry.record.id) === params.id);
      if (!campaign) return reply(404, { error: 'Not found' }, HEADERS);
      const ids = listParam(body, 'contact_ids') ?? [];
      if (ids.length === 0) return reply(422, { error: 'contact_ids is required' }, HEADERS);
      const accountId = typeof body.send_email_from_email_account_id === 'string' ? body.send_email_from_email_account_id : '';
      const mailbox = context.data.mailboxes.entries().find((entry) => engagementHex24(entry.record.id) === accountId);
      if (!mailbox) return reply(422, { error: `send_email_from_email_account_id ${JSON.stringify(accountId)} is not an email account of this team` }, HEADERS);
      const contacts = ids.map((id) => context.data.crm.Contact.getByNativeId(id));
      const unknown = ids.find((_id, index) => !contacts[index]);
      if (unknown !== undefined) return reply(422, { error: `contact_ids: ${JSON.stringify(unknown)} is not a contact` }, HEADERS);
      for (const action of context.data.engagementActions.values()) {
        const taken = contacts.find((entry) => entry!.record.id === action.associations.contactId);
        if (taken && action.sequence === campaign.seq && action.state !== 'finished') {
          return reply(422, { error: `contact ${taken.record.nativeId} is already ${action.state} in this sequence` }, HEADERS);
        }
      }
      try {
        for (const contact of contacts)
          startSequence(context.data, { sequence: campaign, contactId: contact!.record.id, mailboxId: mailbox.record.id }, context.now);
      } catch (error) {
        if (error instanceof EngagementRefusal)
          return reply(422, { error: error.reason === 'disabled' ? 'This sequence is archived' : error.message }, HEADERS);
        throw error;
      }
      const target = COLLECTIONS.contacts!;
      return reply(
        200,
        {
          contacts: contacts.map((entry) => renderFields(target, context.data.crm.Contact.get(entry!.record.id)!, entry!.extra, context)),
          emailer_campaign: renderCampaign(campaign, context),
        },
        HEADERS,
      );
    },
  };
}

/** `mixed_people/search`, `users/search`, `tasks/search`, and the sequences, their messages and calls. */
export function engagementRoutes(): Route[] {
  return [
    {
      method: ['GET', 'POST'],
      pattern: 'emailer_campaigns/search',
      run: (_params, request, context) => {
        const params = paramsOf(request);
        const name = typeof params.q_name === 'string' ? params.q_name.toLowerCase() : '';
        const items = context.data.sequences
          .entries()
          .filter((entry) => entry.record.name.toLowerCase().includes(name))
          .map((entry) => renderCampaign(entry, context));
        return page('emailer_campaigns', items, params);
      },
    },
    addContactIds(),
    {
      method: ['GET', 'POST'],
      pattern: 'emailer_messages/search',
      run: (_params, request, context) => {
        const params = paramsOf(request);
        const campaigns = setOf(listParam(params, 'emailer_campaign_ids'));
        const contacts = setOf(listParam(params, 'contact_ids'));
        const users = setOf(listParam(params, 'user_ids'));
        const items = context.data.engagementEmails
          .entries()
          .map((entry) => renderMessage(entry.record, context))
          .filter((item) => !campaigns || campaigns.has(item.emailer_campaign_id as string))
          .filter((item) => !contacts || contacts.has(item.contact_id as string))
          .filter((item) => !users || users.has(item.user_id as string));
        return page('emailer_messages', items, params);
      },
    },
    {
      method: ['GET', 'POST'],
      pattern: 'phone_calls/search',
      run: (_params, request, context) => {
        const params = paramsOf(request);
        const contacts = setOf(listParam(params, 'contact_ids'));
        const users = setOf(listParam(params, 'user_ids'));
        const items = context.data.calls
          .entries()
          .map((entry) => renderPhoneCall(entry.record, context))
          .filter((item) => !contacts || contacts.has(item.contact_id as string))
          .filter((item) => !users || users.has(item.user_id as string));
        return page('phone_calls', items, params);
      },
    },
    { method: 'POST', pattern: 'mixed_people/search', run: (_params, request, context) => peopleSearch('people', request, context) },
    {
      method: ['GET', 'POST'],
      pattern: 'users/search',
      run: (_params, request, context) => {
        const params = paramsOf(request);
        const items = context.data.users.entries().map((entry) => renderUser(entry.record, entry.extra));
        return page('users', items, params);
      },
    },
    {
      method: ['GET', 'POST'],
      pattern: 'tasks/search',
      run: (_params, request, context) => {
        const params = paramsOf(request);
        const users = setOf(listParam(params, 'user_ids'));
        const statuses = setOf(listParam(params, 'task_statuses') ?? listParam(params, 'status'));
        const contacts = setOf(listParam(params, 'contact_ids'));
        const items = context.data.engagementTasks
          .entries()
          .map((entry) => renderTask(entry.record, context))
          .filter((task) => !users || users.has(task.user_id as string))
          .filter((task) => !statuses || statuses.has(task.status as string))
          .filter((task) => !contacts || (task.contact_id !== null && contacts.has(task.contact_id as string)));
        return page('tasks', items, params);
      },
    },
  ];
}
