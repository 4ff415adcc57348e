import { createServer, type Server, type ServerResponse } from 'node:http';
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
    for (let i = 0; i < 20; i++) expect(await post(url, { 'content-type': 'application/json', 'x-service-timestamp': String(i) }, `{"n":${i},"é":1}`, 5_000)).toEqual({ status: 200 });
    expect(seen.requests).toBe(20);
    expect(seen.connections).toBe(1);
    expect(seen.bodies[3]).toBe('{"n":3,"é":1}');
    expect(seen.headers[3]).toMatchObject({ 'content-type': 'application/json', 'x-service-timestamp': '3', 'content-length': String(Buffer.byteLength('{"n":3,"é":1}')) });
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
});
