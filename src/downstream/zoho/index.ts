import type { EngagementUser } from '../../model/engagement.js';
import { collectionRoutes } from '../collection-api.js';
import { fullName as engagementName, engagementSeq, engagementTimes, isMailbox } from '../engagement-native.js';
import { customOf, renderFields } from '../rest-engine.js';
import { answering, dispatch } from '../router.js';
import type { DownstreamSystem } from '../system.js';
import { EMAIL, emailRoutes } from './emails.js';
import { faultAnswers } from './faults.js';
import { zohoCustom, zohoTimeFormat } from './formats.js';
import { api, errors, MODULES, USERS } from './objects.js';
import { searchRoutes } from './search.js';

/** The simulated Zoho CRM: v3 modules and users (`objects.ts`), their search (`search.ts`), their emails (`emails.ts`). */

const ROUTES = [...searchRoutes(), ...emailRoutes(), ...collectionRoutes(api)];

export const zoho: DownstreamSystem = {
  integrationId: 'zoho',
  faultAnswers,
  nativeObjects: [...Object.values(MODULES), USERS, EMAIL],
  writePolicy: api.policy,
  ...answering((request, context) => dispatch(ROUTES, errors, request, context)),
  nativeRecord: (type, record, extra, ctx) => {
    const target = Object.values(MODULES).find((candidate) => candidate.type === type) ?? (type === 'User' ? USERS : type === 'Email' ? EMAIL : undefined);
    return target ? renderFields(target, record, extra, ctx) : { id: record.nativeId, ...zohoCustom.read(customOf(extra)) };
  },
  nativeEngagement: (collection, record, extra, ctx) => {
    // Zoho ids are 19 digits starting with 5.
    const zohoId = (seq: number | null) => (seq === null ? null : `5${String(seq).padStart(18, '0')}`);
    const id = zohoId(engagementSeq(collection, record.id, ctx.data));
    const tail = { ...engagementTimes(record, ['Created_Time', 'Modified_Time'], zohoTimeFormat), ...zohoCustom.read(customOf(extra)) };
    if (isMailbox(collection, record)) {
      const ownerId = record.associations.ownerUserId;
      const owner = ownerId ? zohoId(engagementSeq('users', ownerId, ctx.data)) : null;
      return { id, Email: record.email, Owner: owner === null ? null : { id: owner }, Primary: record.isDefault ?? null, ...tail };
    }
    const user = record as EngagementUser;
    return { id, first_name: user.firstName, last_name: user.lastName, full_name: engagementName(user), email: user.email, status: 'active', ...tail };
  },
};
