import { Connection, SfDate } from 'jsforce';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_VERSION } from '../../src/downstream/salesforce/objects.js';
import type { CrmRecord } from '../../src/model/crm.js';
import type { ServiceEvent } from '../../src/model/events.js';
import { type SdkBridge, type SdkBridgeOptions, startSdkBridge } from '../helpers/sdk-bridge.js';
import { answerSchema } from './salesforce-schema.js';

/**
 * jsforce 3, the Node client of Salesforce's REST API, driven unchanged against the simulated
 * Salesforce through the SDK bridge, with flows written from jsforce's documentation
 * (https://jsforce.github.io/document/: Query, CRUD, Describe, "Query with conditions"): queries and
 * their next batches, one- and many-record CRUD (many through sObject Collections), describe, find.
 * Every answer the simulated Salesforce gave is checked against Salesforce's documented shape
 * (`salesforce-schema.ts`) after each test.
 */

let bridge: SdkBridge | undefined;
afterEach(async () => {
  try {
    if (bridge) checkAnswers(bridge);
  } finally {
    await bridge?.close();
    bridge = undefined;
  }
});

function checkAnswers({ calls }: SdkBridge) {
  expect(calls.length).toBeGreaterThan(0);
  for (const { request, status, answer } of calls) {
    const operation = `${request.method} ${request.path} → ${answer.statusCode}`;
    expect(status, operation).toBe(200);
    const schema = answerSchema(request.method, request.path, answer.statusCode);
    expect(schema, `no schema for ${operation}`).toBeDefined();
    const checked = schema!.safeParse(answer.body);
    expect(checked.success ? [] : checked.error.issues.slice(0, 3), operation).toEqual([]);
  }
}

/** The API version the simulated Salesforce renders by default: `53.0`. */
const VERSION = DEFAULT_VERSION.slice(1);

async function connect(sandbox: SdkBridgeOptions['sandbox'] = {}, version: string | null = VERSION) {
  bridge = await startSdkBridge({ integrationId: 'salesforce', sandbox });
  const conn = new Connection({ instanceUrl: bridge.baseUrl, accessToken: bridge.accessToken, ...(version ? { version } : {}) });
  const events: ServiceEvent[] = [];
  bridge.sandbox.onEvent((event) => events.push(event));
  return { conn, bridge, events };
}

type Contact = { Id: string; LastName: string; FirstName?: string | null; Title?: string | null; Email?: string | null };
const contacts = (b: SdkBridge) => b.sandbox.listRecords(b.connectionId, 'Contact') as unknown as CrmRecord<'Contact'>[];

describe('jsforce 3: queries', () => {
  it('query answers the first 2000 records with a locator; queryMore reads the rest; autoFetch follows it up to maxFetch', async () => {
    const { conn, bridge } = await connect({ dataset: { crm: { Contact: 2300 } } });
    const total = contacts(bridge).length;
    expect(total).toBeGreaterThan(2000);
    const first = await conn.query<Contact>('SELECT Id, LastName FROM Contact');
    // jsforce hands the locator back as a full URL; Salesforce answered it relative to the instance.
    expect(first).toMatchObject({ totalSize: total, done: false, nextRecordsUrl: `${bridge.baseUrl}${bridge.calls[0]!.answer.body.nextRecordsUrl}` });
    expect(bridge.calls[0]!.answer.body.nextRecordsUrl).toMatch(new RegExp(`^/services/data/v${VERSION}/query/[\\w-]+$`));
    expect(first.records).toHaveLength(2000);
    expect(first.records[0]).toEqual({
      attributes: { type: 'Contact', url: `/services/data/v${VERSION}/sobjects/Contact/${first.records[0]!.Id}` },
      Id: expect.any(String),
      LastName: expect.any(String),
    });
    const rest = await conn.queryMore<Contact>(first.nextRecordsUrl!);
    expect(rest).toMatchObject({ totalSize: total, done: true });
    expect(rest.nextRecordsUrl).toBeUndefined();
    expect([...first.records, ...rest.records].map((row) => row.Id)).toEqual(contacts(bridge).map((contact) => contact.nativeId));

    const capped = await conn.query<Contact>('SELECT Id FROM Contact', { autoFetch: true, maxFetch: 2100 });
    expect(capped.records).toHaveLength(2100);
    const streamed: string[] = [];
    await new Promise<void>((resolve, reject) => {
      conn
        .query<Contact>('SELECT Id FROM Contact')
        .on('record', (row: Contact) => streamed.push(row.Id))
        .on('end', () => resolve())
        .on('error', reject)
        .run({ autoFetch: true, maxFetch: 5000 });
    });
    expect(streamed).toHaveLength(total);
  });

  it('finds with conditions, fields, sort, limit and offset (skip); counts; expands * from describe; includes child records', async () => {
    const { conn, bridge } = await connect();
    const all = contacts(bridge);
    const expected = all
      .filter((contact) => contact.lastName!.toLowerCase().startsWith('a'))
      .map((contact) => contact.lastName!)
      .sort((a, b) => b.toLowerCase().localeCompare(a.toLowerCase()));
    expect(expected.length).toBeGreaterThan(4);
    const found = await conn
      .sobject('Contact')
      .find<Contact>({ LastName: { $like: 'A%' } }, ['Id', 'LastName'], { sort: { LastName: -1 }, limit: 3, offset: 1 });
    expect(found.map((row) => row.LastName)).toEqual(expected.slice(1, 4));
    const chained = await conn
      .sobject('Contact')
      .find<Contact>({ LastName: { $like: 'A%' } })
      .select('Id, LastName')
      .sort('-LastName')
      .limit(3)
      .offset(1);
    expect(chained.map((row) => row.LastName)).toEqual(expected.slice(1, 4));
    expect(await conn.sobject('Contact').count()).toBe(all.length);
    expect(await conn.sobject('Contact').count({ LastName: { $like: 'A%' } })).toBe(expected.length);
    const recent = await conn.sobject('Contact').count({ CreatedDate: { $gte: SfDate.LAST_N_DAYS(30) } });
    expect(recent).toBe(all.filter((contact) => Date.parse(contact.createdTime) >= Date.parse('2024-12-02T00:00:00Z')).length);

    const one = await conn.sobject('Contact').findOne<Contact & Record<string, unknown>>({ Id: all[0]!.nativeId }, '*');
    const described = await conn.sobject('Contact').describe();
    expect(Object.keys(one!).slice(1)).toEqual(described.fields.map((field) => field.name));
    expect(one).toMatchObject({ Id: all[0]!.nativeId, LastName: all[0]!.lastName, Email: all[0]!.email });

    const accounts = bridge.sandbox.listRecords(bridge.connectionId, 'Account') as unknown as CrmRecord<'Account'>[];
    const account = accounts.find((candidate) => candidate.associations.contactIds.length > 1)!;
    const withContacts = await conn
      .sobject('Account')
      .find<{ Id: string; Name: string; Contacts: { totalSize: number; records: Contact[] } | null }>({ Id: account.nativeId }, 'Id, Name')
      .include('Contacts')
      .select('Id, LastName')
      .sort({ LastName: 'ASC' })
      .end();
    const children = withContacts[0]!.Contacts!;
    expect(children.records.length).toBe(children.totalSize);
    expect(children.records.map((row) => row.Id).sort()).toEqual(
      all
        .filter((contact) => contact.associations.accountIds[0] === account.id)
        .map((contact) => contact.nativeId)
        .sort(),
    );
  });

  it('reads parent fields and throws Salesforce’s own errors, with errorCode and fields, for bad queries and writes', async () => {
    const { conn, bridge } = await connect();
    const contact = contacts(bridge).find((candidate) => candidate.associations.accountIds.length > 0)!;
    const rows = await conn.sobject('Contact').find<{ Account: { Name: string } }>({ Id: contact.nativeId }, ['Account.Name']);
    expect(rows[0]!.Account.Name).toBe(
      (bridge.sandbox.getRecord(bridge.connectionId, 'Account', contact.associations.accountIds[0]!) as CrmRecord<'Account'>).name,
    );
    await expect(conn.query('SELECT Nickname FROM Contact')).rejects.toMatchObject({ name: 'INVALID_FIELD', errorCode: 'INVALID_FIELD' });
    await expect(conn.query('SELECT FROM Contact')).rejects.toMatchObject({ errorCode: 'MALFORMED_QUERY' });
    await expect(conn.sobject('Contact').create({ FirstName: 'No last name' })).rejects.toMatchObject({
      errorCode: 'REQUIRED_FIELD_MISSING',
      message: 'Required fields are missing: [LastName]',
      data: { fields: ['LastName'] },
    });
    await expect(conn.sobject('Contact').retrieve('003000000000000AAA')).rejects.toMatchObject({ errorCode: 'NOT_FOUND' });
    expect(conn.limitInfo).toEqual({ apiUsage: { used: 25, limit: 15000 } });
  });
});

describe('jsforce 3: records', () => {
  it('creates, retrieves, updates and destroys one record, field names in any case; the unified view and OBJECT_CHANGE events follow', async () => {
    const { conn, bridge, events } = await connect();
    const created = await conn.sobject('Contact').create({ lastname: 'Hopper', FirstName: 'Grace', email: 'grace@example.com', Region__c: 'EMEA' });
    expect(created).toEqual({ id: expect.stringMatching(/^003[a-zA-Z0-9]{15}$/), success: true, errors: [] });
    if (!created.success) return;
    const read = await conn.sobject('Contact').retrieve(created.id);
    expect(read).toMatchObject({
      attributes: { type: 'Contact', url: `/services/data/v${VERSION}/sobjects/Contact/${created.id}` },
      Id: created.id,
      LastName: 'Hopper',
      Email: 'grace@example.com',
      Region__c: 'EMEA',
    });
    expect(read).not.toHaveProperty('lastname');
    const some = await conn.sobject('Contact').retrieve(created.id, { fields: ['Title', 'Email'] });
    expect(Object.keys(some)).toEqual(['attributes', 'Id', 'Title', 'Email']);

    const updated = await conn.sobject('Contact').update({ Id: created.id, title: 'Rear Admiral' });
    expect(updated).toEqual({ id: created.id, success: true, errors: [] });
    const unified = contacts(bridge).find((contact) => contact.nativeId === created.id)!;
    expect(unified).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', jobTitle: 'Rear Admiral' });

    expect(await conn.sobject('Contact').destroy(created.id)).toEqual({ id: created.id, success: true, errors: [] });
    expect(contacts(bridge).some((contact) => contact.nativeId === created.id)).toBe(false);
    await bridge.sandbox.settle();
    const changes = events
      .filter((event) => event.type === 'OBJECT_CHANGE')
      .map((event) => event.data as { objectType: string; eventType: string; record: { id: string } });
    expect(changes.map((change) => `${change.objectType}:${change.eventType}`)).toEqual(['Contact:CREATE', 'Contact:UPDATE', 'Contact:DELETE']);
    expect(changes.every((change) => change.record.id === unified.id)).toBe(true);
  });

  it('creates, retrieves, updates and destroys arrays of records through sObject Collections, allOrNone or not', async () => {
    const { conn, bridge } = await connect();
    const before = contacts(bridge).length;
    const results = await conn.sobject('Contact').create([{ LastName: 'One' }, { FirstName: 'No last name' }, { lastname: 'Three', Title: 'CTO' }]);
    expect(results).toEqual([
      { id: expect.any(String), success: true, errors: [] },
      { success: false, errors: [{ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [LastName]', fields: ['LastName'] }] },
      { id: expect.any(String), success: true, errors: [] },
    ]);
    expect(contacts(bridge)).toHaveLength(before + 2);
    const rolledBack = await conn.sobject('Contact').create([{ LastName: 'Fine' }, { LastName: 'Bad', Nickname: 'x' }], { allOrNone: true });
    expect(rolledBack.map((result) => result.success)).toEqual([false, false]);
    expect(contacts(bridge)).toHaveLength(before + 2);

    const ids = [results[0]!.id!, results[2]!.id!];
    const read = await conn.sobject('Contact').retrieve(ids);
    expect(read.map((row) => row.Id)).toEqual(ids);
    expect(read[1]).toMatchObject({ LastName: 'Three', Title: 'CTO' });
    const narrow = await conn.sobject('Contact').retrieve([ids[0]!, '003000000000000AAA'], { fields: ['LastName'] });
    expect(narrow).toEqual([
      { attributes: { type: 'Contact', url: `/services/data/v${VERSION}/sobjects/Contact/${ids[0]}` }, Id: ids[0], LastName: 'One' },
      null,
    ]);
    const read$ = bridge.calls.filter((call) => call.request.method === 'POST' && call.request.path.endsWith('composite/sobjects/Contact'));
    expect(read$.map((call) => call.request.body)).toEqual([
      { ids, fields: expect.arrayContaining(['Id', 'LastName', 'Region__c']) },
      { ids: [ids[0], '003000000000000AAA'], fields: ['LastName'] },
    ]);

    const updated = await conn.sobject('Contact').update(ids.map((Id) => ({ Id, Title: 'VP' })));
    expect(updated).toEqual(ids.map((id) => ({ id, success: true, errors: [] })));
    expect(
      contacts(bridge)
        .filter((contact) => ids.includes(contact.nativeId!))
        .map((contact) => contact.jobTitle),
    ).toEqual(['VP', 'VP']);
    const byQuery = await conn.sobject('Contact').find({ Title: 'VP' }).update({ Title: 'SVP' });
    expect(byQuery).toEqual(expect.arrayContaining(ids.map((id) => ({ id, success: true, errors: [] }))));

    const destroyed = await conn.sobject('Contact').destroy([...ids, '003000000000000AAA']);
    expect(destroyed).toEqual([
      ...ids.map((id) => ({ id, success: true, errors: [] })),
      { id: '003000000000000AAA', success: false, errors: [{ statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id', fields: [] }] },
    ]);
    expect(await conn.sobject('Contact').retrieve(ids, { fields: ['Id'] })).toEqual([null, null]);
    expect(contacts(bridge)).toHaveLength(before);
  });
});

describe('jsforce 3: metadata and versions', () => {
  it('describes the org and an sObject as jsforce reads them', async () => {
    const { conn } = await connect();
    const global = await conn.describeGlobal();
    expect(global.sobjects.map((sobject) => sobject.name)).toEqual(
      expect.arrayContaining(['Account', 'Contact', 'Opportunity', 'Lead', 'Task', 'Event', 'User']),
    );
    expect(global.sobjects.find((sobject) => sobject.name === 'Opportunity')).toMatchObject({
      labelPlural: 'Opportunities',
      keyPrefix: '006',
      createable: true,
    });
    const account = await conn.sobject('Account').describe();
    expect(account.childRelationships).toContainEqual(expect.objectContaining({ relationshipName: 'Contacts', childSObject: 'Contact', field: 'AccountId' }));
    const contact = await conn.describe('Contact');
    expect(contact.fields.find((field) => field.name === 'AccountId')).toMatchObject({
      type: 'reference',
      soapType: 'tns:ID',
      referenceTo: ['Account'],
      relationshipName: 'Account',
    });
    expect(contact.fields.find((field) => field.name === 'BillingCity')).toBeUndefined();
    const info = await conn.sobject('Contact').recent();
    expect(info.length).toBeGreaterThan(0);
  });

  it('works on jsforce’s default API version, answering that version’s URLs', async () => {
    const { conn } = await connect({}, null);
    expect(conn.version).toBe('50.0');
    const first = (await conn.query('SELECT Id FROM Contact LIMIT 1')).records[0]!;
    expect(first.attributes!.url).toMatch(/^\/services\/data\/v50\.0\/sobjects\/Contact\//);
    const row = await conn.sobject('Contact').retrieve(first.Id!);
    expect(row.attributes!.url).toBe(`/services/data/v50.0/sobjects/Contact/${first.Id}`);
  });
});

describe('the Salesforce answer schemas', () => {
  it('refuse what Salesforce never answers: a record without attributes.url, a locator on a done query, a failed result without errors, an unknown describe property', () => {
    const query = answerSchema('GET', 'services/data/v53.0/query', 200)!;
    const row = { attributes: { type: 'Contact', url: '/services/data/v53.0/sobjects/Contact/003000000000000AAA' }, Id: '003000000000000AAA' };
    expect(query.safeParse({ totalSize: 1, done: true, records: [row] }).success).toBe(true);
    expect(query.safeParse({ totalSize: 1, done: true, records: [{ attributes: { type: 'Contact' }, Id: row.Id }] }).success).toBe(false);
    expect(query.safeParse({ totalSize: 1, done: true, nextRecordsUrl: '/services/data/v53.0/query/x-2000', records: [row] }).success).toBe(false);
    expect(query.safeParse({ totalSize: '1', done: true, records: [] }).success).toBe(false);
    const results = answerSchema('PATCH', 'services/data/v53.0/composite/sobjects', 200)!;
    expect(results.safeParse([{ id: row.Id, success: false, errors: [] }]).success).toBe(false);
    expect(results.safeParse([{ id: row.Id, success: true, errors: [], created: true }]).success).toBe(false);
    expect(
      answerSchema('GET', 'services/data/v53.0/sobjects', 200)!.safeParse({ encoding: 'UTF-8', maxBatchSize: 200, sobjects: [{ name: 'Contact' }] }).success,
    ).toBe(false);
    expect(answerSchema('GET', 'services/data/v53.0/search', 200)).toBeUndefined();
  });
});
