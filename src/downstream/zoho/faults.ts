import { resetAt } from '../faults.js';
import { reply } from '../router.js';
import type { FaultAnswers } from '../types.js';

/** Zoho's answers to a downstream fault, in the shapes its rate-limit docs give. */
export const faultAnswers: FaultAnswers = {
  rateLimited: (_request, fault, now) =>
    reply(
      429,
      { code: 'TOO_MANY_REQUESTS', details: {}, message: 'too many requests', status: 'error' },
      {
        'x-ratelimit-limit': '250',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(resetAt(now, fault) * 1000),
        'retry-after': String(fault.retryAfterSeconds),
      },
    ),
  serverError: (_request, fault) => reply(fault.status, { code: 'INTERNAL_ERROR', details: {}, message: 'Internal Server Error', status: 'error' }, {}),
};
