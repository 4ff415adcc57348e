import { formatTimeLeft } from '../shared/duration.js';
import type { EventSummary, FedAttempt } from '../webhooks/attempt-feed.js';
import type { DeliveryAttempt } from '../webhooks/delivery.js';

/** One delivery attempt as `serve` and `listen` print it: an item of `GET /sandbox/attempts` (its `seq` aside). */
export type AttemptLineInput = Omit<FedAttempt, 'seq'>;

/** `OBJECT_CHANGE Contact CREATE`, `STATUS_CHANGE READY`. */
export function eventWords(event: EventSummary): string {
  return event.type === 'STATUS_CHANGE' ? `STATUS_CHANGE ${event.status}` : `OBJECT_CHANGE ${event.objectType} ${event.eventType}`;
}

/** `attempt 2 of 8`, or what started an attempt outside the schedule. */
export function attemptWords(attempt: DeliveryAttempt, maxAttempts: number): string {
  if (attempt.trigger === 'chaos') return `attempt ${attempt.attempt}, a chaos duplicate`;
  if (attempt.trigger === 'redeliver') return `attempt ${attempt.attempt}, by hand`;
  return `attempt ${attempt.attempt} of ${maxAttempts}`;
}

/** What comes next: `next in 5s`, `failed`, nothing when it succeeded. */
function nextWords(input: AttemptLineInput, now: number): string {
  if (input.state === 'failed') return '; failed, no attempt left (redeliver it by hand)';
  if (input.state === 'retrying' && input.nextAttemptTime !== null) {
    return `; next in ${formatTimeLeft(Date.parse(input.nextAttemptTime) - now)}`;
  }
  return '';
}

/**
 * One line: the event, its eventId and connection (short), the receiver's answer and the time it
 * took, and which attempt it was, with what comes next.
 *
 * @example attemptLine(item) // 'OBJECT_CHANGE Contact CREATE 3f2a91c0… connection 84f4fae9… → 401 in 3ms (attempt 2 of 8; next in 5s)'
 */
export function attemptLine(input: AttemptLineInput, options: { url?: boolean; now?: number } = {}): string {
  const { attempt } = input;
  const answer = attempt.status === null ? (attempt.error ?? 'no answer') : String(attempt.status);
  const to = options.url ? ` ${attempt.webhookUrl}` : '';
  return `${eventWords(input.event)} ${input.eventId.slice(0, 8)}… connection ${input.connectionId.slice(0, 8)}… →${to} ${answer} in ${attempt.durationMs}ms (${attemptWords(attempt, input.maxAttempts)}${nextWords(input, options.now ?? Date.now())})`;
}
