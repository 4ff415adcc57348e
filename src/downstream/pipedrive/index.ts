import type { EngagementUser } from '../../model/engagement.js';
import { collectionHandlers, collectionRoutes } from '../collection-api.js';
import { fullName as engagementName, engagementSeq, engagementTimes, isMailbox } from '../engagement-native.js';
import { customOf, renderFields } from '../rest-engine.js';
import { answering, dispatch, type Route } from '../router.js';
import type { DownstreamSystem } from '../system.js';
import type { DownstreamAnswer, DownstreamContext, DownstreamRequest } from '../types.js';
import { faultAnswers } from './faults.js';
import { pipedriveTimeFormat } from './formats.js';
import { MAIL_MESSAGE, mailRoutes } from './mail.js';
import { api, COLLECTIONS, customFields, errors } from './objects.js';
import { searchRoutes } from './search.js';
import { v2Errors, v2Routes } from './v2.js';

/**
 * The simulated Pipedrive: API v1 collections (`objects.ts`) and their searches (`search.ts`),
 * the mailbox (`mail.ts`, read-only), API v2 (`v2.ts`).
 */

const V1: Route[] = [
  ...searchRoutes(),
  ...mailRoutes(),
  // Leads are updated with PATCH (the SDK's `LeadsApi.updateLead`); PUT works as for the other objects.
  { method: 'PATCH', pattern: 'v1/leads/:id', run: collectionHandlers(api, 'leads').update },
  ...collectionRoutes(api),
];
const V2 = v2Routes();

/**
 * Pipedrive answers under `v1/…` and, as the SDKs' OAuth base paths (`${api_domain}/api/v1`,
 * `…/api/v2`) and v2's own base path have it, under `api/v1/…` and `api/v2/…`.
 */
function answer(request: DownstreamRequest, context: DownstreamContext): DownstreamAnswer {
  const path = request.path.startsWith('api/') ? request.path.slice(4) : request.path;
  const routed = path === request.path ? request : { ...request, path };
  return path.startsWith('v2/') ? dispatch(V2, v2Errors, routed, context) : dispatch(V1, errors, routed, context);
}

export const pipedrive: DownstreamSystem = {
  integrationId: 'pipedrive',
  faultAnswers,
  nativeObjects: [...Object.values(COLLECTIONS).flat(), MAIL_MESSAGE],
  writePolicy: api.policy,
  ...answering(answer),
  nativeRecord: (type, record, extra, context) => {
    const target =
      Object.values(COLLECTIONS)
        .flat()
        .find((candidate) => candidate.type === type) ?? (type === 'Email' ? MAIL_MESSAGE : undefined);
    return target ? renderFields(target, record, extra, context) : { id: Number(record.nativeId), ...customFields.read(customOf(extra)) };
  },
  nativeEngagement: (collection, record, extra, context) => {
    const id = engagementSeq(collection, record.id, context.data);
    const tail = { ...engagementTimes(record, ['add_time', 'update_time'], pipedriveTimeFormat), ...customFields.read(customOf(extra)) };
    if (isMailbox(collection, record)) {
      const ownerId = record.associations.ownerUserId;
      const userId = ownerId ? engagementSeq('users', ownerId, context.data) : null;
      return { id, email_address: record.email, user_id: userId, default: record.isDefault ?? null, ...tail };
    }
    const user = record as EngagementUser;
    return { id, name: engagementName(user), email: user.email, active_flag: true, is_admin: 0, ...tail };
  },
};
