import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index.js';
import { type DevServer, startDevServer } from '../src/node/dev-server.js';
import type { ScenarioError } from '../src/scenarios/load.js';
import type { ScenarioReport } from '../src/scenarios/report.js';
import { verifySignature } from '../src/webhooks/signature.js';
import { BIN, type Cli, callApi, killAll, runCli, serveCli } from './helpers/cli.js';
import { Receiver } from './helpers/receiver.js';
import { type Flaw, SpecReceiver } from './helpers/spec-receiver.js';

const TOKEN = `access_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
const receivers: Receiver[] = [];
const servers: DevServer[] = [];
const spawned: Cli[] = [];

afterEach(async () => {
  killAll(spawned);
  for (const receiver of receivers.splice(0)) await receiver.stop();
  for (const server of servers.splice(0)) await server.close();
});

/** Runs the CLI as a user would, to its end, and collects what it printed. */
async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCli(args, spawned);
  const code = await run.exited;
  return { code, stdout: run.output(), stderr: run.errors() };
}

/**
 * A receiver written from the spec: it verifies every signature and enforces a 5-minute timestamp
 * tolerance (runs sign with the real time unless `--timestamps virtual`, whose stamps are in 2025:
 * pass `Infinity` for those).
 */
async function specReceiver(flaws: Flaw[] = [], toleranceSeconds = 300, failFirst = 0): Promise<SpecReceiver> {
  const receiver = new SpecReceiver(flaws, { toleranceSeconds, failFirst });
  receiver.accessToken = TOKEN;
  receivers.push(receiver);
  return receiver.start();
}

async function runJson(args: string[]): Promise<{ code: number | null; report: ScenarioReport; stderr: string }> {
  const withToken = args.includes('--access-token') || args.includes('--connection-id') ? args : [...args, '--access-token', TOKEN];
  const { code, stdout, stderr } = await cli(['scenario', 'run', ...withToken, '--json']);
  return { code, report: JSON.parse(stdout) as ScenarioReport, stderr };
}

function scenarioFile(text: string, name = 'story.yaml'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'crm-sandbox-scenario-')), name);
  writeFileSync(file, text);
  return file;
}

/** The received events, each checked with the spec's signature rule. */
function verifiedEvents(receiver: Receiver, accessToken: string) {
  return receiver.received.map((request) => {
    expect(request.headers['x-service-connection-id']).toBeTypeOf('string');
    expect(
      verifySignature({
        accessToken,
        body: request.body,
        timestamp: request.headers['x-service-timestamp'] as string,
        signature: request.headers['x-service-signature'] as string,
      }),
    ).toBe(true);
    return request.json;
  });
}

describe('crm-sandbox scenario (the CLI)', () => {
  it('lists the built-ins with one line each', async () => {
    const { code, stdout } = await cli(['scenario', 'list']);
    expect(code).toBe(0);
    const names = stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[0]);
    expect(names).toEqual(['bulk-import', 'connection-lifecycle', 'crm-activity', 'deal-won', 'receiver-check', 'webhook-outage']);
    expect(stdout).toContain('connection-lifecycle  A new connection goes NEW_CONNECTION → INITIAL_SYNCED → READY');
  });

  it.each(['connection-lifecycle', 'crm-activity', 'deal-won', 'webhook-outage'])(
    'plays %s against a real receiver: signed, in order, exit 0',
    async (name) => {
      const receiver = await specReceiver();
      const { code, report } = await runJson([name, '--webhook-url', receiver.url, '--access-token', TOKEN]);
      expect(report.failures).toEqual([]);
      expect(code).toBe(0);
      expect(report.connection.accessToken).toBe(TOKEN);
      const received = verifiedEvents(receiver, TOKEN);
      // Every event reached the receiver, in the order they happened (retries repeat the same event).
      const firstArrivals = [...new Map(received.map((event) => [event.eventId, event])).keys()];
      expect(firstArrivals).toEqual(report.events.map((event) => event.eventId));
      expect(report.events.every((event) => event.state === 'succeeded')).toBe(true);
      expect(receiver.processed.map((request) => request.body)).toEqual(report.events.map((event) => event.body));
    },
  );

  it('connection-lifecycle sends the three statuses; webhook-outage retries through the schedule', async () => {
    const lifecycleReceiver = await specReceiver();
    const lifecycle = await runJson(['connection-lifecycle', '--webhook-url', lifecycleReceiver.url]);
    expect(lifecycleReceiver.events().map((event) => event.data.status)).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);
    expect(lifecycle.report.events.map((event) => event.attempts[0]!.time)).toEqual([
      '2025-01-01T00:00:00.000Z',
      '2025-01-01T00:00:03.000Z',
      '2025-01-01T00:00:10.000Z',
    ]);

    const outageReceiver = await specReceiver();
    const outage = await runJson(['webhook-outage', '--webhook-url', outageReceiver.url]);
    const create = outage.report.events.find((event) => event.summary === 'Contact CREATE')!;
    // Failed at 0 s, 10 s, 1 min 10 s, 6 min 10 s and 36 min 10 s (the outage lasts 40 min); accepted at 2 h 36 min 10 s.
    expect(create.attempts.map((attempt) => [attempt.time.slice(11, 19), attempt.status, attempt.chaos?.outage ?? false])).toEqual([
      ['00:00:00', null, true],
      ['00:00:10', null, true],
      ['00:01:10', null, true],
      ['00:06:10', null, true],
      ['00:36:10', null, true],
      ['02:36:10', 200, false],
    ]);
    expect(
      outageReceiver
        .events()
        .slice(-2)
        .map((event) => `${event.data.objectType} ${event.data.eventType}`),
    ).toEqual(['Contact CREATE', 'Contact UPDATE']);
  });

  it('crm-activity creates, updates and deletes each of the nine types, with associations that exist', async () => {
    const receiver = await specReceiver();
    const { report } = await runJson(['crm-activity', '--webhook-url', receiver.url]);
    const changes = receiver.events().filter((event) => event.type === 'OBJECT_CHANGE');
    const types = ['User', 'Account', 'Contact', 'Lead', 'Deal', 'Note', 'Task', 'Event', 'EventAttendee'];
    for (const eventType of ['CREATE', 'UPDATE', 'DELETE']) {
      expect(
        changes
          .filter((event) => event.data.eventType === eventType)
          .map((event) => event.data.objectType)
          .sort(),
      ).toEqual([...types].sort());
    }
    const created = new Map(changes.filter((event) => event.data.eventType === 'CREATE').map((event) => [event.data.record.id, event.data.record]));
    const contact = changes.find((event) => event.data.objectType === 'Contact' && event.data.eventType === 'UPDATE').data.record;
    expect(created.has(contact.associations.accountIds[0])).toBe(true);
    expect(created.has(contact.associations.ownerUserId)).toBe(true);
    const deleted = changes.find((event) => event.data.eventType === 'DELETE').data.record;
    expect(Object.keys(deleted)).toEqual(['id', 'nativeId', 'connectionId']);
    expect(deleted.connectionId).toBe(report.connection.connectionId);
  });

  it('bulk-import delivers 10,000 contacts, in order', async () => {
    const receiver = await specReceiver();
    const { code, report, stderr } = await runJson(['bulk-import', '--webhook-url', receiver.url]);
    expect(code).toBe(0);
    // Not a terminal: progress comes as plain lines on stderr, the report alone on stdout.
    expect(stderr).toContain('[2/4] created 5000 of 10000 Contact records\n');
    const contacts = receiver.events().filter((event) => event.type === 'OBJECT_CHANGE');
    expect(contacts).toHaveLength(10_000);
    expect(contacts.every((event, index) => event.data.record.lastName === `Import ${index}`)).toBe(true);
    expect(report.events).toHaveLength(10_002); // NEW_CONNECTION and READY come first
  }, 240_000);

  it('gives a byte-identical transcript for the same seed with --timestamps virtual, and the committed snapshot', async () => {
    const receiver = await specReceiver([], Infinity);
    const run = (name: string, seed: string) =>
      cli(['scenario', 'run', name, '--webhook-url', receiver.url, '--access-token', TOKEN, '--seed', seed, '--timestamps', 'virtual', '--json']);
    const first = await run('deal-won', '7');
    const second = await run('deal-won', '7');
    expect(first.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const other = await run('deal-won', '8');
    expect(other.stdout).not.toBe(first.stdout);

    const lifecycle = await run('connection-lifecycle', '7');
    const transcript = lifecycle.stdout.replaceAll(receiver.url, 'http://127.0.0.1:PORT/webhooks');
    await expect(transcript).toMatchFileSnapshot('./snapshots/connection-lifecycle.seed-7.json');
  });

  it("gives a run's connection, tokens and events ids of its own: never those a serve of the same seed hands out, and the same on every run", async () => {
    // The dev server's first connection, with tokens drawn from its seed too (--seeded-tokens), as the README's app links it.
    const server = await serveCli(['--seed', '1', '--seeded-tokens', '--quiet'], spawned);
    const { publicToken } = (await callApi(server.url, 'sandbox-api-key', 'POST', '/sandbox/public-token', { integrationId: 'salesforce' })).body;
    const served = (await callApi(server.url, 'sandbox-api-key', 'POST', '/link/exchange', { publicToken })).body;
    const file = scenarioFile('description: one connection\nconnection: { integration: salesforce }\nsteps:\n  - advance: 10s\n');
    // A receiver that accepts anything: the run signs with a token of its own drawing.
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    const run = async () => {
      const { code, stdout } = await cli(['scenario', 'run', file, '--webhook-url', receiver.url, '--seed', '1', '--timestamps', 'virtual', '--json']);
      expect(code).toBe(0);
      return JSON.parse(stdout) as ScenarioReport;
    };
    const first = await run();
    expect(first.seed).toBe(1);
    expect(first.connection.connectionId).toMatch(/^[0-9a-f]{32}$/);
    expect(first.connection.connectionId).not.toBe(served.connectionId);
    expect(first.connection.accessToken).not.toBe(served.accessToken);
    const { deliveries } = (await callApi(server.url, 'sandbox-api-key', 'GET', `/sandbox/connections/${served.connectionId}/deliveries`)).body;
    const servedEvents = new Set(deliveries.map((delivery: { eventId: string }) => delivery.eventId));
    expect(servedEvents.size).toBeGreaterThan(0);
    expect(first.events.filter((event) => servedEvents.has(event.eventId))).toEqual([]);
    // Deterministic still: the same scenario and seed, the same ids; another scenario's name, others.
    const again = await run();
    expect(again.connection.connectionId).toBe(first.connection.connectionId);
    expect(again.events.map((event) => event.eventId)).toEqual(first.events.map((event) => event.eventId));
    const other = scenarioFile('description: one connection\nconnection: { integration: salesforce }\nsteps:\n  - advance: 10s\n', 'other.yaml');
    const { stdout } = await cli(['scenario', 'run', other, '--webhook-url', receiver.url, '--seed', '1', '--timestamps', 'virtual', '--json']);
    expect((JSON.parse(stdout) as ScenarioReport).connection.connectionId).not.toBe(first.connection.connectionId);
  });

  it('refuses an invalid file before anything runs: exit 2, naming the file, the step and the field', async () => {
    const receiver = await specReceiver();
    const file = scenarioFile('description: broken\nsteps:\n  - status: READY\n  - create: { type: Deal, fields: { amount: lots } }\n');
    const { code, stderr, stdout } = await cli(['scenario', 'run', file, '--webhook-url', receiver.url]);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(`crm-sandbox: scenario ${file}: steps[1] (create): fields.amount must be a number, got string`);
    expect(stdout).toBe('');
    expect(receiver.received).toHaveLength(0);

    const validate = await cli(['scenario', 'validate', file]);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toContain('steps[1] (create): fields.amount');
    const good = await cli(['scenario', 'validate', scenarioFile('description: fine\nsteps:\n  - advance: 1s\n')]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('valid, 1 step(s): fine');
  });

  it('exits 2 for bad options', async () => {
    expect((await cli(['scenario', 'run', 'deal-won'])).stderr).toContain('--webhook-url is required');
    const bad = await cli(['scenario', 'run', 'deal-won', '--webhook-url', 'http://127.0.0.1:9/x', '--speed', 'warp']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--speed must be instant, realtime or a positive factor');
    const token = await cli(['scenario', 'run', 'deal-won', '--webhook-url', 'http://127.0.0.1:9/x', '--access-token', 'access_xyz']);
    expect(token.code).toBe(2);
    expect(token.stderr).toContain('--access-token must be access_ followed by 40 lowercase hex characters');
    // Checked before anything runs: the receiver hears nothing.
    const receiver = await specReceiver();
    const wait = await cli(['scenario', 'run', 'deal-won', '--webhook-url', receiver.url, '--max-wait', 'forever']);
    expect(wait.code).toBe(2);
    expect(wait.stderr).toContain('--max-wait must look like 500ms, 3s, 2m, 1h or 1d, got "forever"');
    expect(receiver.received).toHaveLength(0);
    expect((await cli(['scenario', 'run', 'no-such-thing', '--webhook-url', 'http://127.0.0.1:9/x'])).stderr).toContain('no scenario named "no-such-thing"');
  });

  it('exits 1 naming the event when the receiver never accepts it', async () => {
    const down = await specReceiver();
    await down.stop();
    const { code, stdout } = await cli(['scenario', 'run', 'connection-lifecycle', '--webhook-url', down.url]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL connection-lifecycle/);
    // Once, with the URL, the network error and what to do (each event's failure stays in the report's checks).
    expect(stdout).toContain(`✗ 3 of 3 event(s) not delivered: nothing is listening at ${down.url} (ECONNREFUSED): is your receiver running, on that port?\n`);
    expect(stdout).not.toContain('raise --max-wait');
  });

  it('exits 1 with what did arrive when an expectation fails', async () => {
    const receiver = await specReceiver();
    const file = scenarioFile(
      'description: wrong guess\nsteps:\n  - create: { type: Contact, fields: { firstName: Ada } }\n  - expect:\n      events:\n        - { status: NEW_CONNECTION }\n        - { objectType: Contact, eventType: CREATE, record: { firstName: Grace } }\n',
    );
    const { code, stdout } = await cli(['scenario', 'run', file, '--webhook-url', receiver.url, '--access-token', TOKEN]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      'steps[1] (expect events): event 2 should be Contact CREATE {"firstName":"Grace"}, but record differs in firstName (got "Ada"); events: STATUS_CHANGE NEW_CONNECTION (succeeded), Contact CREATE (succeeded)',
    );
  });

  it('sends duplicates under chaos: the same eventId and body, marked in the log', async () => {
    const receiver = await specReceiver();
    const file = scenarioFile('description: dup\nsteps:\n  - chaos: { duplicate: 1 }\n  - create: { type: Note, repeat: 3 }\n');
    const { code, report } = await runJson([file, '--webhook-url', receiver.url]);
    expect(code).toBe(0);
    const notes = receiver.received.filter((request) => request.json.type === 'OBJECT_CHANGE');
    expect(notes).toHaveLength(6);
    for (let i = 0; i < 6; i += 2) {
      expect(notes[i + 1]!.body).toBe(notes[i]!.body);
      expect(notes[i + 1]!.headers['x-service-signature']).toBeTypeOf('string');
    }
    expect(receiver.processed.filter((request) => request.json.type === 'OBJECT_CHANGE')).toHaveLength(3);
    const attempts = report.events.find((event) => event.summary === 'Note CREATE')!.attempts;
    expect(attempts.map((attempt) => [attempt.trigger, attempt.chaos ?? null])).toEqual([
      ['schedule', null],
      ['chaos', { duplicate: true }],
    ]);
  });

  it('breaks order under reorder chaos, deterministically', async () => {
    const receiver = await specReceiver([], Infinity);
    const file = scenarioFile(
      'description: shuffle\nsteps:\n  - status: READY\n  - chaos: { reorder: true }\n  - create: { type: Task, repeat: 8, fields: { subject: "task ${i}" } }\n  - wait: deliveries\n',
    );
    const first = await runJson([file, '--webhook-url', receiver.url, '--timestamps', 'virtual']);
    const order = receiver
      .events()
      .filter((event) => event.type === 'OBJECT_CHANGE')
      .map((event) => event.data.record.subject);
    expect(order).toHaveLength(8);
    expect(order).not.toEqual([...order].sort());
    const again = await runJson([file, '--webhook-url', receiver.url, '--timestamps', 'virtual']);
    expect(JSON.stringify(again.report)).toBe(JSON.stringify(first.report));
  });
});

describe('receiver-check', () => {
  const check = (receiver: Receiver, extra: string[] = []) =>
    cli(['scenario', 'run', 'receiver-check', '--webhook-url', receiver.url, '--access-token', TOKEN, ...extra]);

  it('passes every probe against a receiver that follows the spec', async () => {
    const receiver = await specReceiver([], 300);
    const { code, stdout } = await check(receiver);
    expect(stdout).toMatch(/^PASS receiver-check/);
    for (const probe of [
      'valid-signature',
      'forged-signature',
      'tampered-body',
      'missing-signature',
      'missing-timestamp',
      'stale-timestamp',
      'duplicate-event',
      'answers-in-time',
    ]) {
      expect(stdout).toMatch(new RegExp(`pass  ${probe}`));
    }
    expect(code).toBe(0);
    // Probes carry real timestamps, though the run is instant.
    const sent = Number(receiver.received[0]!.headers['x-service-timestamp']);
    expect(Math.abs(sent - Date.now() / 1000)).toBeLessThan(3600);
  });

  it.each([
    ['accepts-forged', ['forged-signature', 'tampered-body']],
    ['skips-unsigned', ['missing-signature', 'missing-timestamp']],
    ['no-timestamp-check', ['stale-timestamp']],
    ['fails-duplicates', ['duplicate-event']],
  ] as const)('reports a receiver that %s', async (flaw, failing) => {
    const receiver = await specReceiver([flaw], 300);
    const { code, stdout } = await check(receiver);
    expect(code).toBe(1);
    const failed = [...stdout.matchAll(/FAIL {2}([a-z-]+)/g)].map((match) => match[1]);
    expect(failed).toEqual(failing);
    for (const probe of failing) expect(stdout).toMatch(new RegExp(`steps\\[0\\] \\(receiverCheck\\): probe ${probe}: .*; fix: `));
  });

  it('says the receiver did not answer at all when it is down, not that it checks signatures wrong', async () => {
    const down = await specReceiver();
    await down.stop();
    const { code, report } = await runJson(['receiver-check', '--webhook-url', down.url]);
    expect(code).toBe(1);
    expect(report.probes.every((probe) => !probe.ok)).toBe(true);
    expect(report.probes.find((probe) => probe.probe === 'answers-in-time')).toMatchObject({ ok: false, got: 'valid-signature: ECONNREFUSED' });
    for (const probe of report.probes) expect(probe.fix).toBe(`nothing is listening at ${down.url} (ECONNREFUSED): is your receiver running, on that port?`);
    // Named once, not once per probe.
    expect(report.failures).toEqual([`steps[0] (receiverCheck): no probe was answered: ${report.probes[0]!.fix}`]);
  });

  it('reports a receiver that does not answer in time', async () => {
    const receiver = await specReceiver(['too-slow'], 300);
    const { code, report } = await runJson(['receiver-check', '--webhook-url', receiver.url, '--access-token', TOKEN, '--attempt-timeout', '200ms']);
    expect(code).toBe(1);
    const inTime = report.probes.find((probe) => probe.probe === 'answers-in-time')!;
    expect(inTime.ok).toBe(false);
    expect(inTime.got).toBe('valid-signature: timeout after 200ms');
    expect(inTime.fix).toContain('acknowledge first');
  });
});

describe('scenarios through the control API and in code', () => {
  async function server() {
    const sandbox = createSandbox({ apiKeys: ['k'], initialSyncDelay: '50ms', readyDelay: '100ms' });
    const started = await startDevServer(sandbox, { port: 0 });
    servers.push(started);
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(started.url + path, {
        method,
        headers: { 'service-api-token': 'k', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    return { sandbox, url: started.url, call };
  }

  it('lists and runs built-ins, sets chaos, and names bad input', async () => {
    const { call } = await server();
    const receiver = await specReceiver();
    const list = await call('GET', '/sandbox/scenarios');
    expect(list.body.scenarios.map((item: { name: string }) => item.name)).toContain('deal-won');

    const run = await call('POST', '/sandbox/scenarios/crm-activity/run', {
      webhookUrl: receiver.url,
      link: { integrationId: 'pipedrive', accessToken: TOKEN },
    });
    expect(run.status).toBe(200);
    expect(run.body.failures).toEqual([]);
    expect(run.body.connection.integrationId).toBe('pipedrive');
    verifiedEvents(receiver, TOKEN);

    expect((await call('POST', '/sandbox/scenarios/nope/run', {})).status).toBe(404);
    // Bad input is a 400 naming the field, before anything runs (no connection is linked).
    const before = (await call('GET', '/sandbox/connections')).body.connections.length;
    for (const [body, field] of [
      [{ maxWait: 'forever' }, 'maxWait'],
      [{ webhookUrl: 'ftp://x' }, 'webhookUrl'],
      [{ link: { accessToken: 'access_xyz' } }, 'link.accessToken'],
    ] as const) {
      const refused = await call('POST', '/sandbox/scenarios/deal-won/run', body);
      expect(refused.status).toBe(400);
      expect(refused.body.metadata.field).toBe(field);
    }
    expect((await call('GET', '/sandbox/connections')).body.connections).toHaveLength(before);
    const badDefinition = await call('POST', '/sandbox/scenarios/run', { definition: { description: 'x', steps: [{ advance: 'later' }] } });
    expect(badDefinition.status).toBe(400);
    expect(badDefinition.body.metadata.field).toBe('definition.steps[0].advance');

    const { connectionId } = run.body.connection;
    const chaos = await call('PUT', `/sandbox/connections/${connectionId}/chaos`, { duplicate: 0.5, delay: '10ms-20ms' });
    expect(chaos.body).toEqual({ chaos: { duplicate: 0.5, delay: '10ms-20ms' } });
    const refused = await call('PUT', `/sandbox/connections/${connectionId}/chaos`, { delay: '9s-1s' });
    expect(refused.status).toBe(400);
    expect(refused.body.metadata.field).toBe('delay');
    const detail = await call('GET', `/sandbox/connections/${connectionId}`);
    expect(detail.body.connection).toMatchObject({ connectionId, accessToken: TOKEN, webhook: { webhookUrl: receiver.url }, chaos: { duplicate: 0.5 } });
  });

  it('drives a running dev server from the CLI, on a connection the app linked itself', async () => {
    const { call, url } = await server();
    const receiver = await specReceiver();
    const { linkToken } = (await call('POST', '/link/token')).body;
    const { publicToken } = (await call('POST', '/sandbox/public-token', { linkToken, accessToken: TOKEN })).body;
    const { connectionId } = (await call('POST', '/link/exchange', { publicToken })).body;
    await call('POST', '/connection/webhook', { accessToken: TOKEN, webhook: { webhookUrl: receiver.url } });
    const before = receiver.received.length;

    const file = scenarioFile(
      'description: remote\nsteps:\n  - create: { type: Contact, as: c, fields: { firstName: Remote } }\n  - delete: { record: c }\n  - expect:\n      events:\n        - { objectType: Contact, eventType: CREATE }\n        - { objectType: Contact, eventType: DELETE }\n',
    );
    const { code, stdout } = await cli(['scenario', 'run', file, '--server', url, '--api-key', 'k', '--connection-id', connectionId, '--json']);
    const report = JSON.parse(stdout) as ScenarioReport;
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    expect(report.connection.connectionId).toBe(connectionId);
    expect(report.speed).toBe('server');
    expect(receiver.received.length).toBeGreaterThan(before);
    verifiedEvents(receiver, TOKEN);
    expect((await cli(['scenario', 'run', file, '--connection-id', connectionId])).stderr).toContain('--connection-id needs --server');
  });

  it('runs a definition from code with sandbox.runScenario, typed and instant', async () => {
    const sandbox = createSandbox({ clock: 'virtual', seed: 3 });
    // In code, a virtual sandbox signs with its own clock (2025) unless webhookTimestamps: 'real'.
    const receiver = await specReceiver([], Infinity);
    const report = await sandbox.runScenario(
      {
        description: 'a deal is won',
        steps: [
          { create: { type: 'Deal', as: 'deal', fields: { amount: 1000, probability: '0.5' } } },
          { advance: '1h' },
          { update: { record: 'deal', fields: { probability: '1', isWon: true, isClosed: true } } },
          {
            expect: {
              events: [
                { status: 'NEW_CONNECTION' },
                { objectType: 'Deal', eventType: 'CREATE', record: { expectedRevenue: 500 } },
                { status: 'INITIAL_SYNCED' },
                { status: 'READY' },
                { objectType: 'Deal', record: { expectedRevenue: 1000 } },
              ],
            },
          },
        ],
      },
      { webhookUrl: receiver.url, accessToken: TOKEN },
    );
    sandbox.close();
    expect(report.failures).toEqual([]);
    expect(report.speed).toBe('instant');
    expect(sandbox.now().toISOString()).toBe('2025-01-01T01:00:00.000Z');
    await expect(sandbox.runScenario({ description: 'x', steps: [{ advance: 'later' } as never] })).rejects.toThrow('steps[0] (advance)');
  });
});

describe('more of the scenario format, as users write it', () => {
  it('runs the file the README writes from scratch, as documented', async () => {
    const readme = (await import('node:fs')).readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const story = /```yaml\n(# yaml-language-server: \$schema=node_modules[\s\S]*?)```/.exec(readme)![1]!;
    const receiver = await specReceiver();
    const file = scenarioFile(story, 'my-story.yaml');
    expect((await cli(['scenario', 'validate', file])).code).toBe(0);
    const { code, report } = await runJson([file, '--webhook-url', receiver.url]);
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    expect(report.connection.integrationId).toBe('salesforce');
    expect(receiver.events().map((event) => event.data.status ?? `${event.data.objectType} ${event.data.eventType}`)).toEqual([
      'NEW_CONNECTION',
      'INITIAL_SYNCED',
      'READY',
      'User CREATE',
      'Contact CREATE',
      'Task CREATE',
      'Contact UPDATE',
      'Contact DELETE',
    ]);
  });

  it('makes native calls through the passthrough: a write emits its event, a wrong status fails the run', async () => {
    const receiver = await specReceiver();
    const good = scenarioFile(`description: native
steps:
  - passthrough: { method: POST, path: crm/v3/objects/contacts, body: { properties: { firstname: Native, lastname: Writer } }, as: created, expectStatus: 201 }
  - passthrough: { method: GET, path: "crm/v3/objects/contacts/\${created.body.id}", expectStatus: 200 }
  - expect:
      of: OBJECT_CHANGE
      events:
        - { objectType: Contact, eventType: CREATE, record: { firstName: Native, lastName: Writer, nativeId: $created.body.id } }
`);
    const { code, report } = await runJson([good, '--webhook-url', receiver.url]);
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    expect(report.checks[1]!.message).toMatch(/^GET crm\/v3\/objects\/contacts\/\d+ answered 200$/);

    const bad = scenarioFile('description: wrong\nsteps:\n  - passthrough: { method: GET, path: crm/v3/objects/contacts/424242424242, expectStatus: 200 }\n');
    const failed = await runJson([bad, '--webhook-url', receiver.url]);
    expect(failed.code).toBe(1);
    expect(failed.report.failures[0]).toMatch(/^steps\[0\] \(expect passthrough\): GET crm\/v3\/objects\/contacts\/424242424242 answered 404, expected 200: /);
  });

  it('passes when failed deliveries are what the scenario expects', async () => {
    const down = await specReceiver();
    await down.stop();
    const file = scenarioFile('description: a dead receiver, on purpose\nsteps:\n  - wait: deliveries\n  - expect:\n      deliveries: { state: failed }\n');
    const { code, report } = await runJson([file, '--webhook-url', down.url, '--retry-schedule', '1s,1m']);
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    expect(report.events[0]!.attempts.map((attempt) => attempt.time.slice(11, 19))).toEqual(['00:00:00', '00:00:01', '00:01:01']);
  });

  it('starts an instant clock at --start-time, and a realtime one now', async () => {
    const receiver = await specReceiver();
    const moved = await runJson(['connection-lifecycle', '--webhook-url', receiver.url, '--start-time', '2030-06-01T12:00:00.000Z']);
    expect(moved.report.events.map((event) => event.attempts[0]!.time)).toEqual([
      '2030-06-01T12:00:00.000Z',
      '2030-06-01T12:00:03.000Z',
      '2030-06-01T12:00:10.000Z',
    ]);
    const quick = scenarioFile('description: a moment\nsteps:\n  - advance: 300ms\n');
    const realtime = await runJson([quick, '--webhook-url', receiver.url, '--speed', 'realtime']);
    expect(realtime.report.speed).toBe('realtime');
    expect(Math.abs(Date.parse(realtime.report.startTime) - Date.now())).toBeLessThan(10 * 60_000);
  });

  it('draws a progress line in place on a terminal', async () => {
    const receiver = await specReceiver();
    // `script` gives the CLI a pseudo-terminal, as a person's shell would.
    const command = `${process.execPath} ${BIN} scenario run crm-activity --webhook-url ${receiver.url} --access-token ${TOKEN}`;
    const { stdout } = await new Promise<{ stdout: string }>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null']);
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.on('exit', () => resolve({ stdout: out }));
    });
    expect(stdout).toContain('\r\x1b[2K[1/31] status READY');
    expect(stdout).toContain('PASS crm-activity');
  });

  it('serve --delivery-chaos duplicates every event of every connection', async () => {
    const receiver = await specReceiver();
    const { url, output } = await serveCli(['--quiet', '--delivery-chaos', 'duplicate=1'], spawned);
    expect(output()).toContain('delivery chaos {"duplicate":1}');
    const call = async (path: string, body: unknown) => (await callApi(url, 'sandbox-api-key', 'POST', path, body)).body;
    const { publicToken } = await call('/sandbox/public-token', { accessToken: TOKEN });
    await call('/link/exchange', { publicToken });
    await call('/connection/webhook', { accessToken: TOKEN, webhook: { webhookUrl: receiver.url } });
    for (let tries = 0; tries < 100 && receiver.received.length < 2; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.received.map((request) => request.body)).toEqual([receiver.received[0]!.body, receiver.received[0]!.body]);
    expect(receiver.processed).toHaveLength(1);
  });
});

describe('validating a scenario: every problem at once, as run would meet it', () => {
  /** Three steps with problems, among fine ones; the Deal's `accountId` holds a reference. */
  const BROKEN = [
    'steps:',
    '  - create: { type: Account, as: acme }',
    '  - create: { type: Deal, as: deal, fields: { name: Big, associations: { accountId: $acme.id } } }',
    '  - advance: 1s',
    '  - update: { record: ada2, fields: { name: Bigger } }',
    '  - status: READY',
    '  - chaos: { duplicate: 2 }',
    '',
  ].join('\n');
  const problemLines = (file: string) => [
    `scenario ${file}: steps[1] (create): fields.associations.accountId is not a known field of Deal associations; did you mean accountIds? Allowed: contactIds, accountIds, noteIds, taskIds, eventIds, ownerUserId`,
    `scenario ${file}: steps[3] (update): record "ada2" is not defined by an earlier step (name records with as); records: acme, deal`,
    `scenario ${file}: steps[5] (chaos): duplicate must be a number from 0 to 1, got 2`,
  ];

  it('validate prints them all, one per line under their count, and exits 2', async () => {
    const file = scenarioFile(BROKEN, 'my-story.yaml');
    const { code, stdout, stderr } = await cli(['scenario', 'validate', file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toEqual([`crm-sandbox: scenario ${file}: 3 problems:`, ...problemLines(file)]);
  });

  it('run refuses the same file the same way before anything runs: the receiver hears nothing', async () => {
    const receiver = await specReceiver();
    const file = scenarioFile(BROKEN, 'my-story.yaml');
    const { code, stdout, stderr } = await cli(['scenario', 'run', file, '--webhook-url', receiver.url]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toEqual([`crm-sandbox: scenario ${file}: 3 problems:`, ...problemLines(file)]);
    expect(receiver.received).toHaveLength(0);
  });

  it("validate refuses a mistyped field in an expect step's record, naming the one likely meant (exit 2)", async () => {
    const file = scenarioFile('steps:\n  - expect: { events: [{ objectType: Contact, eventType: CREATE, record: { fristName: Ada } }] }\n', 'typo.yaml');
    const { code, stderr } = await cli(['scenario', 'validate', file]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^crm-sandbox: scenario .*typo\.yaml: steps\[0\] \(expect\): events\[0\]\.record\.fristName is not a known field of a Contact record; did you mean firstName\? Allowed: /,
    );
  });

  it('a file needs no description', async () => {
    const receiver = await specReceiver();
    const file = scenarioFile('steps:\n  - create: { type: Contact, as: ada }\n  - update: { record: ada, fields: { firstName: Ada } }\n', 'plain.yaml');
    const validate = await cli(['scenario', 'validate', file]);
    expect(validate).toMatchObject({ code: 0, stdout: `${file}: valid, 2 step(s)\n`, stderr: '' });
    const { code, report } = await runJson([file, '--webhook-url', receiver.url]);
    expect(code).toBe(0);
    expect(report).toMatchObject({ scenario: 'plain', description: '', failures: [] });
    const summary = await cli(['scenario', 'run', file, '--webhook-url', receiver.url, '--access-token', TOKEN]);
    expect(summary.stdout.split('\n')[0]).toBe('PASS plain');
  });

  it('the control API answers a 400 naming the first problem and listing all; runScenario throws them all', async () => {
    const sandbox = createSandbox({ apiKeys: ['k'] });
    const server = await startDevServer(sandbox, { port: 0 });
    servers.push(server);
    const { parse } = await import('yaml');
    const definition = parse(BROKEN) as Record<string, unknown>;
    const refused = await callApi(server.url, 'k', 'POST', '/sandbox/scenarios/run', { definition });
    expect(refused.status).toBe(400);
    const [first, ...more] = problemLines('definition');
    expect(refused.body).toEqual({
      errorCode: 'INVALID_FIELD_VALUE',
      message: `${first} (and 2 more: see metadata.issues)`,
      metadata: {
        field: 'definition.steps[1].create.fields.associations.accountId',
        issues: [
          { field: 'definition.steps[1].create.fields.associations.accountId', step: 1, kind: 'create', message: first!.split('(create): ')[1] },
          { field: 'definition.steps[3].update.record', step: 3, kind: 'update', message: more[0]!.split('(update): ')[1] },
          { field: 'definition.steps[5].chaos.duplicate', step: 5, kind: 'chaos', message: 'duplicate must be a number from 0 to 1, got 2' },
        ],
      },
    });
    // Nothing ran: no connection was linked.
    expect((await callApi(server.url, 'k', 'GET', '/sandbox/connections')).body.connections).toEqual([]);

    const error = (await sandbox.runScenario(definition as never).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as ScenarioError;
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ScenarioError');
    expect(error.message.split('\n')).toEqual(['scenario (code): 3 problems:', ...problemLines('(code)')]);
    expect(error.problems.map((problem) => problem.field)).toEqual([
      'steps[1].create.fields.associations.accountId',
      'steps[3].update.record',
      'steps[5].chaos.duplicate',
    ]);
  });
});
