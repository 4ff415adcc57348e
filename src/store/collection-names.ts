import { CRM_OBJECT_TYPES, type CrmObjectType } from '../model/crm.js';

/** The engagement collections added after snapshots of version 2 existed: a data set without them reads them as seeded. */
export const LATER_ENGAGEMENT_COLLECTIONS = ['sequences', 'calls', 'engagementEmails', 'callDispositions'] as const;
type LaterCollections<C> = { [K in (typeof LATER_ENGAGEMENT_COLLECTIONS)[number]]?: C };

/** The collections of a store or of a saved data set, by the names a snapshot gives them (`crm.Contact`, `users`, …). */
export function collectionsByName<C>(
  set: { crm: Record<CrmObjectType, C>; mailboxes: C; users: C; engagementTasks: C; engagementActions: C } & LaterCollections<C>,
): Array<[string, C]> {
  return [
    ...CRM_OBJECT_TYPES.map((type): [string, C] => [`crm.${type}`, set.crm[type]]),
    ['mailboxes', set.mailboxes],
    ['users', set.users],
    ['engagementTasks', set.engagementTasks],
    ['engagementActions', set.engagementActions],
    // Absent in a data set saved before them (a store always has them).
    ...LATER_ENGAGEMENT_COLLECTIONS.flatMap((name): Array<[string, C]> => (set[name] === undefined ? [] : [[name, set[name]]])),
  ];
}
