import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from '../../src/cli/state-file.js';
import { MAX_LATENCY_MS } from '../../src/core/faults.js';
import { createSandbox, type Sandbox } from '../../src/index.js';
import { hostCheck } from '../../src/node/allowed-hosts.js';
import { type DevServer, SERVER_LIMITS, startDevServer } from '../../src/node/dev-server.js';
import { constantTimeEqual } from '../../src/shared/constant-time.js';
import { type Cli, callApi, eventually, killAll, runCli, serveCli } from '../helpers/cli.js';
import { exchange, send } from '../helpers/raw-http.js';

// The compare authenticate() uses, watched (it still compares): every configured key must be compared.
vi.mock('../../src/shared/constant-time.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/shared/constant-time.js')>();
  return { constantTimeEqual: vi.fn(original.constantTimeEqual) };
});

const KEY = 'sandbox-api-key';
const servers: DevServer[] = [];
const spawned: Cli[] = [];
const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-security-'));

afterEach(async () => {
  killAll(spawned);
  for (const server of servers.splice(0)) await server.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function devServer(sandbox: Sandbox, options: Parameters<typeof startDevServer>[1] = {}): Promise<DevServer> {
  const server = await startDevServer(sandbox, { port: 0, ...options });
  servers.push(server);
  return server;
}

const json = { 'content-type': 'application/json' };

describe('authentication comes before any fault, latency or work', () => {
  it("an unauthenticated request meets no fault header: a 401 at once, in no tenant's journal", async () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    const server = await devServer(sandbox);
    const probes: Array<Record<string, string>> = [
      { 'x-sandbox-latency': '60s' },
      { 'x-sandbox-force-status': '503' },
      { 'x-sandbox-latency': 'slow' },
      { 'x-sandbox-latency': '1d' },
    ];
    for (const headers of probes) {
      const missing = await send(server.url, 'GET', '/connection/connections', headers);
      expect(missing.status, JSON.stringify(headers)).toBe(401);
      expect(missing.json()).toEqual({ message: 'missing service-api-token header', errorCode: 'INVALID_API_TOKEN' });
      const wrong = await send(server.url, 'GET', '/connection/connections', { ...headers, 'service-api-token': 'guess' });
      expect(wrong.json()).toEqual({ message: 'invalid service-api-token', errorCode: 'INVALID_API_TOKEN' });
    }
    // Each journal ring is a tenant's: a request without a valid key is in none (docs/decisions/0016).
    expect(sandbox.requests()).toEqual([]);
    // A key that is no tenant's has no journal to read: the 401 the control API answers it.
    expect(() => sandbox.requests({ apiKey: 'guess' })).toThrow('invalid service-api-token');
  });

  it('routing, 405 and the body limit come first too, under standing faults that fail every request', async () => {
    const sandbox = createSandbox({ clock: 'virtual', faults: { errorRate: 1 } });
    const server = await devServer(sandbox);
    const forced = { 'service-api-token': KEY, 'x-sandbox-force-status': '502', 'x-sandbox-latency': '60s' };
    expect((await send(server.url, 'GET', '/connection/nowhere', forced)).json().errorCode).toBe('ROUTE_NOT_FOUND');
    const wrongMethod = await send(server.url, 'DELETE', '/link/token', forced);
    expect([wrongMethod.status, wrongMethod.headers.allow]).toEqual([405, 'POST']);
    const tooLarge = await send(server.url, 'POST', '/link/exchange', { ...forced, ...json }, JSON.stringify({ publicToken: 'x'.repeat(1024 * 1024) }));
    expect(tooLarge.json().errorCode).toBe('PAYLOAD_TOO_LARGE');
    // Admitted, it meets them: the forced status first, then the standing rule.
    expect((await send(server.url, 'GET', '/connection/connections', forced)).status).toBe(502);
    expect((await send(server.url, 'GET', '/connection/connections', { 'service-api-token': KEY })).status).toBe(503);
  });

  it('public routes (health, the OpenAPI document, the link widget, the static UI) never meet faults', async () => {
    const sandbox = createSandbox({ clock: 'virtual', faults: { errorRate: 1, latency: '60s' } });
    const server = await devServer(sandbox);
    // With the tenant's key (which public routes do not need), so that the journal shows each request.
    const forced = { 'service-api-token': KEY, 'x-sandbox-force-status': '503', 'x-sandbox-latency': '60s' };
    // The service's own routes fail under these rules...
    expect((await send(server.url, 'POST', '/link/token', { 'service-api-token': KEY })).status).toBe(503);
    // ...the public ones do not.
    expect((await send(server.url, 'GET', '/sandbox/health', forced)).status).toBe(200);
    expect((await send(server.url, 'GET', '/openapi.json', forced)).json().openapi).toMatch(/^3\.1/);
    expect((await send(server.url, 'GET', '/link/widget/session?linkToken=link_nope', forced)).json().errorCode).toBe('INVALID_LINK_TOKEN');
    const widgetPost = await send(
      server.url,
      'POST',
      '/link/widget/public-token',
      { ...forced, ...json },
      JSON.stringify({ linkToken: 'link_nope', integrationId: 'hubspot' }),
    );
    expect(widgetPost.json().errorCode).toBe('INVALID_LINK_TOKEN');
    for (const path of ['/link/init.js', '/link/widget', '/sandbox/ui']) expect((await send(server.url, 'GET', path, forced)).status, path).toBe(200);
    const publicEntries = sandbox.requests().filter((entry) => entry.path !== '/link/token');
    expect(publicEntries.map((entry) => [entry.path, entry.fault])).toEqual([
      ['/sandbox/health', null],
      ['/openapi.json', null],
      ['/link/widget/session', null],
      ['/link/widget/public-token', null],
    ]);
  });

  it(`caps x-sandbox-latency at ${MAX_LATENCY_MS / 1000}s: over it, a 400 naming the header and the cap`, async () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    const server = await devServer(sandbox);
    for (const latency of ['61s', '50ms-2m', '24d']) {
      const answer = await send(server.url, 'GET', '/connection/connections', { 'service-api-token': KEY, 'x-sandbox-latency': latency });
      expect(answer.status, latency).toBe(400);
      expect(answer.json()).toEqual({
        message: `x-sandbox-latency must be at most 60s, got ${JSON.stringify(latency)}`,
        errorCode: 'INVALID_FIELD_VALUE',
        metadata: { field: 'x-sandbox-latency', max: 60_000 },
      });
    }
    // A fault rule asks for no more than the header does.
    const rule = await send(server.url, 'PUT', '/sandbox/faults', { 'service-api-token': KEY, ...json }, JSON.stringify({ rules: [{ latency: '10ms-2m' }] }));
    expect([rule.status, rule.json().metadata]).toEqual([400, { field: 'rules[0].latency', max: 60_000 }]);
    expect(() => createSandbox({ faults: { latency: '61s' } })).toThrow('faults: latency must be at most 60s, got "61s"');
    // At the cap it is taken (a virtual clock reports it, and does not wait).
    expect((await send(server.url, 'GET', '/connection/connections', { 'service-api-token': KEY, 'x-sandbox-latency': '60s' })).status).toBe(200);
    expect(sandbox.requests().at(-1)).toMatchObject({ status: 200, fault: 'latency 60000ms', durationMs: 60_000 });
  });
});

describe('the Host allow-list of the dev server', () => {
  it('answers loopback names and *.localhost on any port, and a 421 naming the host and the flag to anything else', async () => {
    const server = await devServer(createSandbox({ clock: 'virtual' }));
    for (const host of ['localhost', `localhost:${server.port}`, 'LOCALHOST:1', `127.0.0.1:${server.port}`, '[::1]:4010', 'app.localhost:3000', 'localhost.']) {
      expect((await send(server.url, 'GET', '/sandbox/health', { host })).status, host).toBe(200);
    }
    for (const [host, name] of [
      ['evil.test', 'evil.test'],
      [`attacker.example:${server.port}`, 'attacker.example'],
      ['127.0.0.2', '127.0.0.2'],
      ['localhost.evil.test', 'localhost.evil.test'],
    ]) {
      for (const path of ['/sandbox/health', '/sandbox/ui', '/connection/connections']) {
        const refused = await send(server.url, 'GET', path, { host: host!, 'service-api-token': KEY });
        expect(refused.status, `${host} ${path}`).toBe(421);
        expect(refused.headers['x-content-type-options']).toBe('nosniff');
        expect(refused.json()).toMatchObject({ errorCode: 'HOST_NOT_ALLOWED', metadata: { host } });
        expect(refused.json().message).toContain(`host ${JSON.stringify(host)}`);
        expect(refused.json().message).toContain(`--allowed-host ${name}`);
      }
    }
  });

  it('answers an HTTP/1.0 request without Host; an HTTP/1.1 one without it is a 400 in the error body', async () => {
    const server = await devServer(createSandbox({ clock: 'virtual' }));
    expect(await exchange(server.port, 'GET /sandbox/health HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n\{"status":"ok"\}$/);
    const answer = await exchange(server.port, 'GET /sandbox/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('{"message":"an HTTP/1.1 request needs a Host header","errorCode":"BAD_REQUEST"}');
  });

  it('allowedHosts adds names; * allows any; the address bound to is allowed', async () => {
    const named = await devServer(createSandbox({ clock: 'virtual' }), { allowedHosts: ['crm-sandbox', 'Sandbox.LAN', '::1'] });
    for (const host of ['crm-sandbox:4010', 'sandbox.lan', 'localhost'])
      expect((await send(named.url, 'GET', '/sandbox/health', { host })).status, host).toBe(200);
    expect((await send(named.url, 'GET', '/sandbox/health', { host: 'other:4010' })).status).toBe(421);
    const any = await devServer(createSandbox({ clock: 'virtual' }), { allowedHosts: ['*'] });
    expect((await send(any.url, 'GET', '/sandbox/health', { host: 'anything.example:1' })).status).toBe(200);

    // Bound to a LAN address (checked without binding one): its clients send that address.
    const lan = hostCheck('192.168.1.5');
    expect([lan('192.168.1.5:4010'), lan('127.0.0.1'), lan('192.168.1.6:4010'), lan(undefined)]).toEqual([true, true, false, true]);
    expect(hostCheck('::')('[::]:4010')).toBe(true);
    await expect(startDevServer(createSandbox(), { port: 0, allowedHosts: ['http://crm-sandbox:4010'] })).rejects.toThrow(
      'allowedHosts[0] takes a host name or address without a scheme, port or path (every port is allowed), or * for any; got "http://crm-sandbox:4010"',
    );
  });

  it('serve --allowed-host and CRM_SANDBOX_ALLOWED_HOST add names; a bad one exits 2 naming the flag', async () => {
    const cli = await serveCli(['--quiet', '--allowed-host', 'crm-sandbox', '--allowed-host', 'a.test,b.test'], spawned);
    for (const host of ['crm-sandbox:4010', 'a.test', 'b.test:80', `127.0.0.1:${new URL(cli.url).port}`])
      expect((await send(cli.url, 'GET', '/sandbox/health', { host })).status, host).toBe(200);
    const refused = await send(cli.url, 'GET', '/sandbox/health', { host: 'c.test' });
    expect([refused.status, refused.json().message]).toEqual([421, expect.stringContaining('--allowed-host c.test')]);
    const fromEnv = await serveCli(['--quiet'], spawned, { CRM_SANDBOX_ALLOWED_HOST: 'crm-sandbox,sandbox.lan' });
    expect((await send(fromEnv.url, 'GET', '/sandbox/health', { host: 'sandbox.lan:4010' })).status).toBe(200);
    expect((await send(fromEnv.url, 'GET', '/sandbox/health', { host: 'c.test' })).status).toBe(421);

    const withPort = runCli(['serve', '--port', '0', '--allowed-host', 'crm-sandbox:4010'], spawned);
    expect(await withPort.exited).toBe(2);
    expect(withPort.errors()).toContain(
      '--allowed-host takes a host name or address without a scheme, port or path (every port is allowed), or * for any; got "crm-sandbox:4010"',
    );
    const empty = runCli(['serve', '--port', '0'], spawned, { CRM_SANDBOX_ALLOWED_HOST: ' , ' });
    expect(await empty.exited).toBe(2);
    expect(empty.errors()).toContain('CRM_SANDBOX_ALLOWED_HOST');
  });
});

describe('the state file', () => {
  const mode = (path: string) => lstatSync(path).mode & 0o777;

  it('is written 0600, and a file others could read is saved again 0600 at start', async () => {
    const file = join(dir, 'fresh.json');
    const first = await serveCli(['--quiet', '--state-file', file], spawned);
    expect((await callApi(first.url, KEY, 'POST', '/link/token')).status).toBe(200);
    await eventually(() => readdirSync(dir).includes('fresh.json'));
    expect(mode(file)).toBe(0o600);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(readdirSync(dir).filter((name) => name.startsWith('fresh.json'))).toEqual(['fresh.json']); // no temp file left

    chmodSync(file, 0o644); // as versions before this one wrote it
    const content = readFileSync(file, 'utf8');
    const second = await serveCli(['--quiet', '--state-file', file], spawned);
    expect(second.output()).toContain('(loaded)');
    await eventually(() => mode(file) === 0o600); // no request needed
    expect(JSON.parse(readFileSync(file, 'utf8')).linkTokens).toEqual(JSON.parse(content).linkTokens);
  });

  it('never writes through a symlink planted at its path: the rename replaces the link', async () => {
    const file = join(dir, 'planted.json');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'not yours');
    const cli = await serveCli(['--quiet', '--state-file', file], spawned);
    await callApi(cli.url, KEY, 'POST', '/link/token');
    await eventually(() => readdirSync(dir).includes('planted.json'));
    unlinkSync(file);
    symlinkSync(victim, file);
    await callApi(cli.url, KEY, 'POST', '/link/token');
    await eventually(() => lstatSync(file).isFile());
    expect(readFileSync(victim, 'utf8')).toBe('not yours');
    expect(mode(file)).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).format).toBe('crm-sandbox-state');
  });

  it('creates its temp file exclusively: a symlink planted at that name makes the save fail, and nothing is written through it', async () => {
    // The temp name, fixed once, to plant a symlink where it will be (the state file finds node:crypto on first use).
    const randomBytes = vi.spyOn(process.getBuiltinModule('node:crypto'), 'randomBytes');
    const file = join(dir, 'exclusive.json');
    const victim = join(dir, 'victim-2.txt');
    writeFileSync(victim, 'not yours');
    writeFileAtomic(file, '{"v":1}');
    randomBytes.mockReturnValueOnce(Buffer.from('0011223344556677', 'hex') as never);
    symlinkSync(victim, `${file}.0011223344556677.tmp`);
    expect(() => writeFileAtomic(file, '{"v":2}')).toThrow(/EEXIST/);
    expect(readFileSync(victim, 'utf8')).toBe('not yours');
    expect(readFileSync(file, 'utf8')).toBe('{"v":1}');
    // The next save draws another name and goes through.
    writeFileAtomic(file, '{"v":3}');
    expect([readFileSync(file, 'utf8'), mode(file)]).toEqual(['{"v":3}', 0o600]);
    expect(randomBytes).toHaveBeenCalledTimes(3);
    randomBytes.mockRestore();
  });
});

describe('tokens and the smaller things', () => {
  async function linkAll(url: string) {
    const { body: link } = await callApi(url, KEY, 'POST', '/link/token');
    const { body: publicToken } = await callApi(url, KEY, 'POST', '/sandbox/public-token', { integrationId: 'hubspot', linkToken: link.linkToken });
    const { body: connection } = await callApi(url, KEY, 'POST', '/link/exchange', publicToken);
    const { body: contacts } = await callApi(url, KEY, 'GET', `/sandbox/connections/${connection.connectionId}/records/Contact?limit=3`);
    // Times are each server's real clock; everything else is the seed's.
    const timeless = contacts.records.map(({ createdTime: _c, modifiedTime: _m, ...record }: Record<string, unknown>) => record);
    return {
      linkToken: link.linkToken as string,
      publicToken: publicToken.publicToken as string,
      ...(connection as { connectionId: string; accessToken: string }),
      contacts: timeless,
    };
  }

  it("serve draws link, public and access tokens from cryptographic randomness; --seeded-tokens from the seed, as createSandbox does; ids stay the seed's", async () => {
    const [a, b] = await Promise.all([serveCli(['--quiet'], spawned), serveCli(['--quiet'], spawned)]);
    const [first, second] = [await linkAll(a.url), await linkAll(b.url)];
    for (const token of ['linkToken', 'publicToken', 'accessToken'] as const) {
      expect(first[token]).not.toBe(second[token]);
      expect(first[token]).toMatch(/^(link|public|access)_[0-9a-f]+$/);
    }
    expect(first.accessToken).toMatch(/^access_[0-9a-f]{40}$/);
    expect(first.connectionId).toBe(second.connectionId);
    expect(first.contacts).toEqual(second.contacts);
    expect(a.output()).toContain('seed 1 (tokens random)');

    const [c, d] = await Promise.all([
      serveCli(['--quiet', '--seeded-tokens'], spawned),
      serveCli(['--quiet'], spawned, { CRM_SANDBOX_SEEDED_TOKENS: 'true' }),
    ]);
    const [third, fourth] = [await linkAll(c.url), await linkAll(d.url)];
    expect(third).toEqual(fourth);
    expect(c.output()).toContain('seed 1 (tokens seeded)');
    const inProcess = createSandbox();
    const seeded = await linkAll((await devServer(inProcess)).url);
    expect(seeded).toEqual({ ...third });
    expect(third.connectionId).toBe(first.connectionId);
    expect(third.contacts).toEqual(first.contacts);
  });

  it('an accessToken the caller fixes stays as given on a random-token server', async () => {
    const server = await devServer(createSandbox({ tokens: 'random' }));
    const fixed = `access_${'ab'.repeat(20)}`;
    const { body } = await callApi(server.url, KEY, 'POST', '/sandbox/public-token', { integrationId: 'salesforce', accessToken: fixed });
    expect((await callApi(server.url, KEY, 'POST', '/link/exchange', body)).body.accessToken).toBe(fixed);
  });

  it('random tokens leave every seeded stream where it was: ids, records and events are the same', async () => {
    const run = async (tokens: 'seeded' | 'random') => {
      const sandbox = createSandbox({ clock: 'virtual', tokens });
      const connections = ['hubspot', 'salesforce'].map((integrationId) => sandbox.connect({ integrationId: integrationId as 'hubspot' }));
      await sandbox.advance('10s');
      const { connectionId } = connections[0]!;
      const created = sandbox.createRecord(connectionId, 'Contact', { firstName: 'Ada' });
      const result = {
        ids: connections.map((connection) => connection.connectionId),
        records: sandbox.listRecords(connectionId, 'Account'),
        created,
        events: sandbox.emittedEvents(),
        tokens: connections.map((connection) => connection.accessToken),
      };
      sandbox.close();
      return result;
    };
    const [seeded, random] = [await run('seeded'), await run('random')];
    expect({ ...random, tokens: [] }).toEqual({ ...seeded, tokens: [] });
    expect(random.tokens).not.toEqual(seeded.tokens);
    expect(() => createSandbox({ tokens: 'guessable' as 'random' })).toThrow("tokens must be 'seeded' or 'random', got guessable");
  });

  it('sends X-Content-Type-Options: nosniff on every answer: API, errors, 404s, refused requests, assets', async () => {
    const server = await devServer(createSandbox({ clock: 'virtual' }));
    const answers = [
      await send(server.url, 'GET', '/connection/connections', { 'service-api-token': KEY }),
      await send(server.url, 'GET', '/connection/connections'),
      await send(server.url, 'GET', '/nowhere'),
      await send(server.url, 'PUT', '/link/token', { 'service-api-token': KEY }),
      await send(server.url, 'POST', '/link/exchange', { 'service-api-token': KEY, ...json }, 'x'.repeat(1024 * 1024 + 1)),
      await send(server.url, 'GET', '/sandbox/ui'),
      await send(server.url, 'GET', '/openapi.json'),
    ];
    expect(answers.map((answer) => [answer.status, answer.headers['x-content-type-options']])).toEqual(
      [200, 401, 404, 405, 413, 200, 200].map((status) => [status, 'nosniff']),
    );
    const unparsable = await exchange(server.port, 'NOT A REQUEST\r\n\r\n');
    expect(unparsable).toMatch(/^HTTP\/1\.1 400 [\s\S]*x-content-type-options: nosniff/);
    const huge = await exchange(server.port, `GET / HTTP/1.1\r\nHost: localhost\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 [\s\S]*x-content-type-options: nosniff/);
  });

  it('compares the API key in constant time against every configured key', async () => {
    const compare = vi.mocked(constantTimeEqual);
    const server = await devServer(createSandbox({ clock: 'virtual', apiKeys: ['k1', 'k2', 'k3'] }));
    for (const [key, status] of [
      ['k1', 200],
      ['k3', 200],
      ['k9', 401],
      ['k', 401],
      ['k1k1', 401],
    ] as const) {
      compare.mockClear();
      expect((await send(server.url, 'GET', '/connection/connections', { 'service-api-token': key })).status, key).toBe(status);
      // Every key, even after the first matched: the time does not tell which one it was.
      expect(compare.mock.calls, key).toEqual([
        [key, 'k1'],
        [key, 'k2'],
        [key, 'k3'],
      ]);
    }
  });

  it('has timeouts and a connection cap, and a slow request gets a 408 in the error body', async () => {
    const server = await devServer(createSandbox());
    expect({
      headersTimeoutMs: server.server.headersTimeout,
      requestTimeoutMs: server.server.requestTimeout,
      keepAliveTimeoutMs: server.server.keepAliveTimeout,
      maxConnections: server.server.maxConnections,
    }).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, maxConnections: 1_000 });
    expect(SERVER_LIMITS.checkIntervalMs).toBe(1_000);

    // Shortened here, so the test does not wait 10 s: the timers are checked every second.
    server.server.headersTimeout = 200;
    server.server.requestTimeout = 400;
    const slowHeaders = await exchange(server.port, 'GET /sandbox/health HTTP/1.1\r\nHost: localhost\r\n');
    expect(slowHeaders).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(slowHeaders.slice(slowHeaders.indexOf('\r\n\r\n') + 4))).toEqual({
      message: 'the request did not arrive in time: its headers are due within 200 ms, the whole request within 400 ms',
      errorCode: 'REQUEST_TIMEOUT',
      metadata: { headersTimeoutMs: 200, requestTimeoutMs: 400 },
    });
    const slowBody = await exchange(
      server.port,
      `POST /link/exchange HTTP/1.1\r\nHost: localhost\r\nservice-api-token: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"pub`,
    );
    expect(slowBody).toMatch(/^HTTP\/1\.1 408 [\s\S]*"errorCode":"REQUEST_TIMEOUT"/);
    // The request timer stops once the request has arrived: an answer may take longer (a scenario run takes up to its maxWait).
    const held = await send(server.url, 'GET', '/connection/connections', { 'service-api-token': KEY, 'x-sandbox-latency': '1500ms' });
    expect(held.status).toBe(200);
  });

  it('closes connections over the cap as they come, and takes new ones once some end', async () => {
    const server = await devServer(createSandbox({ clock: 'virtual' }));
    server.server.maxConnections = 2;
    const open = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const socket = connect(server.port, '127.0.0.1', () => resolve(socket));
          }),
      ),
    );
    await eventually(() => new Promise<boolean>((resolve) => server.server.getConnections((_, count) => resolve(count === 2))));
    const refused = await exchange(server.port, 'GET /sandbox/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n').catch(
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(['', 'ECONNRESET', 'EPIPE']).toContain(refused);
    for (const socket of open) socket.destroy();
    await eventually(() => new Promise<boolean>((resolve) => server.server.getConnections((_, count) => resolve(count === 0))));
    expect(await exchange(server.port, 'GET /sandbox/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('frees a cap filled by sockets that send nothing or half a request line: each gets a 408 at the headers timeout', async () => {
    const server = await devServer(createSandbox({ clock: 'virtual' }));
    // Shortened here, as above; the timers are still checked every second.
    server.server.maxConnections = 3;
    server.server.headersTimeout = 300;
    server.server.requestTimeout = 600;
    const health = 'GET /sandbox/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';
    // Each resolves with what the server sent before it closed the connection.
    const held = [exchange(server.port, ''), exchange(server.port, ''), exchange(server.port, 'GET /sandbox/health HTTP/1.1\r\nHo')];
    await eventually(() => new Promise<boolean>((resolve) => server.server.getConnections((_, count) => resolve(count === 3))));
    // While they hold every slot, a new client is closed at once, without an answer.
    const refused = await exchange(server.port, health).catch((error: NodeJS.ErrnoException) => error.code);
    expect(['', 'ECONNRESET', 'EPIPE']).toContain(refused);

    for (const answer of await Promise.all(held)) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 [\s\S]*connection: close/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).errorCode).toBe('REQUEST_TIMEOUT');
    }
    await eventually(() => new Promise<boolean>((resolve) => server.server.getConnections((_, count) => resolve(count === 0))));
    expect(await exchange(server.port, health)).toMatch(/^HTTP\/1\.1 200 /);
  }, 20_000);
});

describe('constantTimeEqual', () => {
  it('reads every character of what was given, wherever the first difference is, and tells equal from not', async () => {
    const { constantTimeEqual: original } = await vi.importActual<typeof import('../../src/shared/constant-time.js')>('../../src/shared/constant-time.js');
    const secret = 'f'.repeat(64);
    for (const differAt of [0, 31, 63, -1]) {
      let reads = 0;
      const text = Array.from({ length: 64 }, (_, i) => (i === differAt ? '0' : 'f'));
      const given = {
        length: 64,
        charCodeAt: (i: number) => {
          reads++;
          return text[i]!.charCodeAt(0);
        },
      } as unknown as string;
      expect(original(given, secret), String(differAt)).toBe(differAt === -1);
      expect(reads, String(differAt)).toBe(64);
    }
    expect([original('abc', 'abc'), original('abc', 'abd'), original('ab', 'abc'), original('abcd', 'abc'), original('', 'abc'), original('', '')]).toEqual([
      true,
      false,
      false,
      false,
      false,
      true,
    ]);
  });
});
