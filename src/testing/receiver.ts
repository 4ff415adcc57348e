import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENT_HEADERS, type ServiceEvent } from '../model/events.js';
import { verifySignature } from '../webhooks/signature.js';

/** A webhook delivery the test receiver accepted: its signature checked against the connection's accessToken. */
export interface CapturedEvent {
  /** The parsed event body. */
  event: ServiceEvent;
  /** The `x-service-connection-id` header. */
  connectionId: string;
  /** The `x-service-timestamp` header (unix seconds). */
  timestamp: string;
  /** The raw body, exactly as signed. */
  body: string;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
}

/** A delivery the receiver refused (401), and why. */
export interface RejectedDelivery {
  reason: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The receiving end of webhooks in a test: checks each delivery's signature like a careful
 * receiver (401 when it does not match) and keeps the good ones, in arrival order.
 */
export class EventReceiver {
  readonly events: CapturedEvent[] = [];
  readonly rejected: RejectedDelivery[] = [];
  private readonly accessTokenOf: (connectionId: string) => string | undefined;
  private readonly arrivals = new Set<() => void>();

  constructor(accessTokenOf: (connectionId: string) => string | undefined) {
    this.accessTokenOf = accessTokenOf;
  }

  /** Answers one delivery: 200 and kept, or 401 and recorded as rejected. */
  accept(headers: Record<string, string>, body: string): number {
    const connectionId = headers[EVENT_HEADERS.connectionId] ?? '';
    const timestamp = headers[EVENT_HEADERS.timestamp] ?? '';
    const accessToken = this.accessTokenOf(connectionId);
    const reject = (reason: string) => {
      this.rejected.push({ reason, headers, body });
      return 401;
    };
    if (accessToken === undefined) return reject(`unknown connection ${JSON.stringify(connectionId)}`);
    if (!verifySignature({ accessToken, body, timestamp, signature: headers[EVENT_HEADERS.signature] })) return reject('signature does not match');
    this.events.push({ event: JSON.parse(body) as ServiceEvent, connectionId, timestamp, body, headers });
    for (const wake of this.arrivals) wake();
    return 200;
  }

  /** Resolves at the next accepted delivery (or after `ms` of real time). */
  nextArrival(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.arrivals.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.arrivals.add(done);
    });
  }

  clear(): void {
    this.events.length = 0;
    this.rejected.length = 0;
  }
}

/** Serves a receiver on 127.0.0.1 and a free port (for a sandbox behind a dev server). */
export async function listenReceiver(receiver: EventReceiver): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      res.writeHead(receiver.accept(headers, Buffer.concat(chunks).toString('utf8'))).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
