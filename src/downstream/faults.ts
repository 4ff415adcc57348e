import * as z from 'zod';
import type { IntegrationId } from '../model/integrations.js';
import { once } from '../shared/once.js';
import { reply, requestUuid } from './router.js';
import type { DownstreamRequest, DownstreamResponse } from './types.js';

/**
 * Downstream faults: what the next native calls of a connection do instead of answering
 * normally — hit the system's rate limit, fail with a 5xx, or take longer. Each system answers
 * a fault in its own documented shape (status, headers, body).
 */

export const DOWNSTREAM_FAULT_KINDS = ['rate-limit', 'server-error', 'slow'] as const;

/** A fault as a caller gives it (built on first use, not at import: docs/decisions/0035). */
export const downstreamFaultSchema = once(() =>
  z
    .object({
      kind: z.enum(DOWNSTREAM_FAULT_KINDS),
      /** How many native calls this fault takes, in order. */
      count: z.number().int().min(1).max(10_000).default(1),
      /** server-error: the status to answer. */
      status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
      /** slow: how long each call takes, on the sandbox clock. */
      delayMs: z.number().int().min(0).max(600_000).optional(),
      /** rate-limit: when the system says to try again. */
      retryAfterSeconds: z.number().int().min(1).max(86_400).optional(),
    })
    .strict(),
);
export type DownstreamFaultInput = z.input<ReturnType<typeof downstreamFaultSchema>>;

/** A pending fault, as plain data (kept on the connection, so snapshots can hold it). */
export interface DownstreamFault {
  kind: (typeof DOWNSTREAM_FAULT_KINDS)[number];
  /** Calls it still takes. */
  remaining: number;
  status: 500 | 502 | 503 | 504;
  delayMs: number;
  retryAfterSeconds: number;
}

export const downstreamFaultsBody = once(() => z.object({ faults: z.array(downstreamFaultSchema()).max(100) }).strict());

/** A fault with its defaults filled in. */
export function toFault(input: z.output<ReturnType<typeof downstreamFaultSchema>>): DownstreamFault {
  return {
    kind: input.kind,
    remaining: input.count,
    status: input.status ?? 503,
    delayMs: input.delayMs ?? 5_000,
    retryAfterSeconds: input.retryAfterSeconds ?? 10,
  };
}

/** Takes one call from the first pending fault (dropping it when used up); undefined when none is pending. */
export function takeFault(faults: DownstreamFault[]): DownstreamFault | undefined {
  const fault = faults[0];
  if (!fault) return undefined;
  fault.remaining -= 1;
  if (fault.remaining <= 0) faults.shift();
  return { ...fault };
}

interface FaultAnswers {
  /** The system's answer when its rate limit is hit. */
  rateLimited(request: DownstreamRequest, fault: DownstreamFault, now: number): DownstreamResponse;
  /** The system's answer to a server failure. */
  serverError(request: DownstreamRequest, fault: DownstreamFault, now: number): DownstreamResponse;
}

const REASON: Record<number, string> = { 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };
const resetAt = (now: number, fault: DownstreamFault) => Math.floor(now / 1000) + fault.retryAfterSeconds;

/** Each system's rate-limit and server-error answers, from its rate-limit docs. */
export const FAULT_ANSWERS: Record<IntegrationId, FaultAnswers> = {
  // Salesforce has no 429: an org over its API request limit gets 403 REQUEST_LIMIT_EXCEEDED.
  salesforce: {
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
  },
  hubspot: {
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
  },
  pipedrive: {
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
  },
  zoho: {
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
  },
  outreach: {
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
  },
  salesloft: {
    rateLimited: (_request, fault) =>
      reply(
        429,
        { status: 429, error: 'Too Many Requests' },
        { 'x-ratelimit-limit-minute': '600', 'x-ratelimit-remaining-minute': '0', 'retry-after': String(fault.retryAfterSeconds) },
      ),
    serverError: (_request, fault) => reply(fault.status, { status: fault.status, error: REASON[fault.status] }, {}),
  },
  apollo: {
    rateLimited: (request, fault) =>
      reply(
        429,
        {
          error: `The maximum number of api calls allowed for api/v1/${request.path.replace(/^(api\/)?v1\//, '')} is 200 times per minute. Please upgrade your plan from https://app.apollo.io/#/settings/plans/upgrade.`,
        },
        { 'x-rate-limit-minute': '200', 'x-minute-requests-left': '0', 'x-minute-usage': '200', 'retry-after': String(fault.retryAfterSeconds) },
      ),
    serverError: (_request, fault) => reply(fault.status, { error: REASON[fault.status] }, {}),
  },
};
