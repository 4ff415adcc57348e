import { CONNECTION_STATUSES } from '../../model/connection-statuses.js';
import { CRM_OBJECT_TYPES, type CrmObjectType } from '../../model/crm-object-types.js';

// The model's own lists, from its modules without zod (the bundle stays small).
export const OBJECT_TYPES = CRM_OBJECT_TYPES;
export const STATUSES = CONNECTION_STATUSES;

/** Where the tab keeps the API token (sessionStorage). */
export const TOKEN_KEY = 'crm-sandbox.apiToken';
/** The key a sandbox accepts when none is configured (DEFAULT_API_KEY). */
export const DEFAULT_KEY = 'sandbox-api-key';
/** The addresses of this machine: where the default key is tried before asking for one. */
export const LOOPBACK = /^(localhost|[\w-]+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/;
export const POLL_MS = 1000;
export const PAGE_SIZE = 10;
export const MAX_ROWS = 100;

/** The columns shown per record type, beside the id. */
const COLUMNS: Record<CrmObjectType, readonly string[]> = {
  Contact: ['firstName', 'lastName', 'email'],
  Account: ['name', 'industry', 'website'],
  Deal: ['name', 'stage', 'amount'],
  Lead: ['firstName', 'lastName', 'email'],
  User: ['firstName', 'lastName', 'email'],
  Note: ['content'],
  Task: ['subject', 'status', 'dueDate'],
  Event: ['subject', 'type', 'startDateTime'],
  EventAttendee: ['status', 'associatedObjectType', 'email'],
  Email: ['subject', 'from', 'messageDate'],
};

/** A record type's columns; none for a type the list does not know. */
export function columnsOf(type: string): readonly string[] | undefined {
  return (COLUMNS as Record<string, readonly string[]>)[type];
}

/** Fields every record has: not among a record type's columns when they are picked from its records. */
export const RECORD_BASE = ['id', 'nativeId', 'createdTime', 'modifiedTime', 'associations', 'additional'];

/** An engagement object the Records card shows: its list path and the key of its records, and its columns. */
export interface EngagementView {
  list: string;
  columns: readonly string[];
}

/**
 * The unified engagement objects an engagement connection (Outreach, Salesloft, Apollo) also
 * shows, read only, through GET /engagement/{list} with its accessToken, by the name picked.
 */
export const ENGAGEMENT_VIEWS: Record<string, EngagementView> = {
  'Engagement contacts': { list: 'contacts', columns: ['firstName', 'lastName', 'jobTitle'] },
  'Engagement sequences': { list: 'sequences', columns: ['name', 'isEnabled', 'numSteps', 'scheduledCount'] },
  'Engagement actions': { list: 'actions', columns: ['type', 'status', 'dueDate'] },
  'Engagement tasks': { list: 'tasks', columns: ['type', 'status', 'body', 'dueDate'] },
  'Engagement calls': { list: 'calls', columns: ['direction', 'disposition', 'durationSeconds'] },
  'Engagement emails': { list: 'emails', columns: ['to', 'subject', 'isBounced'] },
};

export const ENGAGEMENT_INTEGRATIONS = ['outreach', 'salesloft', 'apollo'];
/** Fields the sandbox sets itself: left out of the edit form. */
export const READ_ONLY = ['id', 'nativeId', 'createdTime', 'modifiedTime', 'expectedRevenue', 'associations', 'additional'];
