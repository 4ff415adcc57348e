// A webhook receiver: bare node:http that reads each POST and answers 200 (after DELAY_MS when
// given, to play a receiver that takes time). GET /count answers how many POSTs it got.
// Usage: node bench/servers/receiver.mjs [DELAY_MS]
import http from 'node:http';

const delayMs = Number(process.argv[2] ?? 0);
let count = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.end(String(count));
    return;
  }
  req.on('data', () => {});
  req.on('end', () => {
    count++;
    if (delayMs > 0) setTimeout(() => res.end('ok'), delayMs);
    else res.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/webhooks` })));
process.once('SIGTERM', () => process.exit(0));
