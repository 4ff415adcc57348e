import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './helpers/cli.js';

// The CLI holds V8's young generation near its starting size (bin/crm-sandbox.js, docs/decisions/0039): an
// allocation-heavy burst in the `serve` process leaves the new space at 4 MiB, where node's default grows it to 64.
// The burst comes from a preloaded module (`node --import`), on SIGUSR2, once `serve` listens; no timings here.

const PRELOAD = `
import v8 from 'node:v8';
// On an immediate: immediates run in the order they were set, so after the bin's own, set before any signal came.
process.on('SIGUSR2', () => setImmediate(burst));
function burst() {
  // Objects that live long enough to survive a scavenge or two: what makes V8 grow its semi-spaces.
  const ring = new Array(100_000);
  for (let i = 0; i < 3_000_000; i++) ring[i % ring.length] = { i, text: 'x' + i };
  const space = v8.getHeapSpaceStatistics().find(({ space_name }) => space_name === 'new_space');
  process.stderr.write(JSON.stringify({ newSpaceBytes: space.space_size }) + '\\n');
}
`;

const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-young-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `node --import preload bin/crm-sandbox.js serve …`: the new space's size after the burst, in bytes. */
async function newSpaceAfterBurst(): Promise<number> {
  const preload = join(dir, 'burst.mjs');
  writeFileSync(preload, PRELOAD);
  const child = spawn(process.execPath, ['--import', preload, BIN, 'serve', '--port', '0', '--quiet']);
  try {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`))));
    await Promise.race([exited, until(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(stdout))]);
    child.kill('SIGUSR2');
    await Promise.race([exited, until(() => stderr.includes('\n'))]);
    return JSON.parse(stderr.split('\n')[0]!).newSpaceBytes;
  } finally {
    child.kill('SIGKILL');
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("the CLI's young generation", () => {
  it('stays near its starting size under an allocation-heavy burst in the serve process (node grows it to 64 MiB)', async () => {
    expect(await newSpaceAfterBurst()).toBeLessThanOrEqual(4 * 2 ** 20);
  }, 30_000);
});
