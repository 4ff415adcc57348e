// A webhook receiver: bare node:http that reads each POST and answers 200 (after DELAY_MS when
// given, to play a receiver that takes time). A GET answers how many POSTs it got; a GET with ?until=N answers
// once it has got N (so a sender learns when its last delivery arrived without polling).
// Usage: node bench/servers/receiver.mjs [DELAY_MS]
import http from 'node:http';

const delayMs = Number(process.argv[2] ?? 0);
let count = 0;
/** GETs waiting for a count: { until, res }. */
let waiting = [];
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    const until = Number(new URL(req.url, 'http://x').searchParams.get('until') ?? 0);
    if (count >= until) res.end(String(count));
    else waiting.push({ until, res });
    return;
  }
  req.on('data', () => {});
  req.on('end', () => {
    count++;
    if (waiting.length > 0) {
      for (const w of waiting) if (count >= w.until) w.res.end(String(count));
      waiting = waiting.filter((w) => count < w.until);
    }
    if (delayMs > 0) setTimeout(() => res.end('ok'), delayMs);
    else res.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/webhooks` })));
process.once('SIGTERM', () => process.exit(0));
