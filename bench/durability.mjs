// What --state-file costs (issue 31, docs/decisions/0031), measured from outside on `crm-sandbox
// serve` as a user starts it (pinned to the server core), each figure against a baseline of the
// same run:
// - the outbox, with a state file against without, each event delivered to a receiver in this
//   process: deliveries per second while creates go on as fast as they can (8 at a time, one
//   connection, whose events go in order); and the time from a write's answer to its event's
//   first attempt (p50, p99) when creates come at a steady 100 a second over 10 connections, so
//   that no queue builds up and the wait measured is the outbox's;
// - --state-sync always against the default (batched): creates per second driven by the load
//   generator, each round on a fresh server and file, alternating.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drive } from './lib/load.mjs';
import { pinned } from './lib/procs.mjs';
import { fmt, median, row } from './lib/report.mjs';

const BIN = fileURLToPath(new URL('../bin/crm-sandbox.js', import.meta.url));
const KEY = { 'service-api-token': 'sandbox-api-key' };
const JSON_POST = { ...KEY, 'content-type': 'application/json' };

/** `crm-sandbox serve` on a free port with `flags`, READY connections faster; resolves once its banner is out. */
function serve(flags) {
  const [command, ...rest] = pinned('server', [
    process.execPath,
    BIN,
    'serve',
    '--port',
    '0',
    '--quiet',
    '--initial-sync-delay',
    '1ms',
    '--ready-delay',
    '2ms',
    '--record-limit',
    'none',
    '--pending-delivery-limit',
    'none',
    ...flags,
  ]);
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const early = (code) => reject(new Error(`serve exited with ${code} before it was ready`));
    child.once('exit', early);
    const banner = (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (!url || !output.includes('Try: curl')) return;
      child.off('exit', early);
      child.stdout.off('data', banner);
      child.stdout.resume();
      resolve({
        url,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.on('data', banner);
  });
}

async function post(url, path, body) {
  const res = await fetch(url + path, { method: 'POST', headers: JSON_POST, body: JSON.stringify(body) });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A READY HubSpot connection with its data set built (so that no timed write pays for seeding). */
async function linked(url) {
  const { publicToken } = await post(url, '/sandbox/public-token', { integrationId: 'hubspot' });
  const connection = await post(url, '/link/exchange', { publicToken });
  await new Promise((resolve) => setTimeout(resolve, 50));
  await (await fetch(`${url}/sandbox/connections/${connection.connectionId}/records/Contact?limit=1`, { headers: KEY })).arrayBuffer();
  return connection;
}

/** A receiver in this process: when each event's record (by first name) first arrived. */
async function receiver() {
  const arrived = new Map();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const at = performance.now();
      const event = JSON.parse(body);
      const tag = event.data?.record?.firstName;
      if (typeof tag === 'string' && !arrived.has(tag)) arrived.set(tag, at);
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/webhooks`,
    arrived,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/**
 * `count` creates on `connections` connections, each event delivered to a receiver here: as fast
 * as 8 writers go (`everyMs` 0), or one every `everyMs`. Deliveries per second (first write to
 * last event), and answer → first attempt of each event.
 */
async function pipeline(flags, { count, connections = 1, everyMs = 0 }) {
  const server = await serve(flags);
  const hook = await receiver();
  try {
    const targets = [];
    for (let i = 0; i < connections; i++) {
      const { connectionId, accessToken } = await linked(server.url);
      await post(server.url, '/connection/webhook', { accessToken, webhook: { webhookUrl: hook.url } });
      targets.push(connectionId);
    }
    const answered = new Map();
    const create = async (n) => {
      const tag = `bench${n}`;
      await post(server.url, `/sandbox/connections/${targets[n % targets.length]}/records/Contact`, { firstName: tag });
      answered.set(tag, performance.now());
    };
    const started = performance.now();
    if (everyMs === 0) {
      let next = 0;
      const lane = async () => {
        while (next < count) await create(next++);
      };
      await Promise.all(Array.from({ length: 8 }, lane));
    } else {
      const sent = [];
      for (let n = 0; n < count; n++) {
        sent.push(create(n));
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
      await Promise.all(sent);
    }
    const deadline = performance.now() + 60_000;
    while ([...answered.keys()].some((tag) => !hook.arrived.has(tag)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const waits = [...answered].map(([tag, at]) => hook.arrived.get(tag) - at);
    const last = Math.max(...[...answered.keys()].map((tag) => hook.arrived.get(tag)));
    return { rate: (count / (last - started)) * 1000, p50: percentile(waits, 50), p99: percentile(waits, 99) };
  } finally {
    await hook.stop();
    await server.stop();
  }
}

/** Creates per second from the load generator for `seconds` on a fresh server with `flags`. */
async function writes(flags, seconds) {
  const server = await serve(flags);
  try {
    const { connectionId } = await linked(server.url);
    const path = `/sandbox/connections/${connectionId}/records/Contact`;
    const request = { method: 'POST', headers: JSON_POST, body: JSON.stringify({ firstName: 'Bench', lastName: 'Write' }), connections: 32 };
    await drive(server.url + path, { ...request, seconds: 1 }); // JIT and sockets warm
    return await drive(server.url + path, { ...request, seconds });
  } finally {
    await server.stop();
  }
}

export async function durability({ rounds = 3, count = 3_000, seconds = 3 } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'crm-sandbox-durability-'));
  let files = 0;
  const file = () => ['--state-file', join(scratch, `state-${files++}.json`)];
  try {
    const fast = { without: [], saved: [] };
    const steady = { without: [], saved: [] };
    const paced = { count: Math.round(count / 5), connections: 10, everyMs: 10 };
    for (let i = 0; i < rounds; i++) {
      fast.without.push(await pipeline([], { count }));
      fast.saved.push(await pipeline(file(), { count }));
      steady.without.push(await pipeline([], paced));
      steady.saved.push(await pipeline(file(), paced));
      const [a, b, c, d] = [fast.without, fast.saved, steady.without, steady.saved].map((list) => list.at(-1));
      console.log(
        `    round ${i + 1}: as fast as they go ${fmt(a.rate)} deliveries/s without a state file, ${fmt(b.rate)} /s with one; ` +
          `100 creates/s: answer → first attempt p50 ${fmt(c.p50, 1)} ms, p99 ${fmt(c.p99, 1)} ms without, p50 ${fmt(d.p50, 1)} ms, p99 ${fmt(d.p99, 1)} ms with`,
      );
    }
    const m = (list, key) => median(list.map((r) => r[key]));
    row({
      workload: `webhook deliveries while ${fmt(count)} creates go on as fast as 8 writers go (one connection), with --state-file (the outbox)`,
      sandbox: `${fmt(m(fast.saved, 'rate'))} /s`,
      baseline: `${fmt(m(fast.without, 'rate'))} /s (no state file)`,
      ratio: m(fast.saved, 'rate') / m(fast.without, 'rate'),
      target: '>= 0.5x',
      pass: (r) => r >= 0.5,
    });
    for (const p of ['p50', 'p99']) {
      const waited = m(steady.saved, p);
      row({
        workload: `time from a write's answer to its event's first attempt, ${p}, 100 creates/s over 10 connections, with --state-file (saves at most every 250 ms)`,
        sandbox: `${fmt(waited, 1)} ms`,
        baseline: `${fmt(m(steady.without, p), 1)} ms (no state file)`,
        ratio: waited / m(steady.without, p),
        target: p === 'p99' ? '<= 300 ms (250 ms + a save)' : '',
        pass: p === 'p99' ? () => waited <= 300 : undefined,
      });
    }

    const batched = [];
    const always = [];
    for (let i = 0; i < rounds; i++) {
      batched.push(await writes(file(), seconds));
      always.push(await writes([...file(), '--state-sync', 'always'], seconds));
      const [a, b] = [batched.at(-1), always.at(-1)];
      console.log(`    round ${i + 1}: batched ${fmt(a.rps)} creates/s, p99 ${fmt(a.p99Ms, 1)} ms; always ${fmt(b.rps)} creates/s, p99 ${fmt(b.p99Ms, 1)} ms`);
    }
    const errors = [...batched, ...always].reduce((sum, r) => sum + r.errors, 0);
    row({
      workload: `creates through the control API (32 connections, ${seconds} s on a fresh server), --state-sync always`,
      sandbox: `${fmt(m(always, 'rps'))} req/s (p99 ${fmt(m(always, 'p99Ms'), 1)} ms)`,
      baseline: `${fmt(m(batched, 'rps'))} req/s (p99 ${fmt(m(batched, 'p99Ms'), 1)} ms; --state-sync batched, the default)`,
      ratio: m(always, 'rps') / m(batched, 'rps'),
      target: '>= 0.5x',
      pass: (r) => r >= 0.5 && errors === 0,
      ...(errors > 0 ? { refused: `${errors} failed requests` } : {}),
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
