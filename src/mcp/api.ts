import type { Sandbox } from '../core/sandbox.js';
import type { ErrorBody } from '../shared/errors.js';

/** An answer of the sandbox's API: its status and its body, the JSON text as sent. */
export interface ApiAnswer {
  status: number;
  text: string;
  /** Its headers, names in lower case (what a tool reads of them: `x-sandbox-ignored-fields`). */
  headers?: Record<string, string>;
}

export interface ApiRequest {
  /** Query parameters; undefined ones are left out. */
  query?: Record<string, string | number | undefined>;
  /** The JSON body (sent with content-type application/json). */
  body?: unknown;
}

/**
 * What the tools act through: the sandbox's HTTP API, answered by a sandbox in this process or
 * by a dev server, so that a tool's answer is what the API answers for the same state.
 */
export interface SandboxApi {
  /** One request, as the API's own clients send it, with the API key of the tenant the tools act as. */
  request(method: string, path: string, request?: ApiRequest): Promise<ApiAnswer>;
  /** `POST /sandbox/reset?all=true`: a fresh sandbox for every tenant. */
  resetAll(): Promise<ApiAnswer>;
  /** The sandbox in this process, for what has no HTTP route (its virtual clock); undefined with `--server`. */
  readonly sandbox: Sandbox | undefined;
  /** The service-api-token the tools act as. */
  readonly apiKey: string;
}

/**
 * A failure a tool answers as a tool error: an answer of the API that is not a 2xx (its status
 * and error body as sent), or a failure of the tool's own (`status` undefined).
 */
export class ToolError extends Error {
  readonly status: number | undefined;
  readonly body: ErrorBody;

  constructor(status: number | undefined, body: ErrorBody) {
    super(body.message);
    this.name = 'ToolError';
    this.status = status;
    this.body = body;
  }

  /** The error text a tool answers: the API's error body, with the status first when there was one. */
  toJson(): string {
    return JSON.stringify(this.status === undefined ? this.body : { status: this.status, ...this.body });
  }
}

/** The query string of {@link ApiRequest.query}, without its `?`. */
export function queryString(query: ApiRequest['query'] = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.append(name, String(value));
  return params.toString();
}

function headers(apiKey: string, body: unknown): Record<string, string> {
  return body === undefined ? { 'service-api-token': apiKey } : { 'service-api-token': apiKey, 'content-type': 'application/json' };
}

/**
 * The API of a sandbox in this process: each request goes to `sandbox.handle()`, the same core
 * the dev server and the MSW handlers call, so it is journaled, authenticated and answered as
 * over HTTP. A full reset is the owner's (`sandbox.reset()`), as code holding a sandbox needs no
 * admin key.
 */
export function inProcessApi(sandbox: Sandbox, apiKey: string): SandboxApi {
  return {
    sandbox,
    apiKey,
    async request(method, path, { query, body } = {}) {
      const answer = await sandbox.handle({
        method,
        path,
        query: queryString(query),
        headers: headers(apiKey, body),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: answer.status, text: answer.body, headers: answer.headers };
    },
    async resetAll() {
      sandbox.reset();
      return { status: 200, text: JSON.stringify({ reset: 'all' }) };
    },
  };
}

/**
 * The API of a running dev server (`crm-sandbox serve`) at `baseUrl`. A server that cannot be
 * reached is a tool error, never a crash. `adminKey` is sent for a full reset only; without one
 * the server answers its 403 `ADMIN_KEY_REQUIRED`.
 */
export function serverApi(baseUrl: string, apiKey: string, adminKey?: string): SandboxApi {
  const base = baseUrl.replace(/\/+$/, '');
  const send = async (method: string, path: string, key: string, { query, body }: ApiRequest = {}): Promise<ApiAnswer> => {
    const search = queryString(query);
    let response: Response;
    try {
      response = await fetch(`${base}${path}${search ? `?${search}` : ''}`, {
        method,
        headers: headers(key, body),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ToolError(undefined, {
        message: `cannot reach the dev server at ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}; is crm-sandbox serve running there?`,
        errorCode: 'SERVER_UNREACHABLE',
      });
    }
    const answered: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      answered[name] = value;
    });
    return { status: response.status, text: await response.text(), headers: answered };
  };
  return {
    sandbox: undefined,
    apiKey,
    request: (method, path, request) => send(method, path, apiKey, request),
    resetAll: () => send('POST', '/sandbox/reset', adminKey ?? apiKey, { query: { all: 'true' } }),
  };
}

/**
 * The API of an MCP server that has no sandbox to act on (`mcp --port P` where another program
 * holds P): every tool answers this one error, so an MCP client that started it shows why, instead
 * of a server that never answered `initialize`.
 */
export function unavailableApi(apiKey: string, message: string): SandboxApi {
  const fail = async (): Promise<ApiAnswer> => {
    throw new ToolError(undefined, { message, errorCode: 'SANDBOX_UNAVAILABLE' });
  };
  return { sandbox: undefined, apiKey, request: fail, resetAll: fail };
}
