// The same helpers against a real dev server on 127.0.0.1 and a free port (no MSW): for code
// that talks HTTP from another process, or when you want to see the requests on the wire.

import { useSandbox } from 'crm-sandbox/testing/vitest';
import { expect, it } from 'vitest';
import { crmClient } from './crm-client.js';

const crm = useSandbox({ transport: 'server' });

it('serves on a real port and receives signed webhooks over HTTP', async () => {
  expect(crm.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const { connectionId, accessToken } = await crm.linkConnection({ integrationId: 'hubspot', status: 'INITIAL_SYNCED' });
  await client().createHubspotContact(accessToken, 'Grace', 'grace@example.com');
  const { headers } = await crm.waitForEvent({ objectType: 'Contact', eventType: 'CREATE', connectionId });
  expect(headers['x-service-connection-id']).toBe(connectionId);
});

function client() {
  return crmClient(crm.baseUrl, crm.apiKey);
}
