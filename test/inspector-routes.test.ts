import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import { UNIFIED_CRM_OBJECTS } from '../src/unified/crm-objects.js';
import { verifySignature } from '../src/webhooks/signature.js';
import { Receiver } from './helpers/receiver.js';

/** The control-API routes the inspector reads: a connection with org and webhook, a delivery with its signed headers. */
const KEY = 'inspector-key';
const OTHER_KEY = 'other-key';
let sandbox: Sandbox;
let receiver: Receiver;

beforeEach(async () => {
  sandbox = createSandbox({ clock: 'virtual', apiKeys: [KEY, OTHER_KEY] });
  receiver = await new Receiver().start();
});
afterEach(async () => {
  sandbox.close();
  await receiver.stop();
});

async function call(method: string, path: string, apiKey: string | null = KEY, json?: unknown) {
  const response = await sandbox.handle({
    method,
    path,
    query: '',
    headers: { ...(apiKey ? { 'service-api-token': apiKey } : {}), ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: JSON.parse(response.body) as any };
}

describe('GET /sandbox/connections and /sandbox/connections/{id}', () => {
  it("shows the caller's connections with their org and webhook; another API token sees none", async () => {
    const { connectionId, accessToken, nativeOrgId, nativeUserId } = sandbox.connect({ apiKey: KEY, integrationId: 'zoho' });
    const listed = await call('GET', '/sandbox/connections');
    expect(listed.status).toBe(200);
    expect(listed.body.connections).toHaveLength(1);
    const [connection] = listed.body.connections;
    expect(connection).toMatchObject({ connectionId, integrationId: 'zoho', status: 'NEW_CONNECTION', nativeOrgId, nativeUserId, webhook: null });
    expect(typeof connection.orgName).toBe('string');
    expect(await call('GET', '/sandbox/connections', OTHER_KEY)).toEqual({ status: 200, body: { connections: [] } });
    expect(await call('GET', '/sandbox/connections', null)).toMatchObject({ status: 401, body: { errorCode: 'INVALID_API_TOKEN' } });

    const created = await call('POST', '/connection/webhook', KEY, { accessToken, webhook: { webhookUrl: receiver.url } });
    const one = await call('GET', `/sandbox/connections/${connectionId}`);
    expect(one.body.connection).toEqual({
      ...connection,
      webhook: created.body.webhook,
      lastActivityDate: one.body.connection.lastActivityDate,
      accessToken,
      chaos: {},
    });
    expect(await call('GET', `/sandbox/connections/${connectionId}`, OTHER_KEY)).toMatchObject({
      status: 404,
      body: { errorCode: 'OBJECT_NOT_FOUND', metadata: { field: 'connectionId' } },
    });
  });
});

describe('GET /sandbox/connections/{id}/webhook', () => {
  it('answers null before a webhook exists and the webhook after', async () => {
    const { connectionId, accessToken } = sandbox.connect({ apiKey: KEY });
    expect(await call('GET', `/sandbox/connections/${connectionId}/webhook`)).toEqual({ status: 200, body: { webhook: null } });
    const created = await call('POST', '/connection/webhook', KEY, { accessToken, webhook: { webhookUrl: receiver.url } });
    expect(await call('GET', `/sandbox/connections/${connectionId}/webhook`)).toEqual({ status: 200, body: { webhook: created.body.webhook } });
    expect((await call('GET', `/sandbox/connections/${connectionId}/webhook`, OTHER_KEY)).status).toBe(404);
    expect((await call('GET', '/sandbox/connections/nope/webhook')).status).toBe(404);
  });
});

describe('GET /sandbox/deliveries/{eventId}', () => {
  it('gives the exact body and, per attempt, the signed headers the receiver got', async () => {
    const { connectionId, accessToken } = sandbox.connect({ apiKey: KEY });
    await call('POST', '/connection/webhook', KEY, { accessToken, webhook: { webhookUrl: receiver.url } });
    receiver.behaviour = (_request, index) => (index === 0 ? 503 : 200);
    await sandbox.settle();
    await sandbox.advance('10s');
    const [first] = sandbox.deliveries(connectionId);
    const { status, body } = await call('GET', `/sandbox/deliveries/${first!.eventId}`);
    expect(status).toBe(200);
    const got = receiver.received.filter((request) => request.json.eventId === first!.eventId);
    expect(got).toHaveLength(2);
    expect(body.delivery.body).toBe(got[0]!.body);
    expect(body.delivery.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([503, 200]);
    body.delivery.attempts.forEach((attempt: { headers: Record<string, string> }, index: number) => {
      const sent = got[index]!.headers;
      expect(attempt.headers).toEqual({
        'content-type': 'application/json',
        'x-service-timestamp': sent['x-service-timestamp'],
        'x-service-signature': sent['x-service-signature'],
        'x-service-connection-id': connectionId,
      });
      expect(
        verifySignature({
          accessToken,
          body: body.delivery.body,
          timestamp: attempt.headers['x-service-timestamp'],
          signature: attempt.headers['x-service-signature'],
        }),
      ).toBe(true);
    });
  });

  it("is a 404 for an unknown event or another API token's", async () => {
    const { connectionId } = sandbox.connect({ apiKey: KEY });
    const [first] = sandbox.deliveries(connectionId);
    expect((await call('GET', `/sandbox/deliveries/${first!.eventId}`)).status).toBe(200);
    expect(await call('GET', `/sandbox/deliveries/${first!.eventId}`, OTHER_KEY)).toMatchObject({
      status: 404,
      body: { errorCode: 'OBJECT_NOT_FOUND', metadata: { field: 'eventId' } },
    });
    expect((await call('GET', '/sandbox/deliveries/0000')).status).toBe(404);
  });
});

describe('GET /sandbox/connections/{id}/unified and …/unified/{objectType}', () => {
  /** The exact text a route answers. */
  const text = async (path: string, query = '', apiKey = KEY) => {
    const response = await sandbox.handle({ method: 'GET', path, query, headers: { 'service-api-token': apiKey } });
    return { status: response.status, body: response.body };
  };

  it("lists the objects the connection's integration serves, and answers each page as GET /crm/{objects} does, cursors and all", async () => {
    const { connectionId, accessToken } = sandbox.connect({ apiKey: KEY, integrationId: 'salesforce' });
    sandbox.setStatus(connectionId, 'READY');
    const { objects } = (await call('GET', `/sandbox/connections/${connectionId}/unified`)).body;
    expect(objects.map((object: { objectType: string }) => object.objectType)).toEqual(UNIFIED_CRM_OBJECTS.map((object) => object.type));
    expect(objects[1]).toEqual({ objectType: 'Contact', path: '/crm/contacts', listKey: 'contacts' });
    for (const { objectType, path } of objects as Array<{ objectType: string; path: string }>) {
      let cursor = '';
      let pages = 0;
      do {
        const query = `limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const inspected = await text(`/sandbox/connections/${connectionId}/unified/${objectType}`, query);
        expect(inspected.status, objectType).toBe(200);
        expect(inspected.body, objectType).toBe((await text(path, `accessToken=${accessToken}&${query}`)).body);
        cursor = JSON.parse(inspected.body).nextPageCursor ?? '';
        pages++;
      } while (cursor);
      expect(pages, objectType).toBeGreaterThan(0);
    }
    const native = await text(`/sandbox/connections/${connectionId}/unified/Deal`, 'limit=2&allFields=true');
    expect(native.body).toBe((await text('/crm/deals', `accessToken=${accessToken}&limit=2&allFields=true`)).body);
    expect(JSON.parse(native.body).deals[0].additional).toEqual(expect.any(Object));
  });

  it('with order=newest, the newest records first; with search, those with the text in any value, any case; each paged by a count', async () => {
    const { connectionId, accessToken } = sandbox.connect({ apiKey: KEY, integrationId: 'salesforce' });
    sandbox.setStatus(connectionId, 'READY');
    const inspect = async (query: string) => {
      const answer = await text(`/sandbox/connections/${connectionId}/unified/Contact`, query);
      return { status: answer.status, body: JSON.parse(answer.body) };
    };
    // Still 409 while syncing, as the list; then the list's records from its end.
    const all: Array<{ id: string; email: string | null }> = JSON.parse((await text('/crm/contacts', `accessToken=${accessToken}&limit=200`)).body).contacts;
    const created = sandbox.createRecord(connectionId, 'Contact', { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@analytical.example' });
    const first = await inspect('order=newest&limit=3');
    expect(first.status).toBe(200);
    expect(first.body.contacts.map((contact: { id: string }) => contact.id)).toEqual([
      created.id,
      ...all
        .slice(-2)
        .reverse()
        .map((contact) => contact.id),
    ]);
    expect(first.body.nextPageCursor).toBe('3');
    const second = await inspect('order=newest&limit=3&cursor=3');
    expect(second.body.contacts.map((contact: { id: string }) => contact.id)).toEqual(
      all
        .slice(-5, -2)
        .reverse()
        .map((contact) => contact.id),
    );
    // The records are the list's own, field for field.
    expect(first.body.contacts[0]).toEqual(JSON.parse((await text('/crm/contact', `accessToken=${accessToken}&id=${created.id}`)).body).contact);

    const found = await inspect('order=newest&search=ANALYTICAL');
    expect(found.body).toEqual({ contacts: [first.body.contacts[0]], nextPageCursor: null });
    const someone = all.find((contact) => contact.email)!;
    expect((await inspect(`search=${encodeURIComponent(someone.email!.toUpperCase())}`)).body.contacts.map((contact: { id: string }) => contact.id)).toContain(
      someone.id,
    );
    expect((await inspect('search=no-such-text-at-all')).body).toEqual({ contacts: [], nextPageCursor: null });
    // Mistakes name the field.
    for (const [query, field] of [
      ['order=oldest', 'order'],
      ['order=newest&cursor=abc', 'cursor'],
      ['order=newest&limit=0', 'limit'],
    ] as const) {
      expect(await inspect(query), query).toMatchObject({ status: 400, body: { errorCode: 'INVALID_FIELD_VALUE', metadata: { field } } });
    }
    // While the connection syncs, the same 409 as the list.
    const syncing = sandbox.connect({ apiKey: KEY, integrationId: 'hubspot' });
    expect((await text(`/sandbox/connections/${syncing.connectionId}/unified/Contact`, 'order=newest')).status).toBe(409);
  });

  it("answers the list's errors (409 while syncing, a bad cursor), another API token's connection is a 404, and the client is not judged or touched", async () => {
    const { connectionId, accessToken } = sandbox.connect({ apiKey: KEY, integrationId: 'hubspot' });
    sandbox.startClientCheck();
    const syncing = await text(`/sandbox/connections/${connectionId}/unified/Contact`);
    expect(syncing.status).toBe(409);
    expect(syncing.body).toBe((await text('/crm/contacts', `accessToken=${accessToken}`)).body);
    sandbox.setStatus(connectionId, 'READY');
    const before = (await call('GET', `/sandbox/connections/${connectionId}`)).body.connection.lastActivityDate;
    await sandbox.advance('1m');
    expect((await text(`/sandbox/connections/${connectionId}/unified/Contact`, 'cursor=nope')).status).toBe(400);
    expect((await text(`/sandbox/connections/${connectionId}/unified/Contact`, 'limit=1')).status).toBe(200);
    expect((await call('GET', `/sandbox/connections/${connectionId}`)).body.connection.lastActivityDate).toBe(before);
    // Only the client's own request to the service is judged.
    expect(sandbox.clientCheck!.report(KEY).requests).toBe(1);
    expect(await call('GET', `/sandbox/connections/${connectionId}/unified/Contact`, OTHER_KEY)).toMatchObject({
      status: 404,
      body: { errorCode: 'OBJECT_NOT_FOUND', metadata: { field: 'connectionId' } },
    });
    expect(await call('GET', `/sandbox/connections/${connectionId}/unified/Mailbox`)).toMatchObject({
      status: 400,
      body: { errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'objectType' } },
    });
    // An engagement connection has no unified CRM objects.
    const engagement = sandbox.connect({ apiKey: KEY, integrationId: 'outreach' });
    expect((await call('GET', `/sandbox/connections/${engagement.connectionId}/unified`)).body).toEqual({ objects: [] });
    expect((await call('GET', `/sandbox/connections/${engagement.connectionId}/unified/Contact`)).body).toMatchObject({
      metadata: { field: 'objectType' },
      message: 'objectType must be one of (none) for this outreach connection, got "Contact"',
    });
  });
});
