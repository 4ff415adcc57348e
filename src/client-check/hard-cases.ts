import { ApiError, ErrorCode } from '../shared/errors.js';
import { Random } from '../shared/random.js';
import type { RequestFacts } from './request-facts.js';
import { THRESHOLDS } from './rules.js';

/** Served reads before the first hard case: it comes early, so a short run meets one. */
const FIRST_AFTER = [1, 3] as const;
/** Served reads between two hard cases. */
const THEN_EVERY = [4, 8] as const;
/** How many answers in a row an injected 503 lasts for the request it hits. */
const BURST = [1, 3] as const;
/** Most 503 bursts kept waiting for their retries; the oldest is forgotten first. */
const MAX_BURSTS = 1_000;

/** What the plan put in a read's way. */
export interface HardCase {
  kind: 'rate-limit' | 'server-error';
  error: ApiError;
  /** For the journal's `fault`: `client-check 429`. */
  label: string;
  /** Counted from 1: which of the tenant's reads (served ones, plus this) met it. */
  read: number;
  /** The Retry-After of a 429, in seconds. */
  retryAfter?: number;
  /** The length of a 503: how many attempts of the request in a row it answers. */
  answers?: number;
  /** True for the first answer of a hard case, false for the answers that follow from it (a 429 window, a 503 burst). */
  fresh: boolean;
}

export interface HardCaseSettings {
  seed: number;
  /** Inject 429s and 503s at all. */
  faults: boolean;
  /** Retry-After of the injected 429s, whole seconds, drawn from this range. */
  retryAfterSeconds: readonly [number, number];
}

/**
 * One tenant's plan of hard cases: after a few served reads, a read meets a 429 with a
 * Retry-After (and every read of the tenant stays refused until it has passed), then, a few
 * served reads later, a 503 that lasts 1 to 3 attempts of that same request; then a 429 again,
 * and so on. How many reads pass between them, the Retry-After and the 503's length come from a
 * stream of the seed, so the same seed and the same sequence of reads meet the same hard cases.
 * Only served reads move the plan on: a 409 of a syncing connection, or a request refused by
 * the plan itself, does not, so how often a client polls while it waits changes nothing.
 */
export class HardCasePlan {
  private readonly random: Random;
  private readonly settings: HardCaseSettings;
  private untilNext: number;
  private next: HardCase['kind'] = 'rate-limit';
  private served = 0;
  private throttledUntil = -Infinity;
  private readonly bursts = new Map<string, number>();

  constructor(settings: HardCaseSettings) {
    this.settings = settings;
    this.random = new Random(settings.seed).fork('client-check');
    this.untilNext = this.draw(FIRST_AFTER);
  }

  /** The hard case a read arriving at `at` meets, if any. */
  decide(facts: RequestFacts, at: number): HardCase | undefined {
    if (!this.settings.faults || !facts.read) return undefined;
    // The window ends a margin early, so a client that waits what Retry-After says is never refused again.
    if (at < this.throttledUntil - THRESHOLDS.retryAfterMarginMs) return this.rateLimited(Math.ceil((this.throttledUntil - at) / 1000), false);
    const burst = this.bursts.get(facts.identity);
    if (burst !== undefined) {
      if (burst <= 1) this.bursts.delete(facts.identity);
      else this.bursts.set(facts.identity, burst - 1);
      return this.unavailable(false);
    }
    if (this.untilNext > 0) return undefined;
    this.untilNext = this.draw(THEN_EVERY);
    const kind = this.next;
    this.next = kind === 'rate-limit' ? 'server-error' : 'rate-limit';
    if (kind === 'rate-limit') {
      const seconds = this.draw(this.settings.retryAfterSeconds);
      this.throttledUntil = at + seconds * 1000;
      return this.rateLimited(seconds, true);
    }
    const length = this.draw(BURST);
    if (length > 1) {
      if (this.bursts.size >= MAX_BURSTS) this.bursts.delete(this.bursts.keys().next().value!);
      this.bursts.set(facts.identity, length - 1);
    }
    return { ...this.unavailable(true), answers: length };
  }

  /** Ends the 429 window and the 503 bursts under way (the state they were on was reset; a virtual clock may have gone back). */
  endWindows(): void {
    this.throttledUntil = -Infinity;
    this.bursts.clear();
  }

  /** A read was served (2xx) without a hard case: the plan moves on. */
  readServed(): void {
    this.served++;
    this.untilNext--;
  }

  private rateLimited(seconds: number, fresh: boolean): HardCase {
    const error = new ApiError(
      429,
      ErrorCode.RATE_LIMITED,
      `too many requests for this API token; retry after ${seconds}s`,
      { retryAfter: seconds, fault: 'client-check' },
      { 'retry-after': String(seconds) },
    );
    return { kind: 'rate-limit', error, label: 'client-check 429', read: this.served + 1, retryAfter: seconds, fresh };
  }

  private unavailable(fresh: boolean): HardCase {
    const error = new ApiError(503, ErrorCode.INJECTED_FAULT, 'service temporarily unavailable; retry with backoff', { fault: 'client-check' });
    return { kind: 'server-error', error, label: 'client-check 503', read: this.served + 1, fresh };
  }

  /** A whole number from the range, both ends included. */
  private draw([min, max]: readonly [number, number]): number {
    return min + (this.random.uint32() % (max - min + 1));
  }
}
