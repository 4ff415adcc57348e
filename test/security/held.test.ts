import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';
import { type DevServer, startDevServer } from '../../src/node/dev-server.js';
import { constantTimeEqual } from '../../src/shared/constant-time.js';
import { signPayload, verifySignature } from '../../src/webhooks/signature.js';
import { callApi, eventually } from '../helpers/cli.js';
import { exchange, send } from '../helpers/raw-http.js';

// What held when the sandbox was probed as an attacker would (issue 19), kept as tests so it keeps
// holding: each through a real dev server on 127.0.0.1, with two tenants where it matters.

vi.mock('../../src/shared/constant-time.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/shared/constant-time.js')>();
  return { constantTimeEqual: vi.fn(original.constantTimeEqual) };
});

/** A full collection, at run time (as `node --expose-gc` gives `gc()`), for the memory check below. */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const A = 'tenant-a-key';
const B = 'tenant-b-key';
const running: Array<DevServer | Server> = [];

afterEach(async () => {
  for (const item of running.splice(0)) {
    if ('url' in item) await item.close();
    else await new Promise<void>((resolve) => item.close(() => resolve()).closeAllConnections());
  }
});

async function devServer(sandbox: Sandbox = createSandbox({ apiKeys: [A, B], initialSyncDelay: '1ms', readyDelay: '2ms' })): Promise<DevServer> {
  const server = await startDevServer(sandbox, { port: 0 });
  running.push(server);
  return server;
}

/** A plain node:http server on 127.0.0.1 that answers with `handler` and counts its requests. */
async function localServer(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    handler!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, hits: () => hits };
}

/**
 * A receiver in a child process that answers every webhook with a body of `megabytes` MiB, written
 * as the reader takes it; `written()` asks it how many bytes it wrote.
 */
async function streamingReceiver(megabytes: number): Promise<{ url: string; written: () => Promise<number> }> {
  const code = `
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    let written = 0;
    const server = require('node:http').createServer((req, res) => {
      req.resume();
      if (req.url === '/written') return res.end(String(written));
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(${megabytes} * chunk.length) });
      let sent = 0;
      const pump = () => {
        while (sent < ${megabytes}) {
          sent++;
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  running.push({ url: 'child', close: async () => void child.kill() } as never);
  const port = await new Promise<string>((resolve) => child.stdout.once('data', (data: Buffer) => resolve(data.toString().trim())));
  const base = `http://127.0.0.1:${port}`;
  return { url: `${base}/webhooks`, written: async () => Number(await (await fetch(`${base}/written`)).text()) };
}

async function linkAndReady(url: string, key: string, integrationId = 'hubspot') {
  const { body: token } = await callApi(url, key, 'POST', '/sandbox/public-token', { integrationId });
  const { body } = await callApi(url, key, 'POST', '/link/exchange', { publicToken: token.publicToken });
  await eventually(async () => (await callApi(url, key, 'GET', `/sandbox/connections/${body.connectionId}`)).body.connection?.status === 'READY');
  return body as { connectionId: string; accessToken: string };
}

const jsonHeaders = (key: string) => ({ 'service-api-token': key, 'content-type': 'application/json' });

describe('tenants stay apart', () => {
  it('every per-connection route answers 404 to another tenant, and changes nothing', async () => {
    const sandbox = createSandbox({ apiKeys: [A, B], initialSyncDelay: '1ms', readyDelay: '2ms' });
    const server = await devServer(sandbox);
    const { connectionId } = await linkAndReady(server.url, A);
    const { body: created } = await callApi(server.url, A, 'POST', `/sandbox/connections/${connectionId}/records/Contact`, { firstName: 'Ada' });
    const recordId = created.record.id as string;
    const eventId = sandbox.emittedEvents(connectionId).at(-1)!.eventId;
    // The whole state, but for the time it was taken at (a real clock).
    const state = () => JSON.stringify({ ...sandbox.snapshot(), time: 0 });
    const before = state();

    const bodies: Record<string, unknown> = {
      'POST /sandbox/connections/:connectionId/records/:objectType': { firstName: 'Mallory' },
      'PATCH /sandbox/connections/:connectionId/records/:objectType/:id': { firstName: 'Mallory' },
      'POST /sandbox/connections/:connectionId/status': { status: 'DISCONNECTED' },
      'PUT /sandbox/connections/:connectionId/chaos': { duplicate: 1 },
      'PUT /sandbox/connections/:connectionId/downstream-faults': { faults: [{ kind: 'rate-limit' }] },
    };
    const perConnection = sandbox.routes.filter((route) => route.pattern.includes(':connectionId'));
    expect(perConnection.length).toBeGreaterThanOrEqual(14);
    for (const { method, pattern } of perConnection) {
      const path = pattern.replace(':connectionId', connectionId).replace(':objectType', 'Contact').replace(':id', recordId);
      const answer = await callApi(server.url, B, method, path, bodies[`${method} ${pattern}`]);
      expect(answer.status, `${method} ${pattern}`).toBe(404);
      expect(answer.body, `${method} ${pattern}`).toMatchObject({ errorCode: 'OBJECT_NOT_FOUND', metadata: { field: 'connectionId' } });
    }
    // And the routes that name a connection or its events elsewhere than in the path.
    const elsewhere: Array<[string, string, unknown]> = [
      ['GET', `/connection/connection?connectionId=${connectionId}`, undefined],
      ['DELETE', '/connection/connection', { connectionId }],
      ['GET', `/sandbox/deliveries/${eventId}`, undefined],
      ['POST', `/sandbox/deliveries/${eventId}/redeliver`, undefined],
      ['POST', '/sandbox/scenarios/run', { connectionId, definition: { steps: [{ create: { type: 'Note', fields: { content: 'x' } } }] } }],
      ['POST', '/sandbox/scenarios/deal-won/run', { connectionId }],
    ];
    for (const [method, path, body] of elsewhere) expect((await callApi(server.url, B, method, path, body)).status, `${method} ${path}`).toBe(404);
    expect(state()).toBe(before);
    expect((await callApi(server.url, B, 'GET', '/connection/connections')).body.connections).toEqual([]);
  });

  it('an accessToken works only for the tenant that linked it', async () => {
    const server = await devServer();
    const { accessToken } = await linkAndReady(server.url, A);
    const asB = [
      await callApi(server.url, B, 'GET', `/engagement/users?accessToken=${accessToken}`),
      await callApi(server.url, B, 'GET', `/engagement/mailboxes?accessToken=${accessToken}`),
      await callApi(server.url, B, 'POST', '/crm/passthrough', { accessToken, method: 'GET', path: 'crm/v3/objects/contacts' }),
      await callApi(server.url, B, 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: 'http://127.0.0.1:9/hook' } }),
      await callApi(server.url, B, 'GET', `/connection/webhook?accessToken=${accessToken}&webhookId=x`),
    ];
    expect(asB.map((answer) => [answer.status, answer.body.errorCode])).toEqual(Array(5).fill([401, 'INVALID_ACCESS_TOKEN']));
    expect((await callApi(server.url, A, 'GET', `/engagement/users?accessToken=${accessToken}&limit=1`)).status).toBe(200);
  });
});

describe('the inspector and the link widget', () => {
  const ui = new URL('../../dist/ui/', import.meta.url);

  it('are served with a CSP without inline code, nosniff, and the inspector never framed', async () => {
    const server = await devServer();
    for (const path of ['/sandbox/ui', '/sandbox/ui/inspector.js', '/link/widget', '/link/widget.js', '/link/init.js']) {
      const answer = await send(server.url, 'GET', path);
      const csp = String(answer.headers['content-security-policy']);
      expect(answer.headers['x-content-type-options'], path).toBe('nosniff');
      expect(csp, path).toMatch(/^default-src 'self'; style-src 'self'/);
      expect(csp, path).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(csp.includes("frame-ancestors 'none'"), path).toBe(path.startsWith('/sandbox/ui'));
    }
  });

  it('have no HTML sinks: the pages carry no inline script or handler, the scripts never parse text as HTML or code', () => {
    const files = readdirSync(ui);
    expect(files).toEqual(expect.arrayContaining(['inspector.html', 'inspector.js', 'widget.html', 'widget.js', 'init.js', 'dom.js']));
    const sinks = /\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\s*\(|new Function|srcdoc|createContextualFragment|DOMParser|javascript:/;
    for (const file of files.filter((name) => name.endsWith('.js'))) expect(readFileSync(new URL(file, ui), 'utf8'), file).not.toMatch(sinks);
    for (const file of files.filter((name) => name.endsWith('.html'))) {
      const html = readFileSync(new URL(file, ui), 'utf8');
      expect(html, file).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
      expect(html, file).not.toMatch(/\son[a-z]+\s*=/i);
    }
  });
});

describe('no prototype pollution', () => {
  const polluted = () => Object.keys(Object.prototype).concat(({} as { polluted?: unknown }).polluted === undefined ? [] : ['polluted']);
  const evil = (marker: string) => `"__proto__":{"polluted":"${marker}"},"constructor":{"prototype":{"polluted":"${marker}"}}`;

  it('from __proto__ and constructor keys in bodies, queries, passthrough bodies, fixtures and scenario definitions', async () => {
    const sandbox = createSandbox({ apiKeys: [A, B], initialSyncDelay: '1ms', readyDelay: '2ms' });
    const server = await devServer(sandbox);
    const { connectionId, accessToken } = await linkAndReady(server.url, A);
    const records = `/sandbox/connections/${connectionId}/records/Contact`;
    const { id } = (await callApi(server.url, A, 'POST', records, { firstName: 'P' })).body.record;
    const refused = await send(server.url, 'POST', records, jsonHeaders(A), `{"firstName":"P",${evil('record')}}`);
    expect(refused.json()).toMatchObject({ errorCode: 'INVALID_FIELD_VALUE', metadata: { field: '__proto__' } });
    const statuses = [
      (await send(server.url, 'PATCH', `${records}/${id}`, jsonHeaders(A), `{"lastName":"Q",${evil('patch')}}`)).status,
      (
        await send(server.url, 'GET', `${records}?__proto__[polluted]=query&constructor[prototype][polluted]=query&__proto__.polluted=query`, {
          'service-api-token': A,
        })
      ).status,
      (await send(server.url, 'GET', `/engagement/users?accessToken=${accessToken}&__proto__=x&constructor=y`, { 'service-api-token': A })).status,
      (
        await send(
          server.url,
          'POST',
          '/crm/passthrough',
          jsonHeaders(A),
          `{"accessToken":"${accessToken}","method":"POST","path":"crm/v3/objects/contacts","body":{"properties":{"firstname":"P",${evil('native')}},${evil('native-body')}},"query":{${evil('native-query')}}}`,
        )
      ).status,
      (
        await send(
          server.url,
          'POST',
          '/crm/passthrough',
          jsonHeaders(A),
          `{"accessToken":"${accessToken}","method":"GET","path":"crm/v3/objects/contacts?__proto__[polluted]=1&constructor[prototype][polluted]=1"}`,
        )
      ).status,
      (
        await send(
          server.url,
          'POST',
          '/crm/passthrough',
          jsonHeaders(A),
          `{"accessToken":"${accessToken}","method":"POST","path":"crm/v3/objects/contacts","body":{"properties":{"firstname":"P",${evil('native-properties')}}}}`,
        )
      ).status,
      (
        await send(
          server.url,
          'POST',
          '/sandbox/scenarios/run',
          jsonHeaders(A),
          `{"connectionId":"${connectionId}","definition":{"steps":[{"create":{"type":"Note","as":"n","fields":{"content":"x",${evil('step')}}}}],${evil('definition')}}}`,
        )
      ).status,
      (
        await send(
          server.url,
          'POST',
          '/sandbox/scenarios/run',
          jsonHeaders(A),
          `{"connectionId":"${connectionId}","definition":{"steps":[{"create":{"type":"Note","fields":{"content":"x",${evil('step')}}}}]}}`,
        )
      ).status,
      (await send(server.url, 'POST', '/sandbox/public-token', jsonHeaders(A), `{"integrationId":"hubspot",${evil('link')}}`)).status,
      (await send(server.url, 'PUT', '/sandbox/faults', jsonHeaders(A), `{${evil('faults')}}`)).status,
      (await send(server.url, 'PUT', `/sandbox/connections/${connectionId}/chaos`, jsonHeaders(A), `{${evil('chaos')}}`)).status,
    ];
    expect(
      statuses.every((status) => status < 500),
      String(statuses),
    ).toBe(true);
    expect(polluted()).toEqual([]);
    // The record has no prototype of the caller's making either.
    const read = sandbox.getRecord(connectionId, 'Contact', id);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect((read as { polluted?: unknown }).polluted).toBeUndefined();

    // Fixtures: a file's JSON with those keys, given to createSandbox.
    const fixture = JSON.parse(
      `{"crm":{"Contact":[{"id":"v.contact.0123456789abcdef0123456789abcdef","firstName":"F",${evil('fixture-record')}}]},${evil('fixture')}}`,
    );
    try {
      const seeded = createSandbox({ fixtures: [fixture], clock: 'virtual' });
      const { connectionId: seededId } = seeded.connect();
      seeded.listRecords(seededId, 'Contact');
      seeded.close();
    } catch (error) {
      expect((error as Error).name).toBe('SandboxConfigError'); // refused is fine too; polluting is not
    }
    expect(polluted()).toEqual([]);
  });
});

describe('paths', () => {
  it('path traversal is refused: static files, passthrough paths, scenario names', async () => {
    const server = await devServer();
    const { accessToken } = await linkAndReady(server.url, A);
    for (const path of [
      '/sandbox/ui/../../package.json',
      '/link/../../package.json',
      '/sandbox/ui/%2e%2e/%2e%2e/package.json',
      '/link/..%2f..%2fpackage.json',
      '/sandbox/ui/..\\..\\package.json',
      '/link/widget/../../../../etc/passwd',
    ]) {
      const answer = await send(server.url, 'GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.json().errorCode, path).toBe('ROUTE_NOT_FOUND');
    }
    for (const path of [
      '../../etc/passwd',
      'crm/v3/objects/../../../sandbox/health',
      'crm/%2e%2e/%2e%2e/x',
      '//127.0.0.1:9/x',
      'http://127.0.0.1:9/x',
      'crm\\..\\x',
    ]) {
      const answer = await callApi(server.url, A, 'POST', '/crm/passthrough', { accessToken, method: 'GET', path });
      expect([answer.status, answer.body.metadata?.field], path).toEqual([400, 'path']);
    }
    for (const name of ['..%2f..%2fpackage.json', '%2e%2e%2fscenarios%2fdeal-won.yaml', '..%2fpackage']) {
      const answer = await send(server.url, 'POST', `/sandbox/scenarios/${name}/run`, jsonHeaders(A), '{}');
      expect([answer.status, answer.json().errorCode], name).toEqual([404, 'OBJECT_NOT_FOUND']);
    }
  });
});

describe('limits', () => {
  it('a body over 1 MiB is a 413, headers over 16 KiB a 431, each in the error body', async () => {
    const server = await devServer();
    const large = await send(server.url, 'POST', '/link/exchange', jsonHeaders(A), JSON.stringify({ publicToken: 'x'.repeat(1024 * 1024) }));
    expect([large.status, large.json().errorCode]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const headers = await exchange(server.port, `GET /sandbox/health HTTP/1.1\r\nHost: localhost\r\nx-big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    expect(headers).toMatch(/^HTTP\/1\.1 431 [\s\S]*"errorCode":"HEADERS_TOO_LARGE"/);
  });
});

describe('deliveries', () => {
  it('do not follow redirects: a receiver answering 302 to another local server, which is never reached', async () => {
    const elsewhere = await localServer((_, res) => res.end('ok'));
    const receiver = await localServer((req, res) => {
      req.resume();
      res.writeHead(302, { location: elsewhere.url }).end();
    });
    const server = await devServer();
    const { connectionId, accessToken } = await linkAndReady(server.url, A);
    expect((await callApi(server.url, A, 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: receiver.url } })).status).toBe(200);
    await callApi(server.url, A, 'POST', `/sandbox/connections/${connectionId}/records/Contact`, { firstName: 'R' });
    const attempts = async () =>
      (await callApi(server.url, A, 'GET', `/sandbox/connections/${connectionId}/deliveries`)).body.deliveries.flatMap(
        (d: { attempts: unknown[] }) => d.attempts,
      );
    await eventually(async () => (await attempts()).length >= 1);
    expect((await attempts()).map((attempt: { status?: number }) => attempt.status)).toContain(302);
    expect(receiver.hits()).toBeGreaterThan(0);
    expect(elsewhere.hits()).toBe(0);
  });

  it("read a receiver's answer without keeping it: a 200 MB body leaves the memory and the delivery log as they were", async () => {
    // The receiver in a process of its own: its write buffers are not the sandbox's memory (in this
    // process they were counted, and a slow reader made them look like a body held whole).
    const receiver = await streamingReceiver(200);
    const server = await devServer();
    const { connectionId, accessToken } = await linkAndReady(server.url, A);
    // Live memory only: buffers already dropped but not yet collected would blur the peak.
    const live = () => {
      collectGarbage();
      return process.memoryUsage().arrayBuffers;
    };
    const baseline = live();
    let peak = baseline;
    // Every 100 ms: a full collection each time is heavy on a loaded machine (a 10 ms sampler starved the delivery itself),
    // and a body held whole would stay for all of its reading.
    const sampler = setInterval(() => (peak = Math.max(peak, live())), 100);
    try {
      await callApi(server.url, A, 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: receiver.url } });
      const deliveries = async () => (await callApi(server.url, A, 'GET', `/sandbox/connections/${connectionId}/deliveries`)).body.deliveries;
      await eventually(async () => (await deliveries()).length > 0 && (await deliveries()).every((d: { state: string }) => d.state === 'succeeded'), 800);
      expect(await receiver.written()).toBeGreaterThanOrEqual(200 * 1024 * 1024);
      // Never held whole: what it took at most is half the 200 MB it read, or less (chunks read but not yet
      // collected come and go with the machine's load: 40–63 MB seen here).
      expect(peak - baseline).toBeLessThan(100 * 1024 * 1024);
      const log = JSON.stringify(await deliveries());
      expect(log.length).toBeLessThan(64 * 1024);
      expect(log).not.toContain('xxxxxxxx');
    } finally {
      clearInterval(sampler);
    }
  }, 90_000);
});

describe('verifySignature', () => {
  it('compares signatures with the constant-time compare, never an early-exit one', () => {
    const compare = vi.mocked(constantTimeEqual);
    const accessToken = `access_${'1'.repeat(40)}`;
    const signature = signPayload(accessToken, '{"a":1}', '1735689600');
    const wrong = `${signature.slice(0, 63)}${signature.endsWith('0') ? '1' : '0'}`;
    for (const [given, expected] of [
      [signature, true],
      [wrong, false],
    ] as const) {
      compare.mockClear();
      expect(verifySignature({ accessToken, body: '{"a":1}', timestamp: '1735689600', signature: given })).toBe(expected);
      expect(compare.mock.calls).toEqual([[given, signature]]);
    }
  });
});
