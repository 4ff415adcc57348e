import { factOfEach } from '../downstream/facts.js';
import type { CrmObjectType, CrmRecord, UnifiedRecord } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';

/** Unified fields each integration has no field for (`unmapped` of its `downstream/<system>/facts.ts`). */
export const UNMAPPED = factOfEach('unmapped');

/** Fields each integration keeps but an update cannot change there (`notUpdated` of its facts). */
export const NOT_UPDATED = factOfEach('notUpdated');

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
