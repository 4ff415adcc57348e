import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import { INTEGRATION_IDS } from '../src/model/integrations.js';

/**
 * The link widget's routes: public (no service-api-token), authenticated by the link token,
 * which a completed widget uses up.
 */
const KEY = 'widget-key';
const OTHER_KEY = 'other-key';

function newSandbox(): Sandbox {
  return createSandbox({ clock: 'virtual', apiKeys: [KEY, OTHER_KEY] });
}

async function call(sandbox: Sandbox, method: string, path: string, json?: unknown, apiKey?: string) {
  const [pathOnly, query = ''] = path.split('?');
  const response = await sandbox.handle({
    method,
    path: pathOnly!,
    query,
    headers: { ...(apiKey ? { 'service-api-token': apiKey } : {}), ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: JSON.parse(response.body) as any };
}

async function linkToken(sandbox: Sandbox, apiKey = KEY): Promise<string> {
  return (await call(sandbox, 'POST', '/link/token', undefined, apiKey)).body.linkToken;
}

describe('GET /link/widget/session', () => {
  it('answers a valid link token without an API token: the integrations and when the link expires', async () => {
    const sandbox = newSandbox();
    const token = await linkToken(sandbox);
    const { status, body } = await call(sandbox, 'GET', `/link/widget/session?linkToken=${token}`);
    expect(status).toBe(200);
    expect(body.expiresTime).toBe('2025-01-01T00:30:00.000Z');
    expect(body.integrations.map((it: { integrationId: string }) => it.integrationId)).toEqual([...INTEGRATION_IDS]);
    expect(body.integrations[0]).toEqual({ integrationId: 'salesforce', name: 'Salesforce', category: 'crm' });
  });

  it('names what is wrong with the link token: missing, unknown, expired', async () => {
    const sandbox = newSandbox();
    expect(await call(sandbox, 'GET', '/link/widget/session')).toMatchObject({
      status: 400,
      body: { errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'linkToken' } },
    });
    expect(await call(sandbox, 'GET', '/link/widget/session?linkToken=link_nope')).toMatchObject({
      status: 401,
      body: { errorCode: 'INVALID_LINK_TOKEN', metadata: { field: 'linkToken' } },
    });
    const token = await linkToken(sandbox);
    await sandbox.advance('30m');
    expect(await call(sandbox, 'GET', `/link/widget/session?linkToken=${token}`)).toMatchObject({ status: 401, body: { errorCode: 'LINK_TOKEN_EXPIRED' } });
  });
});

describe('POST /link/widget/public-token', () => {
  it("makes a public token the link token's API token exchanges, with the integration, org name and org id given", async () => {
    const sandbox = newSandbox();
    const token = await linkToken(sandbox);
    const made = await call(sandbox, 'POST', '/link/widget/public-token', {
      linkToken: token,
      integrationId: 'salesforce',
      orgName: '  Globex Test Org ',
      nativeOrgId: '00D000000000001',
    });
    expect(made.status).toBe(200);
    expect(made.body.publicToken).toMatch(/^public_[0-9a-f]{32}$/);
    // Another API token cannot exchange it: the public token belongs to the link token's.
    expect(await call(sandbox, 'POST', '/link/exchange', { publicToken: made.body.publicToken }, OTHER_KEY)).toMatchObject({
      status: 400,
      body: { errorCode: 'INVALID_PUBLIC_TOKEN' },
    });
    const exchanged = await call(sandbox, 'POST', '/link/exchange', { publicToken: made.body.publicToken }, KEY);
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({
      integrationId: 'salesforce',
      nativeOrgId: '00D000000000001',
      nativeOrgURL: 'https://globex-test-org.my.salesforce.com',
    });
    const listed = await call(sandbox, 'GET', '/sandbox/connections', undefined, KEY);
    expect(listed.body.connections[0].orgName).toBe('Globex Test Org');
  });

  it('uses the link token up: a second widget, the session and /sandbox/public-token refuse it', async () => {
    const sandbox = newSandbox();
    const token = await linkToken(sandbox);
    expect((await call(sandbox, 'POST', '/link/widget/public-token', { linkToken: token, integrationId: 'hubspot' })).status).toBe(200);
    expect(await call(sandbox, 'POST', '/link/widget/public-token', { linkToken: token, integrationId: 'hubspot' })).toMatchObject({
      status: 401,
      body: { errorCode: 'LINK_TOKEN_USED', metadata: { field: 'linkToken' } },
    });
    expect(await call(sandbox, 'GET', `/link/widget/session?linkToken=${token}`)).toMatchObject({ status: 401, body: { errorCode: 'LINK_TOKEN_USED' } });
    expect(await call(sandbox, 'POST', '/sandbox/public-token', { linkToken: token }, KEY)).toMatchObject({
      status: 401,
      body: { errorCode: 'LINK_TOKEN_USED' },
    });
  });

  it('refuses bad bodies with the field named, without using the link token up', async () => {
    const sandbox = newSandbox();
    const token = await linkToken(sandbox);
    expect(await call(sandbox, 'POST', '/link/widget/public-token', { linkToken: token, integrationId: 'dynamics' })).toMatchObject({
      status: 400,
      body: { metadata: { field: 'integrationId' } },
    });
    expect(await call(sandbox, 'POST', '/link/widget/public-token', { linkToken: token })).toMatchObject({
      status: 400,
      body: { metadata: { field: 'integrationId' } },
    });
    expect(await call(sandbox, 'POST', '/link/widget/public-token', { integrationId: 'hubspot' })).toMatchObject({
      status: 400,
      body: { metadata: { field: 'linkToken' } },
    });
    expect(await call(sandbox, 'POST', '/link/widget/public-token', { linkToken: token, integrationId: 'hubspot', orgName: 7 })).toMatchObject({
      status: 400,
      body: { metadata: { field: 'orgName' } },
    });
    expect(await call(sandbox, 'POST', '/link/widget/public-token', { linkToken: 'link_nope', integrationId: 'hubspot' })).toMatchObject({
      status: 401,
      body: { errorCode: 'INVALID_LINK_TOKEN' },
    });
    expect((await call(sandbox, 'POST', '/link/widget/public-token', { linkToken: token, integrationId: 'hubspot' })).status).toBe(200);
  });

  it('keeps the seeded connection the same whatever org name is typed (only the name and its URL change)', async () => {
    const link = async (orgName?: string) => {
      const sandbox = newSandbox();
      const token = await linkToken(sandbox);
      const { body } = await call(sandbox, 'POST', '/link/widget/public-token', {
        linkToken: token,
        integrationId: 'pipedrive',
        ...(orgName === undefined ? {} : { orgName }),
      });
      return (await call(sandbox, 'POST', '/link/exchange', { publicToken: body.publicToken }, KEY)).body;
    };
    const generated = await link();
    const named = await link('Initech');
    const symbols = await link('!!!'); // nothing to make a URL of: the generated org stays
    expect(named).toEqual({ ...generated, nativeOrgURL: 'https://initech.pipedrive.com' });
    expect(symbols).toEqual(generated);
  });
});
