import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import { callSandbox } from './helpers/sandbox-call.js';

/**
 * `additional` on an engagement write in the platform's own shape, as production clients wrote it
 * (decision 0043): Outreach's JSON:API `attributes`, Salesloft's `custom_fields`, Apollo's
 * `typed_custom_fields`. The value lands in the native record: read back under `additional` with
 * allFields=true and through the passthrough; the write emits its OBJECT_CHANGE event.
 */
const SHAPES = {
  outreach: {
    write: (value: string) => ({ attributes: { custom1: value } }),
    native: (id: string) => `prospects/${id}`,
    read: (native: any) => native.data.attributes.custom1,
    additional: (additional: any) => additional.attributes.custom1,
  },
  salesloft: {
    write: (value: string) => ({ custom_fields: { region: value } }),
    native: (id: string) => `people/${id}`,
    read: (native: any) => native.data.custom_fields.region,
    additional: (additional: any) => additional.custom_fields.region,
  },
  apollo: {
    write: (value: string) => ({ typed_custom_fields: { region: value } }),
    native: (id: string) => `contacts/${id}`,
    read: (native: any) => native.contact.typed_custom_fields.region,
    additional: (additional: any) => additional.typed_custom_fields.region,
  },
} as const;

describe("additional in each engagement platform's own shape", () => {
  let sandbox: Sandbox;
  const call = (method: string, path: string, body?: unknown) => callSandbox(sandbox, method, path, body === undefined ? {} : { body });

  beforeAll(() => {
    sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
  });
  afterAll(() => sandbox.close());

  for (const [platform, shape] of Object.entries(SHAPES)) {
    it(`${platform}: ${JSON.stringify(shape.write('…'))} is written, read back natively and with allFields, and changed by an update`, async () => {
      const { publicToken } = (await call('POST', '/sandbox/public-token', { integrationId: platform })).body;
      const { accessToken, connectionId } = (await call('POST', '/link/exchange', { publicToken })).body;
      await sandbox.advance('10s');
      const before = sandbox.deliveries(connectionId).length;

      const created = await call('POST', '/engagement/contact', {
        accessToken,
        contact: { firstName: 'Ada', lastName: 'Lovelace', additional: shape.write('EMEA') },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.headers['x-sandbox-ignored-fields']).toBeUndefined();
      const read = async () => {
        const contact = (await call('GET', `/engagement/contact?accessToken=${accessToken}&id=${created.body.id}&allFields=true`)).body.contact;
        const native = (
          await call('POST', '/crm/passthrough', { accessToken, method: 'GET', path: shape.native(contact.additional.id ?? contact.additional.data?.id) })
        ).body;
        expect(native.statusCode, JSON.stringify(native)).toBe(200);
        return { additional: shape.additional(contact.additional), native: shape.read(native.body) };
      };
      expect(await read()).toEqual({ additional: 'EMEA', native: 'EMEA' });

      const updated = await call('PATCH', '/engagement/contact', { accessToken, id: created.body.id, contact: { additional: shape.write('APAC') } });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      expect(await read()).toEqual({ additional: 'APAC', native: 'APAC' });
      const events = sandbox
        .deliveries(connectionId)
        .slice(before)
        .map((delivery) => (delivery.event as { data: any }).data)
        .filter((data) => data.objectType === 'Contact');
      expect(events.map((data) => data.eventType)).toEqual(['CREATE', 'UPDATE']);
      expect(events[0].record).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
    });
  }

  it('an envelope that is not an object is a 400 naming it', async () => {
    const { publicToken } = (await call('POST', '/sandbox/public-token', { integrationId: 'outreach' })).body;
    const { accessToken } = (await call('POST', '/link/exchange', { publicToken })).body;
    await sandbox.advance('10s');
    const refused = await call('POST', '/engagement/contact', { accessToken, contact: { lastName: 'X', additional: { attributes: 'custom1' } } });
    expect(refused.status).toBe(400);
    expect(refused.body.metadata.field).toBe('contact.additional.attributes');
  });
});
