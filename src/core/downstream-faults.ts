import type { Clock } from '../clock/clock.js';
import { takeFault } from '../downstream/faults.js';
import type { DownstreamRequest, DownstreamResponse, FaultAnswers } from '../downstream/types.js';
import type { ConnectionState } from './connections.js';

/**
 * Answers one passthrough call, unless a downstream fault is pending on the connection: then
 * the system's own rate-limit or server-error answer (`answers`, its `faultAnswers`) instead, or
 * the normal answer after the fault's delay on the sandbox clock (a virtual clock must be
 * advanced for it to arrive).
 *
 * `faulted` turns a fault's own answer into what `answer` gives.
 *
 * @example const answer = await answerWithFaults(connection, request, clock, system.faultAnswers, () => system.handle(request, context), (faultAnswer) => faultAnswer);
 */
export async function answerWithFaults<T>(
  connection: ConnectionState,
  request: DownstreamRequest,
  clock: Clock,
  answers: FaultAnswers,
  answer: () => T | Promise<T>,
  faulted: (response: DownstreamResponse) => T,
): Promise<T> {
  const fault = takeFault(connection.downstreamFaults);
  if (!fault) return answer();
  if (fault.kind === 'rate-limit') return faulted(answers.rateLimited(request, fault, clock.now()));
  if (fault.kind === 'server-error') return faulted(answers.serverError(request, fault, clock.now()));
  // Not tracked: advance() waits for tracked work, and this only ends when time moves on.
  await new Promise<void>((resolve) => clock.setTimer(fault.delayMs, resolve));
  return answer();
}
