import type { EngagementUser, Mailbox } from '../../model/engagement.js';
import type { Entry } from '../../store/ordered-collection.js';
import { collectionHandlers } from '../collection-api.js';
import { engagementHex24, isMailbox } from '../engagement-native.js';
import { customOf, isPlainObject, renderFields } from '../rest-engine.js';
import { answering, dispatch, type Route, reply } from '../router.js';
import type { DownstreamSystem } from '../system.js';
import type { DownstreamContext } from '../types.js';
import {
  accountSearch,
  engagementRoutes,
  peopleSearch,
  renderCampaign,
  renderUser as renderEngagementUser,
  renderMessage,
  renderOutcome,
  renderPhoneCall,
  renderTask,
} from './engagement.js';
import { faultAnswers } from './faults.js';
import { api, COLLECTIONS, customFields, errors, HEADERS, renderCampaignStatus } from './objects.js';

/** The simulated Apollo: API v1 collections (`objects.ts`), searches and engagement resources (`engagement.ts`), email accounts. */

/** An engagement mailbox as an Apollo email account (linked inbox). */
function renderMailbox(mailbox: Mailbox, extra: Record<string, unknown>) {
  const ownerId = mailbox.associations.ownerUserId;
  return {
    id: engagementHex24(mailbox.id),
    user_id: ownerId ? engagementHex24(ownerId) : null,
    email: mailbox.email,
    type: 'gmail',
    default: mailbox.isDefault ?? false,
    active: true,
    ...customFields.read(customOf(extra)),
  };
}

/** A search that filters (`q_keywords`, `person_titles`, `q_organization_name`) over rendered rows; a plain one pages the store. */
function searchOf(name: string, plain: Route['run']): Route['run'] {
  return (params, request, context) => {
    const source = request.method === 'POST' ? request.body : request.query;
    const asks = (key: string) => isPlainObject(source) && source[key] !== undefined && source[key] !== '';
    if (name === 'contacts' && (asks('q_keywords') || asks('person_titles'))) return peopleSearch('contacts', request, context);
    if (name === 'accounts' && asks('q_organization_name')) return accountSearch(request, context);
    return plain(params, request, context);
  };
}

/** Every collection: its search (which outranks `{name}/:id`), create and the item routes. */
function routes(): Route[] {
  // Users and tasks are the engagement users and tasks (engagement.ts).
  const out: Route[] = engagementRoutes();
  for (const name of Object.keys(COLLECTIONS).filter((candidate) => candidate !== 'users')) {
    const handlers = collectionHandlers(api, name);
    out.push({ method: ['GET', 'POST'], pattern: `${name}/search`, run: searchOf(name, handlers.list) });
    if (COLLECTIONS[name]!.readOnly) continue;
    out.push(
      { method: 'POST', pattern: name, run: handlers.create },
      { method: 'GET', pattern: `${name}/:id`, run: handlers.get },
      { method: 'PUT', pattern: `${name}/:id`, run: handlers.update },
      { method: 'DELETE', pattern: `${name}/:id`, run: handlers.remove },
    );
  }
  out.push({
    method: 'GET',
    pattern: 'email_accounts',
    run: (_params, _request, context: DownstreamContext) =>
      reply(200, { email_accounts: context.data.mailboxes.entries().map((entry) => renderMailbox(entry.record, entry.extra)) }, HEADERS),
  });
  return out;
}

const ROUTES = routes();

export const apollo: DownstreamSystem = {
  integrationId: 'apollo',
  faultAnswers,
  nativeObjects: Object.values(COLLECTIONS),
  writePolicy: api.policy,
  ...answering((request, context) => dispatch(ROUTES, errors, request, context)),
  nativeRecord: (type, record, extra, context) => {
    const target = Object.values(COLLECTIONS).find((candidate) => candidate.type === type);
    return target ? renderFields(target, record, extra, context) : { id: record.nativeId, ...customFields.read(customOf(extra)) };
  },
  nativeEngagement: (collection, record, extra) => {
    if (isMailbox(collection, record)) return renderMailbox(record, extra);
    // The same object as users/search lists.
    return renderEngagementUser(record as EngagementUser, extra);
  },
  // The same objects as tasks/search, emailer_campaigns/search, emailer_messages/search, phone_calls/search and a contact's campaign statuses show.
  nativeActivity: (collection, entry, context) => {
    const { record } = entry as Entry<never>;
    switch (collection) {
      case 'tasks':
        return renderTask(record, context);
      case 'actions':
        return renderCampaignStatus(record, context);
      case 'sequences':
        return renderCampaign(entry as Entry<never>, context);
      case 'calls':
        return renderPhoneCall(record, context);
      case 'emails':
        return renderMessage(record, context);
      case 'dispositions':
        return renderOutcome(record);
    }
  },
};
