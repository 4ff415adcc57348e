// The load generator: wrk (C, event loop per thread) pinned to its own core when it is installed;
// otherwise node client processes (bench/load.mjs), which are slower than the servers they drive:
// the capacity check in throughput.mjs then refuses their ratios, as it should.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pinned } from './procs.mjs';

const run = promisify(execFile);
export const HAS_WRK = (() => {
  try {
    execFileSync('wrk', ['-v'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    return error.code !== 'ENOENT';
  }
})();
export const GENERATOR = HAS_WRK ? 'wrk (1 thread)' : 'node http client (install wrk for true figures)';

const scratch = mkdtempSync(join(tmpdir(), 'crm-sandbox-bench-'));
let scripts = 0;

/**
 * Drives `url` for `seconds` with `connections` keep-alive connections.
 * Resolves with { rps, p99Ms, requests, errors }.
 */
export async function drive(url, { method = 'GET', headers = {}, body, variants, seconds = 3, connections = 50 } = {}) {
  if (!HAS_WRK) return driveWithNode(url, { method, headers, body: body ?? variants?.[0]?.body, seconds, connections });
  const lua = [`wrk.method = ${JSON.stringify(method)}`];
  for (const [name, value] of Object.entries(headers)) lua.push(`wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
  if (body !== undefined) lua.push(`wrk.body = ${JSON.stringify(body)}`);
  if (variants !== undefined) {
    // Each request takes the next { path, body } in turn (e.g. updates that really change records).
    lua.push(`local paths = { ${variants.map((v) => JSON.stringify(v.path)).join(', ')} }`);
    lua.push(`local bodies = { ${variants.map((v) => JSON.stringify(v.body)).join(', ')} }`, 'local n = 0');
    lua.push('request = function() n = n % #paths + 1; return wrk.format(nil, paths[n], nil, bodies[n]) end');
  }
  const script = join(scratch, `s${scripts++}.lua`);
  writeFileSync(script, `${lua.join('\n')}\n`);
  const argv = pinned('generator', ['wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url]);
  const { stdout } = await run(argv[0], argv.slice(1), { maxBuffer: 1 << 20 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return { rps, p99Ms: latencyMs(/\s99%\s+([\d.]+)(us|ms|s)/.exec(stdout)), requests, errors };
}

function latencyMs(match) {
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

async function driveWithNode(url, { method, headers, body, seconds, connections }) {
  const load = fileURLToPath(new URL('../load.mjs', import.meta.url));
  const argv = pinned('generator', [process.execPath, load, url, String(seconds), String(connections), JSON.stringify({ method, headers, body })]);
  const { stdout } = await run(argv[0], argv.slice(1));
  const { requests, errors, seconds: took, p99Ms } = JSON.parse(stdout);
  return { rps: requests / took, p99Ms, requests, errors };
}
