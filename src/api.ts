/**
 * The package's public API, shared by the Node entry (`crm-sandbox`) and the browser entry
 * (`crm-sandbox/browser`); each adds its own `createSandbox`, which passes its platform.
 */

import * as clientCheckCode from './client-check/code.js';
import { provideClientCheckCode } from './core/client-check-slot.js';

// client-check's code, for sandbox.startClientCheck() (synchronous): the core does not import it,
// so that `crm-sandbox serve` loads it only with --client-check (src/core/client-check-slot.ts).
provideClientCheckCode(clientCheckCode);

export { FAULT_HEADERS, type FaultRule } from './core/faults.js';
export type { SandboxRequest, SandboxResponse } from './core/http.js';
export type { JournalEntry, JournalFilter, JournalOptions } from './core/journal.js';
export { buildOpenApiDocument, type OpenApiOptions } from './core/openapi/build-document.js';
export {
  DEFAULT_API_KEY,
  DEFAULT_LIMITS,
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_SEED,
  DEFAULT_START_TIME,
  type SandboxOptions,
} from './core/options.js';
export { type EventListener, Sandbox } from './core/sandbox.js';
export { type SandboxSnapshot, type ServerSnapshot, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type TenantSnapshot } from './core/snapshot.js';
export type { ConnectionStatus, ConnectionSummary, ExchangeResult, Webhook } from './model/connection.js';
export type {
  Account,
  CalendarEvent,
  Contact,
  CrmObjectType,
  CrmUser,
  Deal,
  DeletedRecord,
  Email,
  EventAttendee,
  Lead,
  Note,
  Task,
  /** A record as the service answers it: see {@link UnifiedRecord}. */
  UnifiedRecord as CrmRecord,
  UnifiedRecord,
} from './model/crm.js';
export { CRM_OBJECT_TYPES, EVENT_OBJECT_TYPES } from './model/crm.js';
export type { EngagementUser, Mailbox } from './model/engagement.js';
export { EVENT_HEADERS, type ObjectChangeEvent, type ServiceEvent, type StatusChangeEvent } from './model/events.js';
export { INTEGRATION_IDS, type IntegrationId } from './model/integrations.js';
export type { ScenarioProblem } from './scenarios/check.js';
export type { RunScenarioOptions } from './scenarios/index.js';
export type { CheckResult, ProbeResult, ScenarioReport, TranscriptAttempt, TranscriptEvent } from './scenarios/report.js';
export type { ProbeName, ScenarioDefinition, ScenarioStep, StepKind } from './scenarios/schema.js';
export { type Duration, parseDuration } from './shared/duration.js';
export { ApiError, type ErrorBody, ErrorCode, SandboxConfigError } from './shared/errors.js';
export type { FixtureFile } from './store/fixtures.js';
export { type DatasetSize, DEFAULT_DATASET } from './store/seed/seed-connection.js';
export type { AttemptChaos, ChaosSettings } from './webhooks/chaos.js';
export type { Delivery, DeliveryAttempt, DeliveryState } from './webhooks/delivery.js';
export { signPayload, type VerifySignatureInput, verifySignature } from './webhooks/signature.js';
