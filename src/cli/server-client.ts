import { SandboxConfigError } from '../shared/errors.js';

/** An answer of the server: its status and parsed JSON body. */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read by the caller as the interface documents it
  body: any;
}

/** No server answers at the address (refused, reset, not found): the cause's code. */
export class ServerUnreachable extends Error {
  constructor(
    readonly url: string,
    readonly code: string,
  ) {
    super(`no sandbox answers at ${url} (${code})`);
  }
}

/**
 * The HTTP API of a running dev server, as the commands that drive one (`listen`, `trigger`) call
 * it: one API key, JSON in and out, and a refused key or an answer other than 2xx said in a line.
 */
export class ServerClient {
  constructor(
    readonly url: string,
    readonly apiKey: string,
  ) {}

  /** One call; rejects with ServerUnreachable when nothing answers. */
  async call(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Answer> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url + path, {
        method,
        headers: { 'service-api-token': this.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      });
      text = await response.text();
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      const code = (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
      // undici's name for a connection the server closed without an answer (it stopped mid-request).
      throw new ServerUnreachable(this.url, code === 'UND_ERR_SOCKET' ? 'it closed the connection' : (code ?? (error as Error).message));
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = { message: text.slice(0, 200) };
    }
    return { status: response.status, body: parsed };
  }

  /** A call that must succeed: its body, or a SandboxConfigError (exit 2) saying what the server answered. */
  // biome-ignore lint/suspicious/noExplicitAny: as Answer's body
  async ok(method: string, path: string, body?: unknown): Promise<any> {
    let answer: Answer;
    try {
      answer = await this.call(method, path, body);
    } catch (error) {
      if (error instanceof ServerUnreachable) {
        throw new SandboxConfigError(`${error.message}: start one (crm-sandbox serve), or give its address with --server`);
      }
      throw error;
    }
    if (answer.status === 401 && answer.body?.errorCode === 'INVALID_API_TOKEN') {
      throw new SandboxConfigError(
        `the server at ${this.url} does not take the API key ${this.apiKey}: give one of its keys with --api-key (its first lines name them)`,
      );
    }
    if (answer.status >= 400) {
      const field = answer.body?.metadata?.field ? ` (field: ${answer.body.metadata.field})` : '';
      throw new SandboxConfigError(`${method} ${path} answered ${answer.status}: ${answer.body?.message ?? 'no message'}${field}`);
    }
    return answer.body;
  }
}
