import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../src/webhooks/signature.js';
import { callApi, killAll, runCli, serveCli, type Cli } from './helpers/cli.js';
import { Receiver } from './helpers/receiver.js';

const running: Cli[] = [];
const receivers: Receiver[] = [];

afterEach(async () => {
  killAll(running);
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

const run = (args: string[], env: Record<string, string> = {}) => runCli(args, running, env);
const serve = (args: string[] = [], env: Record<string, string> = {}) => serveCli(args, running, env);
const api = callApi;

describe('crm-sandbox serve', () => {
  it('starts on a free port, prints its URL and API key, serves the whole flow, logs requests and stops on SIGTERM', async () => {
    const cli = await serve(['--seed', '3', '--api-key', 'k1', '--initial-sync-delay', '100ms', '--ready-delay', '200ms']);
    expect(cli.output()).toContain('API key: k1 (send as the service-api-token header)');
    const { linkToken } = (await api(cli.url, 'k1', 'POST', '/link/token')).body;
    const { publicToken } = (await api(cli.url, 'k1', 'POST', '/sandbox/public-token', { linkToken, integrationId: 'outreach' })).body;
    const connection = (await api(cli.url, 'k1', 'POST', '/link/exchange', { publicToken })).body;
    expect(connection.integrationId).toBe('outreach');
    expect((await api(cli.url, 'wrong', 'GET', '/connection/connections')).status).toBe(401);

    let users;
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

  it('explains bad options and exits non-zero', async () => {
    const badDuration = run(['serve', '--port', '0', '--ready-delay', 'soon']);
    expect(await badDuration.exited).toBe(2);
    expect(badDuration.errors()).toContain('crm-sandbox: readyDelay must look like 500ms, 3s, 2m, 1h or 1d, got "soon"');

    const unknown = run(['serve', '--colour', 'red']);
    expect(await unknown.exited).toBe(1);
    expect(unknown.errors()).toMatch(/Unknown argument: colour/);

    const noCommand = run([]);
    expect(await noCommand.exited).toBe(1);
    expect(noCommand.errors()).toContain('Name a command: serve');

    for (const port of ['abc', '70000', '-1']) {
      const badPort = run(['serve', '--port', port]);
      expect(await badPort.exited).toBe(2);
      expect(badPort.errors()).toMatch(/^crm-sandbox: --port must be an integer from 0 to 65535, got/);
    }

    const badHost = run(['serve', '--port', '0', '--host', '0.0.0.0.0']);
    expect(await badHost.exited).toBe(2);
    expect(badHost.errors()).toMatch(/^crm-sandbox: cannot listen: .*ENOTFOUND/);

    const badFixture = run(['serve', '--port', '0', '--fixtures', '/no/such/fixtures']);
    expect(await badFixture.exited).toBe(2);
    expect(badFixture.errors()).toContain('no such file or directory: /no/such/fixtures');
  });

  it('prints help that lists the options', async () => {
    const help = run(['serve', '--help']);
    expect(await help.exited).toBe(0);
    for (const option of ['--port', '--host', '--seed', '--api-key', '--initial-sync-delay', '--ready-delay', '--retry-schedule', '--webhook-ca', '--fixtures']) {
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
