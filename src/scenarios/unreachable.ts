import type { Delivery, DeliveryAttempt } from '../webhooks/delivery.js';

/**
 * A receiver that gave no HTTP answer, in one line: its URL, the network error and the advice
 * that fits it, instead of one failure per event each advising to wait longer.
 *
 * @example networkAdvice('http://127.0.0.1:3999/hooks', 'ECONNREFUSED') // 'nothing is listening at http://127.0.0.1:3999/hooks (ECONNREFUSED): is your receiver running, on that port?'
 */
export function networkAdvice(url: string, error: string): string {
  if (error === 'ECONNREFUSED') return `nothing is listening at ${url} (ECONNREFUSED): is your receiver running, on that port?`;
  if (error.startsWith('timeout')) {
    return `${url} did not answer within the attempt timeout (${error}): answer first and do the work after, or raise --attempt-timeout`;
  }
  if (error === 'ENOTFOUND' || error === 'EAI_AGAIN') return `the host of ${url} was not found (${error}): check the webhook URL's host name`;
  if (error === 'ECONNRESET' || error === 'EPIPE') return `${url} closed the connection without an answer (${error}): does the receiver crash on the event?`;
  return `${url} could not be reached (${error}): check the webhook URL, and that the receiver is running`;
}

/** An attempt that met a network error (refused, timed out, reset): no HTTP answer, and not a chaos outage or a closed sandbox. */
export function isNetworkError(attempt: DeliveryAttempt): boolean {
  return attempt.status === null && attempt.error !== null && !attempt.chaos?.outage && !attempt.error.startsWith('aborted');
}

/**
 * The one line for a connection's receiver that never answered any attempt of the run over
 * HTTP, though some met a network error (the last one's named); undefined when it answered at
 * least once, or nothing was tried.
 */
export function unreachableReceiver(url: string, deliveries: readonly Delivery[]): string | undefined {
  const attempts = deliveries.flatMap((delivery) => delivery.attempts);
  if (attempts.some((attempt) => attempt.status !== null)) return undefined;
  const failed = attempts.filter(isNetworkError).at(-1);
  if (!failed) return undefined;
  const undelivered = deliveries.filter((delivery) => delivery.state !== 'succeeded').length;
  return `${undelivered} of ${deliveries.length} event(s) not delivered: ${networkAdvice(url, failed.error!)}`;
}

/**
 * A receiver's 404: its server answers, but has nothing at the webhook URL's path.
 *
 * @example notFoundHint('http://127.0.0.1:3000/hooks') // 'a 404 is a server that answers but has no route at /hooks: is that the path your receiver serves (the README's is /webhooks)?'
 */
export function notFoundHint(webhookUrl: string): string {
  let path = webhookUrl;
  try {
    path = new URL(webhookUrl).pathname;
  } catch {
    // Not a URL: named as it is.
  }
  return `a 404 is a server that answers but has no route at ${path}: is that the path your receiver serves (the README's is /webhooks)?`;
}
