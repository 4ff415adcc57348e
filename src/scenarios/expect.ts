import type { z } from 'zod';
import type { ServiceEvent } from '../model/events.js';
import type { Delivery } from '../webhooks/dispatcher.js';
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
function mismatch(matcher: Matcher, event: ServiceEvent): string | null {
  if (matcher.type !== undefined && event.type !== matcher.type) return `type is ${event.type}, not ${matcher.type}`;
  if (event.type === 'STATUS_CHANGE') {
    if (matcher.objectType !== undefined || matcher.eventType !== undefined || matcher.record !== undefined) return 'it is a STATUS_CHANGE';
    if (matcher.status !== undefined && event.data.status !== matcher.status) return `status is ${event.data.status}, not ${matcher.status}`;
    return null;
  }
  if (matcher.status !== undefined) return 'it is an OBJECT_CHANGE';
  if (matcher.objectType !== undefined && event.data.objectType !== matcher.objectType) return `objectType is ${event.data.objectType}, not ${matcher.objectType}`;
  if (matcher.eventType !== undefined && event.data.eventType !== matcher.eventType) return `eventType is ${event.data.eventType}, not ${matcher.eventType}`;
  if (matcher.record !== undefined && !partialMatch(matcher.record, event.data.record)) {
    const record = event.data.record as unknown as Record<string, unknown>;
    const differing = Object.keys(matcher.record).filter((key) => !partialMatch(matcher.record![key], record[key]));
    return `record differs in ${differing.map((key) => `${key} (got ${JSON.stringify(record[key])})`).join(', ')}`;
  }
  return null;
}

const describe = (matcher: Matcher) =>
  [matcher.type, matcher.objectType, matcher.eventType, matcher.status, matcher.record ? JSON.stringify(matcher.record) : undefined].filter(Boolean).join(' ') || 'any event';

/**
 * The events since the last `events` check must be exactly these, in order, and delivered.
 * `deliveries` are the run's deliveries of the connection, oldest first.
 */
export function checkEvents(matchers: Matcher[], deliveries: Delivery[]): Verdict {
  const arrived = deliveries.map((delivery) => `${summarize(delivery.event)} (${delivery.state})`);
  const shown = arrived.length === 0 ? 'none' : arrived.join(', ');
  if (deliveries.length !== matchers.length) {
    return { kind: 'events', ok: false, message: `expected ${matchers.length} event(s) since the last check, got ${deliveries.length}: ${shown}` };
  }
  for (const [index, matcher] of matchers.entries()) {
    const delivery = deliveries[index]!;
    const why = mismatch(matcher, delivery.event);
    if (why) return { kind: 'events', ok: false, message: `event ${index + 1} should be ${describe(matcher)}, but ${why}; events: ${shown}` };
    if (delivery.state !== 'succeeded') {
      return { kind: 'events', ok: false, message: `event ${index + 1} (${summarize(delivery.event)}) is not delivered: ${delivery.state}; events: ${shown}` };
    }
  }
  return { kind: 'events', ok: true, message: `${matchers.length} event(s) delivered in order: ${shown}` };
}

/** Every delivery (or exactly `count`) in the given state. */
export function checkDeliveries(expected: NonNullable<Expect['deliveries']>, deliveries: Delivery[]): Verdict {
  const inState = deliveries.filter((delivery) => delivery.state === expected.state);
  const states = countBy(deliveries.map((delivery) => delivery.state));
  const ok = expected.count === undefined ? deliveries.length > 0 && inState.length === deliveries.length : inState.length === expected.count;
  const wanted = expected.count === undefined ? `every delivery ${expected.state}` : `${expected.count} deliveries ${expected.state}`;
  return {
    kind: 'deliveries',
    ok,
    message: `${wanted}: ${ok ? 'yes' : 'no'} (${states || 'no deliveries'})`,
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
  const fits = (status: number | null) =>
    status !== null && (typeof wanted === 'number' ? status === wanted : Math.floor(status / 100) === Number(wanted[0]));
  const wrong = answers.filter((answer) => !fits(answer.status));
  if (answers.length === 0) return { kind: 'receiver', ok: false, message: `no attempt reached the receiver yet; expected ${wanted}` };
  if (wrong.length === 0) return { kind: 'receiver', ok: true, message: `the receiver answered ${wanted} to all ${answers.length} event(s)` };
  const first = wrong[0]!;
  return {
    kind: 'receiver',
    ok: false,
    message: `the receiver answered ${first.status ?? first.error} to ${summarize(first.delivery.event)} (${first.delivery.eventId}), expected ${wanted}; ${wrong.length} of ${answers.length} differ`,
  };
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${count} ${value}`).join(', ');
}
