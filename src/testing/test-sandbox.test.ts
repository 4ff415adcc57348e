import { HttpResponse, http } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callSandbox } from '../../test/helpers/sandbox-call.js';
import { signPayload } from '../webhooks/signature.js';
import { createTestSandbox } from './test-sandbox.js';

describe('TestSandbox (MSW)', () => {
  const crm = createTestSandbox({ seed: 3 });
  beforeAll(() => crm.start());
  afterAll(() => crm.close());

  it('waits through the lifecycle on the virtual clock only when told to advance, and says what arrived', async () => {
    const { connectionId } = await crm.linkConnection({ integrationId: 'zoho' });
    await expect(crm.waitForEvent({ status: 'READY', connectionId })).rejects.toThrow(
      /no event matched \{"status":"READY".*1 event arrived:\n {2}1\. STATUS_CHANGE NEW_CONNECTION/s,
    );
    const ready = await crm.waitForEvent({ status: 'READY', connectionId }, { advance: '1m' });
    expect(ready.event.type).toBe('STATUS_CHANGE');
    // It stopped soon after the event, not at the end of the window.
    expect(crm.sandbox.now().getTime() - Date.parse('2025-01-01T00:00:00.000Z')).toBeLessThan(60_000);
    await crm.expectEvents([{ status: 'NEW_CONNECTION' }, { status: 'INITIAL_SYNCED' }, { status: 'READY' }], { connectionId });
    await expect(crm.expectEvents([{ status: 'READY' }, { status: 'NEW_CONNECTION' }], { connectionId })).rejects.toThrow(/expected event 2 of 2/);
    crm.reset();
  });

  it('plays a scenario with its events going to the test receiver, signatures checked', async () => {
    const report = await crm.runScenario('deal-won');
    expect(report.failures).toEqual([]);
    expect(crm.receiver.rejected).toEqual([]);
    expect(crm.events.map((captured) => captured.event.eventId)).toEqual(report.events.map((event) => event.eventId));
    const won = await crm.expectEvents([
      { objectType: 'Deal', eventType: 'CREATE' },
      { objectType: 'Deal', eventType: 'UPDATE', where: ({ body }) => body.includes('"isWon":true') },
    ]);
    expect(won[1]!.connectionId).toBe(report.connection.connectionId);
    crm.reset();
  });

  it('keeps only deliveries whose signature checks out', async () => {
    const { connectionId, accessToken } = await crm.linkConnection({ webhook: false });
    const body = '{"eventId":"x","type":"STATUS_CHANGE","data":{"status":"READY"}}';
    const headers = { 'x-service-connection-id': connectionId, 'x-service-timestamp': '1735689600' };
    expect(crm.receiver.accept({ ...headers, 'x-service-signature': signPayload('access_wrong', body, '1735689600') }, body)).toBe(401);
    expect(crm.receiver.accept({ ...headers, 'x-service-signature': signPayload(accessToken, body, '1735689600') }, body)).toBe(200);
    expect(crm.receiver.rejected.map((r) => r.reason)).toEqual(['signature does not match']);
    expect(crm.events).toHaveLength(1);
    crm.reset();
    expect(crm.events).toHaveLength(0);
    expect(crm.receiver.rejected).toHaveLength(0);
  });

  it('takes handlers of your own on crm.server (typed: no cast), removed again by reset', async () => {
    crm.server?.use(http.get('http://127.0.0.1:2/ping', () => HttpResponse.json({ pong: true })));
    expect(await (await fetch('http://127.0.0.1:2/ping')).json()).toEqual({ pong: true });
    crm.reset();
    // Unhandled requests pass through to the network: nothing listens on port 2 (not one the Fetch standard blocks, as it does 9).
    await expect(fetch('http://127.0.0.1:2/ping')).rejects.toThrow();
  });

  it('links at any status, with events delivered to the receiver', async () => {
    const { connectionId } = await crm.linkConnection({ integrationId: 'salesforce', status: 'INITIAL_SYNCED' });
    expect(crm.sandbox.connections()[0]).toMatchObject({ connectionId, status: 'INITIAL_SYNCED' });
    expect(crm.events.map((e) => (e.event.data as { status: string }).status)).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED']);
  });
});

describe('TestSandbox faults', () => {
  it('reset keeps the standing faults of the options, drawing again from their start, and clears those set since', async () => {
    const crm = createTestSandbox({ apiKeys: ['a'], faults: { errorRate: 0.3 } });
    const statuses = async () => {
      const out: number[] = [];
      for (let i = 0; i < 20; i++) out.push((await callSandbox(crm.sandbox, 'GET', '/connection/connections')).status);
      return out;
    };
    const first = await statuses();
    expect(first).toContain(503);
    crm.sandbox.setFaults({ errorRate: 1, errorStatus: 502 });
    expect(await statuses()).not.toContain(200);
    // A tenant's own rules, as the code under test may PUT them: cleared too.
    expect((await callSandbox(crm.sandbox, 'PUT', '/sandbox/faults', { body: { latency: '5ms' } })).status).toBe(200);
    crm.reset();
    expect(crm.sandbox.faultRules()).toEqual([]);
    expect(crm.sandbox.faultRules({ apiKey: 'a' })).toEqual([]);
    expect(crm.sandbox.standingFaultRules()).toEqual([{ errorRate: 0.3 }]);
    expect(await statuses()).toEqual(first);
    await crm.close();
  });
});
