// Snapshots of 100 used connections (bench/snapshots-child.mjs, a fresh process per round, on the
// server core; the median of the rounds counts): bytes per connection against the version-1
// layout of the same state, time to save (the first time after seeding, and again after one more
// write, as --state-file does) against the version-1 layout, and time to load against the first
// reads that seeded the same data sets (a restore rebuilds them).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pinned } from './lib/procs.mjs';
import { fmt, median, row } from './lib/report.mjs';

const CHILD = fileURLToPath(new URL('./snapshots-child.mjs', import.meta.url));
const run = promisify(execFile);

export async function snapshots({ rounds = 3 } = {}) {
  const results = [];
  for (let i = 0; i < rounds; i++) {
    const argv = pinned('server', [process.execPath, CHILD]);
    const { stdout } = await run(argv[0], argv.slice(1), { maxBuffer: 1 << 20 });
    results.push(JSON.parse(stdout));
  }
  const m = (key) => median(results.map((result) => result[key]));
  const { connections } = results[0];
  const bytes = m('bytes');
  row({
    workload: `snapshot bytes per used connection (${connections} connections: READY, one engagement read, one new contact; ratio version 1 / version 2)`,
    sandbox: `${fmt(bytes)} B`,
    baseline: `${fmt(m('bytesV1'))} B (version-1 layout: every record)`,
    ratio: m('bytesV1') / bytes,
    target: '<= 20 kB',
    pass: () => bytes <= 20_000,
  });
  const save = (workload, key, keyV1) =>
    row({ workload, sandbox: `${fmt(m(key), 1)} ms`, baseline: `${fmt(m(keyV1), 1)} ms (version-1 layout)`, ratio: m(key) / m(keyV1), target: '' });
  save(`save ${connections} used connections (snapshot + JSON.stringify), the first time after seeding`, 'firstSaveMs', 'firstSaveV1Ms');
  save('save them again after one more write (--state-file, at most every 250 ms)', 'saveMs', 'saveV1Ms');
  row({
    workload: `load ${connections} used connections (JSON.parse + restore: rebuilds each seeded data set)`,
    sandbox: `${fmt(m('loadMs'))} ms`,
    baseline: `${fmt(m('firstReadsMs'))} ms (the first reads that seeded them)`,
    ratio: m('loadMs') / m('firstReadsMs'),
    target: '',
  });
}
