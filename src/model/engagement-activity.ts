/**
 * The engagement platforms' own work items, held per connection: tasks assigned to an engagement
 * user (Outreach and Salesloft `tasks`, Apollo tasks) and actions, the steps of a sequence or
 * cadence a user owes a prospect (Outreach `sequenceStates`, Salesloft `actions`). An engagement
 * user's `associations.taskIds` and `actionIds` name them; each names its user back.
 */

export const ENGAGEMENT_TASK_KINDS = ['call', 'email', 'action_item', 'linkedin'] as const;
export const ENGAGEMENT_ACTION_KINDS = ['email', 'call', 'linkedin', 'other'] as const;
export const ENGAGEMENT_ACTION_STATES = ['active', 'paused', 'finished'] as const;

export type EngagementTask = {
  /** 32 hex characters, as engagement users' ids. */
  id: string;
  kind: (typeof ENGAGEMENT_TASK_KINDS)[number];
  subject: string;
  note: string | null;
  dueAt: string;
  state: 'incomplete' | 'complete';
  completedAt: string | null;
  createdTime: string;
  modifiedTime: string;
  /** The engagement user it is assigned to, and the CRM Contact (prospect) it is about. */
  associations: { userId: string; contactId: string | null };
};

export type EngagementAction = {
  id: string;
  kind: (typeof ENGAGEMENT_ACTION_KINDS)[number];
  /** Which of the org's sequences (cadences), 1-based, and which step of it. */
  sequence: number;
  step: number;
  state: (typeof ENGAGEMENT_ACTION_STATES)[number];
  dueAt: string | null;
  createdTime: string;
  modifiedTime: string;
  associations: { userId: string; contactId: string | null };
};

/** The org's sequences (Outreach) or cadences (Salesloft), by number. */
export const ENGAGEMENT_SEQUENCES = ['Outbound - New Leads', 'Re-engage Closed Lost', 'Event Follow-up', 'Inbound Demo Request'] as const;
/** Steps in every sequence. */
export const SEQUENCE_STEPS = 5;
