import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cli, callApi, killAll, serveCli } from '../helpers/cli.js';

// Linear-time matching (issue 19, item 1): every system's wildcards and searches, sent through a
// dev server as `crm-sandbox serve` runs it (real sockets), over values of 200,000 to 800,000
// characters and keywords of 400,000. Each answer is checked, never its time: a backtracking or quadratic matcher
// takes minutes to hours at these sizes, so it fails by the per-test timeout (vitest.config.ts,
// 30 s), and the server runs in its own process so that the timeout can fire.

const KEY = 'sandbox-api-key';
const running: Cli[] = [];
let url = '';

beforeAll(async () => {
  url = (await serveCli([], running)).url;
});
afterAll(() => killAll(running));

/** A run of 'a's: the values searched. */
const as = (length: number) => 'a'.repeat(length);
const LONG = as(200_000);
/** As long as a value can be in a 1 MiB body, with room for the rest. */
const HUGE = as(800_000);
/** A keyword all 'a's but one 'b' in its middle: V8's `includes` takes value × keyword on it (40 s over HUGE). */
const SPLIT = `${as(200_000)}b${as(200_000)}`;

/** Links a connection to the system and returns its passthrough: the simulated system's status and body. */
async function connect(integrationId: string) {
  const { linkToken } = (await callApi(url, KEY, 'POST', '/link/token')).body;
  const { publicToken } = (await callApi(url, KEY, 'POST', '/sandbox/public-token', { linkToken, integrationId })).body;
  const { accessToken } = (await callApi(url, KEY, 'POST', '/link/exchange', { publicToken })).body;
  return async (method: string, path: string, body?: unknown, query?: Record<string, string>) => {
    const res = await callApi(url, KEY, 'POST', '/crm/passthrough', {
      accessToken,
      method,
      path,
      ...(body === undefined ? {} : { body }),
      ...(query ? { query } : {}),
    });
    expect(res.status).toBe(200);
    return res.body as { statusCode: number; body: any };
  };
}

describe('matching over long values through the dev server', () => {
  it('Salesforce: SOQL LIKE with % and _ over a 200,000-character name; over 100,000 characters is 400', async () => {
    const passthrough = await connect('salesforce');
    const V = 'services/data/v59.0';
    const created = await passthrough('POST', `${V}/sobjects/Account`, { Name: LONG });
    expect(created.statusCode).toBe(201);
    const like = async (pattern: string) => {
      const answer = await passthrough('GET', `${V}/query`, undefined, { q: `SELECT Id FROM Account WHERE Name LIKE '${pattern}'` });
      expect(answer.statusCode).toBe(200);
      return answer.body.records.map((row: any) => row.Id);
    };
    expect(await like('%a%a%a%b')).toEqual([]);
    expect(await like(`%${'%a'.repeat(1990)}b`)).toEqual([]);
    expect(await like(`%${'a_'.repeat(1990)}b%`)).toEqual([]);
    expect(await like(`%${as(1998)}b${as(1998)}%`)).toEqual([]);
    expect(await like('%a%a%a%a')).toEqual([created.body.id]);
    expect(await like(`%${'A_'.repeat(1990)}%`)).toEqual([created.body.id]);
    const tooLong = `SELECT Id FROM Account WHERE Name LIKE '%a%b'${" OR Name LIKE '%a%a%a%b'".repeat(4200)}`;
    expect(tooLong.length).toBeGreaterThan(100_000);
    expect(await passthrough('GET', `${V}/query`, undefined, { q: tooLong })).toMatchObject({
      statusCode: 400,
      body: [{ message: 'SOQL statements can not be longer than 100000 characters.', errorCode: 'MALFORMED_QUERY', fields: [] }],
    });
  });

  it('HubSpot: CONTAINS_TOKEN and NOT_CONTAINS_TOKEN with * over an 800,000-character property', async () => {
    const passthrough = await connect('hubspot');
    const created = await passthrough('POST', 'crm/v3/objects/contacts', { properties: { firstname: HUGE, email: 'long@matching.test' } });
    expect(created.statusCode).toBe(201);
    const token = async (value: string, operator = 'CONTAINS_TOKEN') => {
      const answer = await passthrough('POST', 'crm/v3/objects/contacts/search', {
        filterGroups: [{ filters: [{ propertyName: 'firstname', operator, value }] }],
        limit: 200,
      });
      expect(answer.statusCode).toBe(200);
      return answer.body.results.map((row: any) => row.id);
    };
    expect(await token('*a*a*a*b')).toEqual([]);
    expect(await token(`*${'a*'.repeat(1400)}b`)).toEqual([]);
    expect(await token(`*${SPLIT}*`)).toEqual([]);
    expect(await token('*A*A*A*A')).toEqual([created.body.id]);
    expect(await token('*a*a*a*b', 'NOT_CONTAINS_TOKEN')).toContain(created.body.id);
  });

  it('Pipedrive: persons/search with a 400,000-character term over an 800,000-character name', async () => {
    const passthrough = await connect('pipedrive');
    const created = await passthrough('POST', 'v1/persons', { name: HUGE });
    expect(created.statusCode).toBe(201);
    const found = async (term: string) => {
      const answer = await passthrough('GET', 'v1/persons/search', undefined, { term, fields: 'name' });
      expect(answer.statusCode).toBe(200);
      return answer.body.data.items.map((item: any) => item.item.id);
    };
    expect(await found(SPLIT)).toEqual([]);
    expect(await found(`${as(100_000)}b`)).toEqual([]);
    expect(await found(as(150_000))).toEqual([created.body.data.id]);
  });

  it('Zoho: word search and starts_with criteria over an 800,000-character last name', async () => {
    const passthrough = await connect('zoho');
    const created = await passthrough('POST', 'Contacts', { data: [{ Last_Name: HUGE }] });
    expect(created.statusCode).toBe(201);
    const id = created.body.data[0].details.id;
    const found = async (query: Record<string, string>) => {
      const answer = await passthrough('GET', 'Contacts/search', undefined, query);
      // No match is 204 with no body, as in Zoho.
      if (answer.statusCode === 204) return [];
      expect(answer.statusCode).toBe(200);
      return answer.body.data.map((row: any) => row.id);
    };
    expect(await found({ word: SPLIT })).toEqual([]);
    expect(await found({ word: `b${as(150_000)}` })).toEqual([]);
    expect(await found({ word: as(150_000) })).toEqual([id]);
    expect(await found({ criteria: `(Last_Name:starts_with:${as(100_000)}b)` })).toEqual([]);
    expect(await found({ criteria: `(Last_Name:equals:${as(100_000)}b)` })).toEqual([]);
  });

  it('Outreach: filter[firstName] with a long value and 50,000 values over a 200,000-character first name', async () => {
    const passthrough = await connect('outreach');
    const created = await passthrough('POST', 'prospects', { data: { type: 'prospect', attributes: { firstName: LONG, lastName: 'Matching' } } });
    expect(created.statusCode).toBe(201);
    const found = async (value: string) => {
      const answer = await passthrough('GET', 'prospects', undefined, { 'filter[firstName]': value });
      expect(answer.statusCode).toBe(200);
      return answer.body.data.map((row: any) => row.id);
    };
    expect(await found(`${as(199_999)}b`)).toEqual([]);
    expect(await found([...Array(50_000).fill(as(10)), LONG].join(','))).toEqual([created.body.data.id]);
  });

  it('Salesloft: users by 20,000 emails, one of them 200,000 characters long; cadences by 50,000 ids', async () => {
    const passthrough = await connect('salesloft');
    const list = async (path: string, query: Record<string, string>) => {
      const answer = await passthrough('GET', path, undefined, query);
      expect(answer.statusCode).toBe(200);
      return answer.body.data as any[];
    };
    const [user] = await list('users', { per_page: '1' });
    const decoys = Array.from({ length: 20_000 }, (_, i) => `decoy${i}@matching.test`);
    expect(await list('users', { email: [...decoys, `${LONG}@matching.test`].join(',') })).toEqual([]);
    expect((await list('users', { email: [...decoys, `${LONG}@matching.test`, user.email].join(',') })).map((row) => row.id)).toEqual([user.id]);
    const ids = [...Array.from({ length: 50_000 }, (_, i) => String(1_000_000 + i)), '1'];
    expect((await list('cadences', { ids: ids.join(',') })).map((row) => row.id)).toEqual([1]);
  });

  it('Apollo: one 400,000-character keyword, and 150,000 keywords, over an 800,000-character first name', async () => {
    const passthrough = await connect('apollo');
    const created = await passthrough('POST', 'contacts', { first_name: HUGE, last_name: 'matching' });
    expect(created.statusCode).toBe(200);
    const id = created.body.contact.id;
    const found = async (path: string, body: Record<string, unknown>) => {
      const answer = await passthrough('POST', path, { ...body, per_page: 100 });
      expect(answer.statusCode).toBe(200);
      return answer.body[path === 'accounts/search' ? 'accounts' : path === 'contacts/search' ? 'contacts' : 'people'].map((row: any) => row.id);
    };
    expect(await found('contacts/search', { q_keywords: SPLIT })).toEqual([]);
    expect(await found('contacts/search', { q_keywords: `${as(400_000)}b` })).toEqual([]);
    expect(await found('contacts/search', { q_keywords: `${as(150_000)} MATCHING` })).toEqual([id]);
    expect(await found('mixed_people/search', { q_keywords: Array.from({ length: 150_000 }, (_, i) => i.toString(36)).join(' ') })).toEqual([]);
    expect(await found('mixed_people/search', { person_titles: [...Array(1_000).fill(as(40)), SPLIT] })).toEqual([]);
    const account = await passthrough('POST', 'accounts', { name: HUGE });
    expect(account.statusCode).toBe(200);
    expect(await found('accounts/search', { q_organization_name: SPLIT })).toEqual([]);
    expect(await found('accounts/search', { q_organization_name: as(150_000) })).toEqual([account.body.account.id]);
  });
});
