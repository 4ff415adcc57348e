import { describe, expect, it } from 'vitest';
import { createSandbox } from '../index.js';
import type { ConnectionData } from '../store/connection-data.js';
import type { Sandbox } from './sandbox.js';

const KEY = { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' };

/** Every record of every collection of a data set, in order, as text. */
const contents = (data: ConnectionData) => JSON.stringify(data.collections().map(([name, collection]) => [name, [...collection.values()]]));

function listing(sandbox: Sandbox, connectionId: string) {
  return sandbox.handle({ method: 'GET', path: `/sandbox/connections/${connectionId}/records/Contact`, query: 'limit=5', headers: KEY });
}

describe('a data set seeded in pieces (a route on a real clock)', () => {
  it('is the one seeded at once, record for record, and the request that seeds it waits for it', async () => {
    const sandbox = createSandbox({ seed: 7 });
    const { connectionId } = sandbox.connect({ integrationId: 'salesforce' });
    const { registry } = sandbox.parts;
    const connection = registry.find(connectionId)!;
    const answer = listing(sandbox, connectionId);
    // Not seeded in the request's first turn: the rest of the event loop gets turns first.
    expect(connection.data).toBeUndefined();
    const response = await answer;
    expect(response.status).toBe(200);
    expect(connection.data).toBeDefined();
    expect(contents(connection.data!)).toBe(contents(registry.seededData(connection)));
    expect(JSON.parse(response.body).records).toEqual(sandbox.listRecords(connectionId, 'Contact').slice(0, 5));
    sandbox.close();
  });

  it('is finished at once by a caller that cannot wait (the code API), with the same records, and the waiting request answers after it', async () => {
    const sandbox = createSandbox({ seed: 7 });
    const { connectionId } = sandbox.connect({ integrationId: 'hubspot' });
    const { registry } = sandbox.parts;
    const connection = registry.find(connectionId)!;
    const created = sandbox.handle({
      method: 'POST',
      path: `/sandbox/connections/${connectionId}/records/Contact`,
      query: '',
      headers: KEY,
      body: JSON.stringify({ lastName: 'Waited' }),
    });
    expect(connection.data).toBeUndefined();
    const deals = sandbox.listRecords(connectionId, 'Deal');
    expect(deals.length).toBeGreaterThan(0);
    const seeded = contents(connection.data!);
    expect(seeded).toBe(contents(registry.seededData(connection)));
    const response = await created;
    expect(response.status).toBe(201);
    // The create came after the seeding that the code API finished: the data set is the seeded one plus that record.
    expect(sandbox.listRecords(connectionId, 'Contact').at(-1)).toMatchObject({ lastName: 'Waited' });
    expect(connection.data!.crm.Contact.size).toBe(registry.seededData(connection).crm.Contact.size + 1);
    sandbox.close();
  });

  it('is not started by a request refused before it would read the data set (the snapshot still holds no data set)', async () => {
    const sandbox = createSandbox({ seed: 7 });
    const { connectionId } = sandbox.connect({ integrationId: 'hubspot' });
    const response = await sandbox.handle({ method: 'POST', path: `/sandbox/connections/${connectionId}/records/Nope`, query: '', headers: KEY, body: '{}' });
    expect(response.status).toBe(400);
    expect(sandbox.parts.registry.find(connectionId)!.data).toBeUndefined();
    expect(sandbox.snapshot().connections[0]!.data).toBeNull();
    sandbox.close();
  });

  it("is how the service API's engagement pages, unified objects and passthrough seed a connection on its first call too", async () => {
    const sandbox = createSandbox({ seed: 7 });
    // The simulated systems loaded first (by another connection's call): what is left to wait for is the seeding.
    const warm = sandbox.connect({ integrationId: 'hubspot' });
    sandbox.setStatus(warm.connectionId, 'READY');
    const passthrough = { accessToken: warm.accessToken, method: 'GET', path: 'crm/v3/objects/contacts' };
    await sandbox.handle({ method: 'POST', path: '/crm/passthrough', query: '', headers: KEY, body: JSON.stringify(passthrough) });
    for (const request of [
      (accessToken: string) => ({ method: 'GET', path: '/engagement/users', query: `accessToken=${accessToken}&limit=3`, headers: KEY }),
      (accessToken: string) => ({ method: 'GET', path: '/crm/contacts', query: `accessToken=${accessToken}&limit=3`, headers: KEY }),
      (accessToken: string) => ({
        method: 'POST',
        path: '/crm/passthrough',
        query: '',
        headers: KEY,
        body: JSON.stringify({ accessToken, method: 'GET', path: 'crm/v3/objects/contacts', query: { limit: 3 } }),
      }),
    ]) {
      const { connectionId, accessToken } = sandbox.connect({ integrationId: 'hubspot' });
      sandbox.setStatus(connectionId, 'READY');
      const connection = sandbox.parts.registry.find(connectionId)!;
      const answer = sandbox.handle(request(accessToken));
      expect(connection.data).toBeUndefined();
      const response = await answer;
      expect(response.status).toBe(200);
      expect(contents(connection.data!)).toBe(contents(sandbox.parts.registry.seededData(connection)));
      // The same request again, on the seeded data set: the same answer.
      expect((await sandbox.handle(request(accessToken))).body).toBe(response.body);
    }
    // A unified write (an async route) waits for the seeding too, then writes after the seeded records.
    const { connectionId, accessToken } = sandbox.connect({ integrationId: 'hubspot' });
    sandbox.setStatus(connectionId, 'READY');
    const connection = sandbox.parts.registry.find(connectionId)!;
    const body = JSON.stringify({ accessToken, contact: { lastName: 'Pieces' } });
    const written = sandbox.handle({ method: 'POST', path: '/crm/contact', query: '', headers: KEY, body });
    expect(connection.data).toBeUndefined();
    expect((await written).status).toBe(200);
    expect(connection.data!.crm.Contact.size).toBe(sandbox.parts.registry.seededData(connection).crm.Contact.size + 1);
    expect(sandbox.listRecords(connectionId, 'Contact').at(-1)).toMatchObject({ lastName: 'Pieces' });
    sandbox.close();
  });

  it('on a virtual clock is seeded at once, in the request’s first turn, as always', async () => {
    const sandbox = createSandbox({ seed: 7, clock: 'virtual' });
    const { connectionId } = sandbox.connect({ integrationId: 'hubspot' });
    const answer = listing(sandbox, connectionId);
    expect(sandbox.parts.registry.find(connectionId)!.data).toBeDefined();
    expect((await answer).status).toBe(200);
    sandbox.close();
  });
});
