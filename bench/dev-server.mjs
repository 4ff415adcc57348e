// Throughput of the dev server serving a 100-record page of users, against bare node:http
// sending the same page as a ready buffer, measured in the same run. Prints req/s and the ratio.
// Run after `npm run build`: node bench/dev-server.mjs [seconds] [connections]
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../dist/index.js';
import { startDevServer } from '../dist/server.js';

const seconds = process.argv[2] ?? '5';
const connections = process.argv[3] ?? '50';
const load = fileURLToPath(new URL('./load.mjs', import.meta.url));

// Asynchronous on purpose: the servers under test run on this process's event loop.
async function measure(url, headers = {}) {
  const { stdout } = await promisify(execFile)(process.execPath, [load, url, seconds, connections, JSON.stringify(headers)]);
  const { requests, errors, seconds: took } = JSON.parse(stdout);
  if (errors > 0) throw new Error(`${errors} failed requests against ${url}`);
  return requests / took;
}

const sandbox = createSandbox({ clock: 'virtual', dataset: { engagement: { users: 250 } } });
const connection = sandbox.connect();
sandbox.setStatus(connection.connectionId, 'READY');
const server = await startDevServer(sandbox, { port: 0 });
const path = `/engagement/users?accessToken=${connection.accessToken}&limit=100`;
const page = Buffer.from(JSON.stringify(await (await fetch(server.url + path, { headers: { 'service-api-token': 'sandbox-api-key' } })).json()));

const bare = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': page.length });
  res.end(page);
});
await new Promise((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${bare.address().port}${path}`;

// Child processes do the loading, so the servers' own event loops stay free: run them one at a time.
const bareRate = await measure(bareUrl);
const sandboxRate = await measure(server.url + path, { 'service-api-token': 'sandbox-api-key' });
console.log(`page of ${JSON.parse(page).users.length} users, ${page.length} bytes, ${connections} connections, ${seconds}s each`);
console.log(`bare node:http (ready buffer): ${bareRate.toFixed(0)} req/s`);
console.log(`crm-sandbox dev server:        ${sandboxRate.toFixed(0)} req/s`);
console.log(`ratio sandbox/bare: ${(sandboxRate / bareRate).toFixed(2)} (target >= 0.25: within 4x of a server that does nothing)`);
bare.close();
await server.close();
