import type { EngagementCollection, EngagementUser, Mailbox } from '../../model/engagement.js';
import { engagementSalesforceId, engagementTimes, fullName, isMailbox, mailboxOwner } from '../engagement-native.js';
import { customOf, type NativeFields } from '../rest-engine.js';
import { answering, dispatch } from '../router.js';
import type { DownstreamSystem } from '../system.js';
import type { DownstreamContext } from '../types.js';
import { faultAnswers } from './faults.js';
import { salesforceCustom, salesforceTimeFormat } from './formats.js';
import { byType, errors, POLICY, render, SOBJECTS } from './objects.js';
import { queryRoutes } from './query-routes.js';
import { sobjectCollectionRoutes } from './sobject-collections.js';
import { sobjectRoutes } from './sobject-routes.js';

/** The simulated Salesforce: sObjects (`objects.ts`, `sobject-routes.ts`), sObject Collections, SOQL queries. */

const ROUTES = [...sobjectRoutes(), ...sobjectCollectionRoutes(), ...queryRoutes()];

function nativeEngagement(
  collection: EngagementCollection,
  record: Mailbox | EngagementUser,
  extra: Record<string, unknown>,
  context: DownstreamContext,
): NativeFields {
  const times = engagementTimes(record, ['CreatedDate', 'LastModifiedDate'], salesforceTimeFormat);
  if (isMailbox(collection, record)) {
    const user = mailboxOwner(record, context.data);
    // Salesforce has no mailbox object; an org-wide address owned by the user is the closest.
    return {
      attributes: { type: 'OrgWideEmailAddress' },
      Id: engagementSalesforceId('0D2', record.id),
      Address: record.email,
      DisplayName: user ? fullName(user) : record.email,
      IsDefault: record.isDefault ?? null,
      OwnerId: user ? engagementSalesforceId('005', user.id) : null,
      ...times,
      ...salesforceCustom.read(customOf(extra)),
    };
  }
  const user = record as EngagementUser;
  return {
    attributes: { type: 'User' },
    Id: engagementSalesforceId('005', user.id),
    Username: user.email,
    Email: user.email,
    FirstName: user.firstName,
    LastName: user.lastName,
    Name: fullName(user),
    IsActive: true,
    ...times,
    ...salesforceCustom.read(customOf(extra)),
  };
}

export const salesforce: DownstreamSystem = {
  integrationId: 'salesforce',
  faultAnswers,
  nativeObjects: SOBJECTS,
  writePolicy: POLICY,
  ...answering((request, context) => dispatch(ROUTES, errors, request, context)),
  nativeRecord: (type, record, extra, context) => {
    const object = byType(type);
    return object ? render(object, record, extra, context) : { Id: record.nativeId, ...salesforceCustom.read(customOf(extra)) };
  },
  nativeEngagement,
};
