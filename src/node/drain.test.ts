import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainThenClose } from './drain.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** A TCP server that answers at once and drains with `limits`; resolves with its port. */
function listen(limits: { bytes: number; ms: number }): Promise<number> {
  server = createServer({ allowHalfOpen: true }, (socket: Socket) => {
    socket.end('answer');
    drainThenClose(socket, limits);
  });
  return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve((server!.address() as { port: number }).port)));
}

describe('drainThenClose', () => {
  it('reads what the client sends until it ends, so the client reads the answer', async () => {
    const port = await listen({ bytes: 1024 * 1024, ms: 5_000 });
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.write(Buffer.alloc(200_000, 'x'));
    socket.end();
    await new Promise((resolve) => socket.on('close', resolve));
    expect(answer).toBe('answer');
  });

  it('closes the socket once more than the byte limit arrived', async () => {
    const port = await listen({ bytes: 1000, ms: 60_000 });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('data', () => {});
    // Keeps writing without ever ending: only the byte limit can close it.
    const timer = setInterval(() => socket.write(Buffer.alloc(500, 'x')), 5);
    await new Promise((resolve) => socket.on('close', resolve));
    clearInterval(timer);
    expect(socket.destroyed).toBe(true);
  });

  it('closes the socket after the time limit when the client goes quiet', async () => {
    const port = await listen({ bytes: 1_000_000, ms: 50 });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.write('partial');
    await new Promise((resolve) => socket.on('close', resolve));
    expect(socket.destroyed).toBe(true);
  });
});
