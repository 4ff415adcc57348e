// Cold start: spawn → first 200, of `crm-sandbox serve --port 0 --quiet` against a bare node:http
// server started the same way; pinned to the server core; alternating; the median counts.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { httpStatus, listeningUrl } from './lib/http.mjs';
import { pinned, rssMiB } from './lib/procs.mjs';
import { fmt, median, row } from './lib/report.mjs';

const CLI = fileURLToPath(new URL('../bin/crm-sandbox.js', import.meta.url));
const BARE = `require('node:http').createServer((q, s) => s.end('{"status":"ok"}')).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port) })`;

/**
 * Spawns, waits for the address on stdout, then for a 200 from `path` at `reach(address)` (a
 * container prints its own address: the caller maps it to the published port); resolves with
 * { ms, rssMiB } (the RSS of the spawned process).
 */
export async function firstOk(argv, path, { reach = (url) => url } = {}) {
  const started = performance.now();
  const [command, ...rest] = pinned('server', argv);
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await listeningUrl(child);
    // node:http, not fetch: the first fetch of a process pays for loading undici, which is not the server's time.
    while ((await httpStatus(reach(url) + path)) !== 200);
    const ms = performance.now() - started;
    return { ms, rssMiB: rssMiB(child.pid) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode !== null ? done() : child.once('exit', done)));
  }
}

export async function coldStart({ rounds = 5 } = {}) {
  const sandbox = [];
  const bare = [];
  for (let i = 0; i < rounds; i++) {
    bare.push(await firstOk([process.execPath, '-e', BARE], '/'));
    sandbox.push(await firstOk([process.execPath, CLI, 'serve', '--port', '0', '--quiet'], '/sandbox/health'));
  }
  const ms = median(sandbox.map((r) => r.ms));
  const bareMs = median(bare.map((r) => r.ms));
  row({
    workload: 'cold start, spawn → first 200',
    sandbox: `${fmt(ms)} ms`,
    baseline: `${fmt(bareMs)} ms`,
    ratio: ms / bareMs,
    target: '<= 1.5x',
    pass: (r) => r <= 1.5,
  });
  const idle = median(sandbox.map((r) => r.rssMiB));
  const bareIdle = median(bare.map((r) => r.rssMiB));
  row({
    // Beside bare node's, for scale; the memory section's idle row judges the goal (counted once).
    workload: 'RSS of `serve` just started (no connection yet; its goal is the memory section’s)',
    sandbox: `${fmt(idle)} MiB`,
    baseline: `${fmt(bareIdle)} MiB`,
    ratio: idle / bareIdle,
    target: '',
  });
  return { ms, bareMs, idleMiB: idle };
}
