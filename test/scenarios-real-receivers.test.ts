import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index.js';
import type { ScenarioReport } from '../src/scenarios/report.js';
import { type Cli, killAll, runCli, serveCli } from './helpers/cli.js';
import type { Receiver } from './helpers/receiver.js';
import { SpecReceiver } from './helpers/spec-receiver.js';

// Scenarios as CI runs them: instant, against receivers in another process that verify signatures,
// enforce a 5-minute timestamp tolerance, de-duplicate by eventId and may still be starting up.

const TOKEN = `access_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
const BUILT_INS = ['bulk-import', 'connection-lifecycle', 'crm-activity', 'deal-won', 'receiver-check', 'webhook-outage'];
const receivers: Receiver[] = [];
const spawned: Cli[] = [];

afterEach(async () => {
  killAll(spawned);
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

async function receiver(options: { failFirst?: number; accessToken?: string; status?: number } = {}): Promise<SpecReceiver> {
  const spec = new SpecReceiver([], { toleranceSeconds: 300, failFirst: options.failFirst ?? 0 });
  spec.accessToken = options.accessToken ?? TOKEN;
  if (options.status !== undefined) spec.behaviour = () => options.status!;
  receivers.push(spec);
  return spec.start();
}

async function run(args: string[]): Promise<{ code: number | null; report: ScenarioReport; stderr: string }> {
  const cli = runCli(['scenario', 'run', ...args, '--json'], spawned);
  const code = await cli.exited;
  return { code, report: JSON.parse(cli.output()) as ScenarioReport, stderr: cli.errors() };
}

describe('scenarios against receivers that check timestamps', () => {
  it.each(BUILT_INS)(
    '%s passes, instant, against a receiver that enforces a 5-minute tolerance and fails its first three attempts',
    async (name) => {
      const spec = await receiver({ failFirst: 3 });
      const { code, report } = await run([name, '--webhook-url', spec.url, '--access-token', TOKEN]);
      expect(report.failures).toEqual([]);
      expect(code).toBe(0);
      if (name === 'receiver-check') {
        // The probes waited for the receiver to be ready, then judged it.
        expect(report.probes.every((probe) => probe.ok)).toBe(true);
        expect(report.probes[0]!.earlierAnswers).toEqual(['503', '503', '503']);
      } else {
        // Every event was processed once (the receiver checked each signature and timestamp), in the order it happened.
        expect(spec.processed.map((request) => request.json.eventId)).toEqual(report.events.map((event) => event.eventId));
      }
    },
    120_000,
  );

  it('signs each attempt with the real time by default, and with the run clock under --timestamps virtual', async () => {
    const spec = await receiver();
    const before = Math.floor(Date.now() / 1000);
    const real = await run(['webhook-outage', '--webhook-url', spec.url, '--access-token', TOKEN]);
    const after = Math.ceil(Date.now() / 1000);
    const attempts = real.report.events.flatMap((event) => event.attempts);
    expect(attempts.length).toBeGreaterThan(4);
    // Sandbox times span 2.5 hours of retries; every timestamp is the real time of its attempt.
    expect(attempts.at(-1)!.time).toBe('2025-01-01T02:36:10.000Z');
    for (const attempt of attempts) expect(Number(attempt.timestamp)).toBeGreaterThanOrEqual(before);
    for (const attempt of attempts) expect(Number(attempt.timestamp)).toBeLessThanOrEqual(after);

    const lenient = new SpecReceiver([], { toleranceSeconds: Infinity });
    lenient.accessToken = TOKEN;
    receivers.push(await lenient.start());
    const virtual = await run(['webhook-outage', '--webhook-url', lenient.url, '--access-token', TOKEN, '--timestamps', 'virtual']);
    expect(virtual.code).toBe(0);
    for (const attempt of virtual.report.events.flatMap((event) => event.attempts)) {
      expect(attempt.timestamp).toBe(String(Date.parse(attempt.time) / 1000));
    }
    // The same events either way: only the stamps (and so the signatures) differ.
    expect(virtual.report.events.map((event) => event.body)).toEqual(real.report.events.map((event) => event.body));
    // A receiver that enforces a tolerance rejects the virtual stamps, and the run says so.
    const strict = await receiver();
    const rejected = await run(['connection-lifecycle', '--webhook-url', strict.url, '--access-token', TOKEN, '--timestamps', 'virtual']);
    expect(rejected.code).toBe(1);
    expect(rejected.report.failures.join('\n')).toContain('last answer: 400');
  }, 60_000);

  it('refuses --timestamps with a bad value or with --server', async () => {
    const bad = runCli(['scenario', 'run', 'deal-won', '--webhook-url', 'http://127.0.0.1:9/x', '--timestamps', 'wall'], spawned);
    expect(await bad.exited).toBe(2);
    expect(bad.errors()).toContain('--timestamps must be one of real, virtual; got "wall"');
    const server = runCli(
      ['scenario', 'run', 'deal-won', '--server', 'http://127.0.0.1:9', '--webhook-url', 'http://127.0.0.1:9/x', '--timestamps', 'virtual'],
      spawned,
    );
    expect(await server.exited).toBe(2);
    expect(server.errors()).toContain('a server signs with its own real clock');
  });
});

describe('expectations that wait', () => {
  it('lets time pass through the retry schedule until an expectation holds, and reports at once one that cannot', async () => {
    const spec = await receiver({ failFirst: 3 });
    const file = scenarioFileOf([
      'description: waits',
      'steps:',
      '  - expect: { events: [{ status: NEW_CONNECTION }] }',
      '  - create: { type: Contact, as: ada, fields: { firstName: Ada } }',
      '  - expect: { of: OBJECT_CHANGE, events: [{ objectType: Contact, eventType: DELETE }] }',
      '  - expect: { events: [{ status: INITIAL_SYNCED }, { status: READY }] }',
    ]);
    const { code, report } = await run([file, '--webhook-url', spec.url, '--access-token', TOKEN]);
    expect(code).toBe(1);
    const [first, second, third] = report.checks;
    // NEW_CONNECTION was accepted at its fourth attempt (0 s, 10 s, 1 min 10 s, 6 min 10 s).
    expect(first).toMatchObject({ step: 0, ok: true });
    expect(report.events[0]!.attempts.map((attempt) => [attempt.time.slice(11, 19), attempt.status])).toEqual([
      ['00:00:00', 503],
      ['00:00:10', 503],
      ['00:01:10', 503],
      ['00:06:10', 200],
    ]);
    // A CREATE where a DELETE is expected can never turn into it: a failure, reported as it is.
    expect(second).toMatchObject({ step: 2, ok: false });
    expect(second!.message).toContain('event 1 should be Contact DELETE, but eventType is CREATE');
    // INITIAL_SYNCED and READY fell due while the first expectation waited: they were not one too
    // many for the checks in between, and match the check that names them.
    expect(third).toMatchObject({ step: 3, ok: true });
    expect(report.failures).toEqual([second!.message]);
  });
});

describe('bounded runs', () => {
  it('says at once that a receiver rejecting signed events verifies with another accessToken, and how to give it the one the run signs with', async () => {
    const spec = await receiver({ accessToken: `access_${'f'.repeat(40)}` });
    const { code, report, stderr } = await run(['connection-lifecycle', '--webhook-url', spec.url]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/crm-sandbox: warning: the receiver answered 401 to STATUS_CHANGE NEW_CONNECTION \([0-9a-f]{32}\), which was signed correctly/);
    expect(stderr).toContain(`this run's connection ${report.connection.connectionId} signs with ${report.connection.accessToken}`);
    expect(stderr).toContain('(--access-token)');
    expect(stderr).toContain('--connection-id');
  });

  it('with --access-token given, names the connection and the token, and the receiver-side causes: a token stored for that id, or its own WEBHOOK_TOKEN', async () => {
    const spec = await receiver({ accessToken: `access_${'f'.repeat(40)}` });
    const { code, report, stderr } = await run(['connection-lifecycle', '--webhook-url', spec.url, '--access-token', TOKEN]);
    expect(code).toBe(1);
    const id = report.connection.connectionId;
    expect(stderr).toContain(`This run's connection ${id} signs with ${TOKEN}, the --access-token given, so your receiver verified with another token.`);
    expect(stderr).toContain(`it holds another one for ${id}`);
    expect(stderr).toContain('export it there and restart the receiver');
    // Not the advice to pass --access-token, which was passed.
    expect(stderr).not.toContain('Give the run the token');
    expect(report.failures.at(-1)).toContain(`signs with ${TOKEN}, the --access-token given`);
  });

  it("says a receiver's 404 is the webhook URL's path, and that the events behind a refused one were never sent (not to wait longer)", async () => {
    const spec = await receiver({ status: 404 });
    const { code, report, stderr } = await run(['connection-lifecycle', '--webhook-url', `${spec.url}/nope`, '--access-token', TOKEN, '--max-wait', '30s']);
    expect(code).toBe(1);
    const path = `${new URL(spec.url).pathname}/nope`;
    const hint = `a 404 is a server that answers but has no route at ${path}: is that the path your receiver serves (the README's is /webhooks)?`;
    expect(stderr).toMatch(
      new RegExp(
        `crm-sandbox: warning: the receiver answered 404 to STATUS_CHANGE NEW_CONNECTION \\([0-9a-f]{32}\\): ${hint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
    const [head, ...behind] = report.failures.filter((failure) => failure.startsWith('STATUS_CHANGE'));
    expect(head).toMatch(/^STATUS_CHANGE NEW_CONNECTION \([0-9a-f]{32}\) was still retrying when the run ended \(last answer: 404\) — a 404 is /);
    expect(behind.length).toBeGreaterThan(0);
    for (const failure of behind) {
      expect(failure).toMatch(
        /^STATUS_CHANGE (INITIAL_SYNCED|READY) \([0-9a-f]{32}\) was never sent: it waited behind STATUS_CHANGE NEW_CONNECTION \([0-9a-f]{32}\), which the receiver had not accepted/,
      );
      expect(failure).not.toContain('--max-wait');
    }
  });

  it('ends a realtime run against a rejecting receiver at --max-wait, saying what it waited on', async () => {
    const spec = await receiver({ status: 503 });
    const file = scenarioFileOf(['description: one expectation', 'steps:', '  - expect: { events: [{ status: NEW_CONNECTION }] }']);
    const { code, report, stderr } = await run([file, '--webhook-url', spec.url, '--speed', 'realtime', '--retry-schedule', '1s,1s,1s', '--max-wait', '2s']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/waiting on STATUS_CHANGE NEW_CONNECTION \([0-9a-f]{8}…\): retrying, attempt 1 answered 503; next attempt in 1s/);
    expect(report.failures[0]).toContain('steps[0] (expect events)');
  }, 60_000);

  it('bounds a --server run the same way, and names a wrong accessToken at once', async () => {
    const server = await serveCli(['--retry-schedule', '1s,1s,1s,1s,1s'], spawned);
    const spec = await receiver({ accessToken: `access_${'f'.repeat(40)}` });
    const file = scenarioFileOf(['description: one expectation', 'steps:', '  - expect: { events: [{ status: NEW_CONNECTION }] }']);
    const { code, report, stderr } = await run([file, '--server', server.url, '--webhook-url', spec.url, '--max-wait', '2s']);
    expect(code).toBe(1);
    expect(stderr).toContain('crm-sandbox: warning: the receiver answered 401 to STATUS_CHANGE NEW_CONNECTION');
    expect(stderr).toMatch(/waiting on STATUS_CHANGE NEW_CONNECTION \([0-9a-f]{8}…\): retrying, attempt \d answered 401/);
    expect(report.failures[0]).toContain('steps[0] (expect events): event 1 (STATUS_CHANGE NEW_CONNECTION) is not delivered: retrying');
  }, 60_000);

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'prints the report so far on %s and exits 1',
    async (signal) => {
      const spec = await receiver({ status: 503 });
      const cli = runCli(['scenario', 'run', 'deal-won', '--webhook-url', spec.url, '--speed', 'realtime', '--json'], spawned);
      await until(() => spec.received.length > 0);
      cli.child.kill(signal);
      expect(await cli.exited).toBe(1);
      const report = JSON.parse(cli.output()) as ScenarioReport;
      expect(report.ok).toBe(false);
      // Where it stops depends on when the signal lands: a run gives the event loop a turn every millisecond, so at any step.
      expect(report.failures[0]).toMatch(
        new RegExp(`^the run was stopped at steps\\[\\d+\\] \\(\\w+\\): interrupted by ${signal}; the report shows what happened until then$`),
      );
      expect(report.events.length).toBeGreaterThan(0);
    },
    60_000,
  );

  it('stops at --timeout with the report so far', async () => {
    const spec = await receiver();
    spec.behaviour = () => 'hang';
    const { code, report, stderr } = await run(['connection-lifecycle', '--webhook-url', spec.url, '--timeout', '1s']);
    expect(code).toBe(1);
    expect(report.failures[0]).toContain('the run took longer than --timeout 1s');
    // The progress ends where the run was (its first attempt still in flight before step 0), not at the last step.
    expect(report.failures[0]).toContain('stopped at steps[0] (expect)');
    expect(stderr.trimEnd().split('\n').at(-1)).toBe('[0/5] stopped');
    expect(report.events[0]!.attempts[0]!.error).toBe('aborted: the sandbox was closed');
  });
});

describe('scenario run flags', () => {
  it('name the flag and quote the value, exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [['--seed', 'abc'], '--seed must be an integer of 0 or more, got "abc"'],
      [['--speed', 'warp'], '--speed must be instant, realtime or a positive factor such as 10, got "warp"'],
      [['--timeout', '10'], '--timeout needs a unit'],
      [['--start-time', 'yesterday'], '--start-time must be a time such as 2025-01-01T00:00:00.000Z, got "yesterday"'],
      [['--retry-schedule', '10s,,1m'], '--retry-schedule: item 2 of "10s,,1m" is empty'],
      [['--integration', 'sap'], '--integration must be one of salesforce'],
    ];
    for (const [flags, message] of cases) {
      const cli = runCli(['scenario', 'run', 'deal-won', '--webhook-url', 'http://127.0.0.1:9/x', ...flags], spawned);
      expect(await cli.exited).toBe(2);
      expect(cli.errors()).toContain(message);
    }
  });

  it("work in a container whose environment configures serve: --server ignores serve's variables", async () => {
    const server = await serveCli(['--api-key', 'k1,k2'], spawned);
    const spec = await receiver({ status: 200 }); // the server's connection gets a token of its own
    const env = { CRM_SANDBOX_SEED: '7', CRM_SANDBOX_RETRY_SCHEDULE: '1s', CRM_SANDBOX_API_KEY: 'k1,k2', CRM_SANDBOX_PORT: '4010' };
    const file = scenarioFileOf(['steps:', '  - create: { type: Contact }']);
    const cli = runCli(['scenario', 'run', file, '--server', server.url, '--webhook-url', spec.url, '--json'], spawned, env);
    expect(await cli.exited).toBe(0);
    // It acted as the first key of the list.
    expect((JSON.parse(cli.output()) as ScenarioReport).events.map((event) => event.summary)).toEqual(['STATUS_CHANGE NEW_CONNECTION', 'Contact CREATE']);
  });
});

describe('webhook timestamps in code', () => {
  it("keep the sandbox clock's time by default, and the real time with webhookTimestamps: 'real'", async () => {
    for (const webhookTimestamps of ['clock', 'real'] as const) {
      const spec = new SpecReceiver([], { toleranceSeconds: Infinity });
      spec.accessToken = TOKEN;
      receivers.push(await spec.start());
      const sandbox = createSandbox({ clock: 'virtual', webhookTimestamps });
      const { accessToken, connectionId } = sandbox.connect({ accessToken: TOKEN });
      await sandbox.handle({
        method: 'POST',
        path: '/connection/webhook',
        query: '',
        headers: { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' },
        body: JSON.stringify({ accessToken, webhook: { webhookUrl: spec.url } }),
      });
      await sandbox.advance('1h');
      const stamps = sandbox.deliveries(connectionId).map((delivery) => Number(delivery.attempts[0]!.timestamp));
      sandbox.close();
      if (webhookTimestamps === 'clock') expect(stamps).toEqual([1735689600, 1735689603, 1735689610]);
      else for (const stamp of stamps) expect(Math.abs(stamp - Date.now() / 1000)).toBeLessThan(60);
    }
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
}

function scenarioFileOf(lines: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'crm-sandbox-scenario-')), 'story.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
