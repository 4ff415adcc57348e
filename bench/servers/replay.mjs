// The generator's own ceiling: a raw TCP server (node:net, no HTTP parser, no per-request
// objects) that answers each request with the very bytes the sandbox answered, built once. It
// costs so little per request that the load generator, not this server, is the limit: the rate
// reached against it is what the generator can drive on this machine.
// Usage: node bench/servers/replay.mjs RESPONSE.json   ({ status, headers, body })

import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import net from 'node:net';

const { status, headers, body } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const bytes = Buffer.from(body);
const head = Object.entries({ ...headers, 'content-length': String(bytes.length) })
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');
const response = Buffer.concat([Buffer.from(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n`), bytes]);
const END_OF_HEAD = Buffer.from('\r\n\r\n');

const server = net.createServer((socket) => {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let answered = 0;
    // Each complete request (head, then content-length bytes of body) gets one response.
    for (;;) {
      const headEnd = pending.indexOf(END_OF_HEAD);
      if (headEnd === -1) break;
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(pending.latin1Slice(0, headEnd))?.[1] ?? 0);
      const end = headEnd + END_OF_HEAD.length + length;
      if (pending.length < end) break;
      pending = pending.subarray(end);
      answered++;
    }
    if (answered === 1) socket.write(response);
    else if (answered > 1) socket.write(Buffer.concat(Array.from({ length: answered }, () => response)));
  });
  socket.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })));
process.once('SIGTERM', () => process.exit(0));
