import { REASON } from '../faults.js';
import { reply } from '../router.js';
import type { FaultAnswers } from '../types.js';

/** Salesloft's answers to a downstream fault, in the shapes its rate-limit docs give. */
export const faultAnswers: FaultAnswers = {
  rateLimited: (_request, fault) =>
    reply(
      429,
      { status: 429, error: 'Too Many Requests' },
      { 'x-ratelimit-limit-minute': '600', 'x-ratelimit-remaining-minute': '0', 'retry-after': String(fault.retryAfterSeconds) },
    ),
  serverError: (_request, fault) => reply(fault.status, { status: fault.status, error: REASON[fault.status] }, {}),
};
