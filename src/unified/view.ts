import type { CrmObjectType, CrmRecord, UnifiedRecord } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';

/** Per unified type, a list of its unified fields; a type left out has none listed. */
type FieldsByType = Partial<Record<CrmObjectType, readonly string[]>>;

/**
 * Unified fields an integration's native objects have no field for (the document's "Not
 * supported by Pipedrive"): absent from its unified records, and not written by a unified write.
 * Every integration has its entry (`{}`: it keeps every field), so a new one must say.
 * `test/unified-crm.test.ts` checks this table against the simulated systems' field maps.
 */
export const UNMAPPED: Record<IntegrationId, FieldsByType> = {
  salesforce: {},
  hubspot: { Event: ['isAllDayEvent'] },
  pipedrive: {
    Account: ['description', 'phone'],
    // A lead's email, phones and job title are its person's (decision 0044): kept, and a create makes the person.
    Lead: ['account'],
    User: ['firstName', 'lastName'],
    // An activity is done or not (the document: a task's status is not supported there).
    Task: ['priority', 'status'],
    Event: ['isAllDayEvent'],
    // A Pipedrive mail message has no bounce flag and no send status (only its tracking).
    Email: ['isBounced', 'status'],
  },
  // A Zoho email lists its sender and its to and cc recipients, never its bcc ones.
  zoho: { Event: ['type'], Email: ['bcc'] },
  // The engagement platforms answer no unified CRM objects (their contacts and accounts: ENGAGEMENT_UNMAPPED).
  outreach: {},
  salesloft: {},
  apollo: {},
};

/**
 * Fields an integration keeps but an update cannot change there: the service's document says a
 * Pipedrive lead's email and phones are not supported by LeadUpdate (they are its person's).
 */
export const NOT_UPDATED: Record<IntegrationId, FieldsByType> = {
  salesforce: {},
  hubspot: {},
  pipedrive: { Lead: ['email', 'phone', 'mobilePhone'] },
  zoho: {},
  outreach: {},
  salesloft: {},
  apollo: {},
};

/** Whether an integration maps a unified field of a type (and, given a mode, whether a write of that mode keeps it). */
export const isMapped = (integrationId: IntegrationId, type: CrmObjectType, field: string, mode?: 'create' | 'update'): boolean =>
  !UNMAPPED[integrationId][type]?.includes(field) && !(mode === 'update' && NOT_UPDATED[integrationId][type]?.includes(field));

const views = new WeakMap<CrmRecord, UnifiedRecord>();

/**
 * A stored record as the service answers it: the document types its fields without null, so an
 * empty field is left out (an attendee's `email` stays null, as the document's own example shows
 * it, and so does its `associationId` when it is an Other attendee, as the document says), as is a
 * field the connection's CRM does not have. Records are immutable values, so each one's view is
 * made once.
 *
 * @example unifiedView('pipedrive', 'Lead', lead) // no email, jobTitle, account, phones: Pipedrive leads have none
 */
export function unifiedView<T extends CrmObjectType>(integrationId: IntegrationId, type: T, record: CrmRecord<T>): UnifiedRecord<T> {
  const stored = record as CrmRecord;
  let view = views.get(stored);
  if (view === undefined) {
    view = render(integrationId, type, stored);
    views.set(stored, view);
  }
  return view as UnifiedRecord<T>;
}

function render(integrationId: IntegrationId, type: CrmObjectType, record: CrmRecord): UnifiedRecord {
  const unmapped = UNMAPPED[integrationId][type];
  const attendee = type === 'EventAttendee';
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (unmapped?.includes(key)) continue;
    if (key === 'associations') {
      out.associations = associationsView(value as Record<string, unknown>, attendee);
    } else if (value === null) {
      if (attendee && key === 'email') out.email = null;
    } else if (key === 'address') {
      const parts = Object.entries(value as Record<string, unknown>).filter(([, part]) => part !== null);
      if (parts.length > 0) out.address = Object.fromEntries(parts);
    } else {
      out[key] = value;
    }
  }
  return out as UnifiedRecord;
}

function associationsView(associations: Record<string, unknown>, attendee: boolean): Record<string, unknown> {
  let empty = false;
  for (const value of Object.values(associations)) if (value === null) empty = true;
  if (!empty) return associations;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(associations)) if (value !== null || (attendee && key === 'associationId')) out[key] = value;
  return out;
}
