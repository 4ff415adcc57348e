// The ceiling: bare node:http answering the very bytes (status, headers, body) the sandbox
// answered, from memory, after reading the request body as any server must.
// Usage: node bench/servers/ceiling.mjs RESPONSE.json   ({ status, headers, body })

import '../lib/young-generation.mjs';
import { readFileSync } from 'node:fs';
import http from 'node:http';

const { status, headers, body } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const bytes = Buffer.from(body);
const head = { ...headers, 'content-length': String(bytes.length) };
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(status, head);
    res.end(bytes);
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })));
process.once('SIGTERM', () => process.exit(0));
