// Child processes for the bench: each server runs in its own process, pinned to one core where
// the machine has two or more, so the load generator (pinned to another) never shares its CPU.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { listeningUrl } from './http.mjs';

/** Core 0 for servers, core 1 for the load generator; no pinning on a one-core machine or without taskset. */
export const PINNING = (() => {
  if (availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** The command line for `argv` on a core (`server` or `generator`). */
export function pinned(core, argv) {
  if (!PINNING) return argv;
  return ['taskset', '-c', core === 'server' ? '0' : '1', ...argv];
}

/**
 * Runs `work` with this process (all its threads) on the load generator's core, then puts it back where it was: for a
 * section whose requests the bench process sends itself, so that they never take the server's core.
 */
export async function onGeneratorCore(work) {
  if (!PINNING) return work();
  const pid = String(process.pid);
  const mask = execFileSync('taskset', ['-p', pid], { encoding: 'utf8' }).trim().split(' ').pop();
  execFileSync('taskset', ['-a', '-p', '-c', '1', pid], { stdio: 'ignore' });
  try {
    return await work();
  } finally {
    execFileSync('taskset', ['-a', '-p', mask, pid], { stdio: 'ignore' });
  }
}

/**
 * Starts a node script on a core (the server's by default) and resolves with the first JSON line it prints
 * (its address and whatever else it reports), plus `stop()`.
 */
export function startNode(script, args = [], { nodeArgs = [], core = 'server' } = {}) {
  const [command, ...rest] = pinned(core, [process.execPath, ...nodeArgs, script, ...args]);
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    lines.once('line', (line) => {
      const info = JSON.parse(line);
      resolve({
        /** Asks the child (SIGUSR2) for its live heap after a full GC, in MiB (bench/servers/sandbox.mjs). */
        heapMiB: () =>
          new Promise((done) => {
            lines.once('line', (reply) => done(JSON.parse(reply).heapMiB));
            child.kill('SIGUSR2');
          }),
        ...info,
        pid: child.pid,
        child,
        /** Resident set of the server process, in MiB. */
        rssMiB: () => rssMiB(child.pid),
        stop: () => stopChild(child),
      });
    });
  });
}

/** VmRSS of a process (Linux /proc), in MiB. With taskset the node process is the same pid (exec). */
export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

/**
 * Starts `crm-sandbox serve` as a user runs it (the built CLI, `--port 0 --quiet`, the default data set; lifecycle
 * delays off so a link is READY at once), on the server's core. Resolves with its `url`, `pid`, `rssMiB()`,
 * `link()` (a HubSpot connection through the link flow, its data set seeded: { connectionId, accessToken }) and
 * `stop()`.
 */
export async function startServe() {
  const cli = new URL('../../bin/crm-sandbox.js', import.meta.url).pathname;
  const args = ['serve', '--port', '0', '--quiet', '--initial-sync-delay', '0ms', '--ready-delay', '0ms'];
  const [command, ...rest] = pinned('server', [process.execPath, cli, ...args]);
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await listeningUrl(child);
  const headers = { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' };
  const post = async (path, body) => (await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
  return {
    url,
    pid: child.pid,
    rssMiB: () => rssMiB(child.pid),
    link: async () => {
      const { publicToken } = await post('/sandbox/public-token', { integrationId: 'hubspot' });
      const { connectionId, accessToken } = await post('/link/exchange', { publicToken });
      const seeded = await fetch(`${url}/crm/contacts?accessToken=${accessToken}`, { headers });
      await seeded.arrayBuffer();
      if (seeded.status !== 200) throw new Error(`GET /crm/contacts answered ${seeded.status} on a linked connection`);
      return { connectionId, accessToken };
    },
    stop: () => stopChild(child),
  };
}

/** Stops a child with SIGTERM and resolves once it has exited (at once if it already has). */
function stopChild(child) {
  return new Promise((done) => {
    if (child.exitCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}
