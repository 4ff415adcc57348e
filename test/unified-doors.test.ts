import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, verifySignature } from '../src/index.js';
import { Receiver } from './helpers/receiver.js';
import { callSandbox } from './helpers/sandbox-call.js';

/**
 * One store, three doors: a record written through the unified API, the native passthrough or the
 * control API is the same record through the other two, and a real receiver gets exactly one
 * signed OBJECT_CHANGE for it, carrying the very record the unified GET answers.
 */
const stoppers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of stoppers.splice(0).reverse()) await stop();
});

/** Each CRM's native contact: how to create one, read one, and the last name it shows. */
const NATIVE = {
  salesforce: {
    create: { method: 'POST', path: 'services/data/v53.0/sobjects/Contact', body: { LastName: 'Hopper', FirstName: 'Grace', Email: 'grace@navy.example' } },
    id: (body: any) => body.id,
    read: (id: string) => `services/data/v53.0/sobjects/Contact/${id}`,
    lastName: (body: any) => body.LastName,
  },
  hubspot: {
    create: { method: 'POST', path: 'crm/v3/objects/contacts', body: { properties: { lastname: 'Hopper', firstname: 'Grace', email: 'grace@navy.example' } } },
    id: (body: any) => body.id,
    read: (id: string) => `crm/v3/objects/contacts/${id}`,
    lastName: (body: any) => body.properties.lastname,
  },
  pipedrive: {
    create: { method: 'POST', path: 'v1/persons', body: { name: 'Grace Hopper', email: [{ value: 'grace@navy.example', primary: true }] } },
    id: (body: any) => String(body.data.id),
    read: (id: string) => `v1/persons/${id}`,
    lastName: (body: any) => body.data.last_name,
  },
  zoho: {
    create: { method: 'POST', path: 'Contacts', body: { data: [{ Last_Name: 'Hopper', First_Name: 'Grace', Email: 'grace@navy.example' }] } },
    id: (body: any) => body.data[0].details.id,
    read: (id: string) => `Contacts/${id}`,
    lastName: (body: any) => body.data[0].Last_Name,
  },
} as const;

async function setUp(integrationId: keyof typeof NATIVE): Promise<{ sandbox: Sandbox; receiver: Receiver; connectionId: string; accessToken: string }> {
  const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
  const receiver = await new Receiver().start();
  stoppers.push(
    () => sandbox.close(),
    () => receiver.stop(),
  );
  const { connectionId, accessToken } = sandbox.connect({ integrationId });
  sandbox.createWebhook(connectionId, receiver.url);
  await sandbox.advance('10s');
  return { sandbox, receiver, connectionId, accessToken };
}

describe.each(Object.keys(NATIVE) as Array<keyof typeof NATIVE>)('%s: one record through three doors', (integrationId) => {
  it('a contact written through each door reads the same through the other two, and is one signed event each', async () => {
    const { sandbox, receiver, connectionId, accessToken } = await setUp(integrationId);
    const native = NATIVE[integrationId];
    const call = (method: string, path: string, body?: unknown) => callSandbox(sandbox, method, path, { ...(body === undefined ? {} : { body }) });
    const passthrough = (method: string, path: string, body?: unknown) =>
      call('POST', '/crm/passthrough', { accessToken, method, path, ...(body === undefined ? {} : { body }) });
    const unified = async (id: string) => (await call('GET', `/crm/contact?accessToken=${accessToken}&id=${id}`)).body.contact;
    const control = async (id: string) => (await call('GET', `/sandbox/connections/${connectionId}/records/Contact/${id}`)).body.record;

    // The unified door: the CRM shows it natively, the control API as the unified read does.
    const created = await call('POST', '/crm/contact', { accessToken, contact: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@engines.example' } });
    expect(created.status).toBe(200);
    const one = await unified(created.body.id);
    expect(one).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@engines.example' });
    const read = await passthrough('GET', native.read(one.nativeId));
    expect(read.body.statusCode).toBe(200);
    expect(native.lastName(read.body.body)).toBe('Lovelace');
    expect(await control(one.id)).toEqual(one);

    // The native door: the unified reads find it by its native id.
    const made = await passthrough(native.create.method, native.create.path, native.create.body);
    expect(made.body.statusCode, JSON.stringify(made.body.body)).toBeLessThan(300);
    const nativeId = native.id(made.body.body);
    const [two] = (await call('POST', '/crm/contacts/search', { accessToken, filters: { nativeId: { equals: nativeId } } })).body.contacts;
    expect(two).toMatchObject({ nativeId, lastName: 'Hopper', firstName: 'Grace', email: 'grace@navy.example' });
    expect(await control(two.id)).toEqual(two);

    // The control API door.
    const posted = await call('POST', `/sandbox/connections/${connectionId}/records/Contact`, {
      firstName: 'Katherine',
      lastName: 'Johnson',
      mobilePhone: null,
    });
    const three = await unified(posted.body.record.id);
    expect(three).toEqual(posted.body.record);
    expect(three).not.toHaveProperty('mobilePhone');
    expect(native.lastName((await passthrough('GET', native.read(three.nativeId))).body.body)).toBe('Johnson');

    // One signed CREATE each, carrying the very record the unified GET answers.
    await sandbox.settle();
    const creates = receiver.received.filter((request) => request.json.type === 'OBJECT_CHANGE');
    expect(creates.map((request) => request.json.data)).toEqual([one, two, three].map((record) => ({ objectType: 'Contact', eventType: 'CREATE', record })));
    for (const request of creates) {
      expect(
        verifySignature({
          accessToken,
          body: request.body,
          timestamp: request.headers['x-service-timestamp'] as string,
          signature: request.headers['x-service-signature'] as string,
        }),
      ).toBe(true);
    }
    expect(new Set(creates.map((request) => request.json.eventId)).size).toBe(3);
  });

  it('an update through the unified door is an UPDATE event with the record the GET answers', async () => {
    const { sandbox, receiver, accessToken } = await setUp(integrationId);
    const call = (method: string, path: string, body?: unknown) => callSandbox(sandbox, method, path, { ...(body === undefined ? {} : { body }) });
    const deal = (await call('GET', `/crm/deals?accessToken=${accessToken}&limit=1`)).body.deals[0];
    const updated = await call('PATCH', '/crm/deal', { accessToken, id: deal.id, deal: { stage: 'Closed Won', closeDate: '2025-02-01' } });
    expect(updated.body).toEqual({ id: deal.id });
    const after = (await call('GET', `/crm/deal?accessToken=${accessToken}&id=${deal.id}`)).body.deal;
    expect(after).toMatchObject({ stage: 'Closed Won', isWon: true, isClosed: true, closeDate: '2025-02-01T00:00:00.000Z' });
    await sandbox.settle();
    const updates = receiver.events().filter((event) => event.data?.eventType === 'UPDATE');
    expect(updates.map((event) => event.data)).toEqual([{ objectType: 'Deal', eventType: 'UPDATE', record: after }]);
  });
});
