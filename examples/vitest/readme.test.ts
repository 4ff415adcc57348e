// The README's example, word for word: it must keep working.
import { expect, it } from 'vitest';
import { useSandbox } from 'crm-sandbox/testing/vitest';

const crm = useSandbox(); // started before the tests, reset after each, closed after all

it('a new contact arrives as a signed CREATE event', async () => {
  const { connectionId } = await crm.linkConnection({ integrationId: 'salesforce', status: 'READY' });
  await fetch(`${crm.baseUrl}/sandbox/connections/${connectionId}/records/Contact`, {
    method: 'POST', headers: crm.headers, body: JSON.stringify({ firstName: 'Ada' }),
  });
  const { event } = await crm.waitForEvent({ objectType: 'Contact', eventType: 'CREATE', connectionId });
  expect(event.data).toMatchObject({ record: { firstName: 'Ada' } });
});
