import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import { callSandbox } from './helpers/sandbox-call.js';

/**
 * `null` as production clients send it (decision 0043): on the service's own routes a member given
 * `null` is a member not given — a create stores nothing for it, an update leaves the field as it
 * is, a search ignores the filter — while a required one given `null` is a 400 naming it, a
 * system's own JSON (`additional`, the passthrough's `body`) keeps its nulls, and the sandbox's
 * control API keeps what it is sent. Query booleans and numbers as generated clients spell them.
 */
describe('null for an optional member means not given', () => {
  let sandbox: Sandbox;
  const call = (method: string, path: string, body?: unknown) => callSandbox(sandbox, method, path, body === undefined ? {} : { body });
  const tokens: Record<string, { accessToken: string; connectionId: string }> = {};

  beforeAll(async () => {
    sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
    for (const integrationId of ['salesforce', 'outreach']) {
      const { publicToken } = (await call('POST', '/sandbox/public-token', { integrationId })).body;
      tokens[integrationId] = (await call('POST', '/link/exchange', { publicToken })).body;
    }
    await sandbox.advance('10s');
  });
  afterAll(() => sandbox.close());

  it('a create stores nothing for a null field, an update leaves it as it was, and additional: null is no additional', async () => {
    const { accessToken } = tokens.salesforce!;
    const created = await call('POST', '/crm/contact', {
      accessToken,
      contact: { lastName: 'Lovelace', email: 'ada@engines.example', jobTitle: null, phone: null, additional: null },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.headers['x-sandbox-ignored-fields']).toBeUndefined();
    const updated = await call('PATCH', '/crm/contact', {
      accessToken,
      id: created.body.id,
      contact: { jobTitle: 'CTO', email: null, lastName: null, additional: null },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const read = (await call('GET', `/crm/contact?accessToken=${accessToken}&id=${created.body.id}`)).body.contact;
    expect(read).toMatchObject({ lastName: 'Lovelace', email: 'ada@engines.example', jobTitle: 'CTO' });
    expect(read).not.toHaveProperty('phone');
    // The service's own SDK's account create, as it sends it.
    const account = await call('POST', '/crm/account', { accessToken, account: { name: 'SDK Check Inc', additional: null } });
    expect(account.status, JSON.stringify(account.body)).toBe(200);
  });

  it('a required field given null is a 400 naming it, as a missing one is', async () => {
    const { accessToken } = tokens.salesforce!;
    for (const body of [
      { accessToken, contact: { lastName: null } },
      { accessToken, contact: {} },
    ]) {
      const refused = await call('POST', '/crm/contact', body);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'contact.lastName' } });
    }
    const noRecord = await call('POST', '/crm/contact', { accessToken, contact: null });
    expect(noRecord.body).toMatchObject({ errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'contact' } });
    const noToken = await call('POST', '/crm/contact', { accessToken: null, contact: { lastName: 'X' } });
    expect(noToken.body).toMatchObject({ errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'accessToken' } });
  });

  it('a null filter, a null operator and null paging are not given: the search answers as without them', async () => {
    const { accessToken } = tokens.outreach!;
    const contact = (await call('GET', `/engagement/contacts?accessToken=${accessToken}&limit=1`)).body.contacts[0];
    const plain = await call('POST', '/engagement/emails/search', { accessToken, filters: { contactId: { equals: contact.id } } });
    // The production sales product's search, when it has no sequence.
    const withNulls = await call('POST', '/engagement/emails/search', {
      accessToken,
      filters: { contactId: { equals: contact.id, in: null, contains: null }, sequenceId: null, subject: null },
      cursor: null,
      limit: null,
      allFields: null,
    });
    expect(withNulls.status, JSON.stringify(withNulls.body)).toBe(200);
    expect(withNulls.body).toEqual(plain.body);
    const crm = tokens.salesforce!.accessToken;
    const all = await call('POST', '/crm/contacts/search', { accessToken: crm, filters: null });
    expect(all.status).toBe(200);
    expect(all.body.contacts.length).toBe(100);
  });

  it("the passthrough's body: null is no body; nulls inside it are the system's (a Salesforce PATCH clears the field)", async () => {
    const { accessToken } = tokens.salesforce!;
    const listed = await call('POST', '/crm/passthrough', {
      accessToken,
      method: 'GET',
      path: 'services/data/v53.0/query',
      query: { q: 'SELECT Id, Phone FROM Contact WHERE Phone != null LIMIT 1' },
      body: null,
    });
    expect(listed.body.statusCode, JSON.stringify(listed.body)).toBe(200);
    const id = listed.body.body.records[0].Id;
    const cleared = await call('POST', '/crm/passthrough', {
      accessToken,
      method: 'PATCH',
      path: `services/data/v53.0/sobjects/Contact/${id}`,
      body: { Phone: null },
    });
    expect(cleared.body.statusCode, JSON.stringify(cleared.body)).toBe(204);
    const after = await call('POST', '/crm/passthrough', { accessToken, method: 'GET', path: `services/data/v53.0/sobjects/Contact/${id}`, query: null });
    expect(after.body.body.Phone).toBeNull();
  });

  it('the control API keeps what it is sent: a null there clears the field', async () => {
    const { connectionId } = tokens.salesforce!;
    const record = (await call('POST', `/sandbox/connections/${connectionId}/records/Contact`, { lastName: 'Hopper', jobTitle: 'Admiral' })).body.record;
    const cleared = await call('PATCH', `/sandbox/connections/${connectionId}/records/Contact/${record.id}`, { jobTitle: null });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.record.jobTitle).toBeUndefined();
  });
});

describe('query values as generated clients spell them', () => {
  let sandbox: Sandbox;
  let accessToken: string;
  const get = (query: string) => callSandbox(sandbox, 'GET', `/crm/contacts?accessToken=${accessToken}&${query}`);

  beforeAll(async () => {
    sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
    const { publicToken } = (await callSandbox(sandbox, 'POST', '/sandbox/public-token', { body: { integrationId: 'hubspot' } })).body;
    accessToken = (await callSandbox(sandbox, 'POST', '/link/exchange', { body: { publicToken } })).body.accessToken;
    await sandbox.advance('10s');
  });
  afterAll(() => sandbox.close());

  it('booleans in any case, an integral decimal for a number', async () => {
    const plain = await get('limit=2&allFields=true');
    for (const spelt of ['limit=2.0&allFields=True', 'limit=2.00&allFields=TRUE']) {
      const answer = await get(spelt);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toEqual(plain.body);
    }
    expect((await get('allFields=False')).body.contacts[0]).not.toHaveProperty('additional');
  });

  it('anything else is refused as before, naming the parameter', async () => {
    for (const [query, field] of [
      ['limit=2.5', 'limit'],
      ['limit=0.0', 'limit'],
      ['limit=1e2', 'limit'],
      ['allFields=yes', 'allFields'],
      ['allFields=1', 'allFields'],
    ] as const) {
      const answer = await get(query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.metadata.field, query).toBe(field);
    }
  });
});
