import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Contact, CRM_OBJECT_TYPES, type Deal } from '../api.js';
import { createSandbox } from '../index.js';
import { ApiError } from '../shared/errors.js';
import { UNIFIED_CRM_OBJECTS } from '../unified/crm-objects.js';
import { createTestSandbox } from './test-sandbox.js';
import { type UnifiedKeys, type UnifiedPage, unified } from './unified.js';

describe('crm.unified(connectionId): the unified routes, typed', () => {
  const crm = createTestSandbox({ seed: 5 });
  beforeAll(() => crm.start());
  afterAll(() => crm.close());

  /** What the route answers over HTTP (through MSW, at crm.baseUrl), as an app reads it. */
  const http = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${crm.baseUrl}${path}`, { method, headers: crm.headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, body: await response.json() };
  };

  it('lists, searches, gets, creates and updates with the answers of the HTTP routes', async () => {
    const { connectionId, accessToken } = await crm.linkConnection({ integrationId: 'hubspot', status: 'READY' });
    const api = crm.unified(connectionId);

    const page: UnifiedPage<'Contact'> = await api.list('Contact', { limit: 3 });
    expect(page).toEqual((await http('GET', `/crm/contacts?accessToken=${accessToken}&limit=3`)).body);
    expect(page.contacts).toHaveLength(3);
    const next = await api.list('Contact', { limit: 3, cursor: page.nextPageCursor });
    expect(next).toEqual((await http('GET', `/crm/contacts?accessToken=${accessToken}&limit=3&cursor=${page.nextPageCursor}`)).body);

    const { id } = await api.create('Contact', { lastName: 'Quintillion', firstName: 'Ada', email: 'ada@example.com' });
    const contact: Contact = await api.get('Contact', id);
    expect({ contact }).toEqual((await http('GET', `/crm/contact?accessToken=${accessToken}&id=${id}`)).body);
    expect(contact).toMatchObject({ id, lastName: 'Quintillion', firstName: 'Ada', email: 'ada@example.com' });
    expect(await api.get('Contact', { email: 'ada@example.com' })).toEqual(contact);
    await crm.waitForEvent({ objectType: 'Contact', eventType: 'CREATE', recordId: id });

    expect(await api.update('Contact', id, { jobTitle: 'Analyst' })).toEqual({ id });
    expect((await api.get('Contact', id)).jobTitle).toBe('Analyst');

    const filters = { lastName: { equals: 'Quintillion' } };
    const found = await api.search('Contact', filters);
    expect(found).toEqual((await http('POST', '/crm/contacts/search', { accessToken, filters })).body);
    expect(found).toEqual({ contacts: [await api.get('Contact', id)], nextPageCursor: null });

    // Every record, walked to the null cursor: the list's records in order, and a search's.
    const every = await api.all('Contact');
    const walked: Contact[] = [];
    let cursor: string | null = null;
    do {
      const answer: { contacts: Contact[]; nextPageCursor: string | null } = (
        await http('GET', `/crm/contacts?accessToken=${accessToken}&limit=7${cursor ? `&cursor=${cursor}` : ''}`)
      ).body;
      walked.push(...answer.contacts);
      cursor = answer.nextPageCursor;
    } while (cursor !== null);
    expect(every).toEqual(walked);
    expect(every.length).toBeGreaterThan(3);
    const deals: Deal[] = await api.all('Deal', { filters: { amount: { gte: 0 } } });
    expect(deals.length).toBeGreaterThan(0);
    expect(deals.every((deal) => (deal.amount ?? -1) >= 0)).toBe(true);
    crm.reset();
  });

  it('throws the route’s error as an ApiError: its status, errorCode, message and metadata', async () => {
    const { connectionId, accessToken } = await crm.linkConnection({ integrationId: 'salesforce' });
    const api = crm.unified(connectionId);
    // NEW_CONNECTION: the reads answer 409 until the first sync.
    const syncing = await api.list('Deal').catch((error: unknown) => error);
    expect(syncing).toBeInstanceOf(ApiError);
    expect(syncing).toMatchObject({ status: 409, errorCode: 'CONNECTION_SYNCING' });
    crm.sandbox.setStatus(connectionId, 'READY');
    const refused = await api.create('Contact', { firstName: 'Nameless' }).catch((error: unknown) => error);
    const answered = await http('POST', '/crm/contact', { accessToken, contact: { firstName: 'Nameless' } });
    expect(answered.status).toBe(400);
    expect(refused).toMatchObject({ status: 400, errorCode: answered.body.errorCode, message: answered.body.message, metadata: answered.body.metadata });
    await expect(api.get('Deal', 'nope')).rejects.toMatchObject({ status: 404, errorCode: 'OBJECT_NOT_FOUND' });
    await expect(crm.unified('no-such-connection').list('Contact')).rejects.toMatchObject({ status: 404, metadata: { field: 'connectionId' } });
    crm.reset();
  });
});

describe('unified(sandbox, connectionId)', () => {
  it('reads any sandbox’s connection, as its owner', async () => {
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['one', 'two'] });
    const { connectionId } = sandbox.connect({ apiKey: 'two', integrationId: 'pipedrive' });
    sandbox.setStatus(connectionId, 'READY');
    const { leads } = await unified(sandbox, connectionId).list('Lead', { limit: 2 });
    expect(leads).toHaveLength(2);
    // Pipedrive leads have no company: absent, as the route answers them.
    expect(leads.every((lead) => !('account' in lead))).toBe(true);
    expect(sandbox.requests({ apiKey: 'two' }).map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual(['GET /crm/leads 200']);
    sandbox.close();
  });

  it("types every object's answer keys as its description names them", () => {
    const keys: { [T in keyof UnifiedKeys]: UnifiedKeys[T] } = {
      User: { one: 'user', many: 'users' },
      Contact: { one: 'contact', many: 'contacts' },
      Deal: { one: 'deal', many: 'deals' },
      Account: { one: 'account', many: 'accounts' },
      Lead: { one: 'lead', many: 'leads' },
      Note: { one: 'note', many: 'notes' },
      Task: { one: 'task', many: 'tasks' },
      Event: { one: 'event', many: 'events' },
      EventAttendee: { one: 'eventAttendee', many: 'eventAttendees' },
      Email: { one: 'email', many: 'emails' },
    };
    expect(Object.keys(keys).sort()).toEqual([...CRM_OBJECT_TYPES].sort());
    expect(keys).toEqual(Object.fromEntries(UNIFIED_CRM_OBJECTS.map((object) => [object.type, { one: object.key, many: object.listKey }])));
  });
});
