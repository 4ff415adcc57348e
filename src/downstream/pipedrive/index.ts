import type { EngagementUser } from '../../model/engagement.js';
import { collectionRoutes } from '../collection-api.js';
import { engagementSeq, engagementTimes, fullName as engagementName, isMailbox } from '../engagement-native.js';
import { timeFormat } from '../fields.js';
import { customOf, renderFields } from '../rest-engine.js';
import { dispatch } from '../router.js';
import type { DownstreamSystem } from '../types.js';
import { api, COLLECTIONS, customFields, errors } from './objects.js';
import { searchRoutes } from './search.js';

/** The simulated Pipedrive: API v1 collections (`objects.ts`) and their searches (`search.ts`). */

// Search first: `v1/persons/search` would otherwise read as the person with id `search`.
const ROUTES = [...searchRoutes(), ...collectionRoutes(api)];

export const pipedrive: DownstreamSystem = {
  integrationId: 'pipedrive',
  handle: (request, context) => dispatch(ROUTES, errors, request, context),
  nativeRecord: (type, record, extra, context) => {
    const target = Object.values(COLLECTIONS).flat().find((candidate) => candidate.type === type);
    return target ? renderFields(target, record, extra, context) : { id: Number(record.nativeId), ...customFields.read(customOf(extra)) };
  },
  nativeEngagement: (collection, record, extra, context) => {
    const id = engagementSeq(collection, record.id, context.data);
    const tail = { ...engagementTimes(record, ['add_time', 'update_time'], timeFormat.pipedrive), ...customFields.read(customOf(extra)) };
    if (isMailbox(collection, record)) {
      const ownerId = record.associations.ownerUserId;
      const userId = ownerId ? engagementSeq('users', ownerId, context.data) : null;
      return { id, email_address: record.email, user_id: userId, default: record.isDefault ?? null, ...tail };
    }
    const user = record as EngagementUser;
    return { id, name: engagementName(user), email: user.email, active_flag: true, is_admin: 0, ...tail };
  },
};
