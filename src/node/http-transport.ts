import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import { describeFailure, type HttpTransport, type PostOutcome, postWithFetch } from '../webhooks/transport.js';

/** The `fetch` of the process as it started: when `globalThis.fetch` is another, someone (MSW) wants to see requests. */
const startupFetch = globalThis.fetch;

/**
 * Posts plain-http webhooks with `node:http` over keep-alive connections (one agent per sandbox:
 * a receiver's connection is reused from one delivery to the next, and different connections'
 * deliveries go out in parallel on their own sockets). Everything else goes through the global
 * `fetch`, looked up at call time, and so does every delivery while `fetch` is patched: a test's
 * MSW `setupServer` can answer webhooks with its own handlers. `node:http(s)` also takes over
 * where fetch will not go: https with a CA to trust (local https receivers), and the ports the
 * Fetch standard blocks (6000, 10080…), which a webhook of the real service may well use.
 */
export function createHttpTransport(options: { ca?: string | undefined } = {}): HttpTransport {
  const keepAlive: KeepAlive = { agent: new http.Agent({ keepAlive: true }), inFlight: new Set(), targets: new Map() };
  const deadlines = new Deadlines();
  let closing: AbortSignal | undefined;
  // Not an async function: one returning another's promise adds microtask turns to every delivery, which the
  // next delivery of the connection waits through.
  return (url, headers, body, timeoutMs, signal) => {
    // One listener on the sandbox's closing signal (not one per request): it aborts the keep-alive
    // requests in flight and lets go of the idle sockets.
    if (signal && closing !== signal) {
      closing = signal;
      signal.addEventListener('abort', () => abortAll(keepAlive), { once: true });
    }
    if (options.ca !== undefined && url.startsWith('https:')) return postWithNode(deadlines, url, headers, body, timeoutMs, signal, options.ca);
    if (url.startsWith('http:') && globalThis.fetch === startupFetch) {
      if (signal?.aborted) return Promise.resolve({ error: describeFailure(abortError(), timeoutMs) });
      return postKeepAlive(keepAlive, deadlines, url, headers, body, timeoutMs);
    }
    return postWithFetch(url, headers, body, timeoutMs, signal).then((outcome) =>
      outcome.error === 'bad port' ? postWithNode(deadlines, url, headers, body, timeoutMs, signal, options.ca) : outcome,
    );
  };
}

/** The keep-alive path's state, one per sandbox. */
interface KeepAlive {
  agent: http.Agent;
  /** Requests in flight, aborted together when the sandbox closes. */
  inFlight: Set<http.ClientRequest>;
  /** Parsed webhook URLs: a connection posts to the same one again and again. */
  targets: Map<string, Target>;
}

/** A webhook URL as node:http takes it, and the headers node adds after the caller's (see {@link rawHeaders}). */
interface Target {
  protocol: string;
  hostname: string;
  port: string;
  path: string;
  /** `Host`, then `Authorization` for a URL with user info: the names and values node:http would set. */
  trailing: string[];
}

/**
 * The time bounds of the requests in flight, on one timer: a timer set and cleared per attempt cost about 6 µs of
 * the sender's CPU per delivery, a tenth of what a delivery costs besides node:http. The timer is unref'd: a
 * request in flight holds its socket, which keeps the process up as long as the request lasts.
 */
class Deadlines {
  /** Each request's deadline (ms, `Date.now()` time, which fake timers move with setTimeout). */
  private readonly pending = new Map<ClientRequest, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires (Infinity: not armed). */
  private armedAt = Infinity;

  /** Destroys `req` with a TimeoutError at `at` (`Date.now()` time), unless it is {@link delete}d first. */
  add(req: ClientRequest, at: number): void {
    this.pending.set(req, at);
    if (at < this.armedAt) this.arm(at);
  }

  delete(req: ClientRequest): void {
    this.pending.delete(req);
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(() => this.expire(), Math.max(0, at - Date.now()));
    this.timer.unref?.();
  }

  /** Destroys the requests past their deadline and arms the timer for the next one. */
  private expire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const [req, at] of this.pending) {
      if (at <= now) {
        this.pending.delete(req);
        req.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' }));
      } else if (at < next) next = at;
    }
    if (next !== Infinity) this.arm(next);
  }
}

const abortError = () => Object.assign(new Error('aborted'), { name: 'AbortError' });

function abortAll(keepAlive: KeepAlive): void {
  for (const req of keepAlive.inFlight) req.destroy(abortError());
  keepAlive.inFlight.clear();
  keepAlive.agent.destroy();
}

function targetOf(keepAlive: KeepAlive, url: string): Target {
  let target = keepAlive.targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
    target = {
      protocol: parsed.protocol,
      hostname,
      port: parsed.port,
      path: parsed.pathname + parsed.search,
      trailing: ['Host', hostHeader(hostname, parsed.port)],
    };
    if (parsed.username || parsed.password) {
      const auth = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      target.trailing.push('Authorization', `Basic ${Buffer.from(auth).toString('base64')}`);
    }
    if (keepAlive.targets.size >= 1_000) keepAlive.targets.clear();
    keepAlive.targets.set(url, target);
  }
  return target;
}

/** node:http's own `Host` for a request to `hostname` (brackets taken off) and `port` ('' for http's 80): an IPv6 address in brackets, a port other than 80 after it. */
function hostHeader(hostname: string, port: string): string {
  const host = hostname.indexOf(':') !== hostname.lastIndexOf(':') ? `[${hostname}]` : hostname;
  return port && Number(port) !== 80 ? `${host}:${port}` : host;
}

/**
 * The request's headers as a flat list of names and values, which node:http writes as they are (an object's are set
 * one by one, each checked and lower-cased into another object, about 1 µs a delivery): the caller's in their order,
 * `content-length`, then the `Host` (and `Authorization`) node adds after them, so the bytes on the wire are the ones
 * an object of headers gave (a test compares both).
 */
function rawHeaders(headers: Record<string, string>, contentLength: string, trailing: readonly string[]): string[] {
  const raw: string[] = [];
  for (const key in headers) if (Object.hasOwn(headers, key)) raw.push(key, headers[key] as string);
  raw.push('content-length', contentLength);
  for (const item of trailing) raw.push(item);
  return raw;
}

/**
 * Sends one POST on the request `open` makes (given the content-length, the response handler,
 * and whether it must use a fresh connection): the whole attempt is bounded by `timeoutMs`, as
 * fetch's timeout signal bounds it, not only a quiet socket; `onSettled` hears when it is over.
 *
 * A kept-alive socket that the receiver closed as it idled (node's server does after 5 s) fails
 * with ECONNRESET when reused, and the receiver never saw the request: it is sent once more on a
 * fresh connection, as node's docs advise (`request.reusedSocket`), within the same time bound.
 */
function sendPost(
  deadlines: Deadlines,
  open: (contentLength: string, onResponse: (res: IncomingMessage) => void, fresh: boolean) => ClientRequest,
  body: string,
  timeoutMs: number,
  onSettled?: (req: ClientRequest) => void,
  fresh = false,
): Promise<PostOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      deadlines.delete(req);
      onSettled?.(req);
      resolve(outcome);
    };
    const req = open(
      String(Buffer.byteLength(body, 'utf8')),
      (res) => {
        res.resume();
        res.on('end', () => settle({ status: res.statusCode ?? 0 }));
        res.on('error', (error) => settle({ error: describeFailure(error, timeoutMs) }));
      },
      fresh,
    );
    deadlines.add(req, started + timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!settled && !fresh && req.reusedSocket && error.code === 'ECONNRESET') {
        settled = true;
        deadlines.delete(req);
        onSettled?.(req);
        resolve(sendPost(deadlines, open, body, Math.max(1, timeoutMs - (Date.now() - started)), onSettled, true));
        return;
      }
      settle({ error: describeFailure(error, timeoutMs) });
    });
    // The text, not a Buffer of it: node then writes the head and the body in one write (a Buffer goes out in a writev of two).
    req.end(body, 'utf8');
  });
}

/** One POST on the sandbox's keep-alive agent. */
function postKeepAlive(
  keepAlive: KeepAlive,
  deadlines: Deadlines,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  return sendPost(
    deadlines,
    (contentLength, onResponse, fresh) => {
      // `http.request` is looked up at call time (not imported by name), so request interceptors see the call.
      const { protocol, hostname, port, path, trailing } = targetOf(keepAlive, url);
      const agent = fresh ? false : keepAlive.agent;
      // servername '' (a TLS name; this path is plain http): node's agent otherwise works one out of the host at every request.
      const options = { protocol, hostname, port, path, method: 'POST', agent, servername: '', headers: rawHeaders(headers, contentLength, trailing) };
      const req = http.request(options, onResponse);
      keepAlive.inFlight.add(req);
      return req;
    },
    body,
    timeoutMs,
    (req) => keepAlive.inFlight.delete(req),
  );
}

/** One POST on a connection of its own: https with a CA to trust, or a port fetch refuses. */
function postWithNode(
  deadlines: Deadlines,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  ca: string | undefined,
): Promise<PostOutcome> {
  // Looked up at call time (not imported by name), so request interceptors see the call.
  // node:https (and tls) load only when the first https receiver is met: not at every start.
  const request = url.startsWith('https:') ? process.getBuiltinModule('node:https').request : http.request;
  return sendPost(
    deadlines,
    (contentLength, onResponse) =>
      request(
        url,
        { method: 'POST', headers: { ...headers, 'content-length': contentLength }, ...(ca ? { ca } : {}), ...(signal ? { signal } : {}) },
        onResponse,
      ),
    body,
    timeoutMs,
  );
}
