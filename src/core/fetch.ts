import type { SandboxRequest, SandboxResponse } from '../model/request.js';

/** Statuses whose Fetch `Response` must have a null body (the constructor throws otherwise). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A Fetch `Request` as the core's request record: what the MSW handlers and `sandbox.fetch()`
 * hand to `sandbox.handle()`. `basePath` is the part of the URL's path above the service's
 * paths (a base URL's path, `/crm/v1`), cut off; the query is kept as its raw text.
 *
 * @example await toSandboxRequest(new Request('https://api.test/crm/v1/link/token', { method: 'POST' }), '/crm/v1')
 * // { method: 'POST', path: '/link/token', query: '', headers: {}, body: undefined }
 */
export async function toSandboxRequest(request: Request, basePath = ''): Promise<SandboxRequest> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
  return {
    method: request.method,
    path: url.pathname.slice(basePath.length) || '/',
    query: url.search.slice(1),
    headers,
    body: text === '' ? undefined : text,
  };
}

/** The core's answer as a Fetch `Response`. */
export function toFetchResponse(response: SandboxResponse): Response {
  // A kept page's bytes as they are (Response copies them), not its text decoded only to be encoded again.
  const body = NULL_BODY_STATUSES.has(response.status) ? null : ((response.encoded as Uint8Array<ArrayBuffer> | undefined) ?? response.body);
  return new Response(body, { status: response.status, headers: response.headers });
}
