// A restart from a state file (issue 47, item 2 and 6): `crm-sandbox serve --state-file` takes `contacts` creates on
// a HubSpot connection, is killed with SIGKILL (a crash, as the soak found it), and is started again on the file. It
// prints the file's size, the RSS right after the restart (its banner: the state loaded, the recovery saved) and 2 s
// later, each as overhead over bare node:http idle and as a multiple of the file's size, and how long /sandbox/health
// took at most while the state loaded (asked every 5 ms from the other core; wall clock).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './lib/http.mjs';
import { onGeneratorCore, pinned, rssMiB } from './lib/procs.mjs';
import { fmt, row } from './lib/report.mjs';

const BIN = fileURLToPath(new URL('../bin/crm-sandbox.js', import.meta.url));
const HEADERS = { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' };
/** Goal: the RSS a restart adds to bare node:http's, right after it, at most this many times the state file's size. */
export const RESTART_GOAL = 15;

function serve(port, file) {
  const [command, ...rest] = pinned('server', [
    process.execPath,
    BIN,
    'serve',
    '--port',
    String(port),
    '--quiet',
    '--state-file',
    file,
    '--initial-sync-delay',
    '0ms',
    '--ready-delay',
    '0ms',
  ]);
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const banner = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('Try: curl')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before its banner`)));
  });
  return { child, banner };
}

export async function restartMemory({ contacts = 2_000, bareIdleMiB }) {
  const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-restart-'));
  const file = join(dir, 'state.json');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const post = async (path, body) => (await fetch(url + path, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) })).json();
  try {
    const first = serve(port, file);
    await first.banner;
    const { publicToken } = await post('/sandbox/public-token', { integrationId: 'hubspot' });
    const { connectionId } = await post('/link/exchange', { publicToken });
    await onGeneratorCore(async () => {
      for (let i = 0; i < contacts; i += 20) {
        await Promise.all(
          Array.from({ length: 20 }, (_, k) =>
            post(`/sandbox/connections/${connectionId}/records/Contact`, { firstName: `Restart${i + k}`, jobTitle: 'x'.repeat(1200) }),
          ),
        );
      }
    });
    // Past the last save (at most every 250 ms), then a crash.
    await new Promise((resolve) => setTimeout(resolve, 800));
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const fileMiB = statSync(file).size / 2 ** 20;

    const second = serve(port, file);
    let loaded = false;
    let longest = 0;
    let answers = 0;
    void second.banner.then(() => (loaded = true));
    await onGeneratorCore(async () => {
      while (!loaded) {
        const sent = performance.now();
        try {
          const response = await fetch(`${url}/sandbox/health`);
          await response.arrayBuffer();
          if (!loaded && response.status === 200) {
            answers++;
            longest = Math.max(longest, performance.now() - sent);
          }
        } catch {
          // not listening yet
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    await second.banner;
    const right = rssMiB(second.child.pid);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const later = rssMiB(second.child.pid);
    second.child.kill('SIGTERM');
    await new Promise((resolve) => second.child.once('exit', resolve));
    for (const [when, mib] of [
      ['right after', right],
      ['2 s after', later],
    ]) {
      const over = mib - bareIdleMiB;
      row({
        workload: `RSS ${when} a restart after kill -9 from a ${fmt(fileMiB, 1)} MiB state file (${fmt(contacts)} contacts), over bare node:http idle, × the file`,
        sandbox: `+${fmt(over, 1)} MiB (${fmt(mib)} MiB)`,
        baseline: `${fmt(bareIdleMiB)} MiB; file ${fmt(fileMiB, 1)} MiB`,
        ratio: over / fileMiB,
        target: `<= ${RESTART_GOAL}x`,
        pass: (ratio) => ratio <= RESTART_GOAL,
      });
    }
    row({
      workload: `longest GET /sandbox/health while that restart loaded its state (${answers} answered before its banner)`,
      sandbox: `${fmt(longest, 1)} ms`,
      baseline: '',
      target: '',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
