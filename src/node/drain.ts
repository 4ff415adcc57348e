import type { Duplex } from 'node:stream';

/** How much of a refused request the dev server still reads after answering, and for how long. */
export const DRAIN_LIMITS = { bytes: 16 * 1024 * 1024, ms: 5_000 } as const;

/**
 * Reads and discards what the client is still sending, then closes the socket: once all of it
 * has arrived, when more than `limits.bytes` came, or after `limits.ms`, whichever is first.
 *
 * Why: closing a socket with unread bytes in its receive buffer makes the kernel send a reset,
 * and a client still writing its oversized body then sees EPIPE or ECONNRESET instead of the
 * 413 (or 431) it was already sent. Reading the rest first lets it read the answer.
 *
 * @example
 * socket.end(answer);           // the 431, with `connection: close`
 * drainThenClose(socket);       // the client gets to read it
 */
export function drainThenClose(socket: Duplex, limits: { bytes: number; ms: number } = DRAIN_LIMITS): void {
  if (socket.destroyed) return;
  let received = 0;
  const close = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, limits.ms);
  timer.unref();
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.bytes) close();
  });
  socket.once('end', close);
  socket.once('close', () => clearTimeout(timer));
  socket.on('error', close);
  socket.resume();
}
