import { REASON } from '../faults.js';
import { reply } from '../router.js';
import type { FaultAnswers } from '../types.js';

/** Apollo's answers to a downstream fault, in the shapes its rate-limit docs give. */
export const faultAnswers: FaultAnswers = {
  rateLimited: (request, fault) =>
    reply(
      429,
      {
        error: `The maximum number of api calls allowed for api/v1/${request.path.replace(/^(api\/)?v1\//, '')} is 200 times per minute. Please upgrade your plan from https://app.apollo.io/#/settings/plans/upgrade.`,
      },
      { 'x-rate-limit-minute': '200', 'x-minute-requests-left': '0', 'x-minute-usage': '200', 'retry-after': String(fault.retryAfterSeconds) },
    ),
  serverError: (_request, fault) => reply(fault.status, { error: REASON[fault.status] }, {}),
};
