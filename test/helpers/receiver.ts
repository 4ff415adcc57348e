import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook request as the receiver got it. */
export interface Received {
  headers: IncomingHttpHeaders;
  /** The raw body text, exactly as sent. */
  body: string;
  json: any;
}

/** What to do with the n-th request (0-based): answer a status, or hang without answering. */
export type Behaviour = (request: Received, index: number) => number | 'hang';

/**
 * A real webhook receiver on 127.0.0.1 and a free port. It records every request; `behaviour`
 * decides the answer (200 by default). `stop()` and `start()` take it down and bring it back on
 * the same port, to play a receiver that is down for a while.
 */
export class Receiver {
  readonly received: Received[] = [];
  behaviour: Behaviour = () => 200;
  private server: Server | undefined;
  private readonly hanging = new Set<ServerResponse>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/webhooks`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const request: Received = { headers: req.headers, body, json: JSON.parse(body) };
        const index = this.received.length;
        this.received.push(request);
        const answer = this.behaviour(request, index);
        if (answer === 'hang') {
          this.hanging.add(res);
          return;
        }
        res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'nope');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** The bodies received, parsed. */
  events() {
    return this.received.map((request) => request.json);
  }
}
