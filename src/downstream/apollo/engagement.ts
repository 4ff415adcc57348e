import type { EngagementUser } from '../../model/engagement.js';
import type { EngagementTask } from '../../model/engagement-activity.js';
import { NeedleSet, needleFinder } from '../../shared/needles.js';
import { contactOf } from '../engagement-activity.js';
import { engagementHex24, fullName } from '../engagement-native.js';
import { customOf, FieldError, type Flat, isPlainObject, renderFields } from '../rest-engine.js';
import { intParam, type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { COLLECTIONS, customFields, HEADERS } from './objects.js';

/**
 * Apollo's engagement resources: `users/search` (the engagement users) and `tasks/search`, both
 * by GET or POST with `page`/`per_page` and a `pagination` block; ids are 24 hex characters. And
 * its people searches over the connection's contacts and accounts (`mixed_people/search`,
 * `q_keywords`, `person_titles`, `q_organization_name`).
 * https://docs.apollo.io/reference/
 */

/** An engagement user as Apollo's users/search lists it (and `additional` too). */
export function renderUser(user: EngagementUser, extra: Flat): Flat {
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

function renderTask(task: EngagementTask, context: DownstreamContext): Flat {
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

/** Paging and filters come in the body of a POST, or the query of a GET. */
function paramsOf(request: DownstreamRequest): Flat {
  const source = request.method === 'POST' ? (request.body ?? {}) : request.query;
  if (!isPlainObject(source)) throw new FieldError(undefined, 'the request body must be a JSON object', 'body');
  return source;
}

function page(key: string, items: Flat[], params: Flat): DownstreamResponse {
  const current = intParam(params.page, 'page', 1, 1);
  const perPage = intParam(params.per_page, 'per_page', 25, 1, 100);
  const offset = (current - 1) * perPage;
  return reply(
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
function listParam(params: Flat, name: string): string[] | undefined {
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
export function peopleSearch(key: 'people' | 'contacts', request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const params = paramsOf(request);
  const keywords = typeof params.q_keywords === 'string' ? params.q_keywords.trim().toLowerCase() : '';
  // Every word, and any title, looked for in one pass over each person (a request may list thousands).
  const words = keywords ? new NeedleSet(keywords.split(/\s+/)) : undefined;
  const titles = listParam(params, 'person_titles');
  const anyTitle = titles && new NeedleSet(titles.map((title) => title.toLowerCase()));
  const target = COLLECTIONS.contacts!;
  const people = context.data.crm.Contact.entries()
    .map((entry) => renderFields(target, entry.record, entry.extra, context))
    .filter((person) => {
      const text = [person.first_name, person.last_name, person.name, person.email, person.title]
        .filter((value) => typeof value === 'string')
        .join(' ')
        .toLowerCase();
      if (words && !words.allIn(text)) return false;
      return !anyTitle || (typeof person.title === 'string' && anyTitle.someIn(person.title.toLowerCase()));
    });
  return page(key, people, params);
}

/** Accounts whose name contains `q_organization_name`. */
export function accountSearch(request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const params = paramsOf(request);
  const name = typeof params.q_organization_name === 'string' ? params.q_organization_name.trim().toLowerCase() : '';
  const firstAt = needleFinder(name);
  const target = COLLECTIONS.accounts!;
  const accounts = context.data.crm.Account.entries()
    .map((entry) => renderFields(target, entry.record, entry.extra, context))
    .filter((account) => typeof account.name === 'string' && firstAt(account.name.toLowerCase()) >= 0);
  return page('accounts', accounts, params);
}

/** `mixed_people/search`, `users/search` and `tasks/search`. */
export function engagementRoutes(): Route[] {
  return [
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
