import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index.js';
import { type DevServer, startDevServer } from '../src/node/dev-server.js';

// Clients still writing an oversized body must get to read the answer (413, or 431 for headers):
// the dev server reads the rest of the body before it closes, instead of resetting the socket.
let server: DevServer;
beforeAll(async () => {
  server = await startDevServer(createSandbox({ clock: 'virtual' }), { port: 0 });
});
afterAll(() => server.close());

const MiB = 1024 * 1024;

/** POSTs `bytes` of JSON-ish body in 64 KiB writes; declared with content-length, or chunked. */
function postLarge(bytes: number, declared: boolean): Promise<{ status: number; body: string; connection: string | undefined; error?: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, _reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/link/exchange',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'service-api-token': 'sandbox-api-key', ...(declared ? { 'content-length': String(bytes) } : {}) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          // A reset after the answer still counts: the client saw an error while it was writing.
          setImmediate(() => resolve({ status: res.statusCode!, body, connection: res.headers.connection, ...(failure ? { error: failure } : {}) }));
        });
        res.on('error', (error) => resolve({ status: 0, body: '', connection: undefined, error: error.message }));
      },
    );
    let failure: string | undefined;
    req.on('error', (error) => {
      failure = (error as NodeJS.ErrnoException).code ?? error.message;
      resolve({ status: 0, body: '', connection: undefined, error: failure });
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const size = Math.min(chunk.length, bytes - sent);
        sent += size;
        if (!req.write(size === chunk.length ? chunk : chunk.subarray(0, size))) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('oversized requests', () => {
  it('answers every oversized body with a 413 the client reads, under concurrency, declared or chunked', async () => {
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => postLarge(3 * MiB + i * 4096 * 7, i % 2 === 0)));
    expect(results.filter((result) => result.error !== undefined)).toEqual([]);
    for (const result of results) {
      expect(result.status).toBe(413);
      expect(JSON.parse(result.body)).toMatchObject({ errorCode: 'PAYLOAD_TOO_LARGE', metadata: { limit: MiB } });
      expect(result.connection).toBe('close');
    }
    // The server is still fine afterwards.
    expect((await fetch(`${server.url}/sandbox/health`)).status).toBe(200);
  });

  it('still answers a body of exactly 1 MiB normally (a 400 about its content, not a 413)', async () => {
    const result = await postLarge(MiB, true);
    expect(result.status).toBe(400);
  });

  it('answers headers over the limit with a 431 the client reads while it still sends a body', async () => {
    const { port } = new URL(server.url);
    const once = () =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk));
        socket.on('close', () => resolve(answer));
        socket.on('error', (error) => reject(new Error(`${(error as NodeJS.ErrnoException).code} after reading ${JSON.stringify(answer.slice(0, 20))}`)));
        socket.write(`POST /link/exchange HTTP/1.1\r\nhost: x\r\ncontent-length: ${2 * MiB}\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
        const chunk = Buffer.alloc(64 * 1024, 'b');
        let sent = 0;
        const pump = () => {
          while (sent < 2 * MiB) {
            sent += chunk.length;
            if (!socket.write(chunk)) return void socket.once('drain', pump);
          }
          socket.end();
        };
        pump();
      });
    const answers = await Promise.all(Array.from({ length: 20 }, once));
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 431 /);
      expect(answer).toContain('"errorCode":"HEADERS_TOO_LARGE"');
    }
  });
});
