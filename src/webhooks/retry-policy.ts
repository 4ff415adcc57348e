/**
 * When a failed automatic attempt is made again: the one place for the retry schedule
 * (`retrySchedule`, `--retry-schedule`), as svix keeps its schedule apart from its dispatcher.
 * An event gets one first attempt and one retry per delay of the schedule; after the last retry
 * fails, it is failed.
 *
 * The original service documents nothing beyond its schedule, so nothing more is simulated. If
 * fidelity ever needs more, it goes here: a receiver's `Retry-After` (it would come with the
 * failed attempt's outcome), or disabling an endpoint that keeps failing.
 */
export class RetryPolicy {
  private readonly scheduleMs: readonly number[];

  /** `scheduleMs`: the delays before each retry; the number of retries is its length. */
  constructor(scheduleMs: readonly number[]) {
    this.scheduleMs = scheduleMs;
  }

  /**
   * The wait (ms) before the next automatic attempt, once the `made`-th one (counted from 1) has
   * failed; undefined when that was the last one the schedule allows.
   */
  retryAfter(made: number): number | undefined {
    return made <= this.scheduleMs.length ? this.scheduleMs[made - 1] : undefined;
  }
}
