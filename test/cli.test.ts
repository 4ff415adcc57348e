import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../src/webhooks/signature.js';
import { type Cli, callApi, eventually, killAll, runCli, serveCli } from './helpers/cli.js';
import { Receiver } from './helpers/receiver.js';
import { freePort } from './helpers/scratch-project.js';

const running: Cli[] = [];
const receivers: Receiver[] = [];

afterEach(async () => {
  killAll(running);
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

const run = (args: string[], env: Record<string, string> = {}) => runCli(args, running, env);
const serve = (args: string[] = [], env: Record<string, string> = {}) => serveCli(args, running, env);
const api = callApi;

describe('crm-sandbox, every command', () => {
  // What a container sets for `serve` (and a scenario run) before running other commands in it.
  const serveEnv = {
    CRM_SANDBOX_PORT: '4010',
    CRM_SANDBOX_HOST: '0.0.0.0',
    CRM_SANDBOX_READY_DELAY: '1s',
    CRM_SANDBOX_LATENCY: '5ms',
    CRM_SANDBOX_QUIET: 'true',
    CRM_SANDBOX_API_KEY: 'k1,k2',
  };

  it("reads only its own options' environment variables", async () => {
    const list = run(['scenario', 'list'], serveEnv);
    expect(await list.exited).toBe(0);
    expect(list.output()).toMatch(/^deal-won +/m);
    const openapi = run(['openapi', '--compact'], serveEnv);
    expect(await openapi.exited).toBe(0);
    expect(JSON.parse(openapi.output()).servers).toEqual([{ url: 'http://127.0.0.1:4010' }]);
    const cli = await serve([], { CRM_SANDBOX_WEBHOOK_URL: 'http://127.0.0.1:9/hooks', CRM_SANDBOX_MAX_WAIT: '1h', CRM_SANDBOX_SERVER_URL: 'http://x' });
    expect(cli.output()).toContain('API key: sandbox-api-key');
    // A flag the command lacks is still refused, whatever the environment holds.
    const unknown = run(['scenario', 'list', '--port', '1'], serveEnv);
    expect(await unknown.exited).toBe(2);
    expect(unknown.errors()).toBe('crm-sandbox: unknown option --port; see crm-sandbox scenario list --help\n');
  });

  it("refuses a value outside an option's choices with exit 2, naming it", async () => {
    const bad = run(['scenario', 'run', 'deal-won', '--webhook-url', 'http://127.0.0.1:9/hooks', '--integration', 'sap']);
    expect(await bad.exited).toBe(2);
    expect(bad.errors()).toBe('crm-sandbox: --integration must be one of salesforce, hubspot, pipedrive, zoho, outreach, salesloft, apollo; got "sap"\n');
    const fromEnv = run(['scenario', 'run', 'deal-won', '--webhook-url', 'http://127.0.0.1:9/hooks'], { CRM_SANDBOX_INTEGRATION: 'sap' });
    expect(await fromEnv.exited).toBe(2);
    expect(fromEnv.errors()).toMatch(/^crm-sandbox: CRM_SANDBOX_INTEGRATION must be one of salesforce, /);
  });
});

describe('crm-sandbox, usage errors first', () => {
  // What a hurried user types: one line naming the mistake and what was likely meant, exit 2, no help text.
  it.each([
    [['serve', '--prot', '4011'], 'unknown option --prot; did you mean --port? See crm-sandbox serve --help'],
    [['srve'], 'unknown command srve; did you mean serve? See crm-sandbox --help'],
    [['scenario', 'rn', 'deal-won'], 'unknown command rn; did you mean run? See crm-sandbox scenario --help'],
    [
      ['scenario', 'run', 'deal-won', '--webhok-url', 'http://127.0.0.1:9/hooks'],
      'unknown option --webhok-url; did you mean --webhook-url? See crm-sandbox scenario run --help',
    ],
    [
      ['client-check', 'npx', 'tsx', 'sync-users.ts'],
      'client-check runs the command given after --: crm-sandbox client-check [options] -- npx tsx sync-users.ts',
    ],
    // `--access-token $UNSET`: the shell drops the empty word.
    [
      ['scenario', 'run', 'receiver-check', '--access-token', '--webhook-url', 'http://127.0.0.1:9/hooks'],
      '--access-token was given no value (an unset or empty variable, likely): give it one; see crm-sandbox scenario run --help',
    ],
    // `--access-token "$UNSET"`: quoted, it is an empty word.
    [
      ['scenario', 'run', 'receiver-check', '--access-token', '', '--webhook-url', 'http://127.0.0.1:9/hooks'],
      '--access-token was given an empty value (an unset variable, likely): give it one',
    ],
    [['serve', '--port', ''], '--port was given an empty value (an unset variable, likely): give it one'],
    [['serve', 'extra'], 'serve takes no argument "extra"; see crm-sandbox serve --help'],
    [['scenario', 'run'], 'scenario run is missing its argument; see crm-sandbox scenario run --help'],
  ])('crm-sandbox %j', async (args, message) => {
    const cli = run(args);
    expect(await cli.exited).toBe(2);
    expect(cli.errors()).toBe(`crm-sandbox: ${message}\n`);
    expect(cli.output()).toBe('');
  });

  it('reads booleans as true/false/1/0/yes/no in any case, from the environment and flags, and refuses the rest naming them', async () => {
    for (const value of ['1', 'yes', 'TRUE']) {
      const cli = await serve([], { CRM_SANDBOX_QUIET: value, CRM_SANDBOX_CLIENT_CHECK: value });
      expect(cli.output()).toContain('client-check: on');
      await fetch(`${cli.url}/sandbox/health`).then((response) => response.arrayBuffer());
      expect((await fetch(`${cli.url}/sandbox/client-check`, { headers: { 'service-api-token': 'sandbox-api-key' } })).status).toBe(200);
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      expect(cli.output()).not.toMatch(/GET \/sandbox\/health/);
    }
    const off = await serve(['--quiet=no'], { CRM_SANDBOX_QUIET: 'yes' });
    await fetch(`${off.url}/sandbox/health`).then((response) => response.arrayBuffer());
    off.child.kill('SIGTERM');
    expect(await off.exited).toBe(0);
    expect(off.output()).toMatch(/GET \/sandbox\/health 200/);
    const bad = run(['serve', '--port', '0'], { CRM_SANDBOX_QUIET: 'sometimes' });
    expect(await bad.exited).toBe(2);
    expect(bad.errors()).toBe('crm-sandbox: CRM_SANDBOX_QUIET must be true or false (also 1/0, yes/no), got "sometimes"\n');
    const flag = run(['openapi', '--compact=y']);
    expect(await flag.exited).toBe(2);
    expect(flag.errors()).toBe('crm-sandbox: --compact must be true or false (also 1/0, yes/no), got "y"\n');
  });

  it('serve --email-events (or CRM_SANDBOX_EMAIL_EVENTS) makes Email changes events; without it they are none', async () => {
    for (const [args, env, expected] of [
      [[], {}, []],
      [['--email-events'], {}, ['Email CREATE']],
      [[], { CRM_SANDBOX_EMAIL_EVENTS: 'yes' }, ['Email CREATE']],
    ] as const) {
      const cli = await serve([...args], { ...env });
      const call = async (method: string, path: string, body?: unknown) => (await api(cli.url, 'sandbox-api-key', method, path, body)).body;
      const { publicToken } = await call('POST', '/sandbox/public-token', {});
      const { connectionId: id } = await call('POST', '/link/exchange', { publicToken });
      await call('POST', `/sandbox/connections/${id}/records/Email`, { subject: 'Hello' });
      const { deliveries } = await call('GET', `/sandbox/connections/${id}/deliveries`);
      const changes = deliveries.filter((d: any) => d.event.type === 'OBJECT_CHANGE').map((d: any) => `${d.event.data.objectType} ${d.event.data.eventType}`);
      expect(changes, JSON.stringify(args)).toEqual(expected);
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    }
  });

  it('refuses a duration without its unit, saying what to write', async () => {
    const bare = run(['serve', '--port', '0', '--ready-delay', '10']);
    expect(await bare.exited).toBe(2);
    expect(bare.errors()).toBe('crm-sandbox: --ready-delay needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"\n');
    const fromEnv = run(['serve', '--port', '0'], { CRM_SANDBOX_ATTEMPT_TIMEOUT: '5' });
    expect(await fromEnv.exited).toBe(2);
    expect(fromEnv.errors()).toBe('crm-sandbox: CRM_SANDBOX_ATTEMPT_TIMEOUT needs a unit: 5ms, 5s, 5m, 5h or 5d; got "5"\n');
  });
});

describe('crm-sandbox scenario run, a receiver that is not running', () => {
  it('names it once, with its URL, the network error and what to do', async () => {
    const port = await freePort(); // free, so nothing listens there
    const url = `http://127.0.0.1:${port}/hooks`;
    const story = run(['scenario', 'run', 'deal-won', '--webhook-url', url]);
    expect(await story.exited).toBe(1);
    const failures = story.output().split('Failures:\n')[1]!.trimEnd().split('\n');
    expect(failures[0]).toBe(`  ✗ 21 of 21 event(s) not delivered: nothing is listening at ${url} (ECONNREFUSED): is your receiver running, on that port?`);
    // Only the expectation that is not about deliveries stays beside it; no line advises --max-wait.
    expect(story.output()).not.toContain('--max-wait');
    expect(failures.length).toBeLessThanOrEqual(2);
  });

  it('receiver-check says so once, not once per probe', async () => {
    const url = `http://127.0.0.1:${await freePort()}/hooks`;
    const probes = run(['scenario', 'run', 'receiver-check', '--webhook-url', url]);
    expect(await probes.exited).toBe(1);
    expect(probes.output().split('Failures:\n')[1]).toBe(
      `  ✗ steps[0] (receiverCheck): no probe was answered: nothing is listening at ${url} (ECONNREFUSED): is your receiver running, on that port?\n`,
    );
  });

  it("receiver-check's summary does not read as a failure when it passed", async () => {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    receiver.behaviour = () => 204;
    const probes = run(['scenario', 'run', 'receiver-check', '--webhook-url', receiver.url]);
    await probes.exited;
    expect(probes.output()).toContain("  webhook      none: the connection's events are not sent; the probes went straight to the receiver\n");
    expect(probes.output()).toMatch(/ {2}events {7}1 emitted, none sent \(no webhook\); instant/);
  });
});

describe('crm-sandbox serve', () => {
  it('starts on a free port, prints its URL and API key, serves the whole flow, logs requests and stops on SIGTERM', async () => {
    const cli = await serve(['--seed', '3', '--api-key', 'k1', '--initial-sync-delay', '100ms', '--ready-delay', '200ms']);
    expect(cli.output()).toContain('API key: k1 (send as the service-api-token header)');
    const { linkToken } = (await api(cli.url, 'k1', 'POST', '/link/token')).body;
    const { publicToken } = (await api(cli.url, 'k1', 'POST', '/sandbox/public-token', { linkToken, integrationId: 'outreach' })).body;
    const connection = (await api(cli.url, 'k1', 'POST', '/link/exchange', { publicToken })).body;
    expect(connection.integrationId).toBe('outreach');
    expect((await api(cli.url, 'wrong', 'GET', '/connection/connections')).status).toBe(401);

    let users: Awaited<ReturnType<typeof api>> | undefined;
    for (let tries = 0; tries < 100; tries++) {
      users = await api(cli.url, 'k1', 'GET', `/engagement/users?accessToken=${connection.accessToken}&limit=3`);
      if (users.status === 200) break;
      expect(users.body.errorCode).toBe('CONNECTION_SYNCING');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(users!.status).toBe(200);
    expect(users!.body.users).toHaveLength(3);
    expect(cli.output()).toMatch(/POST \/link\/token 200 \d+\.\d+ms/);

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain('SIGTERM: stopping');
  });

  it('with lifecycle delays of 0ms, a connection is READY for the first request after its exchange, and node prints no warning', async () => {
    const cli = await serve(['--quiet', '--initial-sync-delay', '0ms', '--ready-delay', '0ms']);
    const key = 'sandbox-api-key';
    for (let link = 0; link < 20; link++) {
      const { publicToken } = (await api(cli.url, key, 'POST', '/sandbox/public-token', { integrationId: 'hubspot' })).body;
      const { accessToken } = (await api(cli.url, key, 'POST', '/link/exchange', { publicToken })).body;
      // At once, on the same kept-alive connection: no time for a 1 ms timer to have fired.
      const contacts = await api(cli.url, key, 'GET', `/crm/contacts?accessToken=${accessToken}`);
      expect(contacts.status, JSON.stringify(contacts.body)).toBe(200);
    }
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.errors()).toBe('');
  });

  it('logs every request once, a later request after the earlier ones, and all of them before it stops', async () => {
    const cli = await serve();
    const paths = Array.from({ length: 40 }, (_, i) => `/sandbox/health?n=${i}`);
    // At once: the log batches the lines of one turn of the event loop into one write.
    await Promise.all(paths.map((path) => fetch(cli.url + path).then((res) => res.arrayBuffer())));
    await fetch(`${cli.url}/nowhere`).then((res) => res.arrayBuffer());
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    const lines = cli.output().split('\n');
    const logged = lines.filter((line) => /^GET \/sandbox\/health\?n=\d+ 200 \d+\.\dms$/.test(line));
    expect(logged.map((line) => line.split(' ')[1]).sort()).toEqual([...paths].sort());
    const notFound = lines.findIndex((line) => /^GET \/nowhere 404 /.test(line));
    expect(notFound).toBeGreaterThan(lines.indexOf(logged.at(-1)!));
    expect(lines.indexOf('SIGTERM: stopping')).toBeGreaterThan(notFound);
  });

  it('delivers signed events in real time with short delays, retrying a receiver that fails first', async () => {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    receiver.behaviour = (_request, index) => (index === 0 ? 500 : 200);
    const cli = await serve(['--quiet', '--initial-sync-delay', '100ms', '--ready-delay', '200ms', '--retry-schedule', '150ms,150ms']);
    const key = 'sandbox-api-key';
    const { publicToken } = (await api(cli.url, key, 'POST', '/sandbox/public-token')).body;
    const connection = (await api(cli.url, key, 'POST', '/link/exchange', { publicToken })).body;
    await api(cli.url, key, 'POST', '/connection/webhook', { accessToken: connection.accessToken, webhook: { webhookUrl: receiver.url } });
    for (let tries = 0; tries < 200 && receiver.received.length < 4; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(receiver.events().map((e) => e.data.status)).toEqual(['NEW_CONNECTION', 'NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);
    for (const request of receiver.received) {
      expect(
        verifySignature({
          accessToken: connection.accessToken,
          body: request.body,
          timestamp: request.headers['x-service-timestamp'] as string,
          signature: request.headers['x-service-signature'] as string,
          toleranceSeconds: 60,
        }),
      ).toBe(true);
    }
    const log = await api(cli.url, key, 'GET', `/sandbox/connections/${connection.connectionId}/deliveries`);
    expect(log.body.deliveries[0].attempts.map((a: { status: number }) => a.status)).toEqual([500, 200]);
    expect(cli.output()).not.toMatch(/POST \/link/);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  });

  it("retries on a developer's schedule by default; --retry-schedule service (or CRM_SANDBOX_RETRY_SCHEDULE) is the service's", async () => {
    const dev = await serve(['--quiet']);
    expect(dev.output()).toContain("retries 1s,5s,10s,30s,1m,2m,5m (a developer's; --retry-schedule service for the service's 10s…12h)");
    const service = await serve(['--quiet', '--retry-schedule', 'service']);
    expect(service.output()).toContain("retries 10s,1m,5m,30m,2h,6h,12h (the service's)");
    const fromEnv = await serve(['--quiet'], { CRM_SANDBOX_RETRY_SCHEDULE: 'service' });
    expect(fromEnv.output()).toContain("retries 10s,1m,5m,30m,2h,6h,12h (the service's)");
    const own = await serve(['--quiet', '--retry-schedule', '2s,4s']);
    expect(own.output()).toMatch(/retries 2s,4s[;\n]/);
  });

  it('a receiver that comes back gets its backlog at once: retry now, or a redelivery it accepts, not the next scheduled retry', async () => {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    let answer = 401;
    receiver.behaviour = () => answer;
    // An hour between retries: nothing below may come from the schedule.
    const cli = await serve(['--quiet', '--initial-sync-delay', '100ms', '--ready-delay', '200ms', '--retry-schedule', '1h,1h']);
    const key = 'sandbox-api-key';
    const { publicToken } = (await api(cli.url, key, 'POST', '/sandbox/public-token')).body;
    const connection = (await api(cli.url, key, 'POST', '/link/exchange', { publicToken })).body;
    await api(cli.url, key, 'POST', '/connection/webhook', { accessToken: connection.accessToken, webhook: { webhookUrl: receiver.url } });
    const deliveries = async () => (await api(cli.url, key, 'GET', `/sandbox/connections/${connection.connectionId}/deliveries`)).body.deliveries as any[];
    const states = async () => (await deliveries()).map((delivery) => `${delivery.event.data.status ?? delivery.event.data.objectType} ${delivery.state}`);
    await eventually(async () => (await states()).join() === 'NEW_CONNECTION retrying,INITIAL_SYNCED pending,READY pending');
    expect(receiver.received).toHaveLength(1);

    // The receiver is fixed: "retry now" sends the event they all wait behind, and the rest follow at once.
    answer = 204;
    const retried = await api(cli.url, key, 'POST', `/sandbox/connections/${connection.connectionId}/deliveries/retry`);
    expect(retried.status).toBe(200);
    expect(
      retried.body.deliveries.map((delivery: any) => [delivery.state, delivery.attempts.map((attempt: any) => `${attempt.status} ${attempt.trigger}`)]),
    ).toEqual([['succeeded', ['401 schedule', '204 redeliver']]]);
    await eventually(async () => (await states()).join() === 'NEW_CONNECTION succeeded,INITIAL_SYNCED succeeded,READY succeeded');
    expect(receiver.events().map((event) => event.data.status)).toEqual(['NEW_CONNECTION', 'NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);
    // Nothing waits now: a second retry now retries nothing.
    expect((await api(cli.url, key, 'POST', `/sandbox/connections/${connection.connectionId}/deliveries/retry`)).body).toEqual({ deliveries: [] });

    // Down again: a new event waits an hour for its retry. A redelivery the receiver accepts shows it is back, and the event goes.
    answer = 503;
    await api(cli.url, key, 'POST', `/sandbox/connections/${connection.connectionId}/records/Contact`, { firstName: 'Ada' });
    await eventually(async () => (await states()).at(-1) === 'Contact retrying');
    answer = 200;
    const first = (await deliveries())[0].eventId;
    expect((await api(cli.url, key, 'POST', `/sandbox/deliveries/${first}/redeliver`)).status).toBe(200);
    await eventually(async () => (await states()).at(-1) === 'Contact succeeded');
    expect((await deliveries()).at(-1).attempts.map((attempt: any) => `${attempt.status} ${attempt.trigger}`)).toEqual(['503 schedule', '200 redeliver']);
  });

  it('starts with or without the bundled fixtures', async () => {
    const known = '/records/Contact/v.contact.ada00000000000000000000000000001';
    const lookUp = async (url: string) => {
      const { publicToken } = (await api(url, 'sandbox-api-key', 'POST', '/sandbox/public-token', {})).body;
      const { connectionId } = (await api(url, 'sandbox-api-key', 'POST', '/link/exchange', { publicToken })).body;
      return (await api(url, 'sandbox-api-key', 'GET', `/sandbox/connections/${connectionId}${known}`)).status;
    };
    expect(await lookUp((await serve(['--quiet'])).url)).toBe(200);
    expect(await lookUp((await serve(['--quiet', '--no-fixtures'])).url)).toBe(404);
    expect(await lookUp((await serve(['--quiet', '--fixtures', 'fixtures/acme.json'])).url)).toBe(200);
  });

  it('reads options from CRM_SANDBOX_* environment variables', async () => {
    const cli = await serve([], { CRM_SANDBOX_API_KEY: 'from-env' });
    expect(cli.output()).toContain('API key: from-env');
    expect((await api(cli.url, 'from-env', 'GET', '/connection/connections')).status).toBe(200);
  });

  it('keeps the state in memory only when the state file is given empty (the image sets CRM_SANDBOX_STATE_FILE; -e CRM_SANDBOX_STATE_FILE= unsets it)', async () => {
    for (const [args, env] of [
      [['--state-file', ''], {}],
      [[], { CRM_SANDBOX_STATE_FILE: '' }],
    ] as const) {
      const cli = await serve([...args], { ...env });
      expect(cli.output()).not.toContain('state file');
      expect((await api(cli.url, 'sandbox-api-key', 'GET', '/connection/connections')).status).toBe(200);
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    }
    const sync = run(['serve', '--port', '0', '--state-file', '', '--state-sync', 'always']);
    expect(await sync.exited).toBe(2);
    expect(sync.errors()).toBe('crm-sandbox: --state-sync always needs --state-file: without it there is no file to save to\n');
  });

  it('explains bad options and exits non-zero', async () => {
    const badDuration = run(['serve', '--port', '0', '--ready-delay', 'soon']);
    expect(await badDuration.exited).toBe(2);
    expect(badDuration.errors()).toContain('crm-sandbox: --ready-delay must look like 500ms, 3s, 2m, 1h or 1d, got "soon"');

    const unknown = run(['serve', '--colour', 'red']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.errors()).toBe('crm-sandbox: unknown option --colour; see crm-sandbox serve --help\n');

    const noCommand = run([]);
    expect(await noCommand.exited).toBe(2);
    expect(noCommand.errors()).toBe('crm-sandbox: Name a command: serve, listen, trigger, scenario, openapi, client-check or mcp; see crm-sandbox --help\n');

    for (const port of ['abc', '70000', '-1']) {
      const badPort = run(['serve', '--port', port]);
      expect(await badPort.exited).toBe(2);
      expect(badPort.errors()).toBe(`crm-sandbox: --port must be an integer from 0 to 65535, got "${port}"\n`);
    }

    const badHost = run(['serve', '--port', '0', '--host', '0.0.0.0.0']);
    expect(await badHost.exited).toBe(2);
    expect(badHost.errors()).toMatch(/^crm-sandbox: cannot listen: .*ENOTFOUND/);

    const badFixture = run(['serve', '--port', '0', '--fixtures', '/no/such/fixtures']);
    expect(await badFixture.exited).toBe(2);
    expect(badFixture.errors()).toBe('crm-sandbox: --fixtures: no such file or directory: /no/such/fixtures\n');
  });

  it('refuses a bad value of any flag with exit 2, naming the flag and quoting what was given', async () => {
    const cases: Array<[string[], string]> = [
      [['--seed', 'abc'], '--seed must be an integer of 0 or more, got "abc"'],
      [['--connection-limit', '0'], '--connection-limit must be an integer of 1 or more, or none, got "0"'],
      [['--delivery-log-limit', '1e3'], '--delivery-log-limit must be an integer of 1 or more, got "1e3"'],
      [['--error-rate', 'often'], '--error-rate must be a number from 0 to 1, got "often"'],
      // A bare number is ambiguous (10 ms? 10 s?), on every duration flag.
      [['--ready-delay', '10'], '--ready-delay needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"'],
      [['--initial-sync-delay', '500'], '--initial-sync-delay needs a unit: 500ms, 500s, 500m, 500h or 500d; got "500"'],
      [['--attempt-timeout', '30'], '--attempt-timeout needs a unit: 30ms, 30s, 30m, 30h or 30d; got "30"'],
      [['--retry-schedule', '10s,30,1m'], '--retry-schedule item 2 needs a unit: 30ms, 30s, 30m, 30h or 30d; got "30"'],
      [['--latency', '50-400ms'], '--latency needs a unit: 50ms, 50s, 50m, 50h or 50d; got "50-400ms"'],
      [['--retry-schedule', '10s,,1m'], '--retry-schedule: item 2 of "10s,,1m" is empty'],
      [['--retry-schedule', 'fast'], '--retry-schedule must be dev, service or delays such as 1s,30s,5m; got "fast"'],
      [['--ready-delay', '1s'], '--ready-delay (1s) must not be shorter than --initial-sync-delay (3s)'],
      [['--attempt-timeout', '0s'], '--attempt-timeout must be at least 1ms, got "0s"'],
      [['--delivery-chaos', 'duplicate=2'], '--delivery-chaos: duplicate must be a number from 0 to 1, got "2"'],
      [['--delivery-chaos', 'delay=100ms-2s,outage=5'], '--delivery-chaos: outage needs a unit: 5ms, 5s, 5m, 5h or 5d; got "5"'],
      [['--rate-limit', '100'], '--rate-limit must be a count per s, min or h, such as 100/min; got "100"'],
      [['--api-key', 'k1,,k2'], '--api-key: item 2 of "k1,,k2" is empty'],
    ];
    const runs = cases.map(([flags]) => run(['serve', '--port', '0', ...flags]));
    for (const [index, cli] of runs.entries()) {
      expect(await cli.exited, cases[index]![0].join(' ')).toBe(2);
      expect(cli.errors()).toBe(`crm-sandbox: ${cases[index]![1]}\n`);
    }
  });

  it('names the environment variable a refused value came from', async () => {
    const delay = run(['serve', '--port', '0'], { CRM_SANDBOX_READY_DELAY: '10' });
    const port = run(['serve'], { CRM_SANDBOX_PORT: 'abc' });
    expect([await delay.exited, await port.exited]).toEqual([2, 2]);
    expect(delay.errors()).toBe('crm-sandbox: CRM_SANDBOX_READY_DELAY needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"\n');
    expect(port.errors()).toBe('crm-sandbox: CRM_SANDBOX_PORT must be an integer from 0 to 65535, got "abc"\n');
    // The command line wins over the environment, and so does its name in the message.
    const fromFlag = run(['serve', '--port', '0', '--ready-delay', '11'], { CRM_SANDBOX_READY_DELAY: '10' });
    expect(await fromFlag.exited).toBe(2);
    expect(fromFlag.errors()).toContain('crm-sandbox: --ready-delay needs a unit: 11ms');
    const chaos = run(['serve', '--port', '0'], { CRM_SANDBOX_DELIVERY_CHAOS: 'shuffle' });
    expect(await chaos.exited).toBe(2);
    expect(chaos.errors()).toMatch(/^crm-sandbox: CRM_SANDBOX_DELIVERY_CHAOS: unknown setting "shuffle"/);
  });

  it('takes several API keys from one environment variable, comma-separated', async () => {
    const cli = await serve(['--quiet'], { CRM_SANDBOX_API_KEY: 'k1, k2' });
    expect(cli.output()).toContain('API keys: k1, k2 (send as the service-api-token header)');
    for (const key of ['k1', 'k2']) expect((await api(cli.url, key, 'GET', '/connection/connections')).status).toBe(200);
    expect((await api(cli.url, 'k1, k2', 'GET', '/connection/connections')).status).toBe(401);
  });

  it('keeps the fault flags as standing rules: PUT /sandbox/faults adds runtime rules on top, and GET shows both', async () => {
    const cli = await serve(['--quiet', '--rate-limit', '3/min']);
    const key = 'sandbox-api-key';
    const put = await api(cli.url, key, 'PUT', '/sandbox/faults', { rules: [{ route: '/connection', latency: '1ms' }] });
    expect(put.body).toEqual({ rules: [{ route: '/connection', latency: '1ms' }], serverRules: [], standingRules: [{ rateLimit: '3/min' }] });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api(cli.url, key, 'GET', '/connection/connections')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const { body } = await api(cli.url, key, 'GET', '/sandbox/requests?path=/connection');
    expect(body.requests.map((r: { fault: string }) => r.fault)).toEqual(['latency 1ms', 'latency 1ms', 'latency 1ms', 'latency 1ms, rate-limit 429']);
    expect((await api(cli.url, key, 'PUT', '/sandbox/faults', {})).body).toEqual({ rules: [], serverRules: [], standingRules: [{ rateLimit: '3/min' }] });
    expect((await api(cli.url, key, 'GET', '/sandbox/faults')).body).toEqual({ rules: [], serverRules: [], standingRules: [{ rateLimit: '3/min' }] });
  });

  it('prints help that lists the options', async () => {
    const help = run(['serve', '--help']);
    expect(await help.exited).toBe(0);
    for (const option of [
      '--port',
      '--host',
      '--seed',
      '--api-key',
      '--initial-sync-delay',
      '--ready-delay',
      '--retry-schedule',
      '--webhook-ca',
      '--fixtures',
    ]) {
      expect(help.output()).toContain(option);
    }
  });

  it('stops at once on SIGTERM, even with a delivery in flight to a receiver that never answers', async () => {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    receiver.behaviour = () => 'hang';
    const cli = await serve(['--quiet', '--attempt-timeout', '1h']);
    const key = 'sandbox-api-key';
    const { publicToken } = (await api(cli.url, key, 'POST', '/sandbox/public-token', {})).body;
    const connection = (await api(cli.url, key, 'POST', '/link/exchange', { publicToken })).body;
    await api(cli.url, key, 'POST', '/connection/webhook', { accessToken: connection.accessToken, webhook: { webhookUrl: receiver.url } });
    for (let tries = 0; tries < 100 && receiver.received.length === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(receiver.received).toHaveLength(1);
    cli.child.kill('SIGTERM');
    // Without the abort it would wait for the hour-long attempt timeout, past this test's own timeout.
    expect(await cli.exited).toBe(0);
  });

  it('answers requests that node cannot parse with the error body', async () => {
    const cli = await serve(['--quiet']);
    const { port } = new URL(cli.url);
    const rawRequest = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(text));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    const garbled = await rawRequest('BREW /coffee HTCPCP/1.0\r\n\r\n');
    expect(garbled).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(JSON.parse(garbled.slice(garbled.indexOf('\r\n\r\n') + 4))).toMatchObject({ errorCode: 'BAD_REQUEST' });
    const huge = await rawRequest(`GET /sandbox/health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toContain('"errorCode":"HEADERS_TOO_LARGE"');
    expect((await fetch(`${cli.url}/sandbox/health`)).status).toBe(200);
  });

  it('says so when the port is taken', async () => {
    const first = await serve();
    const port = new URL(first.url).port;
    const second = run(['serve', '--port', port]);
    expect(await second.exited).toBe(2);
    expect(second.errors()).toMatch(/cannot listen: .*EADDRINUSE/);
  });
});
