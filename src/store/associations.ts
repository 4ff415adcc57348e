import type { CrmObjectType, CrmRecord } from '../model/crm.js';

/**
 * The links between CRM objects. Each pair names both ends: when one end is written, the store
 * keeps the other in step, so associations always point at records that exist and agree both ways.
 *
 * A field ending in `Ids` holds many ids; any other holds one id or null.
 */
const PAIRS: ReadonlyArray<readonly [CrmObjectType, string, CrmObjectType, string]> = [
  ['User', 'taskIds', 'Task', 'ownerUserId'],
  ['User', 'noteIds', 'Note', 'ownerUserId'],
  ['User', 'eventIds', 'Event', 'ownerUserId'],
  ['User', 'dealIds', 'Deal', 'ownerUserId'],
  ['User', 'accountIds', 'Account', 'ownerUserId'],
  ['Contact', 'accountIds', 'Account', 'contactIds'],
  ['Contact', 'dealIds', 'Deal', 'contactIds'],
  ['Contact', 'leadIds', 'Lead', 'contactIds'],
  ['Contact', 'noteIds', 'Note', 'contactIds'],
  ['Contact', 'taskIds', 'Task', 'contactIds'],
  ['Contact', 'eventIds', 'Event', 'contactIds'],
  ['Account', 'dealIds', 'Deal', 'accountIds'],
  ['Account', 'noteIds', 'Note', 'accountIds'],
  ['Account', 'taskIds', 'Task', 'accountIds'],
  ['Account', 'leadIds', 'Lead', 'accountIds'],
  ['Account', 'eventIds', 'Event', 'accountIds'],
  ['Deal', 'noteIds', 'Note', 'dealIds'],
  ['Deal', 'taskIds', 'Task', 'dealIds'],
  ['Deal', 'eventIds', 'Event', 'dealIds'],
  ['Lead', 'noteIds', 'Note', 'leadIds'],
  ['Lead', 'taskIds', 'Task', 'leadIds'],
  ['Lead', 'eventIds', 'Event', 'leadIds'],
  ['Event', 'eventAttendeeIds', 'EventAttendee', 'eventId'],
  // EventAttendee.associationId points at the Contact, Lead or User named by associatedObjectType.
  ['Contact', 'eventAttendeeIds', 'EventAttendee', 'associationId'],
  ['Lead', 'eventAttendeeIds', 'EventAttendee', 'associationId'],
];

/** Links with no field on the far end (the User has no contactIds in the unified model). */
const ONE_WAY: ReadonlyArray<readonly [CrmObjectType, string, CrmObjectType]> = [
  ['Contact', 'ownerUserId', 'User'],
  // An Email names its records; theirs name no emails (the document's record schemas have no emailIds).
  ['Email', 'accountIds', 'Account'],
  ['Email', 'leadIds', 'Lead'],
  ['Email', 'contactIds', 'Contact'],
  ['Email', 'dealIds', 'Deal'],
  ['Email', 'ownerUserId', 'User'],
];

interface Link {
  target: CrmObjectType;
  /** The field on the target that lists back, if any. */
  inverse: string | undefined;
}

const LINKS = new Map<string, Link>();
for (const [a, fieldA, b, fieldB] of PAIRS) {
  // The attendee's associationId is polymorphic: linkOf() resolves it per record.
  if (fieldB !== 'associationId') LINKS.set(`${b}.${fieldB}`, { target: a, inverse: fieldA });
  LINKS.set(`${a}.${fieldA}`, { target: b, inverse: fieldB });
}
for (const [a, field, b] of ONE_WAY) LINKS.set(`${a}.${field}`, { target: b, inverse: undefined });

/** The links that point at a type with nothing listing back, by the type they point at: a delete clears them by a scan. */
export const ONE_WAY_INTO: ReadonlyMap<CrmObjectType, ReadonlyArray<{ type: CrmObjectType; field: string }>> = ONE_WAY.reduce((into, [a, field, b]) => {
  into.set(b, [...(into.get(b) ?? []), { type: a, field }]);
  return into;
}, new Map<CrmObjectType, Array<{ type: CrmObjectType; field: string }>>());

export const isManyField = (field: string) => field.endsWith('Ids');

/** What to tell a caller who tries to write a derived association. */
export function derivedAssociationHint(type: CrmObjectType, field: string): string {
  if (type === 'User') return `set ownerUserId on the ${field.replace(/Ids$/, '')} instead`;
  return type === 'Event' ? 'set eventId on the EventAttendee instead' : 'set associationId on the EventAttendee instead';
}

/** One id held in an association field, and where it points. */
export interface Edge {
  field: string;
  target: CrmObjectType;
  inverse: string | undefined;
  id: string;
}

/** Every link a record holds. */
export function edgesOf(type: CrmObjectType, record: CrmRecord): Edge[] {
  const edges: Edge[] = [];
  const associations = record.associations as Record<string, string | string[] | null>;
  for (const [field, value] of Object.entries(associations)) {
    if (value === null) continue;
    const link = linkOf(type, field, record);
    if (!link) continue;
    for (const id of Array.isArray(value) ? value : [value]) edges.push({ field, target: link.target, inverse: link.inverse, id });
  }
  return edges;
}

/** The link behind a field, resolving the attendee's polymorphic `associationId`. */
export function linkOf(type: CrmObjectType, field: string, record: CrmRecord): Link | undefined {
  if (type === 'EventAttendee' && field === 'associationId') {
    const kind = (record as CrmRecord<'EventAttendee'>).associatedObjectType;
    if (kind === 'Contact' || kind === 'Lead') return { target: kind, inverse: 'eventAttendeeIds' };
    if (kind === 'User') return { target: 'User', inverse: undefined };
    return undefined;
  }
  return LINKS.get(`${type}.${field}`);
}

export const edgeKey = (edge: Edge) => `${edge.field}\u0000${edge.target}\u0000${edge.id}`;
