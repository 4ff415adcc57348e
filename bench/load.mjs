// A small HTTP load generator (keep-alive, N concurrent loops) run in its own process so it
// does not share an event loop with the server it measures. Prints { requests, errors, seconds }.
import http from 'node:http';

const [url, seconds = '5', connections = '50', headerJson = '{}'] = process.argv.slice(2);
const headers = JSON.parse(headerJson);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
const target = new URL(url);
const deadline = performance.now() + Number(seconds) * 1000;
let requests = 0;
let errors = 0;

function once() {
  return new Promise((resolve) => {
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) requests++;
        else errors++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end();
  });
}

async function loop() {
  while (performance.now() < deadline) await once();
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, loop));
console.log(JSON.stringify({ requests, errors, seconds: (performance.now() - started) / 1000 }));
agent.destroy();
