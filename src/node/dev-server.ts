import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { bodyLimit, payloadTooLarge, respond, respondError, type SandboxRequest, type SandboxResponse } from '../core/http.js';
import { DEFAULT_API_KEY } from '../core/options.js';
import type { Sandbox } from '../core/sandbox.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import { hostCheck, hostNotAllowed } from './allowed-hosts.js';
import { DRAIN_LIMITS, drainThenClose } from './drain.js';
import { holdAssets, staticAssets } from './static-assets.js';

// The dev server: the sandbox over a plain `node:http` server (`crm-sandbox serve`, and
// `crm-sandbox/server` for your own scripts), with no framework in between. `createApp`
// (create-app.ts) wraps the same listener in express, for those who mount it in theirs.

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Called with one line per request (method, path, status, time); none by default. */
  log?: (line: string) => void;
  /**
   * Host names (or addresses) clients reach the server by, besides the loopback names and
   * `host`: `['crm-sandbox']` in a container network. Requests for any other `Host` get a 421
   * (a guard against DNS rebinding). `['*']` allows any host, and turns the guard off.
   */
  allowedHosts?: readonly string[];
  /**
   * Called with each request the sandbox answered, before its answer is written: a promise holds
   * the answer back until it resolves, with the answer to send. `serve --state-sync always`
   * waits there for the save that holds the request's changes.
   */
  beforeAnswer?: (request: SandboxRequest, response: SandboxResponse) => Promise<SandboxResponse> | undefined;
  /**
   * Set while the sandbox's state loads after the server listens (`serve --state-file`, docs/decisions/0050): until it
   * resolves, `GET /sandbox/health` is answered at once and every other request waits for it. A rejection leaves the
   * waiting requests unanswered (the caller stops the server).
   */
  loading?: Promise<unknown>;
}

/** A running dev server: its address, the `node:http` server, and how to stop it. */
export interface DevServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Stops accepting requests, ends open connections and stops the sandbox's timers. */
  close(): Promise<void>;
}

/**
 * What the dev server allows each connection (node's defaults in brackets). Timeouts bound how
 * long a slow or stuck client holds a connection; none bounds how long the server takes to
 * answer (a scenario run may take its whole `maxWait`), since node stops the request timer once
 * the request has arrived.
 */
export const SERVER_LIMITS = {
  /** To receive a request's headers [60 s]: a client sends them at once. Counted from the connection's start, so one that sends nothing is answered 408 and closed too. */
  headersTimeoutMs: 10_000,
  /** To receive a whole request [300 s]: a 64 MiB snapshot needs ~9 Mbit/s to arrive in time. */
  requestTimeoutMs: 60_000,
  /** An idle keep-alive connection is closed after [5 s]. */
  keepAliveTimeoutMs: 5_000,
  /** How often those timeouts are checked [30 s]: they act within a second of being due. */
  checkIntervalMs: 1_000,
  /** Open connections at once [no cap]: further ones are closed as they come until one ends. */
  maxConnections: 1_000,
} as const;

/**
 * On every answer of the dev server (writeResponse spells it out, on the hot path): a browser never
 * takes a body for another type than the one sent (an API's JSON as HTML or script).
 */
const NO_SNIFF = { 'x-content-type-options': 'nosniff' } as const;

/**
 * The dev server's request listener for a plain `node:http` server: reads the raw body (up to
 * 1 MiB; 64 MiB for `PUT /sandbox/snapshot`) and hands a plain request record to the sandbox.
 * No framework, body parser or Fetch `Request` in between: the dev server pays only for what
 * the core does.
 *
 * @example
 * const server = http.createServer(createRequestListener(createSandbox()));
 */
export function createRequestListener(sandbox: Sandbox, options: Pick<DevServerOptions, 'log' | 'beforeAnswer' | 'loading'> = {}): RequestListener {
  const { log, beforeAnswer } = options;
  let { loading } = options;
  void loading?.then(
    () => (loading = undefined),
    () => undefined,
  );
  // Answered before the core: the link widget's and the inspector's files (whose page says when the default key is taken).
  const serveAsset = staticAssets({ log, defaultKey: sandbox.options.apiKeys.includes(DEFAULT_API_KEY) ? DEFAULT_API_KEY : undefined });
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const started = log ? performance.now() : 0;
    serve(sandbox, req, res, beforeAnswer).then(
      (status) => log?.(`${req.method} ${req.url} ${status} ${(performance.now() - started).toFixed(1)}ms`),
      // The core never throws; this guards the socket side, so one bad connection never stops the server.
      (error: unknown) => {
        sandbox.options.onError(error);
        if (!res.headersSent) writeResponse(res, respondError(ApiError.internal()));
        else res.destroy();
      },
    );
  };
  return (req, res) =>
    serveAsset(req, res, () => {
      if (loading === undefined) answer(req, res);
      // While the state loads, health (liveness) is answered here, as the core answers it, without the core (whose first
      // answer loads and compiles its routes: tens of milliseconds); the rest waits for the state.
      else if (isHealth(req)) writeResponse(res, req.method === 'HEAD' ? { ...HEALTHY, body: '' } : HEALTHY);
      else void loading.then(() => answer(req, res));
    });
}

const isHealth = (req: IncomingMessage) => (req.method === 'GET' || req.method === 'HEAD') && req.url === '/sandbox/health';
/** `GET /sandbox/health`'s answer (src/core/routes/control.ts). */
const HEALTHY = respond({ body: { status: 'ok' } });

/**
 * Starts the dev server (plain `node:http`).
 *
 * @example
 * const server = await startDevServer(createSandbox(), { port: 0 });
 * console.log(server.url); // http://127.0.0.1:53211
 * await server.close();
 */
export async function startDevServer(sandbox: Sandbox, options: DevServerOptions = {}): Promise<DevServer> {
  const host = options.host ?? '127.0.0.1';
  const allowed = hostCheck(host, options.allowedHosts);
  const listener = createRequestListener(sandbox, options);
  const server = createServer(
    {
      headersTimeout: SERVER_LIMITS.headersTimeoutMs,
      requestTimeout: SERVER_LIMITS.requestTimeoutMs,
      keepAliveTimeout: SERVER_LIMITS.keepAliveTimeoutMs,
      connectionsCheckingInterval: SERVER_LIMITS.checkIntervalMs,
      // An HTTP/1.1 request without Host is answered below, in the error body, not with node's empty 400.
      requireHostHeader: false,
    },
    (req, res) => {
      const { host: hostHeader } = req.headers;
      if (hostHeader === undefined && req.httpVersion !== '1.0') refuseWithoutHost(res);
      else if (allowed(hostHeader)) listener(req, res);
      else writeResponse(res, respondError(hostNotAllowed(hostHeader!)));
    },
  );
  server.maxConnections = SERVER_LIMITS.maxConnections;
  return new Promise((resolve, reject) => {
    server.listen(options.port ?? 4010, host);
    server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => answerUnparsable(error, socket, server));
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      // After the start, not in its way: the inspector's and the widget's files, held in memory (see holdAssets).
      setTimeout(holdAssets, 1_000).unref();
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

/** Sockets already answered by {@link answerUnparsable}: node reports each later chunk as a new error. */
const answered = new WeakSet<Duplex>();

/**
 * Requests node's HTTP parser refuses before any route sees them (a garbled request line, an
 * unknown method token, headers over 16 KiB, a request that did not arrive within the server's
 * timeouts) still get the error body; the rest of what the
 * client sends is read and dropped (bounded), then the connection closes.
 */
function answerUnparsable(error: Error & { code?: string }, socket: Duplex, server: Server): void {
  if (answered.has(socket)) return;
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const { status, headers, body } = respondError(unparsable(error, server));
  const head = Object.entries({ ...headers, ...NO_SNIFF, 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  // The parser is done with this socket: what still arrives is only read to be dropped.
  socket.removeAllListeners('data');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n\r\n${body}`);
  drainThenClose(socket);
}

/** Why node refused a request before any route saw it, as an error to answer. */
function unparsable(error: Error & { code?: string }, server: Server): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new ApiError(431, ErrorCode.HEADERS_TOO_LARGE, 'request headers are too large');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const { headersTimeout, requestTimeout } = server;
    return new ApiError(
      408,
      ErrorCode.REQUEST_TIMEOUT,
      `the request did not arrive in time: its headers are due within ${headersTimeout} ms, the whole request within ${requestTimeout} ms`,
      {
        headersTimeoutMs: headersTimeout,
        requestTimeoutMs: requestTimeout,
      },
    );
  }
  return new ApiError(400, ErrorCode.BAD_REQUEST, `malformed HTTP request (${error.code ?? error.message})`);
}

/** An HTTP/1.1 request must name its host (RFC 9112 §3.2); HTTP/1.0 ones may not. */
function refuseWithoutHost(res: ServerResponse): void {
  writeResponse(res, respondError(new ApiError(400, ErrorCode.BAD_REQUEST, 'an HTTP/1.1 request needs a Host header')));
}

/** Answers one request; resolves with the status sent. */
async function serve(sandbox: Sandbox, req: IncomingMessage, res: ServerResponse, beforeAnswer: DevServerOptions['beforeAnswer']): Promise<number> {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const method = req.method ?? 'GET';
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const limit = bodyLimit(method, path);
  // A request without content-length or transfer-encoding has no body (RFC 9112 §6.3): nothing to wait a turn for.
  const { 'content-length': declared, 'transfer-encoding': chunked } = req.headers;
  const body = declared === undefined && chunked === undefined ? undefined : await readBody(req, limit);
  if (body === TOO_LARGE) {
    answerTooLarge(req, res, limit);
    return 413;
  }
  const request: SandboxRequest = {
    method,
    path,
    query: queryAt === -1 ? '' : url.slice(queryAt + 1),
    headers: flattenHeaders(req.headers),
    body,
  };
  const handled = await sandbox.handle(request);
  const held = beforeAnswer?.(request, handled);
  const response = held ? await held : handled;
  writeResponse(res, response);
  return response.status;
}

/** Sends the body as bytes: a cached page's, encoded once, or the text encoded here once (not measured, then encoded again). */
function writeResponse(res: ServerResponse, response: SandboxResponse): void {
  const bytes = response.encoded ?? Buffer.from(response.body, 'utf8');
  res.writeHead(response.status, { ...response.headers, 'content-length': bytes.length, 'x-content-type-options': 'nosniff' });
  res.end(bytes);
}

/**
 * The 413 goes out whole at once, but the response is only ended (and the socket, which it
 * closes, let go) once the client has sent the rest of its body, or past the drain limits.
 */
function answerTooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
  const { status, headers, body } = respondError(payloadTooLarge(limit));
  res.writeHead(status, { ...headers, ...NO_SNIFF, 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.write(body);
  if (req.complete) {
    res.end();
    return;
  }
  let received = 0;
  const finish = (cut: boolean) => {
    clearTimeout(timer);
    if (res.writableEnded) return;
    res.end();
    if (cut) req.socket.destroy();
  };
  const timer = setTimeout(() => finish(true), DRAIN_LIMITS.ms);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > DRAIN_LIMITS.bytes) finish(true);
  });
  req.once('end', () => finish(false));
  req.once('error', () => finish(true));
  req.resume();
}

const TOO_LARGE = Symbol('too large');

/** The body as text, undefined when empty, or TOO_LARGE as soon as it passes `limit` bytes (the rest is left unread). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined | typeof TOO_LARGE> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.off('end', onEnd);
        req.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (size === 0) resolve(undefined);
      // One chunk (most bodies) is decoded as is; only several are joined first.
      else resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8'));
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', () => resolve(undefined));
  });
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name in headers) {
    const value = headers[name];
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
