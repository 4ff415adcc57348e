import { EVENT_HEADERS, type StatusChangeEvent } from '../model/events.js';
import type { Random } from '../shared/random.js';
import { signPayload } from '../webhooks/signature.js';
import type { HttpTransport } from '../webhooks/transport.js';
import type { ProbeResult } from './report.js';
import { PROBES, type ProbeName } from './schema.js';
import { sleep } from './target.js';
import { networkAdvice } from './unreachable.js';

/** The fix when a probe got no HTTP answer at all (a network error). */
const unreachable = (url: string, error: string) => networkAdvice(url, error);

/** How far in the past the stale-timestamp probe is: well outside any sensible tolerance. */
const STALE_BY_SECONDS = 3600;

/**
 * Waits (real time) before each new try of the first probe while the receiver is not ready (no
 * answer, 5xx, 429), as the service retries a delivery: a receiver still starting up in CI is
 * judged once it answers, not by its first seconds. About 8 s in all.
 */
const WARM_UP_MS = [250, 500, 1000, 2000, 4000];

/** An answer that says "not ready yet" rather than anything about signatures. */
const notReady = (outcome: { status?: number | undefined; error?: string | undefined }) =>
  outcome.status === undefined ? !outcome.error!.startsWith('timeout') : outcome.status >= 500 || outcome.status === 429;

export interface ReceiverCheckInput {
  webhookUrl: string;
  connectionId: string;
  accessToken: string;
  probes?: readonly ProbeName[] | undefined;
  transport: HttpTransport;
  /** Real time, ms: the receiver judges timestamps by its own clock, whatever the run's speed. */
  realNow: () => number;
  /** Event ids of the probes. */
  random: Random;
  /** The attempt timeout the receiver must answer within. */
  timeoutMs: number;
  /** Real-time wait between tries of the first probe (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

const FIXES: Record<ProbeName, string> = {
  'valid-signature':
    'answer a correctly signed event with a 2xx: recompute sha256(accessToken + raw body + x-service-timestamp) over the raw body text (not re-serialised JSON), with the accessToken of the connection named by x-service-connection-id',
  'forged-signature': 'reject an event whose x-service-signature does not match what you compute (answer 401)',
  'tampered-body': 'verify the signature over the exact raw body before you parse or use it, and reject a mismatch',
  'missing-signature': 'reject an event without an x-service-signature header',
  'missing-timestamp': 'reject an event without an x-service-timestamp header',
  'stale-timestamp': 'reject a timestamp far from your clock, e.g. verifySignature({ ..., toleranceSeconds: 300 }): it stops replays',
  'duplicate-event': 'answer an eventId you already processed with a 2xx and do not process it twice (keep the eventIds you have seen)',
  'answers-in-time': 'answer within the attempt timeout: acknowledge first, do the work after answering',
};

const EXPECTED: Record<ProbeName, ProbeResult['expected']> = {
  'valid-signature': '2xx',
  'forged-signature': 'non-2xx',
  'tampered-body': 'non-2xx',
  'missing-signature': 'non-2xx',
  'missing-timestamp': 'non-2xx',
  'stale-timestamp': 'non-2xx',
  'duplicate-event': '2xx',
  'answers-in-time': 'in time',
};

/**
 * Sends probes to a webhook receiver and says, probe by probe, whether it behaves as a safe
 * consumer: accepts a signed event, rejects forged, tampered, unsigned and stale ones, takes a
 * duplicate without harm, answers in time. Probes are STATUS_CHANGE READY events with their
 * own eventIds, signed (or not) with the connection's accessToken and real timestamps.
 */
export async function checkReceiver(input: ReceiverCheckInput): Promise<ProbeResult[]> {
  const wanted = new Set(input.probes ?? PROBES);
  const event = (): string => JSON.stringify({ eventId: input.random.hex(32), type: 'STATUS_CHANGE', data: { status: 'READY' } } satisfies StatusChangeEvent);
  const nowSeconds = () => String(Math.floor(input.realNow() / 1000));
  const signed = (body: string, timestamp = nowSeconds()) => ({
    'content-type': 'application/json',
    [EVENT_HEADERS.timestamp]: timestamp,
    [EVENT_HEADERS.signature]: signPayload(input.accessToken, body, timestamp),
    [EVENT_HEADERS.connectionId]: input.connectionId,
  });
  const results: ProbeResult[] = [];
  let slowest = 0;
  const send = async (probe: ProbeName, headers: () => Record<string, string>, body: string, warmUp = false) => {
    const earlier: string[] = [];
    let started = performance.now();
    let outcome = await input.transport(input.webhookUrl, headers(), body, input.timeoutMs);
    for (const waitMs of warmUp ? WARM_UP_MS : []) {
      if (!notReady(outcome)) break;
      earlier.push(outcome.status === undefined ? outcome.error! : String(outcome.status));
      await (input.sleep ?? sleep)(waitMs);
      started = performance.now();
      // Signed afresh, as a retry of the service is: the timestamp is the time it is sent.
      outcome = await input.transport(input.webhookUrl, headers(), body, input.timeoutMs);
    }
    const durationMs = Math.round(performance.now() - started);
    slowest = Math.max(slowest, durationMs);
    if (!wanted.has(probe)) return;
    const accepted = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    const answered = outcome.status !== undefined;
    const ok = EXPECTED[probe] === '2xx' ? accepted : answered && !accepted;
    // No answer at all says nothing about signatures: the fix is to reach the receiver first.
    const fix = ok ? null : answered || outcome.error!.startsWith('timeout') ? FIXES[probe] : unreachable(input.webhookUrl, outcome.error!);
    results.push({
      probe,
      expected: EXPECTED[probe],
      got: answered ? String(outcome.status) : outcome.error!,
      ok,
      durationMs,
      fix,
      ...(earlier.length > 0 ? { earlierAnswers: earlier } : {}),
    });
  };

  // The valid event first (waiting for a receiver still starting up): the duplicate probe repeats it.
  const valid = event();
  await send('valid-signature', () => signed(valid), valid, true);
  if (wanted.has('forged-signature')) {
    const body = event();
    const forged = input.random.hex(64);
    await send('forged-signature', () => ({ ...signed(body), [EVENT_HEADERS.signature]: forged }), body);
  }
  if (wanted.has('tampered-body')) {
    const body = event();
    await send('tampered-body', () => signed(body), body.replace('"READY"', '"NEW_CONNECTION"'));
  }
  if (wanted.has('missing-signature')) {
    const body = event();
    await send('missing-signature', () => without(signed(body), EVENT_HEADERS.signature), body);
  }
  if (wanted.has('missing-timestamp')) {
    const body = event();
    await send('missing-timestamp', () => without(signed(body), EVENT_HEADERS.timestamp), body);
  }
  if (wanted.has('stale-timestamp')) {
    const body = event();
    await send('stale-timestamp', () => signed(body, String(Math.floor(input.realNow() / 1000) - STALE_BY_SECONDS)), body);
  }
  if (wanted.has('duplicate-event')) await send('duplicate-event', () => signed(valid), valid);
  if (wanted.has('answers-in-time')) {
    // Every probe must have had an HTTP answer, within the timeout.
    const unanswered = results.find((result) => !/^\d+$/.test(result.got));
    const timedOut = unanswered?.got.startsWith('timeout') ?? false;
    results.push({
      probe: 'answers-in-time',
      expected: 'in time',
      got: unanswered ? `${unanswered.probe}: ${unanswered.got}` : `slowest ${slowest}ms`,
      ok: !unanswered,
      durationMs: slowest,
      fix: !unanswered ? null : timedOut ? FIXES['answers-in-time'] : unreachable(input.webhookUrl, unanswered.got.replace(/^[a-z-]+: /, '')),
    });
  }
  return results;
}

/** Headers without one of them. */
function without(headers: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _dropped, ...rest } = headers;
  return rest;
}
