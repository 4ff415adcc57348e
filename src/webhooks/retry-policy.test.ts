import { describe, expect, it } from 'vitest';
import { RetryPolicy } from './retry-policy.js';

describe('the retry policy', () => {
  it('waits each delay of the schedule in turn, then gives up after the last retry', () => {
    const policy = new RetryPolicy([10_000, 60_000, 300_000]);
    expect([1, 2, 3, 4].map((made) => policy.retryAfter(made))).toEqual([10_000, 60_000, 300_000, undefined]);
  });

  it('with an empty schedule, never retries', () => {
    expect(new RetryPolicy([]).retryAfter(1)).toBeUndefined();
  });
});
