// Throughput and p99 of the dev server against the ceiling (bare node:http answering the very
// bytes the sandbox answered), measured from outside by the load generator on the other core,
// in alternating rounds (ceiling, sandbox, ceiling, sandbox, …); the median of each side counts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drive } from './lib/load.mjs';
import { startNode } from './lib/procs.mjs';
import { fmt, median, row } from './lib/report.mjs';

const CEILING = fileURLToPath(new URL('./servers/ceiling.mjs', import.meta.url));
const REPLAY = fileURLToPath(new URL('./servers/replay.mjs', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'crm-sandbox-ceiling-'));
const HOP_HEADERS = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** Answers `request` once from the sandbox and returns what it sent: { status, headers, body }. */
export async function capture(url, { method = 'GET', headers = {}, body } = {}) {
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  const kept = {};
  res.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) kept[name] = value;
  });
  return { status: res.status, headers: kept, body: text };
}

/**
 * Measures one workload. Returns { sandbox: {rps,p99Ms}, ceiling: {rps,p99Ms}, warmup: {sandbox, ceiling}, bytes, refused }
 * (refused: why the generator cannot judge its ratio, or undefined).
 * `request`: { path, method, headers, body }; `options`: { rounds, seconds, warmupSeconds, connections, target }.
 */
export async function compare(name, server, request, { rounds = 5, seconds = 2, warmupSeconds = 4, connections = 50, target = 0.4 } = {}) {
  const sample = await capture(server.url + request.path, request);
  const file = join(scratch, `${name.replace(/\W+/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(sample));
  const ceiling = await startNode(CEILING, [file]);
  const runs = { sandbox: [], ceiling: [] };
  let replay;
  let capacity;
  let warmup;
  try {
    // Unmeasured seconds each first: JIT (its compiler threads share the pinned core, which
    // stretches the tail for the first seconds), lazily built caches and socket pools warm on both
    // sides. Their p99 is kept, to show the warm-up's tail beside the steady state's.
    warmup = {
      ceiling: await drive(ceiling.url + request.path, { ...request, seconds: warmupSeconds, connections }),
      sandbox: await drive(server.url + request.path, { ...request, seconds: warmupSeconds, connections }),
    };
    for (let round = 0; round < rounds; round++) {
      runs.ceiling.push(await drive(ceiling.url + request.path, { ...request, seconds, connections }));
      runs.sandbox.push(await drive(server.url + request.path, { ...request, seconds, connections }));
      // Each round on the console (not in the table): how far the machine moved the figures.
      const [c, sb] = [runs.ceiling.at(-1), runs.sandbox.at(-1)];
      console.log(`    round ${round + 1}: ceiling ${fmt(c.rps)} req/s, p99 ${fmt(c.p99Ms, 2)} ms; sandbox ${fmt(sb.rps)} req/s, p99 ${fmt(sb.p99Ms, 2)} ms`);
    }
    // The generator's capacity: the rate it reaches against a raw socket replaying the same bytes,
    // which costs the server so little that the generator is the limit.
    replay = await startNode(REPLAY, [file]);
    await drive(replay.url + request.path, { ...request, seconds: 1, connections });
    capacity = (await drive(replay.url + request.path, { ...request, seconds, connections })).rps;
  } finally {
    await ceiling.stop();
    await replay?.stop();
  }
  const summary = (list) => ({
    rps: median(list.map((r) => r.rps)),
    p99Ms: median(list.map((r) => r.p99Ms)),
    errors: list.reduce((a, r) => a + r.errors, 0),
  });
  const result = { sandbox: summary(runs.sandbox), ceiling: summary(runs.ceiling), warmup, bytes: Buffer.byteLength(sample.body) };
  // The generator must be able to drive 3x the sandbox's rate, or the sandbox's figure may be the generator's.
  const ratio = result.sandbox.rps / result.ceiling.rps;
  const errors = result.sandbox.errors + result.ceiling.errors;
  result.refused =
    capacity < 3 * result.sandbox.rps
      ? `generator capacity ${fmt(capacity / result.sandbox.rps, 1)}x the sandbox (< 3x: the generator may be the limit)`
      : errors > 0
        ? `${errors} failed requests`
        : undefined;
  row({
    workload: `${name} (${fmt(result.bytes / 1024, 1)} kB)`,
    sandbox: `${fmt(result.sandbox.rps)} req/s`,
    baseline: `${fmt(result.ceiling.rps)} req/s (generator capacity ${fmt(capacity)} req/s)`,
    ratio,
    target: target == null ? '' : `>= ${target}x`,
    pass: target == null ? undefined : (r) => r >= target && errors === 0,
    refused: result.refused,
  });
  return result;
}
