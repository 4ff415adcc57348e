// The sandbox side by side with the mock servers a team might run instead (issue 30 is checked so): each answers the
// users page (GET /engagement/users?accessToken=…&limit=100) on the server's core, wrk on the other, one peer at a time
// and in turn with the sandbox. No goal: a row per peer, its rate and p99 beside the sandbox's.
// - the ceiling (bare node:http) and express answer the very bytes the sandbox answered;
// - Mockoon CLI and WireMock answer the same bytes from a route or a stub (WireMock runs on java);
// - json-server serves the same page from its db file, as its own pretty-printed JSON;
// - Prism mocks the route from the sandbox's own OpenAPI document: a page it makes up from the schema.
// Each peer runs as its users run it: its own CLI and defaults. They come from bench/peers
// (`npm install --prefix bench/peers --ignore-scripts`); one that is not there is skipped, with a line saying how.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, httpStatus } from './lib/http.mjs';
import { drive } from './lib/load.mjs';
import { pinned, startNode } from './lib/procs.mjs';
import { fmt, median, row } from './lib/report.mjs';
import { capture } from './throughput.mjs';

const SANDBOX = fileURLToPath(new URL('./servers/sandbox.mjs', import.meta.url));
const CEILING = fileURLToPath(new URL('./servers/ceiling.mjs', import.meta.url));
const EXPRESS = fileURLToPath(new URL('./servers/express.mjs', import.meta.url));
const PEER_BIN = fileURLToPath(new URL('./peers/node_modules/.bin/', import.meta.url));
const INSTALL = 'npm install --prefix bench/peers --ignore-scripts';
const KEY = { 'service-api-token': 'sandbox-api-key' };
const PATH = '/engagement/users';

/** A peer from bench/peers: why it cannot run here, or undefined. */
const missingBin = (name) => (existsSync(join(PEER_BIN, name)) ? undefined : `not installed: ${INSTALL}`);

/** The peers, each with what it needs and how it starts: { url, stop(), and pid or signal(name) }. */
const PEERS = [
  {
    name: 'node:http, the same bytes (the ceiling)',
    start: ({ sampleFile }) => startNode(CEILING, [sampleFile]),
  },
  {
    name: 'express, the same bytes (one route, res.send)',
    missing: () => (canImport('express') ? undefined : 'express is not installed (a devDependency: npm ci)'),
    start: ({ sampleFile }) => startNode(EXPRESS, [sampleFile, PATH]),
  },
  {
    name: 'Mockoon CLI 9, the same bytes (one route)',
    missing: () => missingBin('mockoon-cli'),
    start: async ({ dir, sample }) => {
      const port = await freePort();
      const file = join(dir, 'mockoon.json');
      writeFileSync(file, JSON.stringify(mockoonEnvironment(sample, port)));
      return startCli('mockoon-cli', ['start', '--data', file, '--port', String(port), '--disable-log-to-file'], port);
    },
  },
  {
    name: 'WireMock 3, the same bytes (one stub; java)',
    missing: () => missingBin('wiremock') ?? (spawnSync('java', ['-version']).status === 0 ? undefined : 'no java on this machine'),
    // The JVM compiles later than node does: three times the others' warm-up.
    warmupFactor: 3,
    start: async ({ dir, sample }) => {
      const port = await freePort();
      const root = join(dir, 'wiremock');
      mkdirSync(join(root, 'mappings'), { recursive: true });
      const stub = { request: { method: 'GET', urlPath: PATH }, response: { status: sample.status, body: sample.body, headers: sample.headers } };
      writeFileSync(join(root, 'mappings', 'users.json'), JSON.stringify(stub));
      return startCli('wiremock', ['--port', String(port), '--bind-address', '127.0.0.1', '--root-dir', root, '--disable-banner'], port);
    },
  },
  {
    name: 'json-server 0.17, the same page from its db (its own pretty JSON)',
    missing: () => missingBin('json-server'),
    start: async ({ dir, sample }) => {
      const port = await freePort();
      const db = join(dir, 'db.json');
      const routes = join(dir, 'routes.json');
      writeFileSync(db, JSON.stringify({ page: JSON.parse(sample.body) }));
      writeFileSync(routes, JSON.stringify({ [`${PATH}*`]: '/page' }));
      return startCli('json-server', ['--port', String(port), '--host', '127.0.0.1', '--routes', routes, '--quiet', db], port);
    },
  },
  {
    name: "Prism 5, from the sandbox's OpenAPI document (a page made up from the schema)",
    missing: () => missingBin('prism'),
    start: async ({ dir, sandboxUrl }) => {
      const port = await freePort();
      const file = join(dir, 'openapi.json');
      writeFileSync(file, await (await fetch(`${sandboxUrl}/openapi.json`)).text());
      return startCli('prism', ['mock', '-h', '127.0.0.1', '-p', String(port), file], port);
    },
  },
];

/**
 * Measures each peer present beside the sandbox, one peer at a time: the peer starts, both warm up, then `rounds` rounds
 * of `seconds` each in turn; the medians count, and the peer stops before the next starts. Adds a row per peer (the
 * sandbox's figures against the peer's). One block per peer: with all of them started at once, the sandbox read a
 * quarter slower though each was stopped while it was measured, which no peer alone caused.
 */
export async function peers({ rounds = 3, seconds = 2, warmupSeconds = 4 } = {}) {
  const sandbox = await startNode(SANDBOX, [JSON.stringify({ integrations: ['hubspot'] })]);
  const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-peers-'));
  try {
    const [{ accessToken }] = sandbox.connections;
    const query = `?accessToken=${accessToken}&limit=100`;
    const sample = await capture(sandbox.url + PATH + query, { headers: KEY });
    const sampleFile = join(dir, 'sample.json');
    writeFileSync(sampleFile, JSON.stringify(sample));
    const own = { url: sandbox.url, signal: signaller(sandbox.pid) };
    for (const peer of PEERS) {
      const missing = peer.missing?.();
      if (missing) {
        console.log(`    ${peer.name}: skipped, ${missing}`);
        continue;
      }
      let server;
      try {
        server = await peer.start({ dir, sample, sampleFile, sandboxUrl: sandbox.url });
      } catch (error) {
        console.log(`    ${peer.name}: skipped, it did not start: ${String(error.message).slice(0, 300)}`);
        continue;
      }
      try {
        const answer = await fetch(server.url + PATH + query, { headers: KEY });
        const bytes = (await answer.arrayBuffer()).byteLength;
        const other = { url: server.url, signal: server.signal ?? signaller(server.pid) };
        // The one measured runs alone: the other is stopped (SIGSTOP) meanwhile, so that what one does after its load (a
        // JVM compiling, a collector sweeping) never takes the core from the other.
        const measure = async (side, secs) => {
          const idle = side === own ? other : own;
          idle.signal('SIGSTOP');
          try {
            return await drive(side.url + PATH + query, { headers: KEY, seconds: secs, connections: 50 });
          } finally {
            idle.signal('SIGCONT');
          }
        };
        await measure(own, warmupSeconds);
        await measure(other, warmupSeconds * (peer.warmupFactor ?? 1));
        const runs = { own: [], other: [] };
        for (let round = 0; round < rounds; round++) {
          runs.other.push(await measure(other, seconds));
          runs.own.push(await measure(own, seconds));
          console.log(`    ${peer.name.split(',')[0]}, round ${round + 1}: ${fmt(runs.other.at(-1).rps)} req/s; crm-sandbox ${fmt(runs.own.at(-1).rps)} req/s`);
        }
        const [ours, theirs] = [runs.own, runs.other].map((list) => ({ rps: median(list.map((r) => r.rps)), p99Ms: median(list.map((r) => r.p99Ms)) }));
        const errors = runs.other.reduce((sum, r) => sum + r.errors, 0);
        row({
          workload: `GET ${PATH}?limit=100 (${fmt(Buffer.byteLength(sample.body) / 1024, 1)} kB) beside ${peer.name}: ${fmt(bytes / 1024, 1)} kB, ${answer.status}${errors ? `, ${fmt(errors)} errors` : ''}`,
          sandbox: `${fmt(ours.rps)} req/s, p99 ${fmt(ours.p99Ms, 2)} ms`,
          baseline: `${fmt(theirs.rps)} req/s, p99 ${fmt(theirs.p99Ms, 2)} ms`,
          ratio: ours.rps / theirs.rps,
        });
      } finally {
        await server.stop();
      }
    }
  } finally {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a peer's CLI from bench/peers on the server's core, in a process group of its own; resolves once it answers HTTP. */
async function startCli(bin, args, port) {
  const [command, ...rest] = pinned('server', [process.execPath, join(PEER_BIN, bin), ...args]);
  // Detached: its own process group, so stop() also ends what it starts (WireMock's java).
  const child = spawn(command, rest, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-2_000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopGroup(child);
  const deadline = performance.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${bin} exited with ${child.exitCode}: ${stderr}`);
    if (performance.now() > deadline) {
      await stop();
      throw new Error(`${bin} did not answer on ${url} within 60 s: ${stderr}`);
    }
    // Any status will do (their roots answer 404): 0 is no answer yet.
    if ((await httpStatus(url)) !== 0) return { url, stop, signal: signaller(-child.pid) };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** SIGTERM to the child's process group, SIGKILL after 5 s; resolves once the child has exited. */
function stopGroup(child) {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const kill = signaller(-child.pid);
    const timer = setTimeout(() => kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      kill('SIGKILL'); // what the group's leader started and left behind
      done();
    });
    kill('SIGTERM');
  });
}

/** Sends signals to a process (a negative pid: to its process group); one that has exited is no error. */
function signaller(pid) {
  return (signal) => {
    try {
      process.kill(pid, signal);
    } catch {}
  };
}

function canImport(name) {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** A Mockoon environment with one route answering `sample` (the fields Mockoon 9 expects, templating off). */
function mockoonEnvironment(sample, port) {
  const response = {
    uuid: 'response',
    body: sample.body,
    latency: 0,
    statusCode: sample.status,
    label: '',
    headers: Object.entries(sample.headers).map(([key, value]) => ({ key, value })),
    bodyType: 'INLINE',
    filePath: '',
    databucketID: '',
    sendFileAsBody: false,
    rules: [],
    rulesOperator: 'OR',
    disableTemplating: true,
    fallbackTo404: false,
    default: true,
    crudKey: 'id',
    callbacks: [],
  };
  const route = { uuid: 'route', type: 'http', documentation: '', method: 'get', endpoint: PATH.slice(1), responses: [response] };
  return {
    uuid: 'bench',
    lastMigration: 33,
    name: 'crm-sandbox bench',
    port,
    hostname: '127.0.0.1',
    endpointPrefix: '',
    latency: 0,
    folders: [],
    rootChildren: [{ type: 'route', uuid: 'route' }],
    proxyMode: false,
    cors: false,
    headers: [],
    routes: [{ ...route, responseMode: null, streamingMode: null, streamingInterval: 0 }],
    data: [],
    callbacks: [],
    tlsOptions: { enabled: false },
  };
}
