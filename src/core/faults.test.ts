import { describe, expect, it } from 'vitest';
import { callSandbox } from '../../test/helpers/sandbox-call.js';
import { createSandbox, type Sandbox } from '../index.js';
import { parseFaultRules } from './faults.js';

const call = callSandbox;

async function statuses(sandbox: Sandbox, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call(sandbox, 'GET', '/connection/connections')).status);
  return out;
}

describe('faults', () => {
  it('no rules ([] or {}) parse to none without zod, as the parse would; anything else is still parsed', () => {
    expect(parseFaultRules([])).toEqual([]);
    expect(parseFaultRules({})).toEqual([]);
    expect(parseFaultRules({ rules: [] })).toEqual([]);
    expect(parseFaultRules([{}])).toEqual([{}]);
    expect(() => parseFaultRules({ errorRate: 2 })).toThrow('errorRate too big: expected number to be <=1');
    expect(() => parseFaultRules(null)).toThrow();
  });

  it('an error rate is seeded: the same run fails the same requests, and the journal says which', async () => {
    const run = async () => {
      const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'], faults: { errorRate: 0.3 } });
      return { statuses: await statuses(sandbox, 40), faults: sandbox.requests({ apiKey: 'a', status: 503 }).map((r) => r.fault) };
    };
    const first = await run();
    expect(first.statuses.filter((s) => s === 503).length).toBeGreaterThan(3);
    expect(first.statuses.filter((s) => s === 200).length).toBeGreaterThan(20);
    expect(first.faults.every((fault) => fault === 'error-rate 503')).toBe(true);
    expect(await run()).toEqual(first);
  });

  it('a rate limit per API token answers 429 with Retry-After and the error body, until the window passes', async () => {
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a', 'b'] });
    sandbox.setFaults({ rateLimit: '3/min' });
    expect(await statuses(sandbox, 4)).toEqual([200, 200, 200, 429]);
    const limited = await call(sandbox, 'GET', '/connection/connections');
    expect(limited).toMatchObject({
      status: 429,
      headers: { 'retry-after': '60' },
      body: { errorCode: 'RATE_LIMITED', metadata: { limit: 3, retryAfter: 60 } },
    });
    expect((await call(sandbox, 'GET', '/connection/connections', { key: 'b' })).status).toBe(200);
    expect((await call(sandbox, 'GET', '/sandbox/requests')).status).toBe(200); // the control API is never limited
    await sandbox.advance('45s');
    expect((await call(sandbox, 'GET', '/connection/connections')).headers['retry-after']).toBe('15');
    await sandbox.advance('15s');
    expect(await statuses(sandbox, 1)).toEqual([200]);
  });

  it('scopes by route and connection', async () => {
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
    const one = sandbox.connect({ apiKey: 'a' });
    const two = sandbox.connect({ apiKey: 'a' });
    await sandbox.advance('3s');
    sandbox.setFaults([{ route: 'GET /engagement', connectionId: one.connectionId, errorRate: 1, errorStatus: 502 }]);
    expect((await call(sandbox, 'GET', `/engagement/users?accessToken=${one.accessToken}`)).status).toBe(502);
    expect((await call(sandbox, 'GET', `/engagement/users?accessToken=${two.accessToken}`)).status).toBe(200);
    expect((await call(sandbox, 'GET', '/connection/connections')).status).toBe(200);
    const passthrough = await call(sandbox, 'POST', '/crm/passthrough', {
      body: { accessToken: one.accessToken, method: 'GET', path: 'crm/v3/objects/contacts' },
    });
    expect(passthrough.status).toBe(200);
  });

  it('per-request headers force a status or add latency; bad values are 400s naming the header', async () => {
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
    const forced = await call(sandbox, 'GET', '/connection/connections', { headers: { 'x-sandbox-force-status': '503' } });
    expect(forced).toMatchObject({ status: 503, body: { errorCode: 'INJECTED_FAULT' } });
    const slow = await call(sandbox, 'GET', '/connection/connections', { headers: { 'x-sandbox-latency': '2s' } });
    expect(slow.status).toBe(200);
    expect(sandbox.requests({ apiKey: 'a' }).map((r) => [r.status, r.fault, r.durationMs])).toEqual([
      [503, 'forced 503', 0],
      [200, 'latency 2000ms', 2000],
    ]);
    expect((await call(sandbox, 'GET', '/connection/connections', { headers: { 'x-sandbox-force-status': '200' } })).body.metadata.field).toBe(
      'x-sandbox-force-status',
    );
    expect((await call(sandbox, 'GET', '/connection/connections', { headers: { 'x-sandbox-latency': 'slow' } })).body.metadata.field).toBe('x-sandbox-latency');
  });

  it('latency ranges are drawn from the seed; PUT /sandbox/faults checks every field', async () => {
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
    const put = await call(sandbox, 'PUT', '/sandbox/faults', { body: { rules: [{ latency: '50ms-400ms' }] } });
    expect(put).toEqual({ status: 200, headers: expect.anything(), body: { rules: [{ latency: '50ms-400ms' }], serverRules: [], standingRules: [] } });
    await statuses(sandbox, 20);
    const latencies = sandbox.requests({ apiKey: 'a', path: '/connection' }).map((r) => r.durationMs);
    expect(new Set(latencies).size).toBeGreaterThan(5);
    expect(latencies.every((ms) => ms >= 50 && ms <= 400)).toBe(true);
    for (const [rules, field] of [
      [{ rules: [{ errorRate: 2 }] }, 'rules[0].errorRate'],
      [{ rules: [{}, { latency: '400ms-50ms' }] }, 'rules[1].latency'],
      [{ rateLimit: 'lots' }, 'rateLimit'],
      [{ route: 'engagement' }, 'route'],
      [{ errorStatus: 200 }, 'errorStatus'],
      [{ retries: 1 }, 'retries'],
    ] as const) {
      const response = await call(sandbox, 'PUT', '/sandbox/faults', { body: rules });
      expect(response.status, field).toBe(400);
      expect(response.body.metadata.field).toBe(field);
    }
    expect((await call(sandbox, 'GET', '/sandbox/faults')).body).toEqual({ rules: [{ latency: '50ms-400ms' }], serverRules: [], standingRules: [] });
    expect((await call(sandbox, 'PUT', '/sandbox/faults', { body: {} })).body).toEqual({ rules: [], serverRules: [], standingRules: [] });
    expect(() => createSandbox({ faults: { errorRate: -1 } })).toThrow(/faults: errorRate/);
  });

  it('standing rules (the options, the serve flags) stay under the runtime ones PUT sets; both apply and GET shows both', async () => {
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'], faults: { rateLimit: '3/min' } });
    const put = await call(sandbox, 'PUT', '/sandbox/faults', { body: { rules: [{ latency: '200ms' }] } });
    expect(put.body).toEqual({ rules: [{ latency: '200ms' }], serverRules: [], standingRules: [{ rateLimit: '3/min' }] });
    expect(await statuses(sandbox, 4)).toEqual([200, 200, 200, 429]);
    expect(sandbox.requests({ apiKey: 'a', path: '/connection' }).map((r) => r.fault)).toEqual([
      'latency 200ms',
      'latency 200ms',
      'latency 200ms',
      'latency 200ms, rate-limit 429',
    ]);
    // Clearing the runtime rules leaves the standing ones, and their rate window goes on.
    expect((await call(sandbox, 'PUT', '/sandbox/faults', { body: {} })).body).toEqual({ rules: [], serverRules: [], standingRules: [{ rateLimit: '3/min' }] });
    expect(await statuses(sandbox, 1)).toEqual([429]);
    expect(sandbox.setFaults([])).toEqual([]);
    expect([sandbox.faultRules(), sandbox.standingFaultRules()]).toEqual([[], [{ rateLimit: '3/min' }]]);
    expect((await call(sandbox, 'GET', '/sandbox/faults')).body).toEqual({ rules: [], serverRules: [], standingRules: [{ rateLimit: '3/min' }] });
  });

  it('each layer draws from its own seeded stream: runtime rules do not move the standing faults; a full reset starts them over', async () => {
    const failing = async (sandbox: Sandbox) => (await statuses(sandbox, 30)).flatMap((status, i) => (status === 503 ? [i] : []));
    const standingOnly = createSandbox({ clock: 'virtual', apiKeys: ['a'], faults: { errorRate: 0.3 } });
    const expected = await failing(standingOnly);
    expect(expected.length).toBeGreaterThan(3);

    const both = createSandbox({ clock: 'virtual', apiKeys: ['a'], faults: { errorRate: 0.3 } });
    both.setFaults({ latency: '10ms-90ms' }); // draws from the runtime stream on every request
    expect(await failing(both)).toEqual(expected);
    both.reset();
    expect(await failing(both)).toEqual(expected);
    // A tenancy reset is not a fresh sandbox: the standing stream goes on.
    both.reset({ apiKey: 'a' });
    expect(await failing(both)).not.toEqual(expected);
  });

  it("a tenant's rules apply to its requests only, and draw from its own stream: another tenant's requests never move its faults", async () => {
    const failing = async (interleave: boolean) => {
      const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a', 'b'] });
      for (const key of ['a', 'b']) await call(sandbox, 'PUT', '/sandbox/faults', { key, body: { errorRate: 0.3, latency: '1ms-9ms' } });
      const out: number[] = [];
      for (let i = 0; i < 30; i++) {
        if (interleave) await call(sandbox, 'GET', '/connection/connections', { key: 'b', headers: { 'x-sandbox-latency': '1ms-5ms' } });
        if ((await call(sandbox, 'GET', '/connection/connections')).status === 503) out.push(i);
      }
      return { out, latencies: sandbox.requests({ apiKey: 'a' }).map((r) => r.durationMs) };
    };
    const alone = await failing(false);
    expect(alone.out.length).toBeGreaterThan(3);
    expect(await failing(true)).toEqual(alone);

    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a', 'b'] });
    sandbox.setFaults({ errorRate: 1, errorStatus: 502 }, { apiKey: 'b' });
    expect([
      (await call(sandbox, 'GET', '/connection/connections')).status,
      (await call(sandbox, 'GET', '/connection/connections', { key: 'b' })).status,
    ]).toEqual([200, 502]);
    expect([sandbox.faultRules(), sandbox.faultRules({ apiKey: 'b' })]).toEqual([[], [{ errorRate: 1, errorStatus: 502 }]]);
    expect((await call(sandbox, 'GET', '/sandbox/faults', { key: 'b' })).body).toEqual({
      rules: [{ errorRate: 1, errorStatus: 502 }],
      serverRules: [],
      standingRules: [],
    });
    expect(() => sandbox.setFaults([], { apiKey: 'nobody' })).toThrow('invalid service-api-token');
  });
});
