import type { ServiceEvent } from '../model/events.js';
import { jsonInPieces } from '../shared/json-in-pieces.js';
import { runInTurns } from '../shared/pieces.js';
import type { AttemptChaos } from '../webhooks/chaos.js';
import type { Delivery, DeliveryState } from '../webhooks/delivery.js';
import { signPayload } from '../webhooks/signature.js';
import type { RunConnection } from './target.js';

/** One attempt in the transcript: what was sent and what came back. Network durations are left out so a seeded instant run is byte-identical. */
export interface TranscriptAttempt {
  attempt: number;
  /** Sandbox time of the attempt. */
  time: string;
  /** The `x-service-timestamp` sent. */
  timestamp: string;
  /** The `x-service-signature` sent. */
  signature: string;
  /** The receiver's status, or null (network error, timeout, chaos outage). */
  status: number | null;
  error: string | null;
  trigger: string;
  chaos?: AttemptChaos;
}

/** One event of the run, with every attempt to deliver it. */
export interface TranscriptEvent {
  eventId: string;
  connectionId: string;
  type: ServiceEvent['type'];
  /** `Deal CREATE`, `STATUS_CHANGE READY`: for people reading the report. */
  summary: string;
  state: DeliveryState;
  failureReason: string | null;
  /** The exact JSON text posted and signed. */
  body: string;
  attempts: TranscriptAttempt[];
}

/** One expectation, receiver probe or step failure. */
export interface CheckResult {
  /** The step's index, or null for the checks made at the end of the run. */
  step: number | null;
  kind: string;
  ok: boolean;
  message: string;
}

/** A receiver-check probe's outcome. */
export interface ProbeResult {
  probe: string;
  /** What a safe receiver answers: `2xx` or `non-2xx`. */
  expected: '2xx' | 'non-2xx' | 'in time';
  /** The status, or the error when there was none. */
  got: string;
  ok: boolean;
  /** Real milliseconds the receiver took. */
  durationMs: number;
  /** What a fix looks like, when it failed. */
  fix: string | null;
  /** The first probe's answers while the receiver was not ready yet (no answer, 5xx, 429), before it was tried again. */
  earlierAnswers?: string[];
}

/** What a run did and whether it held: printed by `--json`, answered by the control API and `runScenario()`. */
export interface ScenarioReport {
  scenario: string;
  description: string;
  ok: boolean;
  /** 0 when every expectation held and every event was accepted, 1 otherwise. */
  exitCode: 0 | 1;
  seed: number | null;
  speed: string;
  /** Sandbox time when the run started. */
  startTime: string;
  /** The main connection: its accessToken verifies the signatures. */
  connection: RunConnection;
  /** Every connection the run used, by name (`main` and those named by `link`). */
  connections: Record<string, RunConnection>;
  steps: number;
  events: TranscriptEvent[];
  checks: CheckResult[];
  probes: ProbeResult[];
  /** Why the run failed, one line each. */
  failures: string[];
}

/** The event as a short label. */
export function summarize(event: ServiceEvent): string {
  return event.type === 'STATUS_CHANGE' ? `STATUS_CHANGE ${event.data.status}` : `${event.data.objectType} ${event.data.eventType}`;
}

/**
 * A delivery log entry as a transcript event, signatures recomputed from the connection's token.
 * `body` is `JSON.stringify(delivery.event)`, given when the caller has it already (the log's text).
 */
export function transcriptEvent(delivery: Delivery, accessToken: string, body = JSON.stringify(delivery.event)): TranscriptEvent {
  return {
    eventId: delivery.eventId,
    connectionId: delivery.connectionId,
    type: delivery.type,
    summary: summarize(delivery.event),
    state: delivery.state,
    failureReason: delivery.failureReason,
    body,
    attempts: delivery.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      time: attempt.time,
      timestamp: attempt.timestamp,
      signature: signPayload(accessToken, body, attempt.timestamp),
      status: attempt.status,
      error: attempt.error,
      trigger: attempt.trigger,
      ...(attempt.chaos ? { chaos: attempt.chaos } : {}),
    })),
  };
}

/** What stands for the events while the rest of a report is serialised: no value of a report can hold it as JSON text. */
const EVENTS_PLACEHOLDER = '\u0000events';

/**
 * The report as JSON text (the very text `JSON.stringify(report)` gives) and as its UTF-8 bytes,
 * serialised and encoded one event at a time with turns of the event loop between
 * ({@link jsonInPieces}, run in turns): a server answering a run of 10,000 events is not held for the hundreds
 * of milliseconds one `JSON.stringify` and one encoding of the whole report take.
 */
export function reportJson(report: ScenarioReport): Promise<{ json: string; encoded: Uint8Array }> {
  const marker = `"events":${JSON.stringify(EVENTS_PLACEHOLDER)}`;
  const rest = JSON.stringify({ ...report, events: EVENTS_PLACEHOLDER });
  const at = rest.indexOf(marker);
  return runInTurns(
    jsonInPieces(
      (function* () {
        yield `${rest.slice(0, at)}"events":[`;
        for (const [index, event] of report.events.entries()) yield index === 0 ? JSON.stringify(event) : `,${JSON.stringify(event)}`;
        yield `]${rest.slice(at + marker.length)}`;
      })(),
    ),
  );
}
