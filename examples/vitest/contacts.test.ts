// A complete suite you can copy: `crm-sandbox/testing/vitest` starts a sandbox on a virtual clock
// behind MSW, resets it after each test, and receives its webhooks with signatures checked.

import { useSandbox } from 'crm-sandbox/testing/vitest';
import { describe, expect, it } from 'vitest';
import { crmClient } from './crm-client.js';

const crm = useSandbox({ seed: 42 });
const client = () => crmClient(crm.baseUrl, crm.apiKey);

describe('contacts', () => {
  it('a contact created through the passthrough arrives as a signed CREATE event', async () => {
    const { connectionId, accessToken } = await crm.linkConnection({ integrationId: 'hubspot', status: 'READY' });
    const created = await client().createHubspotContact(accessToken, 'Ada', 'ada@example.com');
    expect(created.body.statusCode).toBe(201);

    const { event } = await crm.waitForEvent({ objectType: 'Contact', eventType: 'CREATE', connectionId });
    expect(event.data).toMatchObject({ record: { firstName: 'Ada', email: 'ada@example.com' } });
    await crm.expectEvents([{ status: 'NEW_CONNECTION' }, { status: 'READY' }, { objectType: 'Contact', eventType: 'CREATE' }], { connectionId });
  });

  it('starts from a fresh sandbox: the same ids as in the test before, no events left over', async () => {
    expect(crm.events).toEqual([]);
    expect((await client().connections()).body.connections).toEqual([]);
    const first = await crm.linkConnection({ integrationId: 'hubspot' });
    crm.reset();
    const again = await crm.linkConnection({ integrationId: 'hubspot' });
    expect(again.connectionId).toBe(first.connectionId);
  });

  it('reads are refused until the first sync, then served', async () => {
    const { accessToken } = await crm.linkConnection({ integrationId: 'salesloft' });
    expect((await client().listUsers(accessToken)).status).toBe(409);
    await crm.sandbox.advance('3s');
    const { status, body } = await client().listUsers(accessToken);
    expect(status).toBe(200);
    expect(body.users).toHaveLength(5);
  });

  it('a failing expectation lists what did arrive', async () => {
    await crm.linkConnection({ integrationId: 'pipedrive' });
    await expect(crm.expectEvents([{ objectType: 'Deal', eventType: 'DELETE' }])).rejects.toThrow(/1 event arrived:\n {2}1\. STATUS_CHANGE NEW_CONNECTION/);
  });
});
