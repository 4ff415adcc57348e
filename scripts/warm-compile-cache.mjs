// Fills Node's compile cache (NODE_COMPILE_CACHE, Node >= 22.1) for a package installed at the
// given folder, so that a container of the image starts `serve` without compiling its modules
// again: the Dockerfile runs this once, in the build, on /app as the image will hold it (the cache
// is keyed by each file's path and content, and by the Node that wrote it). It starts `serve` as a
// container does, waits for its first 200 from /sandbox/health and stops it with SIGTERM; Node
// writes the cache as the process exits. A Node without compile caching just starts and stops.
//
//   NODE_COMPILE_CACHE=/app/.compile-cache node scripts/warm-compile-cache.mjs /app
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { join } from 'node:path';

const [app] = process.argv.slice(2);
if (!app) throw new Error('usage: node scripts/warm-compile-cache.mjs <the installed package folder>');

// No state file: the warm-up leaves nothing behind but the cache.
const server = spawn(process.execPath, [join(app, 'bin/crm-sandbox.js'), 'serve', '--port', '0', '--quiet', '--state-file', ''], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const exited = new Promise((resolve) => server.once('exit', resolve));
const url = await Promise.race([
  new Promise((resolve) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (match) resolve(match[1]);
    });
  }),
  exited.then((code) => {
    throw new Error(`warm-compile-cache: serve exited with ${code} before it listened`);
  }),
]);
const status = await new Promise((resolve, reject) => {
  get(`${url}/sandbox/health`, (response) => {
    response.resume();
    resolve(response.statusCode);
  }).on('error', reject);
});
server.kill('SIGTERM');
const code = await exited;
if (status !== 200 || code !== 0) throw new Error(`warm-compile-cache: /sandbox/health answered ${status}, serve exited with ${code}`);
