import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../index.js';

const options = { clock: 'virtual' as const, dataset: { engagement: { users: 3, mailboxes: 3 }, crm: { Contact: 5, Account: 3 } } };
const API_KEY = 'sandbox-api-key';

async function call(sandbox: Sandbox, method: string, path: string, body?: unknown, key = API_KEY) {
  const [pathname, query = ''] = path.split('?');
  const response = await sandbox.handle({
    method,
    path: pathname!,
    query,
    headers: { 'service-api-token': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: JSON.parse(response.body || 'null') };
}

/** The same run of calls, returning everything it saw. */
async function script(sandbox: Sandbox) {
  const seen: unknown[] = [];
  const { connectionId } = sandbox.connect({ integrationId: 'salesforce' });
  seen.push(sandbox.createRecord(connectionId, 'Contact', { firstName: 'Ada' }));
  seen.push(sandbox.connect({ integrationId: 'hubspot' }));
  await sandbox.advance('10s');
  seen.push(sandbox.listRecords(connectionId, 'Account').map((record) => record.id));
  seen.push(sandbox.emittedEvents());
  return seen;
}

describe('reset', () => {
  it('gives the same ids and events as a fresh sandbox', async () => {
    const fresh = await script(createSandbox(options));
    const sandbox = createSandbox(options);
    await script(sandbox);
    sandbox.reset();
    expect(sandbox.connections()).toEqual([]);
    expect(sandbox.now().toISOString()).toBe('2025-01-01T00:00:00.000Z');
    expect(await script(sandbox)).toEqual(fresh);
  });

  it('of one tenancy leaves the others alone', async () => {
    const sandbox = createSandbox({ ...options, apiKeys: ['a', 'b'] });
    sandbox.connect({ apiKey: 'a' });
    const kept = sandbox.connect({ apiKey: 'b' });
    sandbox.reset({ apiKey: 'a' });
    expect(sandbox.connections('a')).toEqual([]);
    expect(sandbox.connections('b').map((c) => c.connectionId)).toEqual([kept.connectionId]);
  });

  it('over HTTP: POST /sandbox/reset empties the tenancy; ?all=true everything, with the admin key only; a bad flag is a 400', async () => {
    const sandbox = createSandbox({ ...options, adminKey: 'admin-key' });
    sandbox.connect();
    expect(await call(sandbox, 'POST', '/sandbox/reset?all=maybe')).toMatchObject({ status: 400, body: { metadata: { field: 'all' } } });
    expect(await call(sandbox, 'POST', '/sandbox/reset')).toEqual({ status: 200, body: { reset: 'tenancy' } });
    expect(sandbox.connections()).toEqual([]);
    expect(await call(sandbox, 'POST', '/sandbox/reset?all=true')).toMatchObject({ status: 403, body: { errorCode: 'ADMIN_KEY_REQUIRED' } });
    expect(await call(sandbox, 'POST', '/sandbox/reset?all=true', undefined, 'admin-key')).toEqual({ status: 200, body: { reset: 'all' } });
  });
});

describe('snapshot and restore', () => {
  it('a restored sandbox goes on exactly as the original (ids, faker values, events, retries)', async () => {
    const original = createSandbox(options);
    const { connectionId } = original.connect({ integrationId: 'pipedrive' });
    original.createRecord(connectionId, 'Contact', { firstName: 'Grace' });
    await original.advance('3s');
    const saved = JSON.parse(JSON.stringify(original.snapshot()));

    const copy = createSandbox(options);
    copy.restore(saved);
    expect(copy.now()).toEqual(original.now());
    expect(copy.snapshot()).toEqual(original.snapshot());

    const next = async (sandbox: Sandbox) => {
      const record = sandbox.createRecord(connectionId, 'Deal', {});
      const other = sandbox.connect({ integrationId: 'zoho' });
      await sandbox.advance('1h');
      return { record, other, events: sandbox.emittedEvents(), status: sandbox.connections() };
    };
    expect(await next(copy)).toEqual(await next(original));
  });

  it('over HTTP: GET then PUT /sandbox/snapshot round-trips', async () => {
    const sandbox = createSandbox(options);
    sandbox.connect();
    const { body: saved } = await call(sandbox, 'GET', '/sandbox/snapshot');
    expect(saved).toMatchObject({ format: 'crm-sandbox-state', version: 2, seed: 1 });
    sandbox.reset();
    expect(await call(sandbox, 'PUT', '/sandbox/snapshot', saved)).toEqual({ status: 200, body: { restored: { connections: 1, deliveries: 1 } } });
    expect(sandbox.connections()).toHaveLength(1);
  });

  it('a bad snapshot is a 400 naming the field, and the state stays as it was', async () => {
    const sandbox = createSandbox(options);
    const { connectionId } = sandbox.connect();
    sandbox.createRecord(connectionId, 'Contact', { firstName: 'Ada' }); // in the snapshot's delta
    const good = JSON.parse(JSON.stringify(sandbox.snapshot()));
    const before = JSON.stringify(sandbox.snapshot());
    const cases: Array<[unknown, string]> = [
      [{ ...good, version: 3 }, 'version'],
      [{ ...good, format: 'something-else' }, 'format'],
      [{ ...good, seed: 9 }, 'seed'],
      [{ ...good, connections: [{ ...good.connections[0], status: 'DONE' }] }, 'connections[0].status'],
      [{ ...good, connections: [good.connections[0], good.connections[0]] }, 'connections[1].connectionId'],
      [{ ...good, deliveries: [{ ...good.deliveries[0], connectionId: 'nope' }] }, 'deliveries[0].connectionId'],
      [{ ...good, surprise: 1 }, 'surprise'],
    ];
    const contact = good.connections[0].data.crm.Contact.entries[0];
    const badContact = structuredClone(good);
    badContact.connections[0].data.crm.Contact.entries[0] = { ...contact, record: { ...contact.record, email: 7 } };
    cases.push([badContact, 'connections[0].data.crm.Contact.entries[0].record.email']);
    // Version 2: what the seeded base depends on, and a delta that does not fit the base this sandbox rebuilds.
    const edit = (change: (snapshot: typeof good) => void) => {
      const copy = structuredClone(good);
      change(copy);
      return copy;
    };
    cases.push(
      [edit((s) => (s.seeding.dataset.crm.Contact = 120)), 'seeding.dataset.crm.Contact'],
      [edit((s) => (s.seeding.fixtures.digest = '00000000')), 'seeding.fixtures.digest'],
      [edit((s) => (s.connections[0].data.crm.Contact.deleted = [s.connections[0].data.crm.Contact.base + 1])), 'connections[0].data.crm.Contact.deleted[0]'],
      [edit((s) => (s.connections[0].data.crm.Contact.base = 4)), 'connections[0].data.crm.Contact.base'],
      [edit((s) => (s.connections[0].data.crm.Account.digest = '00000000')), 'connections[0].data.crm.Account.digest'],
      [edit((s) => (s.connections[0].data.users.nextSeq = 2)), 'connections[0].data.users.nextSeq'],
    );
    for (const [snapshot, field] of cases) {
      const response = await call(sandbox, 'PUT', '/sandbox/snapshot', snapshot);
      expect(response.status, field).toBe(400);
      expect(response.body.metadata.field, field).toBe(field);
      expect(JSON.stringify(sandbox.snapshot())).toBe(before);
    }
  });
});

describe("what a snapshot's data sets were seeded with", () => {
  it('must be what the restoring sandbox seeds with: other fixtures are refused, saying what to start it with', () => {
    const none = createSandbox({ ...options, fixtures: false });
    none.listRecords(none.connect().connectionId, 'Contact');
    const saved = JSON.parse(JSON.stringify(none.snapshot()));
    const bundled = createSandbox(options);
    expect(() => bundled.restore(saved)).toThrow(
      /^seeding\.fixtures\.digest is [0-9a-f]{8} \(no fixtures\), but this sandbox's fixtures give [0-9a-f]{8} \(fixtures\/acme\.json\); start it with --no-fixtures$/,
    );
    expect(() => createSandbox({ ...options, fixtures: false }).restore(structuredClone(saved))).not.toThrow();
    const back = JSON.parse(JSON.stringify(bundled.snapshot()));
    expect(() => none.restore(back)).toThrow(/\(no fixtures\); start it without --fixtures \(the bundled ones\)$/);
  });
});

describe('snapshot and restore of deliveries', () => {
  it('a retrying delivery goes on with its schedule after a restore, sending what the original would', async () => {
    const { Receiver } = await import('../../test/helpers/receiver.js');
    const receiver = await new Receiver().start();
    receiver.behaviour = (_request, index) => (index < 2 ? 500 : 200);
    try {
      const original = createSandbox({ ...options, retrySchedule: '1m,1m,1m' });
      const { accessToken, connectionId } = original.connect();
      await call(original, 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: receiver.url } });
      original.createRecord(connectionId, 'Contact', { firstName: 'Ada' });
      await original.settle();
      expect(original.deliveries()[0]).toMatchObject({ state: 'retrying', nextAttemptTime: '2025-01-01T00:01:00.000Z' });
      const saved = JSON.parse(JSON.stringify(original.snapshot()));

      const run = async (sandbox: Sandbox) => {
        const from = receiver.received.length;
        receiver.behaviour = (_request, index) => (index - from < 1 ? 500 : 200);
        await sandbox.advance('5m');
        // durationMs measures the real network (decision 0003): everything else must repeat.
        const log = sandbox.deliveries().map((d) => ({ ...d, attempts: d.attempts.map(({ durationMs: _, ...attempt }) => attempt) }));
        return { sent: receiver.received.slice(from).map((r) => [r.body, r.headers['x-service-timestamp'], r.headers['x-service-signature']]), log };
      };
      const copy = createSandbox({ ...options, retrySchedule: '1m,1m,1m' });
      copy.restore(saved);
      const restored = await run(copy);
      original.close();
      const again = createSandbox({ ...options, retrySchedule: '1m,1m,1m' });
      again.restore(saved);
      expect(await run(again)).toEqual(restored);
      expect(restored.log.map((d) => d.state)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']); // NEW_CONNECTION, the CREATE, INITIAL_SYNCED, READY
      expect(restored.log[0]!.attempts.map((a) => [a.time, a.status])).toEqual([
        ['2025-01-01T00:00:00.000Z', 500],
        ['2025-01-01T00:01:00.000Z', 500],
        ['2025-01-01T00:02:00.000Z', 200],
      ]);
      copy.close();
      again.close();
    } finally {
      await receiver.stop();
    }
  });
});

describe("a tenant's snapshot", () => {
  it('restores into another server: ids stay unique there (a new connection skips the streams whose ids it brought), and its connections go on as they did', async () => {
    const keys = { ...options, apiKeys: ['a', 'b'] };
    const first = createSandbox(keys);
    const linked = first.connect({ apiKey: 'a' });
    first.createRecord(linked.connectionId, 'Contact', { firstName: 'Ada' });
    const saved = JSON.parse(JSON.stringify(first.snapshot({ apiKey: 'a' })));
    expect(saved).toMatchObject({ scope: 'tenant', connections: [{ connectionId: linked.connectionId }] });
    expect(saved).not.toHaveProperty('random');
    expect(JSON.stringify(saved)).not.toMatch(/"(apiKey|tenant)":/);

    // A fresh server (a restart without a state file): its next connection stream is the one that made linked.
    const second = createSandbox(keys);
    second.restore(saved, { apiKey: 'b' }); // everything in it becomes b's
    expect(second.connections('b').map((c) => c.connectionId)).toEqual([linked.connectionId]);
    const fresh = second.connect({ apiKey: 'a' });
    expect(fresh.connectionId).not.toBe(linked.connectionId);
    expect(fresh.accessToken).not.toBe(linked.accessToken);
    expect(second.createRecord(linked.connectionId, 'Deal', { name: 'x' }).id).toBe(first.createRecord(linked.connectionId, 'Deal', { name: 'x' }).id);
    // What another tenant holds is refused, naming the field; nothing changes.
    const before = JSON.stringify(second.snapshot());
    expect(() => second.restore(saved, { apiKey: 'a' })).toThrow(/^connections\[0\]\.connectionId is the id of a connection of another tenant/);
    expect(JSON.stringify(second.snapshot())).toBe(before);
    first.close();
    second.close();
  });

  it('a whole-server snapshot names tenants by digest, and restores only where those keys are accepted', () => {
    const sandbox = createSandbox({ ...options, apiKeys: ['a', 'b'] });
    sandbox.connect({ apiKey: 'b' });
    sandbox.parts.registry.linkTokens.create('a');
    const saved = JSON.parse(JSON.stringify(sandbox.snapshot()));
    expect(saved.scope).toBe('server');
    expect(saved.connections[0].tenant).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(saved.registry.linkTokens.map((token: { tenant: string }) => token.tenant)).size).toBe(2); // b's (its connection's) and a's
    expect(JSON.stringify(saved)).not.toMatch(/"apiKey"/);
    const elsewhere = createSandbox({ ...options, apiKeys: ['a', 'c'] });
    // The registry comes first in a snapshot: its first token of b's is named.
    expect(() => elsewhere.restore(saved)).toThrow(
      /^registry\.linkTokens\[0\]\.tenant is [0-9a-f]{16}, the digest of none of this sandbox's API keys; start it with the API keys the snapshot was taken with \(--api-key\)$/,
    );
    const same = createSandbox({ ...options, apiKeys: ['b', 'a'] });
    same.restore(saved);
    expect([same.connections('a').length, same.connections('b').length]).toEqual([0, 1]);
    for (const made of [sandbox, elsewhere, same]) made.close();
  });
});
