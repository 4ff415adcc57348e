import type { CrmObjectType, CrmRecord } from '../model/crm.js';
import type { EngagementCollection, EngagementUser, Mailbox } from '../model/engagement.js';
import type { IntegrationId } from '../model/integrations.js';
import type { Entry } from '../store/ordered-collection.js';
import type { ActivityCollection } from './engagement-activity.js';
import type { NativeObject, WritePolicy } from './rest-engine.js';
import type { DownstreamAnswer, DownstreamContext, DownstreamRequest, DownstreamResponse, FaultAnswers } from './types.js';

/** One simulated downstream system. */
export interface DownstreamSystem {
  readonly integrationId: IntegrationId;
  /** Answers a passthrough request, a long walk in pieces. Never throws for bad input: a native-style 4xx instead. */
  answer(request: DownstreamRequest, context: DownstreamContext): DownstreamAnswer;
  /** {@link answer}, run to its end at once. */
  handle(request: DownstreamRequest, context: DownstreamContext): DownstreamResponse;
  /** A CRM record in this system's native shape, custom fields included (`additional`). */
  nativeRecord(type: CrmObjectType, record: CrmRecord, extra: Record<string, unknown>, context: DownstreamContext): Record<string, unknown>;
  /** An engagement record (mailbox or user) in this system's native shape (`additional`). */
  nativeEngagement(
    collection: EngagementCollection,
    record: Mailbox | EngagementUser,
    extra: Record<string, unknown>,
    context: DownstreamContext,
  ): Record<string, unknown>;
  /**
   * Its native objects, each with the unified type it keeps (Salesforce `Opportunity` for Deal, a
   * Pipedrive `Activity` for Task): what the unified API writes `additional` through, and what `details` lists.
   */
  readonly nativeObjects: readonly NativeObject[];
  /** What it does with a native field it does not know or may not write, on those writes. */
  readonly writePolicy: WritePolicy;
  /** Its rate-limit and server-error answers, in its documented shapes (`<system>/faults.ts`). */
  readonly faultAnswers: FaultAnswers;
  /** An engagement platform's own record (task, action, sequence, call, email, disposition) in its native shape (`additional`); the CRMs have none. */
  nativeActivity?(collection: Exclude<ActivityCollection, 'users' | 'mailboxes'>, entry: Entry<never>, context: DownstreamContext): Record<string, unknown>;
}
