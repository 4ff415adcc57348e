import { http } from 'msw';
import { setupServer } from 'msw/node';
import { createHandlers, onUnhandled } from '../../src/adapters/msw.js';
import type { Sandbox } from '../../src/core/sandbox.js';
import { type DevServer, startDevServer } from '../../src/node/dev-server.js';

export interface CallOptions {
  /** Headers to send; the API key is added unless `apiKey: null`. */
  headers?: Record<string, string>;
  apiKey?: string | null;
  query?: Record<string, string | number | boolean>;
  /** Sent as JSON with content-type application/json. */
  json?: unknown;
  /** Sent as is (with `headers` deciding the content type). */
  rawBody?: string;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** One way of reaching a sandbox over HTTP: MSW in-process, or the dev server on a real port. */
export interface Transport {
  readonly name: string;
  /** Points the transport at a new sandbox (fresh state for each test). */
  use(sandbox: Sandbox): Promise<void>;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

export const API_KEY = 'test-key';

async function send(base: string, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const url = new URL(base + path);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.append(name, String(value));
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== null) headers['service-api-token'] = options.apiKey ?? API_KEY;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.rawBody !== undefined) {
    body = options.rawBody;
  }
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/**
 * The webhook the request table's connections get: on loopback, where nothing listens (port 2,
 * which the Fetch standard does not block, unlike 9), so the dev server's deliveries never leave
 * the machine (a name such as app.test would be looked up in DNS). Under MSW the deliveries are
 * intercepted instead, by `tableReceiver`, and would otherwise be printed as unhandled requests.
 */
export const TABLE_WEBHOOK_URL = 'http://127.0.0.1:2/hooks';
const tableReceiver = http.post('http://127.0.0.1:2/*', () => new Response(null, { status: 204 }));

/** MSW handlers in this process, under a base URL nobody serves: every request is answered in memory. */
export function mswTransport(baseUrl = 'https://api.service.test'): Transport {
  let server: ReturnType<typeof setupServer> | undefined;
  return {
    name: 'msw',
    async use(sandbox) {
      if (!server) {
        server = setupServer(...createHandlers(sandbox, { baseUrl }), tableReceiver);
        server.listen(onUnhandled('error'));
      } else {
        server.resetHandlers(...createHandlers(sandbox, { baseUrl }), tableReceiver);
      }
    },
    call: (method, path, options) => send(baseUrl, method, path, options),
    async close() {
      server?.close();
      server = undefined;
    },
  };
}

/** The express dev server on 127.0.0.1, a free port, restarted for each sandbox. */
export function devServerTransport(): Transport {
  let server: DevServer | undefined;
  return {
    name: 'dev server',
    async use(sandbox) {
      await server?.close();
      server = await startDevServer(sandbox, { port: 0, host: '127.0.0.1' });
    },
    call: (method, path, options) => {
      if (!server) throw new Error('use() a sandbox first');
      return send(server.url, method, path, options);
    },
    async close() {
      await server?.close();
      server = undefined;
    },
  };
}
