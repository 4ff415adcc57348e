import { afterEach, describe, expect, it, vi } from 'vitest';
import { queryOf, type SdkBridge, startSdkBridge } from '../helpers/sdk-bridge.js';

/** The SDK bridge itself: native requests in, passthrough calls out, native answers back. */

let bridge: SdkBridge | undefined;
afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

describe('the SDK bridge', () => {
  it('turns a native GET into a passthrough call and its answer into the native response', async () => {
    bridge = await startSdkBridge({ integrationId: 'hubspot' });
    const response = await fetch('https://api.hubapi.com/crm/v3/objects/contacts?limit=2&archived=false', {
      headers: { authorization: `Bearer ${bridge.accessToken}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json;charset=utf-8');
    expect((await response.json()).results).toHaveLength(2);
    expect(bridge.calls).toEqual([
      {
        request: { accessToken: bridge.accessToken, method: 'GET', path: 'crm/v3/objects/contacts', query: { limit: '2', archived: 'false' } },
        status: 200,
        answer: expect.objectContaining({ statusCode: 200, url: 'https://api.hubapi.com/crm/v3/objects/contacts?limit=2&archived=false' }),
      },
    ]);
  });

  it('carries a JSON body, an empty answer as no body, and a wrong token as the service’s 401', async () => {
    bridge = await startSdkBridge({ integrationId: 'hubspot' });
    const contact = bridge.sandbox.listRecords(bridge.connectionId, 'Contact')[0]!;
    const url = `https://api.hubapi.com/crm/v3/objects/contacts/${contact.nativeId}`;
    const patched = await fetch(url, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ properties: { jobtitle: 'Bridged' } }),
    });
    expect((await patched.json()).properties.jobtitle).toBe('Bridged');
    expect(bridge.calls[0]!.request.body).toEqual({ properties: { jobtitle: 'Bridged' } });
    const archived = await fetch(url, { method: 'DELETE' });
    expect(archived.status).toBe(204);
    expect(await archived.text()).toBe('');
    const refused = await fetch(url, { headers: { authorization: 'Bearer not-a-token' } });
    expect(refused.status).toBe(401);
    expect(bridge.calls.map((call) => call.status)).toEqual([200, 200, 401]);
  });

  it('strips the base URL’s own path, and a Salesforce base URL is the connection’s instance', async () => {
    bridge = await startSdkBridge({ integrationId: 'zoho' });
    expect(bridge.baseUrl).toBe('https://www.zohoapis.com/crm/v3');
    await fetch(`${bridge.baseUrl}/Leads?per_page=1`);
    expect(bridge.calls[0]!.request.path).toBe('Leads');
    await bridge.close();
    bridge = await startSdkBridge({ integrationId: 'salesforce' });
    expect(bridge.baseUrl).toMatch(/^https:\/\/[a-z0-9-]+\.my\.salesforce\.com$/);
    const answer = await fetch(`${bridge.baseUrl}/services/data/v59.0/sobjects/Account/describe`);
    expect(answer.status).toBe(200);
    expect(bridge.calls[0]!.request.path).toBe('services/data/v59.0/sobjects/Account/describe');
  });

  it('refuses any host it does not bridge', async () => {
    bridge = await startSdkBridge({ integrationId: 'hubspot' });
    // MSW reports the request as unhandled (on stderr, captured here so a passing run prints nothing) and the request fails.
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await expect(fetch('https://api.pipedrive.com/v1/persons')).rejects.toThrow();
      expect(printed.mock.calls.map((args) => args.join(' ')).join('\n')).toMatch(
        /\[MSW\] Error: intercepted a request without a matching request handler:[\s\S]*GET https:\/\/api\.pipedrive\.com\/v1\/persons/,
      );
    } finally {
      printed.mockRestore();
    }
    expect(bridge.calls).toEqual([]);
  });

  it('reads repeated keys as arrays, in order', () => {
    expect(queryOf(new URLSearchParams('properties=email&limit=5&properties=firstname'))).toEqual({ properties: ['email', 'firstname'], limit: '5' });
  });

  it('takes a Pipedrive api_token parameter as the credential, not as a parameter', async () => {
    bridge = await startSdkBridge({ integrationId: 'pipedrive' });
    const response = await fetch(`https://api.pipedrive.com/v1/persons?api_token=${bridge.accessToken}&limit=1`);
    expect((await response.json()).data).toHaveLength(1);
    expect(bridge.calls[0]!.request).toEqual({ accessToken: bridge.accessToken, method: 'GET', path: 'v1/persons', query: { limit: '1' } });
  });
});
