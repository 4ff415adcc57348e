import type { SandboxResponse } from '../../src/core/http.js';
import type { Sandbox } from '../../src/core/sandbox.js';

type CallOptions = { body?: unknown; key?: string; headers?: Record<string, string> };

/**
 * One request straight to `sandbox.handle`, answered as the sandbox sent it: `path` may carry
 * a query; `body` is sent as JSON (a string as it is); the API key is `a` unless given.
 */
export function sandboxRequest(sandbox: Sandbox, method: string, path: string, options: CallOptions = {}): Promise<SandboxResponse> {
  const [pathname, query = ''] = path.split('?');
  return sandbox.handle({
    method,
    path: pathname!,
    query,
    headers: { 'service-api-token': options.key ?? 'a', 'content-type': 'application/json', ...options.headers },
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
}

/** {@link sandboxRequest}, answering the status, headers and parsed body. */
export function callSandbox(sandbox: Sandbox, method: string, path: string, options: CallOptions = {}) {
  return sandboxRequest(sandbox, method, path, options).then((response) => ({
    status: response.status,
    headers: response.headers,
    body: JSON.parse(response.body || 'null'),
  }));
}
