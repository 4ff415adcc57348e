import type { AddressInfo } from 'node:net';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type Express } from 'express';
import { ApiError, ErrorCode } from '../core/errors.js';
import { MAX_BODY_BYTES, payloadTooLarge, respondError, type SandboxRequest, type SandboxResponse } from '../core/http.js';
import type { Sandbox } from '../core/sandbox.js';
import { staticAssets } from './static-assets.js';

export interface DevServerOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Called with one line per request (method, path, status, time); none by default. */
  log?: (line: string) => void;
}

export interface DevServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Stops accepting requests, ends open connections and stops the sandbox's timers. */
  close(): Promise<void>;
}

/**
 * The express app of the dev server: one middleware that reads the raw body (up to 1 MiB)
 * and hands a plain request record to the sandbox. No body parser and no Fetch `Request`
 * in between: the dev server pays only for what the core does.
 */
export function createApp(sandbox: Sandbox, options: Pick<DevServerOptions, 'log'> = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(staticAssets(options)); // the link widget and the inspector: files, before the API
  app.use((req, res) => {
    const started = performance.now();
    serve(sandbox, req, res).then(
      (status) => options.log?.(`${req.method} ${req.url} ${status} ${(performance.now() - started).toFixed(1)}ms`),
      // The core never throws; this guards the socket side, so one bad connection never stops the server.
      (error: unknown) => {
        sandbox.options.onError(error);
        if (!res.headersSent) writeResponse(res, respondError(ApiError.internal()));
        else res.destroy();
      },
    );
  });
  return app;
}

/**
 * Starts the dev server.
 *
 * @example
 * const server = await startDevServer(createSandbox(), { port: 0 });
 * console.log(server.url); // http://127.0.0.1:53211
 * await server.close();
 */
export function startDevServer(sandbox: Sandbox, options: DevServerOptions = {}): Promise<DevServer> {
  const host = options.host ?? '127.0.0.1';
  const app = createApp(sandbox, options);
  return new Promise((resolve, reject) => {
    const server = app.listen(options.port ?? 4010, host);
    server.on('clientError', answerUnparsable);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shownHost}:${port}`,
        port,
        server,
        close: () =>
          new Promise<void>((done) => {
            sandbox.close();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * Requests node's HTTP parser refuses before any route sees them (a garbled request line, an
 * unknown method token, headers over 16 KiB) still get the error body, then the connection closes.
 */
function answerUnparsable(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const failure = tooLarge
    ? new ApiError(431, ErrorCode.HEADERS_TOO_LARGE, 'request headers are too large')
    : new ApiError(400, ErrorCode.BAD_REQUEST, `malformed HTTP request (${error.code ?? error.message})`);
  const { status, headers, body } = respondError(failure);
  const head = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n\r\n${body}`);
}

/** Answers one request; resolves with the status sent. */
async function serve(sandbox: Sandbox, req: IncomingMessage, res: ServerResponse): Promise<number> {
  let response: SandboxResponse;
  const body = await readBody(req);
  if (body === TOO_LARGE) {
    response = respondError(payloadTooLarge());
    res.setHeader('connection', 'close');
  } else {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const request: SandboxRequest = {
      method: req.method ?? 'GET',
      path: queryAt === -1 ? url : url.slice(0, queryAt),
      query: queryAt === -1 ? '' : url.slice(queryAt + 1),
      headers: flattenHeaders(req.headers),
      body,
    };
    response = await sandbox.handle(request);
  }
  writeResponse(res, response);
  return response.status;
}

function writeResponse(res: ServerResponse, response: SandboxResponse): void {
  res.writeHead(response.status, { ...response.headers, 'content-length': Buffer.byteLength(response.body) });
  res.end(response.body);
}

const TOO_LARGE = Symbol('too large');

/** The body as text, undefined when empty, or TOO_LARGE as soon as it passes 1 MiB. */
function readBody(req: IncomingMessage): Promise<string | undefined | typeof TOO_LARGE> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        done = true;
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(size === 0 ? undefined : Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', () => {
      if (done) return;
      done = true;
      resolve(undefined);
    });
  });
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}
