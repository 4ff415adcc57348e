import { REASON } from '../faults.js';
import { reply } from '../router.js';
import type { FaultAnswers } from '../types.js';

/** Pipedrive's answers to a downstream fault, in the shapes its rate-limit docs give. */
export const faultAnswers: FaultAnswers = {
  rateLimited: (_request, fault) =>
    reply(
      429,
      {
        success: false,
        error: 'Request over limit',
        error_info: 'Please check developers.pipedrive.com for more information about Pipedrive API.',
        data: null,
        additional_data: null,
      },
      {
        'x-ratelimit-limit': '80',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(fault.retryAfterSeconds),
        'retry-after': String(fault.retryAfterSeconds),
      },
    ),
  serverError: (_request, fault) =>
    reply(
      fault.status,
      {
        success: false,
        error: REASON[fault.status],
        error_info: 'Please check developers.pipedrive.com for more information about Pipedrive API.',
        data: null,
      },
      {},
    ),
};
