import type { HttpTransport, PostOutcome } from '../model/transport.js';

export type { HttpTransport, PostOutcome } from '../model/transport.js';

/**
 * Posts one delivery with the global `fetch`, looked up at call time (so an MSW worker or
 * `setupServer` can answer it). The transport of the browser entry, and the fallback of Node's.
 *
 * @example const outcome = await postWithFetch('http://127.0.0.1:4000/hook', headers, body, 10_000);
 */
export async function postWithFetch(url: string, headers: Record<string, string>, body: string, timeoutMs: number, signal?: AbortSignal): Promise<PostOutcome> {
  try {
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await globalThis.fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
    // Drain the answer so the socket can be reused; its content does not matter.
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    return { error: describeFailure(error, timeoutMs) };
  }
}

/** A transport that posts every delivery with `fetch`: all a browser has. @example createFetchTransport() */
export function createFetchTransport(): HttpTransport {
  return postWithFetch;
}

/** A short, stable description: `timeout after 10000ms`, `ECONNREFUSED`, … */
export function describeFailure(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError') return `timeout after ${timeoutMs}ms`;
  if (err?.name === 'AbortError') return 'aborted: the sandbox was closed';
  const code = err?.cause?.code ?? err?.code;
  if (code) return code;
  return err?.cause?.message ?? err?.message ?? String(error);
}
