import { describe, expect, it } from 'vitest';
import { turnsDuring } from '../../test/helpers/turns.js';
import { createSandbox } from '../index.js';
import type { Sandbox } from './sandbox.js';

const A = 'key-a';
const B = 'key-b';
const ADMIN = 'admin-key';
const json = (apiKey: string) => ({ 'service-api-token': apiKey, 'content-type': 'application/json' });

/** A sandbox on the real clock with `count` used connections of tenant A: each seeded by a read, with one new contact. */
async function usedSandbox(count: number, clock: 'real' | 'virtual' = 'real'): Promise<Sandbox> {
  const sandbox = createSandbox({ seed: 3, apiKeys: [A, B], adminKey: ADMIN, clock });
  for (let i = 0; i < count; i++) {
    const { connectionId, accessToken } = sandbox.connect({ integrationId: i % 2 ? 'salesforce' : 'hubspot', apiKey: A });
    sandbox.setStatus(connectionId, 'READY');
    const read = await sandbox.handle({ method: 'GET', path: '/engagement/users', query: `accessToken=${accessToken}&limit=2`, headers: json(A) });
    expect(read.status).toBe(200);
    sandbox.createRecord(connectionId, 'Contact', { firstName: `Ada ${i}` });
  }
  return sandbox;
}

/** A tenant's state as text, without the moment it was read (the real clock moves). */
const stateOf = (sandbox: Sandbox, apiKey: string) => JSON.stringify({ ...sandbox.snapshot({ apiKey }), time: 0 });

const put = (sandbox: Sandbox, apiKey: string, body: string) =>
  sandbox.handle({ method: 'PUT', path: '/sandbox/snapshot', query: '', headers: json(apiKey), body });

describe('PUT /sandbox/snapshot on a real clock (docs/decisions/0040)', () => {
  it('rebuilds the data sets with turns of the event loop between, changes nothing before its last piece, and ends as the code API’s restore does', async () => {
    const sandbox = await usedSandbox(6);
    const saved = JSON.stringify(sandbox.snapshot({ apiKey: A }));
    // The state moves on after the snapshot: a connection it does not hold.
    const later = sandbox.connect({ integrationId: 'pipedrive', apiKey: A });
    let seenMeanwhile = 0;
    const { result, turns } = await turnsDuring(async () => {
      const answer = put(sandbox, A, saved);
      // Other work meanwhile finds the state as it was.
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        if (sandbox.parts.registry.find(later.connectionId)) seenMeanwhile++;
      }
      return answer;
    });
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ restored: { connections: 6, deliveries: expect.any(Number) } });
    expect(seenMeanwhile).toBe(5);
    expect(turns).toBeGreaterThan(20);
    expect(sandbox.parts.registry.find(later.connectionId)).toBeUndefined();

    const twin = await usedSandbox(6);
    twin.restore(JSON.parse(saved), { apiKey: A });
    expect(stateOf(sandbox, A)).toBe(stateOf(twin, A));
    sandbox.close();
    twin.close();
  });

  it('with ?all=true and the admin key, rebuilds the whole server in pieces too, and ends as the code API’s restore does', async () => {
    const sandbox = await usedSandbox(4);
    const saved = JSON.stringify(sandbox.snapshot());
    sandbox.connect({ integrationId: 'pipedrive', apiKey: B });
    const { result, turns } = await turnsDuring(() =>
      sandbox.handle({ method: 'PUT', path: '/sandbox/snapshot', query: 'all=true', headers: json(ADMIN), body: saved }),
    );
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body).restored.connections).toBe(4);
    expect(turns).toBeGreaterThan(10);
    const twin = await usedSandbox(4);
    twin.restore(JSON.parse(saved));
    const whole = (s: Sandbox) => JSON.stringify({ ...s.snapshot(), time: 0 });
    expect(whole(sandbox)).toBe(whole(twin));
    sandbox.close();
    twin.close();
  });

  it('is made at once on a virtual clock: calls made together interleave as they always did', async () => {
    const sandbox = await usedSandbox(3, 'virtual');
    const saved = JSON.stringify(sandbox.snapshot({ apiKey: A }));
    const { result, turns } = await turnsDuring(() => put(sandbox, A, saved));
    expect(result.status).toBe(200);
    expect(turns).toBe(0);
    sandbox.close();
  });

  it('refuses a data set that does not rebuild with the 400 the code API throws, and nothing changes', async () => {
    const sandbox = await usedSandbox(3);
    const snapshot = sandbox.snapshot({ apiKey: A });
    const data = snapshot.connections[2]!.data as { crm: { Contact: { digest: string } } };
    data.crm.Contact.digest = data.crm.Contact.digest === '00000000' ? '00000001' : '00000000';
    const before = stateOf(sandbox, A);
    const response = await put(sandbox, A, JSON.stringify(snapshot));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ metadata: { field: 'connections[2].data.crm.Contact.digest' } });
    expect(() => sandbox.restore(snapshot, { apiKey: A })).toThrow(/connections\[2\]\.data\.crm\.Contact\.digest is/);
    expect(stateOf(sandbox, A)).toBe(before);
    sandbox.close();
  });

  it('checks again at its last piece that no other tenant took one of its ids meanwhile: refused, and nothing of it laid in', async () => {
    // One connection: its ids are checked before its data set is rebuilt, and only checked again after.
    const sandbox = await usedSandbox(1);
    const snapshot = sandbox.snapshot({ apiKey: A });
    sandbox.reset({ apiKey: A });
    const answer = put(sandbox, A, JSON.stringify(snapshot));
    // While A's restore is in pieces, tenant B restores the same connection at once (its id is free), without its
    // deliveries and tokens: only the connection's ids, checked before its data set was rebuilt, are B's now.
    await new Promise((resolve) => setImmediate(resolve));
    sandbox.restore({ ...snapshot, deliveries: [], registry: { ...snapshot.registry, linkTokens: [], publicTokens: [] } }, { apiKey: B });
    const response = await answer;
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ metadata: { field: 'connections[0].connectionId' } });
    expect(JSON.parse(response.body).message).toMatch(/of another tenant/);
    expect(sandbox.parts.registry.list(A)).toEqual([]);
    expect(sandbox.parts.registry.list(B)).toHaveLength(1);
    sandbox.close();
  });

  it('started before a reset of the whole server, is built again over the new state at once and ends restored', async () => {
    const sandbox = await usedSandbox(3);
    const saved = sandbox.snapshot({ apiKey: A });
    const expected = stateOf(sandbox, A);
    const answer = put(sandbox, A, JSON.stringify(saved));
    await new Promise((resolve) => setImmediate(resolve));
    sandbox.reset();
    const response = await answer;
    expect(response.status).toBe(200);
    expect(stateOf(sandbox, A)).toBe(expected);
    sandbox.close();
  });
});

describe('GET /sandbox/snapshot on a real clock', () => {
  it('works out the digests of data sets seeded since the last snapshot with turns between, then answers one moment’s state', async () => {
    const sandbox = await usedSandbox(6);
    const { result, turns } = await turnsDuring(() => sandbox.handle({ method: 'GET', path: '/sandbox/snapshot', query: '', headers: json(A) }));
    expect(result.status).toBe(200);
    expect(turns).toBeGreaterThan(0);
    expect(JSON.stringify({ ...JSON.parse(result.body), time: 0 })).toBe(stateOf(sandbox, A));
    sandbox.close();
  });
});
