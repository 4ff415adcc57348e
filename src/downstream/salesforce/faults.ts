import { reply, requestUuid } from '../router.js';
import type { FaultAnswers } from '../types.js';

/**
 * Salesforce's answers to a downstream fault, in the shapes its rate-limit docs give. It has no 429:
 * an org over its API request limit gets 403 REQUEST_LIMIT_EXCEEDED.
 */
export const faultAnswers: FaultAnswers = {
  rateLimited: () =>
    reply(403, [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }], { 'sforce-limit-info': 'api-usage=15000/15000' }),
  serverError: (request, fault) =>
    reply(
      fault.status,
      fault.status === 503
        ? [{ message: 'Server is unavailable', errorCode: 'SERVER_UNAVAILABLE' }]
        : [
            {
              message: `An unexpected error occurred. Please include this ErrorId if you contact support: ${requestUuid(request).slice(0, 18)}`,
              errorCode: 'UNKNOWN_EXCEPTION',
            },
          ],
      { 'sforce-limit-info': 'api-usage=25/15000' },
    ),
};
