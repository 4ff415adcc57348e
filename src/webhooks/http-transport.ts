import { request as httpsRequest } from 'node:https';

/** What one POST to a webhook came to. */
export type PostOutcome = { status: number; error?: undefined } | { status?: undefined; error: string };

/** Posts a delivery; never throws: failures come back as `{ error }`. */
export type HttpTransport = (url: string, headers: Record<string, string>, body: string, timeoutMs: number) => Promise<PostOutcome>;

/**
 * Posts through the global `fetch`, looked up at call time, so a test's MSW `setupServer`
 * (which patches `fetch`) can answer webhooks with its own handlers. With a CA certificate,
 * https targets go through `node:https` trusting it, for local https receivers.
 */
export function createHttpTransport(options: { ca?: string | undefined } = {}): HttpTransport {
  return async (url, headers, body, timeoutMs) => {
    if (options.ca !== undefined && url.startsWith('https:')) return postWithCa(url, headers, body, timeoutMs, options.ca);
    try {
      const response = await globalThis.fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      // Drain the answer so the socket can be reused; its content does not matter.
      await response.arrayBuffer().catch(() => undefined);
      return { status: response.status };
    } catch (error) {
      return { error: describeFailure(error, timeoutMs) };
    }
  };
}

function postWithCa(url: string, headers: Record<string, string>, body: string, timeoutMs: number, ca: string): Promise<PostOutcome> {
  return new Promise((resolve) => {
    const req = httpsRequest(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, ca }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      res.on('error', (error) => resolve({ error: describeFailure(error, timeoutMs) }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })));
    req.on('error', (error) => resolve({ error: describeFailure(error, timeoutMs) }));
    req.end(body);
  });
}

/** A short, stable description: `timeout after 10000ms`, `ECONNREFUSED`, … */
function describeFailure(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return `timeout after ${timeoutMs}ms`;
  const code = err?.cause?.code ?? err?.code;
  if (code) return code;
  return err?.cause?.message ?? err?.message ?? String(error);
}
