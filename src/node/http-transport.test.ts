import { createServer, request, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpTransport } from './http-transport.js';

let server: Server | undefined;
const hanging: ServerResponse[] = [];
afterEach(async () => {
  for (const res of hanging.splice(0)) res.destroy();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server?.closeAllConnections();
  server = undefined;
});

/** A receiver counting TCP connections and requests; `answer` decides each response. */
async function receiver(answer: (res: ServerResponse, index: number) => void = (res) => res.end('ok')) {
  const seen = { connections: 0, requests: 0, bodies: [] as string[], headers: [] as Record<string, unknown>[] };
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.bodies.push(body);
      seen.headers.push(req.headers);
      answer(res, seen.requests++);
    });
  });
  server.on('connection', () => seen.connections++);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hooks?x=1`, seen };
}

describe('http transport (plain http)', () => {
  it('reuses one keep-alive connection for deliveries one after another, and sends the body and headers as given', async () => {
    const { url, seen } = await receiver();
    const post = createHttpTransport();
    for (let i = 0; i < 20; i++)
      expect(await post(url, { 'content-type': 'application/json', 'x-service-timestamp': String(i) }, `{"n":${i},"é":1}`, 5_000)).toEqual({ status: 200 });
    expect(seen.requests).toBe(20);
    expect(seen.connections).toBe(1);
    expect(seen.bodies[3]).toBe('{"n":3,"é":1}');
    expect(seen.headers[3]).toMatchObject({
      'content-type': 'application/json',
      'x-service-timestamp': '3',
      'content-length': String(Buffer.byteLength('{"n":3,"é":1}')),
    });
  });

  it('reports the receiver status, a refused connection and a timeout', async () => {
    const { url } = await receiver((res, index) => {
      if (index === 0) {
        res.statusCode = 503;
        res.end();
      } else hanging.push(res);
    });
    const post = createHttpTransport();
    expect(await post(url, {}, '{}', 5_000)).toEqual({ status: 503 });
    expect(await post(url, {}, '{}', 50)).toEqual({ error: 'timeout after 50ms' });
    expect(await post('http://127.0.0.1:1/x', {}, '{}', 5_000)).toEqual({ error: 'ECONNREFUSED' });
  });

  it('ends each attempt at its own time bound, on one timer: a shorter bound set after a longer one still ends first', async () => {
    const { url } = await receiver((res) => hanging.push(res));
    const post = createHttpTransport();
    const ended: string[] = [];
    const long = post(url, {}, '{}', 400).then((outcome) => ended.push(`long: ${outcome.error}`));
    const short = post(url, {}, '{}', 60).then((outcome) => ended.push(`short: ${outcome.error}`));
    await Promise.all([long, short]);
    expect(ended).toEqual(['short: timeout after 60ms', 'long: timeout after 400ms']);
  });

  it('aborts the attempts in flight when the sandbox closes, and refuses new ones after', async () => {
    const { url } = await receiver((res) => hanging.push(res));
    const post = createHttpTransport();
    const closing = new AbortController();
    const pending = [post(url, {}, '{}', 60_000, closing.signal), post(url, {}, '{}', 60_000, closing.signal)];
    await new Promise((resolve) => setTimeout(resolve, 50));
    closing.abort();
    expect(await Promise.all(pending)).toEqual([{ error: 'aborted: the sandbox was closed' }, { error: 'aborted: the sandbox was closed' }]);
    expect(await post(url, {}, '{}', 60_000, closing.signal)).toEqual({ error: 'aborted: the sandbox was closed' });
  });

  it('sends once more on a fresh connection when a kept-alive socket turns out closed by the receiver', async () => {
    // A receiver that answers the first request of each connection and drops the connection on
    // the next one, without answering: as a server whose keep-alive timeout just ran out.
    const seen: string[] = [];
    const sockets = new Set<Socket>();
    const tcp = createTcpServer((socket) => {
      sockets.add(socket);
      let requests = 0;
      socket.on('data', (chunk: Buffer) => {
        if (!chunk.toString('latin1').startsWith('POST ')) return; // the rest of a request already answered
        if (requests++ === 0) {
          seen.push('answered');
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok');
        } else {
          seen.push('dropped');
          socket.destroy();
        }
      });
    });
    await new Promise<void>((done) => tcp.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(tcp.address() as { port: number }).port}/webhooks`;
    try {
      const transport = createHttpTransport();
      const headers = { 'content-type': 'application/json' };
      expect(await transport(url, headers, '{"n":1}', 5_000)).toEqual({ status: 200 });
      expect(await transport(url, headers, '{"n":2}', 5_000)).toEqual({ status: 200 });
      // The second went out on the kept socket, which was gone; it arrived on a new connection.
      expect(seen).toEqual(['answered', 'dropped', 'answered']);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => tcp.close(() => done()));
    }
  });
  it('puts on the wire the bytes node:http sends for the same headers given as an object, with content-length (as it did before)', async () => {
    // Raw receivers (IPv4 and IPv6 loopback): they keep each request's bytes as they came and answer each one, so both
    // senders' heads can be compared, Host included.
    const requests: string[] = [];
    const sockets = new Set<Socket>();
    const capture = async (host: string) => {
      const tcp = createTcpServer((socket) => {
        sockets.add(socket);
        socket.on('data', (chunk: Buffer) => {
          requests.push(chunk.toString('latin1'));
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok');
        });
      });
      await new Promise<void>((done) => tcp.listen(0, host, done));
      return { tcp, port: (tcp.address() as { port: number }).port };
    };
    const [v4, v6] = [await capture('127.0.0.1'), await capture('::1')];
    const headers = {
      'content-type': 'application/json',
      'x-service-timestamp': '1735689600',
      'x-service-signature': 'ab'.repeat(32),
      'x-service-connection-id': 'c1',
    };
    const body = '{"eventId":"e1","é":"ü"}';
    const byObject = (url: string) =>
      new Promise<void>((done, fail) => {
        const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
          res.resume();
          res.on('end', done);
        });
        req.on('error', fail);
        req.end(body);
      });
    try {
      const transport = createHttpTransport();
      const urls = [
        `http://127.0.0.1:${v4.port}/hooks?x=1`,
        `http://localhost:${v4.port}/`,
        `http://user:p%40ss@127.0.0.1:${v4.port}/in`,
        `http://[::1]:${v6.port}/v6`,
      ];
      for (const url of urls) {
        await byObject(url);
        expect(await transport(url, headers, body, 5_000)).toEqual({ status: 200 });
        const [expected, sent] = requests.splice(0);
        expect(sent).toBe(expected);
      }
      expect(requests).toEqual([]);
    } finally {
      for (const socket of sockets) socket.destroy();
      for (const { tcp } of [v4, v6]) await new Promise<void>((done) => tcp.close(() => done()));
    }
  });
});
