import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { onUnhandled } from '../src/adapters/msw.js';
import type { SandboxOptions } from '../src/core/options.js';
import { createSandbox, type Sandbox } from '../src/index.js';
import type { ExchangeResult } from '../src/model/connection.js';
import { type CrmObjectType, EVENT_OBJECT_TYPES } from '../src/model/crm.js';
import { verifySignature } from '../src/webhooks/signature.js';
import { type Received, Receiver } from './helpers/receiver.js';
import { API_KEY } from './helpers/transports.js';

/**
 * The delivery engine against real receivers on 127.0.0.1 (and one served by MSW), on a
 * virtual clock: a whole retry schedule runs in milliseconds.
 */
const stoppers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of stoppers.splice(0)) await stop();
});

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  stoppers.push(() => r.stop());
  return r;
}

function sandboxWith(options: SandboxOptions = {}): Sandbox {
  const sandbox = createSandbox({ seed: 5, clock: 'virtual', apiKeys: [API_KEY], ...options });
  stoppers.push(() => sandbox.close());
  return sandbox;
}

/** Calls the core as a transport would, with the API key. */
async function call(sandbox: Sandbox, method: string, path: string, json?: unknown) {
  const [pathname = '', query = ''] = path.split('?');
  const response = await sandbox.handle({
    method,
    path: pathname,
    query,
    headers: { 'service-api-token': API_KEY, 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: JSON.parse(response.body) };
}

async function createWebhook(sandbox: Sandbox, connection: ExchangeResult, webhookUrl: string): Promise<string> {
  const res = await call(sandbox, 'POST', '/connection/webhook', { accessToken: connection.accessToken, webhook: { webhookUrl } });
  expect(res.status).toBe(200);
  return res.body.webhook.webhookId;
}

/** Every request was signed as the spec says, for this connection. */
function expectSigned(received: Received[], connection: ExchangeResult): void {
  for (const request of received) {
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-service-connection-id']).toBe(connection.connectionId);
    expect(request.headers['x-service-timestamp']).toMatch(/^\d+$/);
    const valid = verifySignature({
      accessToken: connection.accessToken,
      body: request.body,
      timestamp: request.headers['x-service-timestamp'] as string,
      signature: request.headers['x-service-signature'] as string,
    });
    expect(valid, request.body).toBe(true);
  }
}

const describeEvent = (event: { type: string; data: { status?: string; objectType?: string; eventType?: string } }) =>
  event.type === 'STATUS_CHANGE' ? event.data.status : `${event.data.objectType}:${event.data.eventType}`;

describe('webhook delivery', () => {
  it('sends NEW_CONNECTION → INITIAL_SYNCED → READY in order after the recommended flow, each signed', async () => {
    const r = await receiver();
    const sandbox = sandboxWith();
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, r.url);
    await sandbox.settle();
    expect(r.events().map(describeEvent)).toEqual(['NEW_CONNECTION']);
    await sandbox.advance('3s');
    expect(r.events().map(describeEvent)).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED']);
    await sandbox.advance('7s');
    expect(r.events().map(describeEvent)).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);
    expectSigned(r.received, connection);
    expect(r.received.map((request) => request.headers['x-service-timestamp'])).toEqual(['1735689600', '1735689603', '1735689610']);
    for (const event of r.events()) {
      expect(Object.keys(event)).toEqual(['eventId', 'type', 'data']);
      expect(event.eventId).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(sandbox.deliveries(connection.connectionId).map((d) => d.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('delivers CREATE, UPDATE and DELETE of all nine object types, with full records or the three delete fields', async () => {
    const r = await receiver();
    const sandbox = sandboxWith();
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, r.url);
    const id = connection.connectionId;
    const event = sandbox.createRecord(id, 'Event', { subject: 'For the attendee' });
    const expected: Array<{ objectType: CrmObjectType; eventType: string; record: unknown }> = [];
    for (const type of EVENT_OBJECT_TYPES) {
      const fields = type === 'EventAttendee' ? { associations: { eventId: event.id } } : {};
      const created = sandbox.createRecord(id, type, fields);
      const updated = sandbox.updateRecord(id, type, created.id, type === 'EventAttendee' ? { status: 'Declined' } : {});
      sandbox.deleteRecord(id, type, created.id);
      expected.push(
        { objectType: type, eventType: 'CREATE', record: created },
        { objectType: type, eventType: 'UPDATE', record: updated },
        { objectType: type, eventType: 'DELETE', record: { id: created.id, nativeId: created.nativeId, connectionId: id } },
      );
    }
    await sandbox.settle();
    const changes = r.events().filter((e) => e.type === 'OBJECT_CHANGE' && e.data.record.id !== event.id);
    expect(changes.map((e) => e.data)).toEqual(expected);
    expectSigned(r.received, connection);
  });

  it('sends no event for an Email change unless emailEvents is on, then sends them as for the other types', async () => {
    for (const emailEvents of [false, true]) {
      const r = await receiver();
      const sandbox = sandboxWith({ emailEvents });
      const connection = sandbox.connect();
      await createWebhook(sandbox, connection, r.url);
      const id = connection.connectionId;
      const email = sandbox.createRecord(id, 'Email', { subject: 'Pricing' });
      const updated = sandbox.updateRecord(id, 'Email', email.id, { status: 'BOUNCED', isBounced: true });
      sandbox.deleteRecord(id, 'Email', email.id);
      const note = sandbox.createRecord(id, 'Note', { content: 'after the email' });
      await sandbox.settle();
      const changes = r.events().filter((e) => e.type === 'OBJECT_CHANGE');
      const emailChanges = emailEvents
        ? [
            { objectType: 'Email', eventType: 'CREATE', record: email },
            { objectType: 'Email', eventType: 'UPDATE', record: updated },
            { objectType: 'Email', eventType: 'DELETE', record: { id: email.id, nativeId: email.nativeId, connectionId: id } },
          ]
        : [];
      expect(changes.map((e) => e.data)).toEqual([...emailChanges, { objectType: 'Note', eventType: 'CREATE', record: note }]);
    }
  });

  it('retries a failing receiver on the schedule with the same eventId, holding later events back, losing none', async () => {
    const r = await receiver();
    r.behaviour = (_request, index) => (index < 2 ? 500 : 200);
    const sandbox = sandboxWith();
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, r.url);
    sandbox.createRecord(connection.connectionId, 'Contact', { firstName: 'Queued' });
    await sandbox.settle();
    expect(r.received).toHaveLength(1);
    await sandbox.advance('10s');
    expect(r.received).toHaveLength(2);
    const [log] = sandbox.deliveries(connection.connectionId);
    expect(log).toMatchObject({ state: 'retrying', nextAttemptTime: '2025-01-01T00:01:10.000Z' });
    await sandbox.advance('1m');
    expect(r.events().map(describeEvent)).toEqual(['NEW_CONNECTION', 'NEW_CONNECTION', 'NEW_CONNECTION', 'Contact:CREATE', 'INITIAL_SYNCED', 'READY']);
    const ids = r
      .events()
      .slice(0, 3)
      .map((e) => e.eventId);
    expect(new Set(ids).size).toBe(1);
    expect(r.received.slice(0, 3).map((request) => request.headers['x-service-timestamp'])).toEqual(['1735689600', '1735689610', '1735689670']);
    const first = sandbox.deliveries(connection.connectionId)[0]!;
    expect(first.state).toBe('succeeded');
    expect(first.attempts.map((a) => [a.attempt, a.status, a.time])).toEqual([
      [1, 500, '2025-01-01T00:00:00.000Z'],
      [2, 500, '2025-01-01T00:00:10.000Z'],
      [3, 200, '2025-01-01T00:01:10.000Z'],
    ]);
    expectSigned(r.received, connection);
  });

  it('treats a receiver that does not answer in time as a failed attempt', async () => {
    const r = await receiver();
    r.behaviour = (_request, index) => (index === 0 ? 'hang' : 200);
    const sandbox = sandboxWith({ attemptTimeout: '200ms' });
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, r.url);
    await sandbox.settle();
    const [delivery] = sandbox.deliveries(connection.connectionId);
    expect(delivery!.state).toBe('retrying');
    expect(delivery!.attempts[0]).toMatchObject({ status: null, error: 'timeout after 200ms' });
    await sandbox.advance('10s');
    expect(sandbox.deliveries(connection.connectionId)[0]!.state).toBe('succeeded');
    expect(r.events().map((e) => e.eventId)).toEqual([delivery!.eventId, delivery!.eventId, expect.any(String), expect.any(String)]);
  });

  it('keeps everything for a receiver that is down, and delivers it in order when it comes back', async () => {
    const r = await receiver();
    const sandbox = sandboxWith();
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, r.url);
    await r.stop();
    for (const firstName of ['A', 'B', 'C']) sandbox.createRecord(connection.connectionId, 'Contact', { firstName });
    await sandbox.advance('10m');
    const stuck = sandbox.deliveries(connection.connectionId)[0]!;
    expect(stuck.state).toBe('retrying');
    expect(stuck.attempts.map((a) => a.error)).toEqual(['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
    await r.start();
    await sandbox.advance('30m');
    expect(r.events().map(describeEvent)).toEqual(['NEW_CONNECTION', 'Contact:CREATE', 'Contact:CREATE', 'Contact:CREATE', 'INITIAL_SYNCED', 'READY']);
    expect(
      r
        .events()
        .slice(1, 4)
        .map((e) => e.data.record.firstName),
    ).toEqual(['A', 'B', 'C']);
    expect(r.events()[0].eventId).toBe(stuck.eventId);
  });

  it('marks a delivery failed after the last attempt, moves on, and redelivers it by hand as a new attempt', async () => {
    const r = await receiver();
    r.behaviour = (request) => (request.json.type === 'STATUS_CHANGE' && request.json.data.status === 'NEW_CONNECTION' ? 503 : 200);
    const sandbox = sandboxWith({ retrySchedule: '1s,2s' });
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, r.url);
    await sandbox.advance('10s');
    const [first, ...rest] = sandbox.deliveries(connection.connectionId);
    expect(first!.state).toBe('failed');
    expect(first!.failureReason).toBe('no 2xx answer after 3 attempts');
    expect(first!.attempts.map((a) => a.status)).toEqual([503, 503, 503]);
    expect(rest.map((d) => d.state)).toEqual(['succeeded', 'succeeded']);

    r.behaviour = () => 200;
    const redelivered = await sandbox.redeliver(first!.eventId);
    expect(redelivered.state).toBe('succeeded');
    expect(redelivered.attempts.at(-1)).toMatchObject({ attempt: 4, status: 200, trigger: 'redeliver' });
    const last = r.received.at(-1)!;
    expect(last.body).toBe(r.received[0]!.body);
    expectSigned(r.received, connection);

    const overHttp = await call(sandbox, 'POST', `/sandbox/deliveries/${first!.eventId}/redeliver`);
    expect(overHttp.status).toBe(200);
    expect(overHttp.body.delivery.attempts).toHaveLength(5);
  });

  it('holds events until a webhook exists; deleting the webhook drops what was pending and sends nothing more', async () => {
    const r = await receiver();
    const sandbox = sandboxWith();
    const connection = sandbox.connect();
    await sandbox.advance('10s');
    expect(sandbox.deliveries(connection.connectionId).map((d) => d.state)).toEqual(['pending', 'pending', 'pending']);
    const webhookId = await createWebhook(sandbox, connection, r.url);
    await sandbox.settle();
    expect(r.events().map(describeEvent)).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);

    r.behaviour = () => 500;
    sandbox.createRecord(connection.connectionId, 'Deal', { name: 'Dropped' });
    await sandbox.settle();
    expect(await call(sandbox, 'DELETE', '/connection/webhook', { accessToken: connection.accessToken, webhookId })).toMatchObject({ status: 200 });
    const dropped = sandbox.deliveries(connection.connectionId).at(-1)!;
    expect(dropped).toMatchObject({ state: 'failed', failureReason: 'webhook deleted before delivery', nextAttemptTime: null });
    const before = r.received.length;
    sandbox.createRecord(connection.connectionId, 'Deal', { name: 'After deletion' });
    await sandbox.advance('1d');
    expect(r.received).toHaveLength(before);

    const next = await receiver();
    await createWebhook(sandbox, connection, next.url);
    await sandbox.settle();
    expect(next.events().map((e) => e.data.record.name)).toEqual(['After deletion']);
  });

  it('forgets a deleted connection, even with an attempt in flight', async () => {
    const r = await receiver();
    r.behaviour = () => 'hang';
    const sandbox = sandboxWith({ attemptTimeout: '100ms' });
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, r.url);
    expect(sandbox.deliveries(connection.connectionId).map((d) => d.state)).toEqual(['delivering']);
    expect(await call(sandbox, 'DELETE', '/connection/connection', { connectionId: connection.connectionId })).toMatchObject({ status: 200 });
    await sandbox.advance('1d');
    expect(sandbox.deliveries()).toEqual([]);
    expect(r.received).toHaveLength(1);
  });

  it('answers redelivery errors in the error shape', async () => {
    const sandbox = sandboxWith();
    const connection = sandbox.connect();
    const unknown = await call(sandbox, 'POST', `/sandbox/deliveries/${'0'.repeat(32)}/redeliver`);
    expect(unknown).toMatchObject({ status: 404, body: { errorCode: 'OBJECT_NOT_FOUND' } });
    const [pending] = sandbox.deliveries(connection.connectionId);
    const noWebhook = await call(sandbox, 'POST', `/sandbox/deliveries/${pending!.eventId}/redeliver`);
    expect(noWebhook).toMatchObject({ status: 409, body: { errorCode: 'WEBHOOK_NOT_FOUND' } });
  });

  it('gives the same eventIds, bodies, timestamps and signatures for the same seed and calls', async () => {
    const run = async () => {
      const r = await receiver();
      r.behaviour = (_request, index) => (index === 1 ? 500 : 200);
      const sandbox = sandboxWith({ seed: 99 });
      const connection = sandbox.connect({ integrationId: 'pipedrive' });
      await createWebhook(sandbox, connection, r.url);
      const contact = sandbox.createRecord(connection.connectionId, 'Contact', {});
      sandbox.updateRecord(connection.connectionId, 'Contact', contact.id, { jobTitle: 'CTO' });
      sandbox.deleteRecord(connection.connectionId, 'Contact', contact.id);
      await sandbox.advance('1h');
      return r.received.map((request) => [request.body, request.headers['x-service-timestamp'], request.headers['x-service-signature']]);
    };
    const first = await run();
    expect(first.length).toBeGreaterThan(5);
    expect(await run()).toEqual(first);
  });

  it('posts through the global fetch, so an MSW handler can be the receiver', async () => {
    const got: Array<{ body: string; headers: Headers }> = [];
    const server = setupServer(
      http.post('https://app.test/webhooks', async ({ request }) => {
        got.push({ body: await request.text(), headers: request.headers });
        return HttpResponse.json({ ok: true });
      }),
    );
    server.listen(onUnhandled('error'));
    stoppers.push(() => server.close());
    const sandbox = sandboxWith();
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, 'https://app.test/webhooks');
    await sandbox.advance('10s');
    expect(got.map((request) => JSON.parse(request.body).data.status)).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);
    for (const request of got) {
      expect(
        verifySignature({
          accessToken: connection.accessToken,
          body: request.body,
          timestamp: request.headers.get('x-service-timestamp'),
          signature: request.headers.get('x-service-signature'),
        }),
      ).toBe(true);
    }
  });

  it('delivers to an https receiver whose CA it is told to trust, and fails without it', async () => {
    const tls = (name: string) => readFileSync(new URL(`./fixtures/tls/${name}`, import.meta.url), 'utf8');
    const bodies: string[] = [];
    const server = createServer({ key: tls('localhost.key'), cert: tls('localhost.pem') }, (req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stoppers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `https://localhost:${(server.address() as AddressInfo).port}/hooks`;

    const trusting = sandboxWith({ webhookCa: tls('ca.pem') });
    const ok = trusting.connect();
    await createWebhook(trusting, ok, url);
    await trusting.settle();
    expect(trusting.deliveries(ok.connectionId)[0]!.state).toBe('succeeded');
    expect(bodies).toHaveLength(1);

    const untrusting = sandboxWith();
    const refused = untrusting.connect();
    await createWebhook(untrusting, refused, url);
    await untrusting.settle();
    const [attempt] = untrusting.deliveries(refused.connectionId)[0]!.attempts;
    expect(attempt!.status).toBeNull();
    expect(attempt!.error).toMatch(/CERT|SELF_SIGNED|UNABLE_TO|certificate/i);
  });

  it('delivers to a port the Fetch standard blocks (a real webhook may use one)', async () => {
    // Ports fetch refuses to connect to; any of them that is free here will do.
    let r: Receiver | undefined;
    for (const port of [10080, 6000, 6665, 6666, 6667, 6668, 6669, 6697, 5060]) {
      const candidate = new Receiver();
      candidate.port = port;
      try {
        r = await candidate.start();
        stoppers.push(() => candidate.stop());
        break;
      } catch {
        // taken: try the next
      }
    }
    expect(r, 'no blocked port was free').toBeDefined();
    const sandbox = sandboxWith();
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, r!.url);
    await sandbox.settle();
    expect(r!.events().map(describeEvent)).toEqual(['NEW_CONNECTION']);
    expectSigned(r!.received, connection);
  });

  it('keeps the delivery log bounded, evicting the oldest succeeded deliveries first', async () => {
    const r = await receiver();
    r.behaviour = (request) => (request.json.data.status === 'NEW_CONNECTION' ? 500 : 200);
    const sandbox = sandboxWith({ deliveryLogLimit: 3, retrySchedule: [] });
    const connection = sandbox.connect();
    await createWebhook(sandbox, connection, r.url);
    for (const firstName of ['A', 'B', 'C', 'D']) sandbox.createRecord(connection.connectionId, 'Contact', { firstName });
    await sandbox.settle();
    const log = sandbox.deliveries(connection.connectionId);
    expect(log.map((d) => [d.state, d.type === 'OBJECT_CHANGE' ? (d.event.data as { record: { firstName: string } }).record.firstName : 'status'])).toEqual([
      ['failed', 'status'],
      ['succeeded', 'C'],
      ['succeeded', 'D'],
    ]);
  });
});
