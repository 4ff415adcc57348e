import { REASON } from '../faults.js';
import { reply, requestUuid } from '../router.js';
import type { FaultAnswers } from '../types.js';

/** HubSpot's answers to a downstream fault, in the shapes its rate-limit docs give. */
export const faultAnswers: FaultAnswers = {
  rateLimited: (request, fault) =>
    reply(
      429,
      {
        status: 'error',
        message: 'You have reached your ten_secondly_rolling limit.',
        errorType: 'RATE_LIMIT',
        correlationId: requestUuid(request),
        policyName: 'TEN_SECONDLY_ROLLING',
      },
      {
        'x-hubspot-ratelimit-daily': '250000',
        'x-hubspot-ratelimit-daily-remaining': '249999',
        'x-hubspot-ratelimit-interval-milliseconds': '10000',
        'x-hubspot-ratelimit-max': '100',
        'x-hubspot-ratelimit-remaining': '0',
        'retry-after': String(fault.retryAfterSeconds),
      },
    ),
  serverError: (request, fault) =>
    reply(fault.status, { status: 'error', message: REASON[fault.status], correlationId: requestUuid(request), category: 'INTERNAL_ERROR' }, {}),
};
