import type { z } from 'zod';
import type { ServiceEvent } from '../model/events.js';
import type { Delivery } from '../webhooks/delivery.js';
import { summarize } from './report.js';
import type { STEP_SCHEMAS } from './schema.js';

type Expect = z.infer<(typeof STEP_SCHEMAS)['expect']>;
type Matcher = NonNullable<Expect['events']>[number];

/** One expectation's verdict. */
export interface Verdict {
  kind: string;
  ok: boolean;
  message: string;
  /** Events whose failure this expectation asked for: they do not fail the run. */
  excused?: string[];
  /**
   * Whether waiting can change the verdict no more: it holds, or it can never hold (an event
   * that does not match, one too many, a delivery already failed). An expectation waits, letting
   * sandbox time pass, until it is final or time runs out.
   */
  final: boolean;
}

/** An `events` verdict, and the events it used up (the next `events` check starts after them). */
export interface EventsVerdict extends Verdict {
  consumed: string[];
}

/** Does `actual` contain everything `expected` says? Objects match by the keys given, arrays and scalars exactly. */
export function partialMatch(expected: unknown, actual: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([key, value]) => partialMatch(value, (actual as Record<string, unknown>)[key]));
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((value, index) => partialMatch(value, actual[index]));
  }
  return Object.is(expected, actual);
}

/** Why an event does not match, or null when it does. */
function mismatchOf(matcher: Matcher, event: ServiceEvent): string | null {
  if (matcher.type !== undefined && event.type !== matcher.type) return `type is ${event.type}, not ${matcher.type}`;
  if (event.type === 'STATUS_CHANGE') {
    if (matcher.objectType !== undefined || matcher.eventType !== undefined || matcher.record !== undefined) return 'it is a STATUS_CHANGE';
    if (matcher.status !== undefined && event.data.status !== matcher.status) return `status is ${event.data.status}, not ${matcher.status}`;
    return null;
  }
  if (matcher.status !== undefined) return 'it is an OBJECT_CHANGE';
  if (matcher.objectType !== undefined && event.data.objectType !== matcher.objectType)
    return `objectType is ${event.data.objectType}, not ${matcher.objectType}`;
  if (matcher.eventType !== undefined && event.data.eventType !== matcher.eventType) return `eventType is ${event.data.eventType}, not ${matcher.eventType}`;
  if (matcher.record !== undefined && !partialMatch(matcher.record, event.data.record)) {
    const record = event.data.record as unknown as Record<string, unknown>;
    const differing = Object.keys(matcher.record).filter((key) => !partialMatch(matcher.record![key], record[key]));
    return `record differs in ${differing.map((key) => `${key} (got ${JSON.stringify(record[key])})`).join(', ')}`;
  }
  return null;
}

const describe = (matcher: Matcher) =>
  [matcher.type, matcher.objectType, matcher.eventType, matcher.status, matcher.record ? JSON.stringify(matcher.record) : undefined]
    .filter(Boolean)
    .join(' ') || 'any event';

/**
 * The connection's events since the last `events` check (`window`, oldest first, only those
 * counted: `of` filters them before) must be exactly these, in order, and delivered. Events in
 * `early` arrived while an earlier expectation let time pass to wait for its own: they may match
 * here, or wait for a later check, but never count as unexpected.
 */
export function checkEvents(matchers: Matcher[], window: Delivery[], early: ReadonlySet<string>): EventsVerdict {
  const arrived = window.map((delivery) => `${summarize(delivery.event)} (${delivery.state})`);
  const shown = arrived.length === 0 ? 'none' : arrived.join(', ');
  // Match in order; an early event that does not fit the next matcher is passed over, any other is a mismatch.
  const matched: Delivery[] = [];
  const unexpected: Delivery[] = [];
  let mismatch: { index: number; why: string } | undefined;
  for (const delivery of window) {
    const matcher = matchers[matched.length];
    const why = matcher === undefined ? 'one too many' : mismatchOf(matcher, delivery.event);
    if (why === null) matched.push(delivery);
    else if (early.has(delivery.eventId)) continue;
    else if (matcher === undefined) unexpected.push(delivery);
    else mismatch ??= { index: matched.length, why };
  }
  // Used up: every event but the early ones no matcher took (they wait for a later check).
  const taken = new Set(matched);
  const counted = window.filter((delivery) => !early.has(delivery.eventId) || taken.has(delivery));
  const consumed = counted.map((delivery) => delivery.eventId);
  const got = counted.length;
  const fail = (message: string, final: boolean): EventsVerdict => ({ kind: 'events', ok: false, message, final, consumed });
  if (got !== matchers.length || unexpected.length > 0) {
    // Fewer may still come; more, or one that does not fit, never go away.
    return fail(`expected ${matchers.length} event(s) since the last check, got ${got}: ${shown}`, got > matchers.length || mismatch !== undefined);
  }
  if (mismatch) {
    return fail(`event ${mismatch.index + 1} should be ${describe(matchers[mismatch.index]!)}, but ${mismatch.why}; events: ${shown}`, true);
  }
  const undelivered = matched.findIndex((delivery) => delivery.state !== 'succeeded');
  if (undelivered !== -1) {
    const delivery = matched[undelivered]!;
    return fail(`event ${undelivered + 1} (${summarize(delivery.event)}) is not delivered: ${delivery.state}; events: ${shown}`, delivery.state === 'failed');
  }
  return { kind: 'events', ok: true, message: `${matchers.length} event(s) delivered in order: ${shown}`, final: true, consumed };
}

const FINISHED = new Set(['succeeded', 'failed']);

/** Every delivery (or exactly `count`) in the given state. */
export function checkDeliveries(expected: NonNullable<Expect['deliveries']>, deliveries: Delivery[]): Verdict {
  const inState = deliveries.filter((delivery) => delivery.state === expected.state);
  const states = countBy(deliveries.map((delivery) => delivery.state));
  const ok = expected.count === undefined ? deliveries.length > 0 && inState.length === deliveries.length : inState.length === expected.count;
  const wanted = expected.count === undefined ? `every delivery ${expected.state}` : `${expected.count} deliveries ${expected.state}`;
  // A finished delivery stays finished: "every one succeeded" cannot hold once one failed, nor a count of finished ones once passed.
  const final =
    ok ||
    (FINISHED.has(expected.state) &&
      (expected.count === undefined
        ? deliveries.some((delivery) => FINISHED.has(delivery.state) && delivery.state !== expected.state)
        : inState.length > expected.count));
  return {
    kind: 'deliveries',
    ok,
    message: `${wanted}: ${ok ? 'yes' : 'no'} (${states || 'no deliveries'})`,
    final,
    ...(ok && expected.state === 'failed' ? { excused: inState.map((delivery) => delivery.eventId) } : {}),
  };
}

/** The receiver's answer to the last attempt of each delivery that has one. */
export function checkReceiver(expected: NonNullable<Expect['receiver']>, deliveries: Delivery[]): Verdict {
  const answers = deliveries.flatMap((delivery) => {
    const last = delivery.attempts.at(-1);
    return last ? [{ delivery, status: last.status, error: last.error }] : [];
  });
  const wanted = expected.status;
  const fits = (status: number | null) => status !== null && (typeof wanted === 'number' ? status === wanted : Math.floor(status / 100) === Number(wanted[0]));
  const wrong = answers.filter((answer) => !fits(answer.status));
  if (answers.length === 0) return { kind: 'receiver', ok: false, message: `no attempt reached the receiver yet; expected ${wanted}`, final: false };
  if (wrong.length === 0) return { kind: 'receiver', ok: true, message: `the receiver answered ${wanted} to all ${answers.length} event(s)`, final: true };
  const first = wrong[0]!;
  return {
    kind: 'receiver',
    ok: false,
    message: `the receiver answered ${first.status ?? first.error} to ${summarize(first.delivery.event)} (${first.delivery.eventId}), expected ${wanted}; ${wrong.length} of ${answers.length} differ`,
    // A retry may still answer otherwise; a finished delivery's last answer is its last.
    final: wrong.some((answer) => FINISHED.has(answer.delivery.state)),
  };
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${count} ${value}`).join(', ');
}
