/**
 * The CRM object types, spelled as in OBJECT_CHANGE events and the control API: the spec's nine,
 * then Email, which the service's v1 document added as a unified object (its writes emit no event
 * unless `emailEvents` is on: the spec's objectType list has no Email).
 */
export const CRM_OBJECT_TYPES = ['Contact', 'Account', 'Deal', 'Lead', 'User', 'Note', 'Task', 'Event', 'EventAttendee', 'Email'] as const;
export type CrmObjectType = (typeof CRM_OBJECT_TYPES)[number];
