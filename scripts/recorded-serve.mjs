// What scripts/serve-loads.mjs and scripts/serve-schemas.mjs share: a `crm-sandbox serve` spawned
// with a recording preload, and the `// dist/…` lines esbuild writes above each source in a chunk.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpStatus, listeningUrl } from './server-process.mjs';

export const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Starts `crm-sandbox serve --port 0 --quiet` (plus `args`) with `preload` (if given) imported
 * first, which writes what it records to the file the variable `logVariable` names; waits for the
 * first 200 of GET /sandbox/health and resolves with what `inspect({ url, log })` returns (the log's path, to
 * read before and after requests of its own); then stops the server and removes the log.
 *
 * @example const lines = await recordedServe({ preload: 'scripts/record-loads.mjs', logVariable: 'CRM_SANDBOX_RECORD_LOADS' }, ({ log }) => readFileSync(log, 'utf8'));
 */
export async function recordedServe({ preload, logVariable, args = [], env = {} }, inspect) {
  const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-recorded-'));
  const log = join(dir, 'log.txt');
  const imports = preload ? ['--import', join(root, preload)] : [];
  // Within `npm run build`, the CLI it has bundled in its staging folder (scripts/build.mjs); else the one in dist/.
  const cli = process.env.CRM_SANDBOX_BUILD_OUT ? join(root, 'scripts/run-built-cli.mjs') : join(root, 'bin/crm-sandbox.js');
  const child = spawn(process.execPath, [...imports, cli, 'serve', '--port', '0', '--quiet', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env, ...(logVariable ? { [logVariable]: log } : {}) },
  });
  try {
    const url = await listeningUrl(child);
    while ((await httpStatus(`${url}/sandbox/health`)) !== 200);
    return await inspect({ url, log });
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode !== null || child.signalCode !== null ? done() : child.once('exit', done)));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The sources esbuild marked in a chunk of dist/, each as `{ line, source }` (`dist/…`, or `node_modules/…` from the last one in the path), in order. */
export function chunkMarkers(file) {
  const markers = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const mark = /^\/\/ ((?:dist|node_modules)\/\S+)$/.exec(text);
      if (mark) markers.push({ line: index + 1, source: mark[1].replace(/^.*node_modules\//, 'node_modules/') });
    });
  return markers;
}
