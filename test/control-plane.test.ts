import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Cli, callApi, eventually, killAll, runCli, serveCli } from './helpers/cli.js';
import { Receiver } from './helpers/receiver.js';

const KEY = 'sandbox-api-key';
const spawned: Cli[] = [];
const receivers: Receiver[] = [];
const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-state-'));

afterEach(async () => {
  killAll(spawned);
  for (const receiver of receivers.splice(0)) await receiver.stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function link(url: string, integrationId = 'hubspot') {
  const { body: token } = await callApi(url, KEY, 'POST', '/sandbox/public-token', { integrationId });
  const { body } = await callApi(url, KEY, 'POST', '/link/exchange', { publicToken: token.publicToken });
  return body as { connectionId: string; accessToken: string };
}

async function stop(cli: Cli) {
  cli.child.kill('SIGTERM');
  expect(await cli.exited).toBe(0);
}

describe('serve --state-file', () => {
  it('a restart in the middle of a retry schedule loses nothing and delivers every pending event, in order', async () => {
    const file = join(dir, 'retry.json');
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    receiver.behaviour = () => 500; // down for now
    const flags = ['--quiet', '--state-file', file, '--initial-sync-delay', '50ms', '--ready-delay', '100ms', '--retry-schedule', '4s,4s,4s'];
    const first = await serveCli(flags, spawned);
    const { connectionId, accessToken } = await link(first.url);
    await callApi(first.url, KEY, 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: receiver.url } });
    for (const firstName of ['Ada', 'Grace']) {
      expect((await callApi(first.url, KEY, 'POST', `/sandbox/connections/${connectionId}/records/Contact`, { firstName })).status).toBe(201);
    }
    const deliveries = async (url: string) => (await callApi(url, KEY, 'GET', `/sandbox/connections/${connectionId}/deliveries`)).body.deliveries;
    await eventually(async () => (await deliveries(first.url)).some((d: { state: string }) => d.state === 'retrying'));
    // Events emitted by timers (INITIAL_SYNCED, READY) too: wait until all five are in the log.
    await eventually(async () => (await deliveries(first.url)).length === 5);
    const before = await deliveries(first.url);
    expect(before[0]).toMatchObject({ state: 'retrying', attempts: [{ status: 500 }] });
    await stop(first);

    receiver.behaviour = () => 200; // back up
    const second = await serveCli(flags, spawned);
    expect(second.output()).toContain(`state file ${file} (loaded)`);
    expect((await callApi(second.url, KEY, 'GET', '/connection/connections')).body.connections.map((c: { connectionId: string }) => c.connectionId)).toEqual([
      connectionId,
    ]);
    const { body: restoredWebhook } = await callApi(
      second.url,
      KEY,
      'GET',
      `/connection/webhook?accessToken=${accessToken}&webhookId=${(await callApi(second.url, KEY, 'GET', '/sandbox/snapshot')).body.connections[0].webhook.webhookId}`,
    );
    expect(restoredWebhook.webhook.webhookUrl).toBe(receiver.url);
    const resumed = (await deliveries(second.url))[0];
    expect(resumed.nextAttemptTime).toBe(before[0].nextAttemptTime); // the schedule goes on, not restarts

    await eventually(async () => (await deliveries(second.url)).every((d: { state: string }) => d.state === 'succeeded'));
    // After the restart, every pending event arrived once, in the order it was emitted.
    const succeeded = receiver.received.slice(-5).map((r) => r.json.eventId);
    expect(succeeded).toEqual(before.map((d: { eventId: string }) => d.eventId));
    const after = await deliveries(second.url);
    expect(after[0].attempts.map((a: { status: number }) => a.status)).toEqual([500, 200]);
    await stop(second);
  });

  it('kill -9 in the middle of a write burst leaves a file that loads', async () => {
    const file = join(dir, 'burst.json');
    const first = await serveCli(['--quiet', '--state-file', file], spawned);
    const { connectionId } = await link(first.url);
    let sent = 0;
    const burst = (async () => {
      for (;;) {
        const batch = Array.from({ length: 10 }, (_, i) =>
          callApi(first.url, KEY, 'POST', `/sandbox/connections/${connectionId}/records/Note`, { content: `note ${sent + i}` }).catch(() => undefined),
        );
        sent += batch.length;
        if ((await Promise.all(batch)).includes(undefined)) return;
      }
    })();
    // Let a few saves happen mid-burst, then pull the plug.
    await eventually(() => {
      try {
        return JSON.parse(readFileSync(file, 'utf8')).connections.length === 1 && sent > 200;
      } catch {
        return false;
      }
    });
    first.child.kill('SIGKILL');
    await burst;

    const second = await serveCli(['--quiet', '--state-file', file], spawned);
    expect(second.output()).toContain('(loaded)');
    const { body } = await callApi(second.url, KEY, 'GET', `/sandbox/connections/${connectionId}/records/Note?limit=200`);
    expect(body.records.length).toBeGreaterThan(0);
    await stop(second);
  });

  it('refuses a corrupt or foreign file with exit 2, naming it, and leaves it untouched', async () => {
    const cases: Array<[string, RegExp]> = [
      ['{"format":"crm-sandbox-state","vers', /not valid JSON/],
      ['{"hello":"world"}', /not a crm-sandbox state file/],
      ['{"format":"crm-sandbox-state","version":1,"seed":1}', /time is required/],
    ];
    for (const [index, [content, why]] of cases.entries()) {
      const file = join(dir, `bad-${index}.json`);
      writeFileSync(file, content);
      const cli = runCli(['serve', '--port', '0', '--state-file', file], spawned);
      expect(await cli.exited).toBe(2);
      expect(cli.errors()).toContain(`--state-file ${file}:`);
      expect(cli.errors()).toMatch(why);
      expect(readFileSync(file, 'utf8')).toBe(content);
    }
    const nowhere = runCli(['serve', '--port', '0', '--state-file', join(dir, 'missing-dir', 'state.json')], spawned);
    expect(await nowhere.exited).toBe(2);
    expect(nowhere.errors()).toMatch(/cannot write to its directory \(ENOENT\)/);
    const seeded = join(dir, 'seed.json');
    const first = await serveCli(['--quiet', '--state-file', seeded, '--seed', '5'], spawned);
    await link(first.url);
    await stop(first);
    const other = runCli(['serve', '--port', '0', '--state-file', seeded], spawned);
    expect(await other.exited).toBe(2);
    expect(other.errors()).toMatch(/seed is 5, but this sandbox runs with seed 1/);
  });
  it('--state-sync: batched or always, from the flag or CRM_SANDBOX_STATE_SYNC, and only with a state file', async () => {
    const file = join(dir, 'sync.json');
    const bad = runCli(['serve', '--port', '0', '--state-file', file, '--state-sync', 'sometimes'], spawned);
    expect(await bad.exited).toBe(2);
    expect(bad.errors()).toBe('crm-sandbox: --state-sync must be one of batched, always; got "sometimes"\n');
    const fromEnv = runCli(['serve', '--port', '0', '--state-file', file], spawned, { CRM_SANDBOX_STATE_SYNC: 'Always' });
    expect(await fromEnv.exited).toBe(2);
    expect(fromEnv.errors()).toBe('crm-sandbox: CRM_SANDBOX_STATE_SYNC must be one of batched, always; got "Always"\n');
    const alone = runCli(['serve', '--port', '0', '--state-sync', 'always'], spawned);
    expect(await alone.exited).toBe(2);
    expect(alone.errors()).toBe('crm-sandbox: --state-sync always needs --state-file: without it there is no file to save to\n');

    const always = await serveCli(['--quiet', '--state-file', file], spawned, { CRM_SANDBOX_STATE_SYNC: 'always' });
    expect(always.output()).toContain(`state file ${file} (new), each write saved before it is answered (--state-sync always)`);
    const { connectionId } = await link(always.url);
    const created = await callApi(always.url, KEY, 'POST', `/sandbox/connections/${connectionId}/records/Contact`, { firstName: 'Ada' });
    expect(created.status).toBe(201);
    // Answered: so already in the state file and its journal, before any timed save could run.
    always.child.kill('SIGKILL');
    await always.exited;
    const again = await serveCli(['--quiet', '--state-file', file], spawned);
    expect(again.output()).toMatch(/\(loaded\)( with \d+ commits? of its journal)?, saved on change, at most every 250 ms/);
    expect(again.output()).toMatch(/the last run did not stop cleanly: what it did after its last save is lost, and ids move past the 8192 draws/);
    expect((await callApi(again.url, KEY, 'GET', `/sandbox/connections/${connectionId}/records/Contact/${created.body.record.id}`)).status).toBe(200);
    await stop(again);
    expect(readdirSync(dir).filter((name) => name.startsWith('sync.json'))).toEqual(['sync.json']);
  });
});

describe('the control plane from outside', () => {
  it('rate-limits per API token, journals what happened, and resets', async () => {
    const cli = await serveCli(['--quiet', '--rate-limit', '3/min', '--api-key', 'k1', '--api-key', 'k2'], spawned);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await callApi(cli.url, 'k1', 'POST', '/link/token')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await callApi(cli.url, 'k1', 'POST', '/link/token');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.body).toMatchObject({ errorCode: 'RATE_LIMITED', message: expect.stringContaining('rate limit') });
    expect((await callApi(cli.url, 'k2', 'POST', '/link/token')).status).toBe(200);

    const { body } = await callApi(cli.url, 'k1', 'GET', '/sandbox/requests?status=429');
    expect(body.requests.map((r: { path: string; fault: string }) => [r.path, r.fault])).toEqual([
      ['/link/token', 'rate-limit 429'],
      ['/link/token', 'rate-limit 429'],
    ]);
    expect((await callApi(cli.url, 'k1', 'POST', '/sandbox/reset')).body).toEqual({ reset: 'tenancy' });
    expect((await callApi(cli.url, 'k1', 'GET', '/sandbox/requests')).body.requests.map((r: { path: string }) => r.path)).toEqual(['/sandbox/reset']);
    expect((await callApi(cli.url, 'k2', 'GET', '/sandbox/requests')).body.requests).toHaveLength(1);
    await stop(cli);
  });

  it('explains bad fault flags', async () => {
    for (const [flags, message] of [
      [['--latency', 'slow'], /--latency/],
      [['--error-rate', '2'], /--error-rate must be a number from 0 to 1/],
      [['--rate-limit', '100'], /--rate-limit/],
    ] as const) {
      const cli = runCli(['serve', '--port', '0', ...flags], spawned);
      expect(await cli.exited).toBe(2);
      expect(cli.errors()).toMatch(message);
    }
  });
});
