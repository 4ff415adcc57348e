import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/core/routes/index.js';
import { type Cli, killAll, serveCli } from '../helpers/cli.js';

/*
 * Two tenants (two API keys) on one dev server, as teams share one: tenant B tries every
 * `/sandbox/*` route on what tenant A has, and must reach nothing of it. The operations over
 * every tenant (`?all=true`) need the admin key, which is off unless `--admin-key` is given.
 * No answer ever holds an API key or the admin key.
 */

const A = 'team-a-key-5c1d0e';
const B = 'team-b-key-9e27f4';
const ADMIN = 'admin-key-31f8aa';
const spawned: Cli[] = [];
/** Every answer body of every test, searched for the keys at the end. */
const answers: string[] = [];
let url = '';

beforeAll(async () => {
  // Long status delays: a connection's automatic moves must not fall between a snapshot and its restore on a slow machine.
  const still = ['--initial-sync-delay', '1h', '--ready-delay', '2h'];
  // --client-check: its report is a tenant's too (its hard cases meet only engagement and passthrough reads, which no test here makes).
  url = (await serveCli(['--quiet', '--api-key', A, '--api-key', B, '--admin-key', ADMIN, '--retry-schedule', '', ...still, '--client-check'], spawned)).url;
});
afterAll(() => killAll(spawned));

type Answer = { status: number; body: any; text: string };

async function call(key: string | null, method: string, path: string, json?: unknown, base = url): Promise<Answer> {
  const response = await fetch(base + path, {
    method,
    headers: { ...(key === null ? {} : { 'service-api-token': key }), ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, body: text === '' ? null : JSON.parse(text), text };
}

/** A connection of `key`'s tenant, linked as the service's flow does. */
async function link(key: string, integrationId = 'hubspot') {
  const { body: token } = await call(key, 'POST', '/sandbox/public-token', { integrationId });
  const { body } = await call(key, 'POST', '/link/exchange', { publicToken: token.publicToken });
  return body as { connectionId: string; accessToken: string };
}

/** A's tenant with something of everything: a connection with a record, its events, chaos, downstream faults, a link token, fault rules, journal entries. */
async function tenantA() {
  const connection = await link(A);
  const record = (await call(A, 'POST', `/sandbox/connections/${connection.connectionId}/records/Contact`, { firstName: 'Ada' })).body.record;
  await call(A, 'PUT', `/sandbox/connections/${connection.connectionId}/chaos`, { duplicate: 0.5 });
  await call(A, 'PUT', `/sandbox/connections/${connection.connectionId}/downstream-faults`, { faults: [{ kind: 'rate-limit', count: 3 }] });
  const { linkToken } = (await call(A, 'POST', '/link/token')).body;
  // No webhook: its deliveries stay pending, so nothing of A moves while B tries.
  const eventId = (await call(A, 'GET', `/sandbox/connections/${connection.connectionId}/deliveries`)).body.deliveries[0].eventId as string;
  return { ...connection, recordId: record.id as string, eventId, linkToken: linkToken as string };
}

/** What A can see of its tenant, less what moves with time alone. */
async function stateOf(key: string) {
  const { body } = await call(key, 'GET', '/sandbox/snapshot');
  const { time: _, ...rest } = body;
  return rest;
}

const digest = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 16);
const definition = { description: 'one step', steps: [{ advance: '1s' }] };

describe('two tenants on one dev server', () => {
  it('B reaches nothing of A through any /sandbox route: each answers as for something that does not exist, and A is as it was', async () => {
    const a = await tenantA();
    await link(B);
    const before = await stateOf(A);
    const C = `/sandbox/connections/${a.connectionId}`;
    const missing = { status: 404, errorCode: 'OBJECT_NOT_FOUND' };
    const cases: Array<[route: string, method: string, path: string, json: unknown, expected: { status: number; errorCode?: string }]> = [
      ['POST /sandbox/public-token', 'POST', '/sandbox/public-token', { linkToken: a.linkToken }, { status: 401, errorCode: 'INVALID_LINK_TOKEN' }],
      ['GET /sandbox/connections/:connectionId/chaos', 'GET', `${C}/chaos`, undefined, missing],
      ['PUT /sandbox/connections/:connectionId/chaos', 'PUT', `${C}/chaos`, {}, missing],
      ['POST /sandbox/scenarios/run', 'POST', '/sandbox/scenarios/run', { connectionId: a.connectionId, definition }, missing],
      ['POST /sandbox/scenarios/:name/run', 'POST', '/sandbox/scenarios/deal-won/run', { connectionId: a.connectionId }, missing],
      ['GET /sandbox/connections/:connectionId/records/:objectType', 'GET', `${C}/records/Contact`, undefined, missing],
      ['POST /sandbox/connections/:connectionId/records/:objectType', 'POST', `${C}/records/Contact`, {}, missing],
      ['GET /sandbox/connections/:connectionId/records/:objectType/:id', 'GET', `${C}/records/Contact/${a.recordId}`, undefined, missing],
      ['PATCH /sandbox/connections/:connectionId/records/:objectType/:id', 'PATCH', `${C}/records/Contact/${a.recordId}`, { firstName: 'Eve' }, missing],
      ['DELETE /sandbox/connections/:connectionId/records/:objectType/:id', 'DELETE', `${C}/records/Contact/${a.recordId}`, undefined, missing],
      ['POST /sandbox/connections/:connectionId/status', 'POST', `${C}/status`, { status: 'READY' }, missing],
      ['GET /sandbox/connections/:connectionId/deliveries', 'GET', `${C}/deliveries`, undefined, missing],
      ['POST /sandbox/deliveries/:eventId/redeliver', 'POST', `/sandbox/deliveries/${a.eventId}/redeliver`, undefined, missing],
      ['POST /sandbox/connections/:connectionId/deliveries/retry', 'POST', `${C}/deliveries/retry`, undefined, missing],
      ['GET /sandbox/attempts', 'GET', `/sandbox/attempts?connectionId=${a.connectionId}`, undefined, missing],
      ['GET /sandbox/connections/:connectionId', 'GET', C, undefined, missing],
      ['GET /sandbox/connections/:connectionId/webhook', 'GET', `${C}/webhook`, undefined, missing],
      ['GET /sandbox/connections/:connectionId/unified', 'GET', `${C}/unified`, undefined, missing],
      ['GET /sandbox/connections/:connectionId/unified/:objectType', 'GET', `${C}/unified/Contact`, undefined, missing],
      ['GET /sandbox/deliveries/:eventId', 'GET', `/sandbox/deliveries/${a.eventId}`, undefined, missing],
      ['GET /sandbox/connections/:connectionId/downstream-faults', 'GET', `${C}/downstream-faults`, undefined, missing],
      ['PUT /sandbox/connections/:connectionId/downstream-faults', 'PUT', `${C}/downstream-faults`, { faults: [] }, missing],
      ['DELETE /sandbox/connections/:connectionId/downstream-faults', 'DELETE', `${C}/downstream-faults`, undefined, missing],
      ['POST /sandbox/reset', 'POST', '/sandbox/reset?all=true', undefined, { status: 403, errorCode: 'ADMIN_KEY_REQUIRED' }],
      ['GET /sandbox/snapshot', 'GET', '/sandbox/snapshot?all=true', undefined, { status: 403, errorCode: 'ADMIN_KEY_REQUIRED' }],
      ['PUT /sandbox/snapshot', 'PUT', '/sandbox/snapshot?all=true', {}, { status: 403, errorCode: 'ADMIN_KEY_REQUIRED' }],
      ['GET /sandbox/faults', 'GET', '/sandbox/faults?all=true', undefined, { status: 403, errorCode: 'ADMIN_KEY_REQUIRED' }],
      ['PUT /sandbox/faults', 'PUT', '/sandbox/faults?all=true', { errorRate: 1 }, { status: 403, errorCode: 'ADMIN_KEY_REQUIRED' }],
    ];
    for (const [route, method, path, json, expected] of cases) {
      const answer = await call(B, method, path, json);
      expect({ route, status: answer.status, errorCode: answer.body.errorCode }).toEqual({ route, ...expected });
      // Nothing of A in the answer: not its ids, its token, its record.
      for (const secret of [a.accessToken, a.recordId, 'Ada']) expect(answer.text, route).not.toContain(secret);
    }
    // Another tenant's delivery is as unknown as one that never was: the same answer but for the id.
    const unknown = await call(B, 'GET', `/sandbox/deliveries/${'0'.repeat(32)}`);
    expect((await call(B, 'GET', `/sandbox/deliveries/${a.eventId}`)).text.replaceAll(a.eventId, '0'.repeat(32))).toBe(unknown.text);

    // The routes a tenant acts on its own tenant with: B's own, none of A's (B's journal emptied first: it holds the paths B sent above).
    const mine: Array<[route: string, method: string, path: string, json?: unknown]> = [
      ['DELETE /sandbox/requests', 'DELETE', '/sandbox/requests'],
      ['GET /sandbox/connections', 'GET', '/sandbox/connections'],
      ['GET /sandbox/requests', 'GET', '/sandbox/requests'],
      ['GET /sandbox/faults', 'GET', '/sandbox/faults'],
      ['PUT /sandbox/faults', 'PUT', '/sandbox/faults', {}],
      ['GET /sandbox/snapshot', 'GET', '/sandbox/snapshot'],
      ['POST /sandbox/reset', 'POST', '/sandbox/reset'],
      ['GET /sandbox/scenarios', 'GET', '/sandbox/scenarios'],
      ['GET /sandbox/health', 'GET', '/sandbox/health'],
      ['GET /sandbox/client-check', 'GET', '/sandbox/client-check?final=true'],
      ['DELETE /sandbox/client-check', 'DELETE', '/sandbox/client-check'],
    ];
    for (const [route, method, path, json] of mine) {
      const answer = await call(B, method, path, json);
      expect(answer.status, route).toBe(200);
      for (const secret of [a.connectionId, a.accessToken, a.eventId, a.linkToken, a.recordId]) expect(answer.text, route).not.toContain(secret);
    }
    // Every /sandbox route is tried above, or PUT /sandbox/snapshot below.
    const tried = new Set([...cases.map(([route]) => route), ...mine.map(([route]) => route), 'PUT /sandbox/snapshot']);
    const sandboxRoutes = ROUTES.filter((route) => route.pattern.startsWith('/sandbox/')).map((route) => `${route.method} ${route.pattern}`);
    expect(sandboxRoutes.filter((route) => !tried.has(route))).toEqual([]);

    expect(await stateOf(A)).toEqual(before);
    expect((await call(A, 'GET', `${C}/records/Contact/${a.recordId}`)).body.record.firstName).toBe('Ada');
  });

  it("B's snapshot holds only B's tenant, and no PUT of B's takes or changes A's connections", async () => {
    const a = await tenantA();
    const b = await link(B);
    const before = await stateOf(A);
    const ofA = (await call(A, 'GET', '/sandbox/snapshot')).body;
    const ofB = (await call(B, 'GET', '/sandbox/snapshot')).body;
    expect(ofB).toMatchObject({ format: 'crm-sandbox-state', version: 2, scope: 'tenant' });
    expect(ofB.connections.map((c: { connectionId: string }) => c.connectionId)).toContain(b.connectionId);
    expect(ofB.connections.map((c: { connectionId: string }) => c.connectionId)).not.toContain(a.connectionId);
    expect(JSON.stringify(ofB)).not.toContain(a.accessToken);
    expect(ofB).not.toHaveProperty('random'); // the server's streams are not a tenant's

    // A's snapshot, leaked to B, restores nothing into B: A holds those ids. B is unchanged too.
    const bBefore = await stateOf(B);
    const stolen = await call(B, 'PUT', '/sandbox/snapshot', ofA);
    expect(stolen).toMatchObject({ status: 400, body: { errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'connections[0].connectionId' } } });
    const tokenOnly = structuredClone(ofA);
    tokenOnly.connections[0].connectionId = 'f'.repeat(32);
    tokenOnly.deliveries = [];
    tokenOnly.chaos = [];
    expect((await call(B, 'PUT', '/sandbox/snapshot', tokenOnly)).body.metadata.field).toBe('connections[0].accessToken');
    expect(await stateOf(B)).toEqual(bBefore);
    // B's own snapshot with chaos, or a delivery, for A's connection: the chaos is not B's to set, the delivery names no connection of it.
    const withChaos = {
      ...ofB,
      chaos: [...ofB.chaos, { connectionId: a.connectionId, settings: { duplicate: 1, outage: '1h' }, outageUntil: null, stream: null }],
    };
    expect((await call(B, 'PUT', '/sandbox/snapshot', withChaos)).status).toBe(200);
    const withDelivery = { ...ofB, deliveries: [...ofB.deliveries, { ...ofA.deliveries[0], connectionId: a.connectionId }] };
    expect((await call(B, 'PUT', '/sandbox/snapshot', withDelivery)).body.metadata.field).toBe(`deliveries[${ofB.deliveries.length}].connectionId`);

    // A whole-server snapshot with A's connections re-tagged as B's (the old attack): refused the same way.
    const retagged = { ...structuredClone(ofA), scope: 'server', random: { events: { seed: 1, position: [0, 0, 0, 0] } } };
    retagged.registry = { tokens: { seed: 1, position: [0, 0, 0, 0] }, created: 0, linkTokens: [], publicTokens: [] };
    retagged.connections = retagged.connections.map((connection: object) => ({ ...connection, tenant: digest(B) }));
    retagged.deliveries = [];
    retagged.chaos = [];
    expect((await call(B, 'PUT', '/sandbox/snapshot', retagged)).body.metadata.field).toBe('connections[0].connectionId');
    // A version-1 file naming A by its key: A's part is not B's to restore, so B restores nothing of it.
    const v1 = {
      ...retagged,
      version: 1,
      scope: undefined,
      seeding: undefined,
      connections: retagged.connections.map(({ tenant: _, ...connection }: { tenant: string }) => ({ ...connection, apiKey: A, data: null })),
    };
    expect(await call(B, 'PUT', '/sandbox/snapshot', JSON.parse(JSON.stringify(v1)))).toMatchObject({
      status: 200,
      body: { restored: { connections: 0, deliveries: 0 } },
    });

    expect(await stateOf(A)).toEqual(before);
  });

  it("a tenant's snapshot round-trips: PUT gives back its state, ids go on as they did, and the other tenant is untouched", async () => {
    const { connectionId } = await link(A, 'salesforce');
    await call(A, 'POST', `/sandbox/connections/${connectionId}/records/Contact`, { firstName: 'Grace' });
    const saved = (await call(A, 'GET', '/sandbox/snapshot')).body;
    const b = await stateOf(B);

    const next = async () => (await call(A, 'POST', `/sandbox/connections/${connectionId}/records/Deal`, { name: 'Next' })).body.record;
    const first = await next();
    const extra = await link(A);
    expect((await call(A, 'DELETE', '/connection/connection', { connectionId })).status).toBe(200);

    const restored = await call(A, 'PUT', '/sandbox/snapshot', saved);
    expect(restored.status).toBe(200);
    expect(restored.body.restored.connections).toBe(saved.connections.length);
    const { time: _, ...back } = (await call(A, 'GET', '/sandbox/snapshot')).body;
    const { time: __, ...expected } = saved;
    expect(back).toEqual(expected);
    expect((await call(A, 'GET', `/sandbox/connections/${extra.connectionId}`)).status).toBe(404);
    // The same call after the restore makes the same record: the connection's own streams were restored.
    const again = await next();
    expect([again.id, again.name, again.amount]).toEqual([first.id, first.name, first.amount]);
    // A new connection draws on from the server's stream: a new id, not one a restore brought back.
    const later = await link(A);
    expect([connectionId, extra.connectionId]).not.toContain(later.connectionId);
    expect(await stateOf(B)).toEqual(b);
  });

  it("A's journal survives 1,050 requests from B, and each tenant's fault rules act on its own requests only", async () => {
    await call(A, 'DELETE', '/sandbox/requests');
    for (let i = 0; i < 5; i++) await call(A, 'GET', '/connection/connections');
    for (let batch = 0; batch < 21; batch++) await Promise.all(Array.from({ length: 50 }, () => call(B, 'GET', '/connection/connections')));
    const journalOfA = (await call(A, 'GET', '/sandbox/requests')).body.requests;
    expect(journalOfA.map((r: { path: string }) => r.path)).toEqual(Array(5).fill('/connection/connections'));
    expect((await call(B, 'GET', '/sandbox/requests')).body.requests).toHaveLength(1000); // B's own latest 1,000

    const put = await call(B, 'PUT', '/sandbox/faults', { route: '/connection', errorRate: 1 });
    expect(put.body).toEqual({ rules: [{ route: '/connection', errorRate: 1 }], serverRules: [], standingRules: [] });
    expect((await call(B, 'GET', '/connection/connections')).status).toBe(503);
    expect((await call(A, 'GET', '/connection/connections')).status).toBe(200);
    expect((await call(A, 'GET', '/sandbox/faults')).body).toEqual({ rules: [], serverRules: [], standingRules: [] });
    // B's reset empties B's tenancy, not A's journal.
    await call(B, 'POST', '/sandbox/reset');
    expect((await call(A, 'GET', '/sandbox/requests?path=/connection')).body.requests).toHaveLength(6);
    await call(B, 'PUT', '/sandbox/faults', {});
  });

  it('the admin key acts on every tenant with ?all=true, is no tenant itself, and its snapshot names tenants by digest', async () => {
    await link(A);
    await link(B);
    // Not a tenant: the service's endpoints and a tenant's view refuse it as an unknown key.
    for (const [method, path] of [
      ['GET', '/connection/connections'],
      ['GET', '/sandbox/snapshot'],
      ['GET', '/sandbox/requests'],
      ['GET', '/sandbox/connections'],
    ] as const) {
      expect((await call(ADMIN, method, path)).body.errorCode, path).toBe('INVALID_API_TOKEN');
    }
    const whole = (await call(ADMIN, 'GET', '/sandbox/snapshot?all=true')).body;
    expect(whole.scope).toBe('server');
    const tenants = new Set(whole.connections.map((c: { tenant: string }) => c.tenant));
    expect(tenants).toEqual(new Set([digest(A), digest(B)]));
    const counts = async () => [
      (await call(A, 'GET', '/connection/connections')).body.connections.length,
      (await call(B, 'GET', '/connection/connections')).body.connections.length,
    ];
    const live = await counts();

    // Server faults apply to every tenant, and a tenant sees them.
    await call(ADMIN, 'PUT', '/sandbox/faults?all=true', { route: '/connection', errorStatus: 502, errorRate: 1 });
    expect([(await call(A, 'GET', '/connection/connections')).status, (await call(B, 'GET', '/connection/connections')).status]).toEqual([502, 502]);
    expect((await call(A, 'GET', '/sandbox/faults')).body.serverRules).toEqual([{ route: '/connection', errorStatus: 502, errorRate: 1 }]);
    expect((await call(ADMIN, 'PUT', '/sandbox/faults?all=true', {})).body).toEqual({ rules: [], standingRules: [] });

    expect((await call(ADMIN, 'POST', '/sandbox/reset?all=true')).body).toEqual({ reset: 'all' });
    expect(await counts()).toEqual([0, 0]);
    const put = await call(ADMIN, 'PUT', '/sandbox/snapshot?all=true', whole);
    expect(put.body.restored.connections).toBe(whole.connections.length);
    expect(await counts()).toEqual(live);

    // A digest that names no key of this server: a 400 naming the field, nothing changed.
    const foreign = structuredClone(whole);
    foreign.connections[0].tenant = digest('someone-else');
    expect((await call(ADMIN, 'PUT', '/sandbox/snapshot?all=true', foreign)).body).toMatchObject({
      errorCode: 'INVALID_FIELD_VALUE',
      metadata: { field: 'connections[0].tenant' },
    });
    expect(await counts()).toEqual(live);
    // A tenant's snapshot does not restore over the whole server.
    const ofA = (await call(A, 'GET', '/sandbox/snapshot')).body;
    expect((await call(ADMIN, 'PUT', '/sandbox/snapshot?all=true', ofA)).body.metadata.field).toBe('scope');
  });

  it('without --admin-key, every operation over all tenants is a 403 that names --admin-key, even with a key that would be one', async () => {
    const plain = await serveCli(['--quiet', '--api-key', A, '--api-key', B], spawned);
    for (const [method, path, json] of [
      ['POST', '/sandbox/reset?all=true'],
      ['GET', '/sandbox/snapshot?all=true'],
      ['PUT', '/sandbox/snapshot?all=true', {}],
      ['GET', '/sandbox/faults?all=true'],
      ['PUT', '/sandbox/faults?all=true', {}],
    ] as const) {
      const answer = await call(A, method, path, json, plain.url);
      expect(answer.status, path).toBe(403);
      expect(answer.body.errorCode).toBe('ADMIN_KEY_REQUIRED');
      expect(answer.body.message).toContain('--admin-key');
      expect((await call(ADMIN, method, path, json, plain.url)).status, path).toBe(401);
    }
    expect(plain.output()).toContain('admin operations (?all=true): off');
  });

  it('no answer of any test above holds an API key or the admin key', () => {
    expect(answers.length).toBeGreaterThan(1000);
    for (const key of [A, B, ADMIN]) expect(answers.filter((text) => text.includes(key))).toEqual([]);
  });
});
