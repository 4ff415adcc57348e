import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** What one POST to a webhook came to. */
export type PostOutcome = { status: number; error?: undefined } | { status?: undefined; error: string };

/** Posts a delivery; never throws: failures come back as `{ error }`. `signal` aborts it (the sandbox closing). */
export type HttpTransport = (
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal?: AbortSignal,
) => Promise<PostOutcome>;

/**
 * Posts through the global `fetch`, looked up at call time, so a test's MSW `setupServer`
 * (which patches `fetch`) can answer webhooks with its own handlers. `node:http(s)` takes over
 * where fetch will not go: https with a CA to trust (local https receivers), and the ports the
 * Fetch standard blocks (6000, 10080…), which a webhook of the real service may well use.
 */
export function createHttpTransport(options: { ca?: string | undefined } = {}): HttpTransport {
  return async (url, headers, body, timeoutMs, signal) => {
    if (options.ca !== undefined && url.startsWith('https:')) return postWithNode(url, headers, body, timeoutMs, signal, options.ca);
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
      if ((error as { cause?: { message?: string } }).cause?.message === 'bad port') {
        return postWithNode(url, headers, body, timeoutMs, signal, options.ca);
      }
      return { error: describeFailure(error, timeoutMs) };
    }
  };
}

function postWithNode(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  ca: string | undefined,
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, ...(ca ? { ca } : {}), ...(signal ? { signal } : {}) },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', (error) => resolve({ error: describeFailure(error, timeoutMs) }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })));
    req.on('error', (error) => resolve({ error: describeFailure(error, timeoutMs) }));
    req.end(body);
  });
}

/** A short, stable description: `timeout after 10000ms`, `ECONNREFUSED`, … */
function describeFailure(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError') return `timeout after ${timeoutMs}ms`;
  if (err?.name === 'AbortError') return 'aborted: the sandbox was closed';
  const code = err?.cause?.code ?? err?.code;
  if (code) return code;
  return err?.cause?.message ?? err?.message ?? String(error);
}
