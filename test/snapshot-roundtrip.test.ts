import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SNAPSHOT_BODY_BYTES } from '../src/core/http.js';
import type { SandboxOptions } from '../src/core/options.js';
import { createSandbox, type Sandbox } from '../src/index.js';
import { OWNED_TYPES } from '../src/model/crm.js';
import type { ServiceEvent } from '../src/model/events.js';
import { INTEGRATION_IDS } from '../src/model/integrations.js';
import { startDevServer } from '../src/node/dev-server.js';
import { LATER_ENGAGEMENT_COLLECTIONS } from '../src/store/collection-names.js';
import { fakerState } from '../src/store/seed/seeded-faker.js';
import { type Cli, callApi, killAll, serveCli } from './helpers/cli.js';
import { callSandbox } from './helpers/sandbox-call.js';
import { devServerTransport, mswTransport } from './helpers/transports.js';

const KEY = 'sandbox-api-key';
const stoppers: Array<() => unknown> = [];
const spawned: Cli[] = [];
const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-roundtrip-'));
afterEach(async () => {
  killAll(spawned);
  for (const stop of stoppers.splice(0)) await stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sandboxWith(options: SandboxOptions): Sandbox {
  const sandbox = createSandbox(options);
  stoppers.push(() => sandbox.close());
  return sandbox;
}

type Call = (method: string, path: string, json?: unknown) => Promise<{ status: number; body: any }>;

/** Every page of a list, following nextPageCursor: the records and the cursors, as a client walks them. */
async function walk(call: Call, path: string, key: 'records' | 'users' | 'mailboxes', limit: number) {
  const pages: unknown[] = [];
  let cursor = '';
  do {
    const { status, body } = await call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(status).toBe(200);
    pages.push(body);
    cursor = body.nextPageCursor ?? '';
    expect(body[key].length).toBeGreaterThan(0);
  } while (cursor);
  return pages;
}

/**
 * What a client can see of every connection: the list, contact and user pages with their
 * cursors, the delivery log. Not `lastActivityDate`: reading the users pages moves it to now.
 */
async function observe(call: Call, connections: ReadonlyArray<{ connectionId: string; accessToken: string }>) {
  const { body: list } = await call('GET', '/sandbox/connections');
  const seen: unknown[] = [list.connections.map(({ lastActivityDate: _, ...connection }: Record<string, unknown>) => connection)];
  for (const { connectionId, accessToken } of connections) {
    seen.push(
      await walk(call, `/sandbox/connections/${connectionId}/records/Contact`, 'records', 50),
      await walk(call, `/engagement/users?accessToken=${accessToken}`, 'users', 10),
      (await call('GET', `/sandbox/connections/${connectionId}/deliveries`)).body,
    );
  }
  return seen;
}

describe('GET then PUT /sandbox/snapshot?all=true of 100 used connections, through a dev server', () => {
  it('costs what was done, and the restored state pages, answers and goes on exactly as the original', async () => {
    // The whole server's state, so that what comes next (a new connection's ids too) is the same: the admin's operation.
    const ADMIN = 'admin-key';
    const sandbox = sandboxWith({ clock: 'virtual', adminKey: ADMIN });
    const server = await startDevServer(sandbox, { port: 0 });
    stoppers.push(() => server.close());
    const call: Call = (method, path, json) => callApi(server.url, KEY, method, path, json);

    const connections: Array<{ connectionId: string; accessToken: string }> = [];
    for (let i = 0; i < 100; i++) {
      const { body: token } = await call('POST', '/sandbox/public-token', { integrationId: INTEGRATION_IDS[i % INTEGRATION_IDS.length] });
      connections.push((await call('POST', '/link/exchange', { publicToken: token.publicToken })).body);
    }
    await sandbox.advance('10s');
    for (const [i, { connectionId, accessToken }] of connections.entries()) {
      expect((await call('GET', `/engagement/users?accessToken=${accessToken}&limit=5`)).status).toBe(200);
      expect((await call('POST', `/sandbox/connections/${connectionId}/records/Contact`, { firstName: 'Ada' })).status).toBe(201);
      if (i % 10 === 0) {
        // A few also change and delete seeded records (the delete unlinks them from their account, deals, events).
        const { body } = await call('GET', `/sandbox/connections/${connectionId}/records/Contact?limit=5`);
        expect((await call('PATCH', `/sandbox/connections/${connectionId}/records/Contact/${body.records[3].id}`, { jobTitle: 'CTO' })).status).toBe(200);
        expect((await call('DELETE', `/sandbox/connections/${connectionId}/records/Contact/${body.records[4].id}`)).status).toBe(200);
      }
    }
    const before = await observe(call, connections);
    const response = await fetch(`${server.url}/sandbox/snapshot?all=true`, { headers: { 'service-api-token': ADMIN } });
    const saved = await response.text();
    // Each connection: its own fields, four events in the delivery log, one new contact; not its 600-odd seeded records.
    expect(saved.length / connections.length).toBeLessThan(20_000);

    // What the original does next: the ids and values it makes from its streams.
    const next = async () => [
      (await call('POST', `/sandbox/connections/${connections[7]!.connectionId}/records/Contact`, {})).body,
      (await call('POST', `/sandbox/connections/${connections[42]!.connectionId}/records/Deal`, { name: 'Next' })).body,
      (await call('POST', '/link/exchange', { publicToken: (await call('POST', '/sandbox/public-token', {})).body.publicToken })).body,
    ];
    const afterwards = await next();

    expect((await callApi(server.url, ADMIN, 'POST', '/sandbox/reset?all=true')).status).toBe(200);
    expect((await call('GET', '/sandbox/connections')).body.connections).toEqual([]);
    const restored = await fetch(`${server.url}/sandbox/snapshot?all=true`, {
      method: 'PUT',
      headers: { 'service-api-token': ADMIN, 'content-type': 'application/json' },
      body: saved,
    });
    expect(restored.status).toBe(200);
    expect((await restored.json()).restored.connections).toBe(100);

    expect(await (await fetch(`${server.url}/sandbox/snapshot?all=true`, { headers: { 'service-api-token': ADMIN } })).text()).toBe(saved);
    expect(await observe(call, connections)).toEqual(before);
    expect(await next()).toEqual(afterwards);
  });
});

describe('a --state-file file', () => {
  it('PUT into a fresh server restores the connections, their pages and deliveries, and goes on as a restart from the file', async () => {
    const file = join(dir, 'state.json');
    const flags = ['--quiet', '--initial-sync-delay', '1ms', '--ready-delay', '2ms'];
    const first = await serveCli([...flags, '--state-file', file], spawned);
    const call =
      (url: string): Call =>
      (method, path, json) =>
        callApi(url, KEY, method, path, json);
    const connections: Array<{ connectionId: string; accessToken: string }> = [];
    for (const integrationId of ['hubspot', 'outreach', 'salesforce']) {
      const { body: token } = await call(first.url)('POST', '/sandbox/public-token', { integrationId });
      connections.push((await call(first.url)('POST', '/link/exchange', { publicToken: token.publicToken })).body);
    }
    await new Promise((resolve) => setTimeout(resolve, 50)); // READY
    for (const { connectionId, accessToken } of connections) {
      expect((await call(first.url)('GET', `/engagement/users?accessToken=${accessToken}&limit=5`)).status).toBe(200);
      expect((await call(first.url)('POST', `/sandbox/connections/${connectionId}/records/Contact`, { firstName: 'Grace' })).status).toBe(201);
    }
    const before = await observe(call(first.url), connections);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const fresh = await serveCli(flags, spawned);
    const put = await fetch(`${fresh.url}/sandbox/snapshot`, {
      method: 'PUT',
      headers: { 'service-api-token': KEY, 'content-type': 'application/json' },
      body: readFileSync(file, 'utf8'),
    });
    expect(put.status).toBe(200);
    expect(await observe(call(fresh.url), connections)).toEqual(before);

    const restarted = await serveCli([...flags, '--state-file', file], spawned);
    const nextContact = async (url: string) =>
      (await call(url)('POST', `/sandbox/connections/${connections[0]!.connectionId}/records/Contact`, {})).body.record;
    const [a, b] = [await nextContact(fresh.url), await nextContact(restarted.url)];
    expect({ ...a, createdTime: 0, modifiedTime: 0 }).toEqual({ ...b, createdTime: 0, modifiedTime: 0 }); // times are each server's clock
  });
});

describe('version-1 snapshots (state files of the releases before version 2)', () => {
  // Written by commit 5c6df77 (snapshot version 1) after `work()` below, with these options.
  const SMALL = {
    engagement: { users: 3, mailboxes: 4 },
    crm: { User: 2, Account: 3, Contact: 5, Lead: 2, Deal: 2, Note: 2, Task: 2, Event: 2, EventAttendee: 3 },
  };
  const OPTIONS: SandboxOptions = { clock: 'virtual', seed: 3, apiKeys: ['a'], dataset: SMALL };
  const v1 = JSON.parse(readFileSync(new URL('./fixtures/state-v1.json', import.meta.url), 'utf8'));

  /** Two used connections (CRM writes, a deletion, native custom fields, engagement tasks) and one never read. */
  async function work(sandbox: Sandbox) {
    const hubspot = sandbox.connect({ integrationId: 'hubspot' });
    const outreach = sandbox.connect({ integrationId: 'outreach' });
    sandbox.connect({ integrationId: 'salesforce' });
    await sandbox.advance('10s');
    const passthrough = (accessToken: string, method: string, path: string, body?: unknown) =>
      callSandbox(sandbox, 'POST', '/crm/passthrough', { body: { accessToken, method, path, ...(body === undefined ? {} : { body }) } });
    const contacts = sandbox.listRecords(hubspot.connectionId, 'Contact');
    const accounts = sandbox.listRecords(hubspot.connectionId, 'Account');
    sandbox.createRecord(hubspot.connectionId, 'Contact', { firstName: 'Ada', associations: { accountIds: [accounts[1]!.id] } });
    sandbox.updateRecord(hubspot.connectionId, 'Contact', contacts[3]!.id, { jobTitle: 'CTO' });
    sandbox.deleteRecord(hubspot.connectionId, 'Contact', contacts[0]!.id);
    await passthrough(hubspot.accessToken, 'PATCH', `crm/v3/objects/contacts/${contacts[4]!.nativeId}`, { properties: { region: 'EMEA' } });
    await passthrough(outreach.accessToken, 'POST', 'tasks', {
      data: { type: 'task', attributes: { action: 'call', subject: 'Call Ada' }, relationships: { owner: { data: { type: 'user', id: 2 } } } },
    });
    await passthrough(outreach.accessToken, 'POST', 'tasks/1/actions/markComplete');
    sandbox.createRecord(outreach.connectionId, 'Note', { content: 'hello' });
    await sandbox.advance('1m');
    return { hubspot, outreach };
  }

  /**
   * Every entry of every collection (with its seq), each collection's next seq, the archive: the
   * whole of each data set. `emails: false` leaves emails out, and the engagement collections that
   * came after them (sequences, calls, engagement emails, dispositions): a version-1 file has none,
   * and a sandbox that seeds other sizes seeds other ones.
   */
  function contents(sandbox: Sandbox, { emails = true } = {}) {
    return sandbox.parts.registry.all().map((connection) => {
      const data = connection.data;
      if (!data) return null;
      const collections = data
        .collections()
        .filter(([name]) => emails || (name !== 'crm.Email' && !(LATER_ENGAGEMENT_COLLECTIONS as readonly string[]).includes(name)))
        .map(([name, collection]) => [name, collection.delta().nextSeq, collection.entries().map(({ seq, record, extra }) => ({ seq, record, extra }))]);
      return { collections, archived: data.archived, streams: [data.streams.random.state(), fakerState(data.streams.faker)] };
    });
  }
  /**
   * An event as this release makes it: the version-1 file holds the bytes an earlier release sent,
   * whose records carried empty fields as null; records now answer without them (and with an owner
   * where the document requires one). Everything else must be the same.
   */
  const FIRST_USER = 'v.user.5a1e5000000000000000000000000001'; // the fixture's Sam Rivera: every connection's first user
  const asToday = (event: ServiceEvent): ServiceEvent => {
    if (event.type !== 'OBJECT_CHANGE' || event.data.eventType === 'DELETE') return event;
    const record = event.data.record as Record<string, unknown>;
    const kept = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null));
    const associations = kept(record.associations as Record<string, unknown>);
    if (OWNED_TYPES.includes(event.data.objectType) && associations.ownerUserId === undefined) associations.ownerUserId = FIRST_USER;
    return { ...event, data: { ...event.data, record: { ...kept(record), associations } as never } };
  };
  const withoutData = (sandbox: Sandbox) => {
    const snapshot = sandbox.snapshot();
    return {
      ...snapshot,
      seeding: null,
      connections: snapshot.connections.map(({ data: _, ...rest }) => rest),
      deliveries: snapshot.deliveries.map(({ body, ...rest }) => ({ ...rest, body: JSON.stringify(asToday(JSON.parse(body))) })),
    };
  };
  const next = async (sandbox: Sandbox, { hubspot, outreach }: { hubspot: { connectionId: string }; outreach: { accessToken: string } }) => [
    sandbox.createRecord(hubspot.connectionId, 'Deal', {}),
    (await callSandbox(sandbox, 'POST', '/crm/passthrough', { body: { accessToken: outreach.accessToken, method: 'GET', path: 'tasks' } })).body,
    sandbox.emittedEvents().map(asToday),
  ];

  it('loads into a sandbox of the same options as the one that ran the same calls, and its next snapshot is a small version 2', async () => {
    const live = sandboxWith(OPTIONS);
    const used = await work(live);
    const restored = sandboxWith(OPTIONS);
    restored.restore(structuredClone(v1));
    expect(contents(restored)).toEqual(contents(live));
    expect(withoutData(restored)).toEqual(withoutData(live));

    const rewritten = JSON.stringify(restored.snapshot());
    expect(JSON.parse(rewritten).version).toBe(2);
    expect(rewritten.length).toBeLessThan(JSON.stringify(v1).length / 2);
    const again = sandboxWith(OPTIONS);
    again.restore(JSON.parse(rewritten));
    expect(contents(again)).toEqual(contents(live));
    expect(await next(again, used)).toEqual(await next(live, used));
  });

  it('loads into a sandbox that seeds other sizes (as version 1 always did), and round-trips from there', async () => {
    const live = sandboxWith(OPTIONS);
    const used = await work(live);
    const other = { ...OPTIONS, dataset: undefined };
    const restored = sandboxWith(other);
    restored.restore(structuredClone(v1));
    expect(contents(restored, { emails: false })).toEqual(contents(live, { emails: false }));
    const again = sandboxWith(other);
    again.restore(JSON.parse(JSON.stringify(restored.snapshot())));
    expect(contents(again)).toEqual(contents(restored));
    expect(await next(again, used)).toEqual(await next(live, used));
    // Its seeding record is this sandbox's: a sandbox of the version-1 file's sizes refuses it, naming the size.
    const mismatch = await callSandbox(sandboxWith(OPTIONS), 'PUT', '/sandbox/snapshot', { key: 'a', body: restored.snapshot() });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.metadata.field).toBe('seeding.dataset.engagement.users');
    expect(mismatch.body.message).toBe(
      'seeding.dataset.engagement.users is 36, but this sandbox seeds 3; create it with { dataset: { engagement: { users: 36 } } }',
    );
  });
});

describe('the body limit of PUT /sandbox/snapshot', () => {
  const MiB = 1024 * 1024;
  const padded = (snapshot: unknown, bytes: number) => {
    const text = JSON.stringify(snapshot);
    return `${text.slice(0, -1)}${' '.repeat(bytes - text.length)}}`;
  };

  for (const transport of [mswTransport(), devServerTransport()]) {
    it(`takes a snapshot over 1 MiB (${transport.name}), other routes still refuse one`, async () => {
      stoppers.push(() => transport.close());
      const sandbox = sandboxWith({ clock: 'virtual', apiKeys: ['test-key'] });
      sandbox.connect({ apiKey: 'test-key' });
      await transport.use(sandbox);
      const body = padded(sandbox.snapshot(), 2 * MiB);
      const put = await transport.call('PUT', '/sandbox/snapshot', { rawBody: body, headers: { 'content-type': 'application/json' } });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ restored: { connections: 1, deliveries: 1 } });
      const other = await transport.call('POST', '/link/exchange', { rawBody: body, headers: { 'content-type': 'application/json' } });
      expect(other.status).toBe(413);
      expect(other.body.metadata).toEqual({ limit: MiB });
    });
  }

  it('answers 413 above 64 MiB, in the core (MSW) and in the dev server before reading the body', async () => {
    const sandbox = sandboxWith({ clock: 'virtual' });
    const over = await callSandbox(sandbox, 'PUT', '/sandbox/snapshot', { key: KEY, body: padded(sandbox.snapshot(), SNAPSHOT_BODY_BYTES + 1) });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({
      errorCode: 'PAYLOAD_TOO_LARGE',
      message: `request body is over the ${SNAPSHOT_BODY_BYTES} byte limit`,
      metadata: { limit: SNAPSHOT_BODY_BYTES },
    });

    const server = await startDevServer(sandbox, { port: 0 });
    stoppers.push(() => server.close());
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
        if (text.endsWith('}}')) socket.destroy(); // the whole error body: the server does not wait for ours
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write(
        `PUT /sandbox/snapshot HTTP/1.1\r\nhost: localhost\r\nservice-api-token: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${SNAPSHOT_BODY_BYTES + 1}\r\n\r\n{`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain(`"metadata":{"limit":${SNAPSHOT_BODY_BYTES}}`);
  });
});
