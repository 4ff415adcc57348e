import { describe, expect, it } from 'vitest';
import { turnsDuring } from '../../test/helpers/turns.js';
import { downstreamFor } from '../downstream/index.js';
import type { DownstreamRequest } from '../downstream/types.js';
import { WALK_PIECE } from '../downstream/walk-in-pieces.js';
import { createSandbox } from '../index.js';
import type { IntegrationId } from '../model/integrations.js';

const KEY = { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' };
/** Enough contacts that a native walk of them takes many pieces and, at a few microseconds each, many slices. */
const MANY = 10_000;
const NEEDLES = [0, MANY / 2, MANY - 1];

/** Each system's walk over every contact, finding those named `name`, and where an answer's rows keep their last name. */
const WALKS: Record<string, { call: (name: string) => Omit<DownstreamRequest, 'search'>; lastNames: (body: any) => string[] }> = {
  hubspot: {
    call: (name) => ({
      method: 'POST',
      path: 'crm/v3/objects/contacts/search',
      query: {},
      body: { filterGroups: [{ filters: [{ propertyName: 'firstname', operator: 'EQ', value: name }] }], limit: 100 },
    }),
    lastNames: (body) => body.results.map((row: any) => row.properties.lastname),
  },
  salesforce: {
    call: (name) => ({
      method: 'GET',
      path: 'services/data/v59.0/query',
      query: { q: `SELECT Id, LastName FROM Contact WHERE FirstName = '${name}'` },
      body: undefined,
    }),
    lastNames: (body) => body.records.map((row: any) => row.LastName),
  },
  pipedrive: {
    call: (name) => ({ method: 'GET', path: 'v1/persons/search', query: { term: name, fields: 'name' }, body: undefined }),
    lastNames: (body) => body.data.items.map((hit: any) => hit.item.name.split(' ').at(-1)),
  },
  zoho: {
    call: (name) => ({ method: 'GET', path: 'Contacts/search', query: { criteria: `(First_Name:equals:${name})` }, body: undefined }),
    lastNames: (body) => (body === null ? [] : body.data.map((row: any) => row.Last_Name)),
  },
  outreach: {
    call: (name) => ({ method: 'GET', path: 'prospects', query: { 'filter[firstName]': name }, body: undefined }),
    lastNames: (body) => body.data.map((row: any) => row.attributes.lastName),
  },
  apollo: {
    call: (name) => ({ method: 'POST', path: 'contacts/search', query: {}, body: { q_keywords: name.toLowerCase() } }),
    lastNames: (body) => body.contacts.map((row: any) => row.last_name),
  },
};

/** A connection with MANY contacts, three of them named Needle (the first, one in the middle, the last); the routes warmed on another. */
async function withHaystack(integrationId: IntegrationId, clock: 'real' | 'virtual' = 'real') {
  const sandbox = createSandbox({ seed: 9, clock, dataset: { crm: { Contact: 0 }, engagement: {} }, fixtures: false });
  const { connectionId, accessToken } = sandbox.connect({ integrationId });
  sandbox.setStatus(connectionId, 'READY');
  const needles: string[] = [];
  for (let i = 0; i < MANY; i++) {
    const record = sandbox.createRecord(connectionId, 'Contact', { firstName: NEEDLES.includes(i) ? 'Needle' : `Hay${i}`, lastName: `L${i}` });
    if (NEEDLES.includes(i)) needles.push(record.id as string);
  }
  const passthrough = (token: string, call: Omit<DownstreamRequest, 'search'>) =>
    sandbox.handle({ method: 'POST', path: '/crm/passthrough', query: '', headers: KEY, body: JSON.stringify({ accessToken: token, ...call }) });
  // The passthrough's first use loads the simulated systems, with turns of its own: done on another connection.
  const other = sandbox.connect({ integrationId });
  sandbox.setStatus(other.connectionId, 'READY');
  await passthrough(other.accessToken, WALKS[integrationId]!.call('Pin'));
  /** What the system answers to `call` at once, in one piece, on the connection's data as it is now. */
  const atOnce = (call: Omit<DownstreamRequest, 'search'>) => {
    const { registry } = sandbox.parts;
    const connection = registry.find(connectionId)!;
    return downstreamFor(integrationId).handle(structuredClone(call), { org: connection.org, data: registry.dataOf(connection), now: sandbox.now().getTime() });
  };
  return { sandbox, connectionId, needles, atOnce, search: (call: Omit<DownstreamRequest, 'search'>) => passthrough(accessToken, call) };
}

describe("a simulated system's walk over a long collection, through the passthrough (docs/decisions/0042)", () => {
  for (const [integrationId, walk] of Object.entries(WALKS)) {
    it(`${integrationId}: on a real clock, walks in pieces with turns between, answers what it answers at once, and of one moment`, async () => {
      const { sandbox, connectionId, needles, atOnce, search } = await withHaystack(integrationId as IntegrationId);
      expect(MANY).toBeGreaterThan(4 * WALK_PIECE);
      const { result, turns } = await turnsDuring(() => search(walk.call('Needle')));
      expect(result.status).toBe(200);
      expect(turns).toBeGreaterThan(0);
      const answer = JSON.parse(result.body);
      expect(walk.lastNames(answer.body)).toEqual(NEEDLES.map((i) => `L${i}`));
      expect(answer.body).toEqual(atOnce(walk.call('Needle')).body);
      // Kept until the data changes: the same call again answers the same bytes at once.
      const again = await turnsDuring(() => search(walk.call('Needle')));
      expect(again.turns).toBe(0);
      expect(again.result.body).toBe(result.body);
      // A record changed in the walk's first turn: the answer is of the moment after the change, not half of each.
      // (Another call, which the kept answer does not answer: a query parameter the system ignores.)
      const call = walk.call('Needle');
      let changed = false;
      const moved = await turnsDuring(() => {
        setImmediate(() => {
          sandbox.updateRecord(connectionId, 'Contact', needles[0]!, { firstName: 'Hay' });
          changed = true;
        });
        return search({ ...call, query: { ...call.query, round: '2' } });
      });
      expect(changed).toBe(true);
      expect(moved.turns).toBeGreaterThan(0);
      expect(walk.lastNames(JSON.parse(moved.result.body).body)).toEqual(NEEDLES.slice(1).map((i) => `L${i}`));
      sandbox.close();
    });
  }

  /** Calls that sort every record (or every hit), with what their first rows' last names are. */
  const SORTS: Record<string, { call: Omit<DownstreamRequest, 'search'>; lastNames: (body: any) => string[] }> = {
    hubspot: {
      call: {
        method: 'POST',
        path: 'crm/v3/objects/contacts/search',
        query: {},
        body: { sorts: [{ propertyName: 'lastname', direction: 'DESCENDING' }], limit: 3 },
      },
      lastNames: WALKS.hubspot!.lastNames,
    },
    salesforce: {
      call: { method: 'GET', path: 'services/data/v59.0/query', query: { q: 'SELECT LastName FROM Contact ORDER BY LastName DESC LIMIT 3' }, body: undefined },
      lastNames: WALKS.salesforce!.lastNames,
    },
    pipedrive: {
      call: { method: 'GET', path: 'v1/persons/search', query: { term: 'L99', fields: 'name', limit: '3' }, body: undefined },
      lastNames: WALKS.pipedrive!.lastNames,
    },
    outreach: {
      call: { method: 'GET', path: 'prospects', query: { sort: '-lastName', 'page[size]': '3' }, body: undefined },
      lastNames: WALKS.outreach!.lastNames,
    },
  };
  for (const [integrationId, sort] of Object.entries(SORTS)) {
    it(`${integrationId}: sorts every record (or every hit), in pieces too, in the order a sort at once gives`, async () => {
      const { sandbox, atOnce, search } = await withHaystack(integrationId as IntegrationId);
      const { result, turns } = await turnsDuring(() => search(sort.call));
      expect(turns).toBeGreaterThan(0);
      const answer = JSON.parse(result.body);
      expect(answer.body).toEqual(atOnce(sort.call).body);
      // Pipedrive ranks by score (a whole word first), ties in store order; the others by last name, as text.
      expect(sort.lastNames(answer.body)).toEqual(integrationId === 'pipedrive' ? ['L99', 'L990', 'L991'] : ['L9999', 'L9998', 'L9997']);
      sandbox.close();
    });
  }

  /** Calls that answer a long page: each record of it rendered, in pieces. */
  const PAGES: Record<string, Omit<DownstreamRequest, 'search'>> = {
    outreach: { method: 'GET', path: 'prospects', query: { 'page[size]': '1000' }, body: undefined },
    salesforce: { method: 'GET', path: 'services/data/v59.0/query', query: { q: 'SELECT Id, LastName, Account.Name FROM Contact' }, body: undefined },
  };
  for (const [integrationId, call] of Object.entries(PAGES)) {
    it(`${integrationId}: renders a long page (${integrationId === 'outreach' ? '1,000 records' : 'a SOQL batch of 2,000 rows'}) in pieces, as at once`, async () => {
      const { sandbox, atOnce, search } = await withHaystack(integrationId as IntegrationId);
      const { result, turns } = await turnsDuring(() => search(call));
      expect(turns).toBeGreaterThan(0);
      const answer = JSON.parse(result.body);
      expect(answer.body).toEqual(atOnce(call).body);
      expect(integrationId === 'outreach' ? answer.body.data.length : answer.body.records.length).toBe(integrationId === 'outreach' ? 1000 : 2000);
      sandbox.close();
    });
  }

  it('hubspot: finds a record by a unique property (idProperty), one read or a batch, in pieces too', async () => {
    const { sandbox, connectionId, needles, atOnce, search } = await withHaystack('hubspot');
    const email = (sandbox.getRecord(connectionId, 'Contact', needles[2]!) as { email: string }).email;
    const reads: Omit<DownstreamRequest, 'search'>[] = [
      { method: 'GET', path: `crm/v3/objects/contacts/${email}`, query: { idProperty: 'email' }, body: undefined },
      {
        method: 'POST' as const,
        path: 'crm/v3/objects/contacts/batch/read',
        query: {},
        body: { idProperty: 'email', inputs: [{ id: email }, { id: 'nobody@x.test' }] },
      },
    ];
    for (const read of reads) {
      const { result, turns } = await turnsDuring(() => search(read));
      expect(turns).toBeGreaterThan(0);
      const answer = JSON.parse(result.body);
      const expected = atOnce(read);
      expect(answer.statusCode).toBe(expected.statusCode);
      // A batch tells when it ran: the rest is the same.
      const { startedAt: _a, completedAt: _b, ...rest } = answer.body;
      const { startedAt: _c, completedAt: _d, ...expectedRest } = expected.body as Record<string, unknown>;
      expect(rest).toEqual(expectedRest);
      expect(JSON.stringify(answer.body)).toContain('"lastname":"L9999"');
    }
    sandbox.close();
  });

  it('on a virtual clock, walks at once (no turn), finding the same records', async () => {
    const { sandbox, search } = await withHaystack('salesforce', 'virtual');
    const { result, turns } = await turnsDuring(() => search(WALKS.salesforce!.call('Needle')));
    expect(turns).toBe(0);
    expect(WALKS.salesforce!.lastNames(JSON.parse(result.body).body)).toEqual(NEEDLES.map((i) => `L${i}`));
    sandbox.close();
  });

  it('refuses bad input before any walk, with the native 4xx it gives at once', async () => {
    const { sandbox, atOnce, search } = await withHaystack('hubspot');
    const unknownProperty = {
      ...WALKS.hubspot!.call('Needle'),
      body: { filterGroups: [{ filters: [{ propertyName: 'shoe_size', operator: 'EQ', value: '9' }] }] },
    };
    const { result, turns } = await turnsDuring(() => search(unknownProperty));
    expect(turns).toBe(0);
    const answer = JSON.parse(result.body);
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toEqual(atOnce(unknownProperty).body);
    sandbox.close();
  });

  it('answers a SOQL error met in the walk (a child relationship it does not know) as the native 400', async () => {
    const { sandbox, atOnce, search } = await withHaystack('salesforce');
    const call = { method: 'GET' as const, path: 'services/data/v59.0/query', query: { q: 'SELECT Id, (SELECT Id FROM Shoes) FROM Account' }, body: undefined };
    const answer = JSON.parse((await search(call)).body);
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toEqual(atOnce(call).body);
    expect(JSON.stringify(answer.body)).toContain('INVALID_TYPE');
    sandbox.close();
  });
});
