// The single executable of this machine's platform (docs/binaries.md), against the npm package in
// the same run: its size, raw and gzip-compressed (goal ≤ 45 MB compressed), and `serve`'s cold
// start (spawn → first 200 of /sandbox/health; goal ≤ 1.5× `node bin/crm-sandbox.js serve`, with
// no more RSS). Then what a JUnit report costs a scenario run (issue 46: no more than without,
// within noise). `npm run bench` runs them (--only=binary,reports); alone: node bench/binary.mjs
// The binary is built first (scripts/build-binaries.mjs --target <this platform>) when dist-bin/
// has none or one older than the CLI bundle.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { firstOk } from './cold-start.mjs';
import { startNode } from './lib/procs.mjs';
import { fmt, median, row } from './lib/report.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin/crm-sandbox.js');
/** The goals of issue 46. */
const GOAL = { compressedMB: 45, startup: 1.5 };

/** This machine's target (linux-x64, darwin-arm64, …), as scripts/build-binaries.mjs names it. */
const target = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

/** The binary of this platform, built when missing or older than the CLI bundle. */
function binary() {
  const path = join(ROOT, 'dist-bin', `crm-sandbox-${target}${process.platform === 'win32' ? '.exe' : ''}`);
  const bundle = statSync(join(ROOT, 'dist/cli-bundle/main.js')).mtimeMs;
  if (!existsSync(path) || statSync(path).mtimeMs < bundle) {
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build-binaries.mjs'), '--target', target], { stdio: 'inherit' });
    if (built.status !== 0) throw new Error(`scripts/build-binaries.mjs --target ${target} failed`);
  }
  return path;
}

/** Bytes of `gzip -9` of the file (node:zlib's level 9 where there is no gzip: about 3% larger). */
function gzipSize(path, bytes) {
  const gzip = spawnSync('gzip', ['-9', '-c', path], { maxBuffer: 1 << 30 });
  return gzip.status === 0 ? gzip.stdout.length : gzipSync(bytes, { level: 9 }).length;
}

export async function binaryBench({ rounds = 5 } = {}) {
  const path = binary();
  const bytes = readFileSync(path);
  const compressed = gzipSize(path, bytes);
  row({
    workload: `single executable (${target}): size, gzip -9`,
    sandbox: `${fmt(compressed / 1e6, 1)} MB compressed`,
    baseline: `${fmt(bytes.length / 1e6, 1)} MB as built`,
    target: `<= ${GOAL.compressedMB} MB compressed`,
    pass: () => compressed / 1e6 <= GOAL.compressedMB,
  });
  // Alternating, one warm-up start of each first: both read Node's compile cache from then on, as every start but a first ever does.
  await firstOk([path, 'serve', '--port', '0', '--quiet'], '/sandbox/health');
  await firstOk([process.execPath, CLI, 'serve', '--port', '0', '--quiet'], '/sandbox/health');
  const single = [];
  const npm = [];
  for (let i = 0; i < rounds; i++) {
    npm.push(await firstOk([process.execPath, CLI, 'serve', '--port', '0', '--quiet'], '/sandbox/health'));
    single.push(await firstOk([path, 'serve', '--port', '0', '--quiet'], '/sandbox/health'));
  }
  const ms = median(single.map((r) => r.ms));
  const npmMs = median(npm.map((r) => r.ms));
  row({
    workload: 'cold start of the single executable, spawn → first 200 (`crm-sandbox serve`)',
    sandbox: `${fmt(ms)} ms`,
    baseline: `${fmt(npmMs)} ms (node bin/crm-sandbox.js serve)`,
    ratio: ms / npmMs,
    target: `<= ${GOAL.startup}x`,
    pass: (r) => r <= GOAL.startup,
  });
  const rss = median(single.map((r) => r.rssMiB));
  const npmRss = median(npm.map((r) => r.rssMiB));
  row({
    workload: 'RSS of the single executable just started (the blob pages its start read stay mapped: bench/README.md)',
    sandbox: `${fmt(rss, 1)} MiB`,
    baseline: `${fmt(npmRss, 1)} MiB (node bin/crm-sandbox.js serve)`,
    ratio: rss / npmRss,
    target: '<= 1x',
    pass: (r) => r <= 1,
  });
  return { compressed, size: bytes.length, ms, npmMs, rss, npmRss };
}

/**
 * Wall time of `crm-sandbox scenario run bulk-import` (10,000 events to a receiver in another
 * process), with `--reporter junit --output FILE` and without, alternating; medians.
 */
export async function junitCost({ rounds = 3 } = {}) {
  const receiver = await startNode(fileURLToPath(new URL('./servers/receiver.mjs', import.meta.url)), ['0'], { core: 'generator' });
  const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-bench-junit-'));
  const run = (extra) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const child = spawn(process.execPath, [CLI, 'scenario', 'run', 'bulk-import', '--webhook-url', receiver.url, ...extra], { stdio: 'ignore' });
      child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`bulk-import exited with ${code}`))));
    });
  try {
    const plain = [];
    const junit = [];
    for (let i = 0; i < rounds; i++) {
      plain.push(await run([]));
      junit.push(await run(['--reporter', 'junit', '--output', join(dir, 'report.xml')]));
    }
    const ms = median(junit);
    const plainMs = median(plain);
    row({
      workload: 'scenario run bulk-import (10,000 events) with --reporter junit, wall time',
      sandbox: `${fmt(ms)} ms`,
      baseline: `${fmt(plainMs)} ms (the same run without it)`,
      ratio: ms / plainMs,
      // "No more than without, within noise": the spread of the plain runs is the noise.
      target: `<= ${fmt(1 + spread(plain), 2)}x (1 + the plain runs' spread)`,
      pass: (r) => r <= 1 + spread(plain),
    });
    return { ms, plainMs };
  } finally {
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** (max − min) / median of some timings. */
const spread = (values) => (Math.max(...values) - Math.min(...values)) / median(values);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await binaryBench();
  await junitCost();
}
