import type { EngagementUser } from '../../model/engagement.js';
import { type CollectionApi, collectionRoutes } from '../collection-api.js';
import { engagementSeq, engagementTimes, isMailbox } from '../engagement-native.js';
import { customOf } from '../rest-engine.js';
import { answering, dispatch } from '../router.js';
import type { DownstreamSystem } from '../system.js';
import { associationRoutes } from './associations.js';
import { faultAnswers } from './faults.js';
import { hubspotCustom } from './formats.js';
import { objectRoutes } from './object-routes.js';
import { api, COLLECTIONS, errors, OWNERS, renderObject } from './objects.js';

/** The simulated HubSpot: CRM objects v3 (`objects.ts`, `object-routes.ts`), associations v4 (`associations.ts`), owners. */

const ownersApi: CollectionApi = { ...api, prefix: 'crm/v3', collections: { owners: [OWNERS] } };
// The objects' reads are object-routes.ts's (archived, idProperty, and type names such as `contact` or `0-1`); the writes, the shared engine's.
const ROUTES = [...objectRoutes(), ...associationRoutes(), ...collectionRoutes(api, { reads: false }), ...collectionRoutes(ownersApi)];

export const hubspot: DownstreamSystem = {
  integrationId: 'hubspot',
  faultAnswers,
  nativeObjects: [...Object.values(COLLECTIONS), OWNERS],
  writePolicy: api.policy,
  ...answering((request, context) => dispatch(ROUTES, errors, request, context)),
  nativeRecord: (type, record, extra, context) => {
    const target = Object.values(COLLECTIONS).find((candidate) => candidate.type === type) ?? (type === 'User' ? OWNERS : undefined);
    return target ? renderObject(target, record, extra, context) : { id: record.nativeId, properties: hubspotCustom.read(customOf(extra)) };
  },
  nativeEngagement: (collection, record, extra, context) => {
    const id = String(engagementSeq(collection, record.id, context.data));
    const tail = { ...engagementTimes(record, ['createdAt', 'updatedAt']), archived: false, ...hubspotCustom.read(customOf(extra)) };
    if (isMailbox(collection, record)) {
      // A connected inbox, owned by the engagement user.
      const ownerId = record.associations.ownerUserId;
      const ownerSeq = ownerId ? engagementSeq('users', ownerId, context.data) : null;
      return { id, email: record.email, ownerId: ownerSeq === null ? null : String(ownerSeq), isDefault: record.isDefault ?? null, ...tail };
    }
    const user = record as EngagementUser;
    return { id, email: user.email, type: 'PERSON', firstName: user.firstName, lastName: user.lastName, userId: Number(id), ...tail };
  },
};
