import * as z from 'zod';
import { once } from '../shared/once.js';

/**
 * Downstream faults: what the next native calls of a connection do instead of answering
 * normally — hit the system's rate limit, fail with a 5xx, or take longer. Each system answers
 * a fault in its own documented shape (status, headers, body): its `faultAnswers` (`<system>/faults.ts`).
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

/** The reason phrase of each status a server-error fault may answer. */
export const REASON: Record<number, string> = { 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };
/** When the fault's rate-limit window ends, epoch seconds. */
export const resetAt = (now: number, fault: DownstreamFault) => Math.floor(now / 1000) + fault.retryAfterSeconds;
