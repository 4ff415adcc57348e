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
  /** The mailbox a started sequence sends from (actions seeded before sequence starts have none). */
  mailboxId?: string;
  /**
   * Each step of an enrolment is an action of its own (decision 0045): a later step names the
   * enrolment's first action here (the first names none; it is the enrolment the platforms show
   * as one sequence state, cadence membership or campaign status).
   */
  enrolment?: string;
  /** When the step was done (completed); absent while it is not, and on steps seeded done. */
  completedAt?: string;
};

/** The org's sequences (Outreach) or cadences (Salesloft), by number. */
export const ENGAGEMENT_SEQUENCES = ['Outbound - New Leads', 'Re-engage Closed Lost', 'Event Follow-up', 'Inbound Demo Request'] as const;
/** Steps in every sequence. */
export const SEQUENCE_STEPS = 5;

/**
 * The engagement platforms' other records, held per connection beside tasks and actions: the
 * org's sequences (Outreach sequences, Salesloft cadences, Apollo emailer campaigns), the calls
 * its users logged, the emails its sequences and users sent, and the call dispositions a call is
 * logged with. A started sequence is an action (a sequence state, a cadence membership, an Apollo
 * contact campaign status) that names the mailbox it sends from.
 */
export type EngagementSequence = {
  /** 32 hex characters. Its insertion number is its native id and what an action's `sequence` names. */
  id: string;
  name: string;
  /** A disabled (archived) sequence takes no new contacts. */
  enabled: boolean;
  tags: string[];
  numSteps: number;
  createdTime: string;
  modifiedTime: string;
};

export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;

export type EngagementCall = {
  id: string;
  direction: (typeof CALL_DIRECTIONS)[number];
  /** The number dialled (or that dialled in). */
  phone: string | null;
  /** The call disposition's id. */
  dispositionId: string | null;
  durationSeconds: number | null;
  note: string | null;
  createdTime: string;
  modifiedTime: string;
  /** The engagement user who called, the CRM Contact called, and the task or action it completed. */
  associations: { userId: string | null; contactId: string | null; taskId: string | null; actionId: string | null };
};

export type EngagementEmail = {
  id: string;
  to: string;
  cc: string[];
  bcc: string[];
  subject: string;
  bodyText: string | null;
  bodyHtml: string | null;
  isBounced: boolean;
  openCount: number;
  clickCount: number;
  replied: boolean;
  createdTime: string;
  modifiedTime: string;
  /** Its sender (engagement user, mailbox), recipient (CRM Contact), and the sequence step (action) or task that sent it. */
  associations: {
    userId: string | null;
    mailboxId: string | null;
    contactId: string | null;
    taskId: string | null;
    actionId: string | null;
    sequenceId: string | null;
  };
};

export type CallDisposition = { id: string; name: string; key: string; createdTime: string; modifiedTime: string };

/** The steps of a sequence, by number: what each asks of its user (a started contact is at step 1, an email). */
export const SEQUENCE_STEP_KINDS: readonly EngagementAction['kind'][] = ['email', 'call', 'email', 'linkedin', 'other'];
