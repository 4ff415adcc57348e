/**
 * Words the seed, the simulated systems and the unified objects share: the simulated org's deal
 * stages, task statuses and priorities, event types and custom fields, and the parts of an
 * engagement address. Kept here, below every layer that speaks them.
 */

/** Deal stages with what they imply, in pipeline order. */
export const DEAL_STAGES = [
  { stage: 'Prospecting', probability: '0.1' },
  { stage: 'Qualification', probability: '0.2' },
  { stage: 'Needs Analysis', probability: '0.4' },
  { stage: 'Proposal', probability: '0.6' },
  { stage: 'Negotiation', probability: '0.8' },
  { stage: 'Closed Won', probability: '1' },
  { stage: 'Closed Lost', probability: '0' },
] as const;

export const TASK_STATUSES = ['Not Started', 'In Progress', 'Waiting on someone else', 'Deferred'] as const;
export const TASK_PRIORITIES = ['High', 'Normal', 'Low'] as const;
export const EVENT_TYPES = ['Meeting', 'Call', 'Demo', 'Lunch', 'Conference'] as const;

/**
 * The simulated org's custom fields, the same in every system, which names them its own way. The
 * seed gives every record these; a write to any other custom field is an unknown field.
 */
export const CUSTOM_FIELD_KEYS = ['region', 'tier', 'source', 'score'] as const;

/** The simulated org's custom fields: the pick lists' values, and `score`, a number from 0 to 100. */
export const CUSTOM_FIELD_OPTIONS = {
  region: ['NA', 'EMEA', 'APAC', 'LATAM'],
  tier: ['Gold', 'Silver', 'Bronze'],
  source: ['Web', 'Referral', 'Event', 'Outbound', 'Partner'],
} as const;

/** The parts of an engagement contact's address (the document's EngAddress). */
export const ENGAGEMENT_ADDRESS_PARTS = ['line1', 'line2', 'city', 'state', 'postalCode', 'country'] as const;
export type EngagementAddressPart = (typeof ENGAGEMENT_ADDRESS_PARTS)[number];
