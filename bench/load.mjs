// Fallback load generator (when wrk is not installed): keep-alive node:http loops in their own
// process. Prints { requests, errors, seconds, p99Ms }.
// Usage: node bench/load.mjs URL SECONDS CONNECTIONS '{"method","headers","body"}'
import http from 'node:http';

const [url, seconds = '5', connections = '50', requestJson = '{}'] = process.argv.slice(2);
const { method = 'GET', headers = {}, body } = JSON.parse(requestJson);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
const target = new URL(url);
const deadline = performance.now() + Number(seconds) * 1000;
const latencies = [];
let requests = 0;
let errors = 0;

function once() {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode < 400) requests++;
        else errors++;
        latencies.push(performance.now() - started);
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end(body);
  });
}

async function loop() {
  while (performance.now() < deadline) await once();
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, loop));
latencies.sort((a, b) => a - b);
const p99Ms = latencies[Math.floor(latencies.length * 0.99)] ?? NaN;
console.log(JSON.stringify({ requests, errors, seconds: (performance.now() - started) / 1000, p99Ms }));
agent.destroy();
