import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { PROBES } from '../src/scenarios/schema.js';
import { type Cli, killAll, runCli } from './helpers/cli.js';
import { parseJunit } from './helpers/junit.js';
import type { Receiver } from './helpers/receiver.js';
import { type Flaw, SpecReceiver } from './helpers/spec-receiver.js';

/**
 * `--reporter junit --output FILE` and GITHUB_STEP_SUMMARY on the commands that judge (scenario
 * run, receiver-check, client-check), run as a user runs them: the XML parses, with one suite,
 * the right counts, and a `failure` carrying the report's words when the run fails; stdout is
 * what it was without them.
 */
const TOKEN = `access_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
const CLIENT = fileURLToPath(new URL('client-check/client.mjs', import.meta.url));
const spawned: Cli[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  killAll(spawned);
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const run = runCli(args, spawned, env);
  const code = await run.exited;
  return { code, stdout: run.output(), stderr: run.errors() };
}

async function receiver(flaws: Flaw[] = []): Promise<SpecReceiver> {
  const started = new SpecReceiver(flaws, { toleranceSeconds: 300 });
  started.accessToken = TOKEN;
  receivers.push(started);
  return started.start();
}

const scratch = () => mkdtempSync(join(tmpdir(), 'crm-sandbox-reports-'));

/** A command run with `--reporter junit --output FILE` (in a new folder): its exit status, its stdout and the suite written. */
async function reported(args: string[]) {
  const output = join(scratch(), 'report.xml');
  const { code, stdout } = await cli([...args, '--reporter', 'junit', '--output', output]);
  const [suite] = parseJunit(readFileSync(output, 'utf8')).testsuites[0]!.testsuite;
  return { code, stdout, suite: suite!, cases: suite!.testcase ?? [] };
}

describe('scenario run --reporter junit', () => {
  it('writes one suite for a passing run, a case per expectation and one for the deliveries; stdout unchanged', async () => {
    const target = await receiver();
    const dir = scratch();
    const output = join(dir, 'reports', 'deal-won.xml'); // its folder is made
    const args = ['scenario', 'run', 'deal-won', '--webhook-url', target.url, '--access-token', TOKEN, '--timestamps', 'real'];
    const plain = await cli(args);
    const reported = await cli([...args, '--reporter', 'junit', '--output', output]);
    expect(reported.code).toBe(0);
    expect(reported.stdout.replace(/accessToken {2}\S+/, '')).toBe(plain.stdout.replace(/accessToken {2}\S+/, ''));
    const [suite] = parseJunit(readFileSync(output, 'utf8')).testsuites[0]!.testsuite;
    const cases = suite!.testcase!;
    expect(suite).toMatchObject({ name: 'crm-sandbox scenario deal-won', failures: '0', errors: '0', tests: String(cases.length) });
    expect(cases.length).toBeGreaterThan(2);
    expect(cases.filter((item) => item.name.includes(' expect ')).length).toBe(cases.length - 1);
    expect(cases.at(-1)!.name).toBe('deliveries: every event accepted by the receiver');
    expect(cases.every((item) => item.failure === undefined && item.classname === 'crm-sandbox.scenario.deal-won')).toBe(true);
  });

  it("marks what failed with the report's own words when the receiver rejects every event", async () => {
    const target = await receiver();
    target.accessToken = 'access_not-the-one-the-run-signs-with';
    const { code, stdout, suite, cases } = await reported([
      'scenario',
      'run',
      'deal-won',
      '--webhook-url',
      target.url,
      '--access-token',
      TOKEN,
      '--retry-schedule',
      '',
    ]);
    expect(code).toBe(1);
    const failed = cases.filter((item) => item.failure !== undefined);
    expect(Number(suite.failures)).toBe(failed.length);
    expect(failed.length).toBeGreaterThan(0);
    // Each failure's text is a line of the printed Failures section.
    const printed = stdout.slice(stdout.indexOf('Failures:'));
    for (const item of failed) expect(printed).toContain(item.failure![0]!.message.slice(0, 60));
  });

  it('reports receiver-check as one case per probe, the failing ones with their fix', async () => {
    const target = await receiver(['accepts-forged']);
    const { code, suite, cases } = await reported(['scenario', 'run', 'receiver-check', '--webhook-url', target.url, '--access-token', TOKEN]);
    expect(code).toBe(1);
    expect(cases.map((item) => item.name)).toEqual(PROBES.map((probe) => `steps[0] probe ${probe}`));
    expect(suite).toMatchObject({ tests: '8', failures: '2' });
    const forged = cases.find((item) => item.name === 'steps[0] probe forged-signature')!;
    expect(forged.failure![0]!.message).toMatch(/^steps\[0\] \(receiverCheck\): probe forged-signature: expected non-2xx, got 200; fix: /);
  });

  it('appends a Markdown summary to GITHUB_STEP_SUMMARY, after what was there', async () => {
    const target = await receiver(['fails-duplicates']);
    const summary = join(scratch(), 'summary.md');
    writeFileSync(summary, '# before\n');
    const { code } = await cli(['scenario', 'run', 'receiver-check', '--webhook-url', target.url, '--access-token', TOKEN], { GITHUB_STEP_SUMMARY: summary });
    expect(code).toBe(1);
    const text = readFileSync(summary, 'utf8');
    expect(text.startsWith('# before\n### ❌ crm-sandbox scenario receiver-check: 7 passed, 1 failed\n')).toBe(true);
    expect(text).toMatch(/^\| ❌ \| steps\[0\] probe duplicate-event \| steps\[0\] \(receiverCheck\): probe duplicate-event: expected 2xx, got 500; fix: /m);
  });

  it('refuses --reporter without --output, --output without --reporter, an unknown format and a folder it cannot write, before running (exit 2)', async () => {
    const base = ['scenario', 'run', 'deal-won', '--webhook-url', 'http://127.0.0.1:9/'];
    const dir = scratch();
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    const cases: Array<[string[], RegExp]> = [
      [['--reporter', 'junit'], /^crm-sandbox: --reporter junit needs --output: the file to write the report to$/m],
      [['--output', join(dir, 'a.xml')], /^crm-sandbox: --output needs --reporter: the format to write \(junit\)$/m],
      [['--reporter', 'tap', '--output', join(dir, 'a.xml')], /--reporter must be one of junit; got "tap"/],
      [['--reporter', 'junit', '--output', dir], /is a folder; name a file/],
    ];
    // Root writes anywhere: the unwritable folder is checked only where permissions hold.
    if (process.getuid?.() !== 0) cases.push([['--reporter', 'junit', '--output', join(locked, 'a.xml')], /cannot write in its folder \(EACCES\)/]);
    for (const [extra, message] of cases) {
      const { code, stderr } = await cli([...base, ...extra]);
      expect(stderr, extra.join(' ')).toMatch(message);
      expect(code).toBe(2);
    }
    expect(existsSync(join(dir, 'a.xml'))).toBe(false);
  });
});

describe('client-check --reporter junit', () => {
  it('writes a case for the command and one per rule; a flawed client fails its rule with the evidence and the fix', async () => {
    const output = join(scratch(), 'client-check.xml');
    const summary = join(scratch(), 'summary.md');
    const { code } = await cli(
      [
        'client-check',
        '--no-faults',
        '--initial-sync-delay',
        '500ms',
        '--ready-delay',
        '1s',
        '--reporter',
        'junit',
        '--output',
        output,
        '--',
        process.execPath,
        CLIENT,
        '--flaw',
        'first-page-only',
      ],
      { GITHUB_STEP_SUMMARY: summary },
    );
    expect(code).toBe(1);
    const [suite] = parseJunit(readFileSync(output, 'utf8')).testsuites[0]!.testsuite;
    const cases = suite!.testcase!;
    expect(cases[0]!.name).toBe(`command: ${process.execPath} ${CLIENT} --flaw first-page-only`);
    expect(cases[0]!.failure).toBeUndefined();
    const failed = cases.filter((item) => item.failure !== undefined);
    expect(failed.map((item) => item.name)).toEqual(['pages-to-the-end']);
    expect(suite!.failures).toBe('1');
    expect(Number(suite!.tests)).toBe(cases.length);
    expect(Number(suite!.skipped)).toBe(cases.filter((item) => item.skipped !== undefined).length);
    const text = failed[0]!.failure![0]!['#text']!;
    expect(text).toMatch(/stopped at page 1/);
    expect(text).toMatch(/\n {2}fix: /);
    expect(readFileSync(summary, 'utf8')).toMatch(/^### ❌ crm-sandbox client-check: \d+ passed, 1 failed/);
  });
});
