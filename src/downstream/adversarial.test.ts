import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../index.js';
import type { IntegrationId } from '../model/integrations.js';

/**
 * Inputs that used to freeze the server (backtracking RegExps, scans of long lists once per
 * record, recursion as deep as the input) answer correctly through `POST /crm/passthrough`, and
 * the systems' documented limits answer in each system's own error body. None of these asserts
 * on time: before, the searches here took seconds to hours, and the nesting overflowed the stack.
 */

const KEY = 'adversarial-key';
let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

function start(integrationId: IntegrationId) {
  sandbox = createSandbox({ seed: 19, clock: 'virtual', apiKeys: [KEY] });
  const { accessToken, connectionId } = sandbox.connect({ integrationId });
  const passthrough = async (method: string, path: string, body?: unknown, query?: Record<string, string>) => {
    const res = await sandbox!.handle({
      method: 'POST',
      path: '/crm/passthrough',
      query: '',
      headers: { 'service-api-token': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ accessToken, method, path, ...(body === undefined ? {} : { body }), ...(query ? { query } : {}) }),
    });
    expect(res.status).toBe(200);
    const { statusCode, body: answer } = JSON.parse(res.body) as { statusCode: number; body: any };
    return { statusCode, body: answer };
  };
  return { connectionId, passthrough };
}

const LONG = 'a'.repeat(100_000);

describe('Salesforce SOQL', () => {
  const V = 'services/data/v59.0';

  it('matches LIKE in one pass: % and _ over a 100,000-character name', async () => {
    const { passthrough } = start('salesforce');
    const created = await passthrough('POST', `${V}/sobjects/Account`, { Name: LONG });
    expect(created.statusCode).toBe(201);
    const like = async (pattern: string) =>
      (await passthrough('GET', `${V}/query`, undefined, { q: `SELECT Id FROM Account WHERE Name LIKE '${pattern}'` })).body.records.map((row: any) => row.Id);
    expect(await like('%a%a%a%a%a%b')).toEqual([]);
    expect(await like('%a%a%a%a%a%a')).toEqual([created.body.id]);
    expect(await like(`%${'a_'.repeat(1000)}b%`)).toEqual([]);
    expect(await like(`%${'A_'.repeat(1000)}%`)).toEqual([created.body.id]);
  });

  it('answers IN lists and long runs of = … OR … by lookup, as the comparisons would', async () => {
    const { passthrough } = start('salesforce');
    const all = (await passthrough('GET', `${V}/query`, undefined, { q: 'SELECT Id, Name FROM Account ORDER BY Name' })).body.records;
    const wanted = all.slice(0, 3);
    const decoys = Array.from({ length: 3000 }, (_, i) => `'decoy ${i}'`);
    const names = wanted.map((row: any) => `'${row.Name.replaceAll("'", "\\'").toUpperCase()}'`);
    const ids = (q: string) => passthrough('GET', `${V}/query`, undefined, { q }).then((res) => res.body.records.map((row: any) => row.Id));
    expect(await ids(`SELECT Id FROM Account WHERE Name IN (${[...decoys, ...names].join(', ')}) ORDER BY Name`)).toEqual(wanted.map((row: any) => row.Id));
    expect(await ids(`SELECT Id FROM Account WHERE ${[...decoys, ...names].map((name) => `Name = ${name}`).join(' OR ')} ORDER BY Name`)).toEqual(
      wanted.map((row: any) => row.Id),
    );
    const rest = await ids(`SELECT Id FROM Account WHERE ${[...decoys, ...names].map((name) => `Name != ${name}`).join(' AND ')} ORDER BY Name`);
    expect(rest).toEqual(all.slice(3).map((row: any) => row.Id));
  });

  it('refuses what Salesforce refuses, as MALFORMED_QUERY: over 100,000 characters, WHERE strings over 4,000, a field selected twice', async () => {
    const { passthrough } = start('salesforce');
    const q = (text: string) => passthrough('GET', `${V}/query`, undefined, { q: text });
    const long = `SELECT Id FROM Account WHERE Name != '${'x'.repeat(3000)}'`;
    const tooLong = `${long}${` OR Name != '${'x'.repeat(3000)}'`.repeat(33)}`;
    expect(tooLong.length).toBeGreaterThan(100_000);
    expect(await q(tooLong)).toEqual({
      statusCode: 400,
      body: [{ message: 'SOQL statements can not be longer than 100000 characters.', errorCode: 'MALFORMED_QUERY', fields: [] }],
    });
    expect((await q(`${long}${` OR Name != '${'x'.repeat(3000)}'`.repeat(30)}`)).statusCode).toBe(200);
    expect(await q(`SELECT Id FROM Account WHERE Name = '${'x'.repeat(4001)}'`)).toEqual({
      statusCode: 400,
      body: [{ message: "Strings in a WHERE clause can't exceed 4000 characters, got 4001", errorCode: 'MALFORMED_QUERY', fields: [] }],
    });
    expect((await q(`SELECT Id FROM Account WHERE Name = '${'x'.repeat(4000)}'`)).statusCode).toBe(200);
    expect(await q('SELECT Id, Name, name FROM Account')).toEqual({
      statusCode: 400,
      body: [{ message: 'duplicate field selected: name', errorCode: 'MALFORMED_QUERY', fields: [] }],
    });
  });

  it('answers nesting past 100 NOTs or parentheses with MALFORMED_QUERY, never a stack overflow', async () => {
    const { passthrough } = start('salesforce');
    const q = (where: string) => passthrough('GET', `${V}/query`, undefined, { q: `SELECT Id FROM Account WHERE ${where}` });
    const tooDeep = {
      statusCode: 400,
      body: [{ message: 'the WHERE clause nests NOT and parentheses more than 100 deep', errorCode: 'MALFORMED_QUERY', fields: [] }],
    };
    expect(await q(`${'NOT '.repeat(20_000)}Name = 'x'`)).toEqual(tooDeep);
    expect(await q(`${'('.repeat(40_000)}Name = 'x'${')'.repeat(40_000)}`)).toEqual(tooDeep);
    expect(await q(`${'NOT '.repeat(51)}${'('.repeat(50)}Name = 'x'${')'.repeat(50)}`)).toEqual(tooDeep);
    // As deep as allowed: NOT 100 times is the condition itself, and nothing is named 'x'.
    const all = (await passthrough('GET', `${V}/query`, undefined, { q: 'SELECT COUNT() FROM Account' })).body.totalSize;
    expect((await q(`${'NOT '.repeat(100)}Name = 'x'`)).body.totalSize).toBe(0);
    expect((await q(`${'NOT '.repeat(50)}${'('.repeat(49)}NOT Name = 'x'${')'.repeat(49)}`)).body.totalSize).toBe(all);
  });

  it('routes a path with a long run of slashes at once: not found', async () => {
    const { passthrough } = start('salesforce');
    expect(await passthrough('GET', `${V}/sobjects${'/'.repeat(50_000)}x`)).toMatchObject({ statusCode: 404, body: [{ errorCode: 'NOT_FOUND' }] });
  });
});

describe('HubSpot search', () => {
  it('matches CONTAINS_TOKEN * wildcards in one pass over a 100,000-character property', async () => {
    const { passthrough } = start('hubspot');
    const created = await passthrough('POST', 'crm/v3/objects/contacts', { properties: { firstname: LONG, email: 'long@adversarial.test' } });
    expect(created.statusCode).toBe(201);
    const token = async (value: string, operator = 'CONTAINS_TOKEN') =>
      (
        await passthrough('POST', 'crm/v3/objects/contacts/search', {
          filterGroups: [{ filters: [{ propertyName: 'firstname', operator, value }] }],
          limit: 200,
        })
      ).body.results.map((row: any) => row.id);
    expect(await token('*a*a*a*a*a*b')).toEqual([]);
    expect(await token('*A*A*A*A*A*A')).toEqual([created.body.id]);
    expect(await token('*a*a*a*a*a*b', 'NOT_CONTAINS_TOKEN')).toContain(created.body.id);
  });

  it('answers IN with thousands of values by lookup, as the comparisons would', async () => {
    const { passthrough } = start('hubspot');
    const contacts = (await passthrough('GET', 'crm/v3/objects/contacts', undefined, { limit: '3', properties: 'email' })).body.results;
    const emails = contacts.map((row: any) => row.properties.email.toUpperCase());
    const values = [...Array.from({ length: 20_000 }, (_, i) => `decoy${i}@adversarial.test`), ...emails];
    const found = await passthrough('POST', 'crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: 'email', operator: 'IN', values }] }],
      sorts: ['email'],
    });
    expect(found.body.results.map((row: any) => row.id).sort()).toEqual(contacts.map((row: any) => row.id).sort());
  });

  it('refuses a query over 3000 characters, and a v4 batch read of over 1000 inputs, with VALIDATION_ERROR', async () => {
    const { passthrough } = start('hubspot');
    const search = (query: string) => passthrough('POST', 'crm/v3/objects/contacts/search', { query });
    expect(await search('x'.repeat(3001))).toMatchObject({
      statusCode: 400,
      body: { status: 'error', category: 'VALIDATION_ERROR', message: 'query must be at most 3000 characters, got 3001' },
    });
    expect(await search('x'.repeat(3000))).toMatchObject({ statusCode: 200, body: { total: 0 } });
    const inputs = (n: number) => ({ inputs: Array.from({ length: n }, (_, i) => ({ id: String(i + 1) })) });
    expect(await passthrough('POST', 'crm/v4/associations/contacts/companies/batch/read', inputs(1001))).toMatchObject({
      statusCode: 400,
      body: { category: 'VALIDATION_ERROR', message: 'Batch input cannot exceed 1000 inputs, got 1001' },
    });
    expect((await passthrough('POST', 'crm/v4/associations/contacts/companies/batch/read', inputs(1000))).statusCode).toBe(207);
  });

  it('reads a domain from a website with a long run of slashes', async () => {
    const { passthrough } = start('hubspot');
    const created = await passthrough('POST', 'crm/v3/objects/companies', {
      properties: { name: 'Slashes', website: `https://www.slashes.test${'/'.repeat(50_000)}x` },
    });
    expect(created.body.properties.domain).toBe('slashes.test');
  });
});

describe('Zoho search', () => {
  it('answers criteria nested past 20 groups with INVALID_QUERY, never a stack overflow; 20 deep is fine', async () => {
    const { passthrough } = start('zoho');
    const search = (criteria: string) => passthrough('GET', 'Contacts/search', undefined, { criteria });
    const nested = (depth: number) => `${'('.repeat(depth)}(Last_Name:equals:nobody)${')'.repeat(depth)}`;
    const tooDeep = {
      statusCode: 400,
      body: { code: 'INVALID_QUERY', details: { reason: 'more than 20 levels of parentheses' }, message: 'Invalid query formed', status: 'error' },
    };
    expect(await search(nested(50_000))).toEqual(tooDeep);
    expect(await search(nested(21))).toEqual(tooDeep);
    expect(await search(nested(20))).toEqual({ statusCode: 204, body: null });
  });

  it('answers in with thousands of values by lookup', async () => {
    const { passthrough } = start('zoho');
    const contacts = (await passthrough('GET', 'Contacts', undefined, { per_page: '2' })).body.data;
    const values = [...Array.from({ length: 20_000 }, (_, i) => `decoy ${i}`), ...contacts.map((row: any) => row.Email.toUpperCase())];
    const found = await passthrough('GET', 'Contacts/search', undefined, { criteria: `(Email:in:${values.join(',')})` });
    expect(found.body.data.map((row: any) => row.id)).toEqual(contacts.map((row: any) => row.id));
  });
});

describe('Apollo, Outreach, Salesloft and Pipedrive lists and searches', () => {
  it('Apollo: 50,000 keywords and titles looked for in one pass a person', async () => {
    const { passthrough } = start('apollo');
    const someone = (await passthrough('POST', 'contacts/search', { per_page: 1 })).body.contacts[0];
    const decoys = Array.from({ length: 50_000 }, (_, i) => `decoy${i.toString(36)}`);
    const people = (body: unknown) => passthrough('POST', 'mixed_people/search', body).then((res) => res.body.people.map((person: any) => person.id));
    expect(await people({ q_keywords: decoys.join(' '), per_page: 100 })).toEqual([]);
    expect(await people({ q_keywords: `${someone.last_name} ${someone.last_name} ${someone.first_name}`, per_page: 100 })).toContain(someone.id);
    expect(await people({ person_titles: [...decoys, someone.title.toUpperCase()], per_page: 100 })).toContain(someone.id);
    expect(await people({ person_titles: decoys, per_page: 100 })).toEqual([]);
  });

  it('Outreach: filter[id] with 50,000 ids, include and sort named over and over', async () => {
    const { passthrough } = start('outreach');
    const prospects = (await passthrough('GET', 'prospects', undefined, { 'page[size]': '3' })).body.data;
    const ids = [...Array.from({ length: 50_000 }, (_, i) => String(1_000_000 + i)), ...prospects.map((row: any) => String(row.id))];
    const found = await passthrough('GET', 'prospects', undefined, {
      'filter[id]': ids.join(','),
      include: Array(20_000).fill('account').join(','),
      sort: Array(20_000).fill('-id').join(','),
    });
    expect(found.body.data.map((row: any) => row.id)).toEqual(prospects.map((row: any) => row.id).sort((a: number, b: number) => b - a));
    expect(found.body.included.every((item: any) => item.type === 'account')).toBe(true);
  });

  it('Salesloft: ids with 50,000 values', async () => {
    const { passthrough } = start('salesloft');
    const ids = [...Array.from({ length: 50_000 }, (_, i) => String(1_000_000 + i)), '2', '1'];
    expect((await passthrough('GET', 'cadences', undefined, { ids: ids.join(',') })).body.data.map((row: any) => row.id)).toEqual([1, 2]);
  });

  it('Pipedrive: fields named 50,000 times, and a field the endpoint has not', async () => {
    const { passthrough } = start('pipedrive');
    const person = (await passthrough('GET', 'v1/persons', undefined, { limit: '1' })).body.data[0];
    const found = await passthrough('GET', 'v1/persons/search', undefined, {
      term: person.name,
      fields: Array(50_000).fill('name').join(','),
      exact_match: 'true',
    });
    expect(found.body.data.items.map((item: any) => item.item.id)).toContain(person.id);
    expect(await passthrough('GET', 'v1/persons/search', undefined, { term: person.name, fields: 'constructor' })).toMatchObject({
      statusCode: 400,
      body: { success: false },
    });
  });
});
