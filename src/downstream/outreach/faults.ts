import { REASON, resetAt } from '../faults.js';
import { reply } from '../router.js';
import type { FaultAnswers } from '../types.js';

/** Outreach's answers to a downstream fault, in the shapes its rate-limit docs give. */
export const faultAnswers: FaultAnswers = {
  rateLimited: (_request, fault, now) =>
    reply(
      429,
      {
        errors: [
          {
            id: 'rateLimitExceeded',
            title: 'Rate Limit Exceeded',
            detail: `You have exceeded your permitted rate limit of 10,000; please try again at ${new Date(resetAt(now, fault) * 1000).toISOString()}.`,
          },
        ],
      },
      {
        'x-ratelimit-limit': '10000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(resetAt(now, fault)),
        'retry-after': String(fault.retryAfterSeconds),
      },
    ),
  serverError: (_request, fault) =>
    reply(fault.status, { errors: [{ id: 'internalServerError', title: REASON[fault.status], detail: 'Something went wrong.' }] }, {}),
};
