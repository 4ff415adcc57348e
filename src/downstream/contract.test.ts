import { describe, expect, it } from 'vitest';
import { seededData } from '../../test/helpers/seeded-data.js';
import type { CrmRecord } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';
import { DOWNSTREAM, downstreamFor } from './index.js';
import { pipedriveFieldKey } from './pipedrive/formats.js';
import type { DownstreamRequest, DownstreamResponse } from './types.js';

/**
 * The contract every simulated system keeps, run against each of them over Contacts (the one
 * type all seven have): list with paging, get, create, update, delete, native 404s and 400s,
 * and the native shapes of records and engagement records.
 */

function makeData(integrationId: IntegrationId) {
  const { data, changes, context } = seededData(integrationId);
  return { data, changes, context };
}

type Body = Record<string, any>;
type Method = DownstreamRequest['method'];

interface ContractCase {
  id: IntegrationId;
  /** A list request for page `page` (1-based) of `size` contacts. */
  list(page: number, size: number): { method: Method; path: string; query?: Record<string, string>; body?: unknown };
  /** The native ids of a list answer, and whether it says more follow (undefined: it does not say). */
  listed(body: Body): { ids: string[]; more: boolean | undefined };
  itemPath(nativeId: string): string;
  /** The record in a GET answer. */
  unwrapOne(body: Body): Body;
  create: { path: string; status: number; body(accountNativeId: string): unknown; createdId(body: Body): string };
  update: { method: Method; status: number; body(nativeId: string, firstName: unknown): unknown };
  /** The native name of the first name field. */
  firstNameField: string;
  /** A value of the wrong type for the first name, as this system would refuse it. */
  badFirstName: unknown;
  badStatus: number;
  deleteStatus: number;
  /** The first name, the region custom field and the account's native id, read from a native record. */
  nativeView(native: Body): { firstName: unknown; region: unknown; account: unknown };
  /** The email of an engagement mailbox or user in its native shape. */
  engagementEmail(native: Body): unknown;
  notFound: { path: string; check(body: unknown): void };
  missing(body: unknown): void;
}

const CASES: ContractCase[] = [
  {
    id: 'salesforce',
    firstNameField: 'FirstName',
    list: (page, size) => ({
      method: 'GET',
      path: 'services/data/v53.0/query',
      query: { q: `SELECT Id, FirstName FROM Contact LIMIT ${size} OFFSET ${(page - 1) * size}` },
    }),
    // A LIMIT is the whole answer (done: true); continuation is nextRecordsUrl, tested on its own.
    listed: (body) => ({ ids: body.records.map((row: Body) => row.Id), more: undefined }),
    itemPath: (id) => `services/data/v53.0/sobjects/Contact/${id}`,
    unwrapOne: (body) => body,
    create: {
      path: 'services/data/v53.0/sobjects/Contact',
      status: 201,
      body: (account) => ({ FirstName: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com', AccountId: account, Region__c: 'EMEA' }),
      createdId: (body) => body.id,
    },
    update: { method: 'PATCH', status: 204, body: (_id, firstName) => ({ FirstName: firstName }) },
    badFirstName: 42,
    badStatus: 400,
    deleteStatus: 204,
    nativeView: (native) => ({ firstName: native.FirstName, region: native.Region__c, account: native.AccountId }),
    engagementEmail: (native) => native.Email ?? native.Address,
    notFound: {
      path: 'services/data/v53.0/sobjects/Widget',
      check: (body) => expect(body).toEqual([{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]),
    },
    missing: (body) => expect(body).toEqual([{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]),
  },
  {
    id: 'hubspot',
    firstNameField: 'firstname',
    list: (page, size) => ({
      method: 'GET',
      path: 'crm/v3/objects/contacts',
      query: { limit: String(size), ...(page > 1 ? { after: String((page - 1) * size) } : {}) },
    }),
    listed: (body) => ({ ids: body.results.map((row: Body) => row.id), more: body.paging?.next?.after !== undefined }),
    itemPath: (id) => `crm/v3/objects/contacts/${id}`,
    unwrapOne: (body) => body,
    create: {
      path: 'crm/v3/objects/contacts',
      status: 201,
      body: (account) => ({ properties: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', associatedcompanyid: account, region: 'EMEA' } }),
      createdId: (body) => body.id,
    },
    update: { method: 'PATCH', status: 200, body: (_id, firstName) => ({ properties: { firstname: firstName } }) },
    badFirstName: { first: 'Ada' },
    badStatus: 400,
    deleteStatus: 204,
    nativeView: (native) => ({ firstName: native.properties.firstname, region: native.properties.region, account: native.properties.associatedcompanyid }),
    engagementEmail: (native) => native.email,
    notFound: {
      path: 'crm/v3/objects/widgets',
      check: (body) => expect(body).toMatchObject({ status: 'error', category: 'OBJECT_NOT_FOUND', message: 'Unable to infer object type from: widgets' }),
    },
    missing: (body) => expect(body).toMatchObject({ status: 'error', category: 'OBJECT_NOT_FOUND', correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) }),
  },
  {
    id: 'pipedrive',
    firstNameField: 'first_name',
    list: (page, size) => ({ method: 'GET', path: 'v1/persons', query: { start: String((page - 1) * size), limit: String(size) } }),
    listed: (body) => ({ ids: (body.data ?? []).map((row: Body) => String(row.id)), more: body.additional_data.pagination.more_items_in_collection }),
    itemPath: (id) => `v1/persons/${id}`,
    unwrapOne: (body) => body.data,
    create: {
      path: 'v1/persons',
      status: 201,
      // v1 takes and shows custom fields at the top level under their 40-hex keys.
      body: (account) => ({ name: 'Ada Lovelace', email: 'ada@example.com', org_id: Number(account), [pipedriveFieldKey('region')]: 'EMEA' }),
      createdId: (body) => String(body.data.id),
    },
    update: { method: 'PUT', status: 200, body: (_id, firstName) => ({ first_name: firstName }) },
    badFirstName: 42,
    badStatus: 400,
    deleteStatus: 200,
    nativeView: (native) => ({ firstName: native.first_name, region: native[pipedriveFieldKey('region')], account: native.org_id?.value }),
    engagementEmail: (native) => native.email ?? native.email_address,
    notFound: { path: 'v1/widgets', check: (body) => expect(body).toMatchObject({ success: false, error: 'Unknown method .', data: null }) },
    missing: (body) => expect(body).toMatchObject({ success: false, error: 'Person not found', data: null }),
  },
  {
    id: 'zoho',
    firstNameField: 'First_Name',
    list: (page, size) => ({ method: 'GET', path: 'Contacts', query: { page: String(page), per_page: String(size) } }),
    listed: (body) => ({ ids: body.data.map((row: Body) => row.id), more: body.info.more_records }),
    itemPath: (id) => `Contacts/${id}`,
    unwrapOne: (body) => body.data[0],
    create: {
      path: 'Contacts',
      status: 201,
      body: (account) => ({ data: [{ First_Name: 'Ada', Last_Name: 'Lovelace', Email: 'ada@example.com', Account_Name: { id: account }, Region: 'EMEA' }] }),
      createdId: (body) => body.data[0].details.id,
    },
    update: { method: 'PUT', status: 200, body: (_id, firstName) => ({ data: [{ First_Name: firstName }] }) },
    badFirstName: { first: 'Ada' },
    badStatus: 400,
    deleteStatus: 200,
    nativeView: (native) => ({ firstName: native.First_Name, region: native.Region, account: native.Account_Name?.id }),
    engagementEmail: (native) => native.email ?? native.Email,
    notFound: { path: 'Widgets/1/2', check: (body) => expect(body).toMatchObject({ code: 'INVALID_URL_PATTERN', status: 'error' }) },
    missing: (body) => expect(body).toMatchObject({ data: [{ code: 'INVALID_DATA', status: 'error' }] }),
  },
  {
    id: 'outreach',
    firstNameField: 'firstName',
    list: (page, size) => ({ method: 'GET', path: 'prospects', query: { 'page[size]': String(size), 'page[offset]': String((page - 1) * size) } }),
    listed: (body) => ({ ids: body.data.map((row: Body) => String(row.id)), more: body.links.next !== undefined }),
    itemPath: (id) => `prospects/${id}`,
    unwrapOne: (body) => body.data,
    create: {
      path: 'prospects',
      status: 201,
      body: (account) => ({
        data: {
          type: 'prospect',
          attributes: { firstName: 'Ada', lastName: 'Lovelace', emails: ['ada@example.com'], custom1: 'EMEA' },
          relationships: { account: { data: { type: 'account', id: Number(account) } } },
        },
      }),
      createdId: (body) => String(body.data.id),
    },
    update: { method: 'PATCH', status: 200, body: (id, firstName) => ({ data: { type: 'prospect', id: Number(id), attributes: { firstName } } }) },
    badFirstName: 42,
    badStatus: 422,
    deleteStatus: 204,
    nativeView: (native) => ({ firstName: native.attributes.firstName, region: native.attributes.custom1, account: native.relationships.account.data?.id }),
    engagementEmail: (native) => native.attributes.email,
    notFound: { path: 'widgets', check: (body) => expect(body).toMatchObject({ errors: [{ id: 'resourceNotFound', title: 'Resource Not Found' }] }) },
    missing: (body) => expect(body).toMatchObject({ errors: [{ id: 'resourceNotFound', detail: expect.stringContaining("'prospect'") }] }),
  },
  {
    id: 'salesloft',
    firstNameField: 'first_name',
    list: (page, size) => ({ method: 'GET', path: 'people', query: { page: String(page), per_page: String(size) } }),
    listed: (body) => ({ ids: body.data.map((row: Body) => String(row.id)), more: body.metadata.paging.next_page !== null }),
    itemPath: (id) => `people/${id}`,
    unwrapOne: (body) => body.data,
    create: {
      path: 'people',
      status: 200,
      body: (account) => ({
        first_name: 'Ada',
        last_name: 'Lovelace',
        email_address: 'ada@example.com',
        account_id: Number(account),
        custom_fields: { region: 'EMEA' },
      }),
      createdId: (body) => String(body.data.id),
    },
    update: { method: 'PUT', status: 200, body: (_id, firstName) => ({ first_name: firstName }) },
    badFirstName: 42,
    badStatus: 422,
    deleteStatus: 204,
    nativeView: (native) => ({ firstName: native.first_name, region: native.custom_fields.region, account: native.account?.id }),
    engagementEmail: (native) => native.email ?? native.email_address,
    notFound: { path: 'widgets', check: (body) => expect(body).toEqual({ status: 404, error: 'Not Found' }) },
    missing: (body) => expect(body).toEqual({ status: 404, error: 'Not Found' }),
  },
  {
    id: 'apollo',
    firstNameField: 'first_name',
    list: (page, size) => ({ method: 'POST', path: 'contacts/search', body: { page, per_page: size } }),
    listed: (body) => ({ ids: body.contacts.map((row: Body) => row.id), more: body.pagination.page < body.pagination.total_pages }),
    itemPath: (id) => `contacts/${id}`,
    unwrapOne: (body) => body.contact,
    create: {
      path: 'contacts',
      status: 200,
      body: (account) => ({ first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', account_id: account, typed_custom_fields: { region: 'EMEA' } }),
      createdId: (body) => body.contact.id,
    },
    update: { method: 'PUT', status: 200, body: (_id, firstName) => ({ first_name: firstName }) },
    badFirstName: 42,
    badStatus: 422,
    deleteStatus: 200,
    nativeView: (native) => ({ firstName: native.first_name, region: native.typed_custom_fields.region, account: native.account_id }),
    engagementEmail: (native) => native.email,
    notFound: { path: 'widgets', check: (body) => expect(body).toEqual({ error: 'Not found' }) },
    missing: (body) => expect(body).toEqual({ error: 'Not found' }),
  },
];

const request = (method: Method, path: string, body?: unknown, query: Record<string, string> = {}): DownstreamRequest => ({ method, path, query, body });

describe('DOWNSTREAM', () => {
  it('has one system per integration, under its own id', () => {
    for (const [id, system] of Object.entries(DOWNSTREAM)) expect(system.integrationId).toBe(id);
    expect(downstreamFor('zoho')).toBe(DOWNSTREAM.zoho);
  });
});

describe.each(CASES)('$id', (c) => {
  const system = downstreamFor(c.id);
  const setup = () => {
    const { data, changes, context } = makeData(c.id);
    const call = (req: DownstreamRequest): DownstreamResponse => system.handle(req, context);
    const contacts = data.crm.Contact.entries();
    return { data, changes, context, call, contacts };
  };
  const firstName = (record: CrmRecord | undefined) => (record as CrmRecord<'Contact'> | undefined)?.firstName;

  it('lists contacts page by page, in store order, saying when more follow', () => {
    const { call, contacts } = setup();
    const page = (n: number, size: number) => {
      const { method, path, query, body } = c.list(n, size);
      const answer = call(request(method, path, body, query));
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json;charset=utf-8');
      return c.listed(answer.body as Body);
    };
    const first = page(1, 5);
    const second = page(2, 5);
    expect(first.ids).toEqual(contacts.slice(0, 5).map((entry) => entry.record.nativeId));
    expect(second.ids).toEqual(contacts.slice(5, 10).map((entry) => entry.record.nativeId));
    if (first.more !== undefined) expect(first.more).toBe(true);
    const last = page(Math.ceil(contacts.length / 7), 7);
    expect(last.ids).toEqual(contacts.slice(Math.floor((contacts.length - 1) / 7) * 7).map((entry) => entry.record.nativeId));
    if (last.more !== undefined) expect(last.more).toBe(false);
  });

  it('gets one contact by native id, custom fields included', () => {
    const { call, contacts } = setup();
    const entry = contacts[3]!;
    const answer = call(request('GET', c.itemPath(entry.record.nativeId)));
    expect(answer.statusCode).toBe(200);
    const view = c.nativeView(c.unwrapOne(answer.body as Body));
    expect(view.firstName).toBe(firstName(entry.record));
    expect(view.region).toBe((entry.extra.custom as Body).region);
  });

  it('creates a contact: it is stored, linked, reported as CREATE, and readable natively', () => {
    const { data, changes, call } = setup();
    const account = data.crm.Account.entries()[2]!.record;
    const answer = call(request('POST', c.create.path, c.create.body(account.nativeId)));
    expect(answer.statusCode).toBe(c.create.status);
    const nativeId = c.create.createdId(answer.body as Body);
    const entry = data.crm.Contact.getByNativeId(String(nativeId))!;
    expect(entry).toBeDefined();
    const record = entry.record as CrmRecord<'Contact'>;
    expect(record).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
    expect(record.associations.accountIds).toEqual([account.id]);
    expect((data.crm.Account.get(account.id) as CrmRecord<'Account'>).associations.contactIds).toContain(record.id);
    expect(entry.extra.custom).toMatchObject({ region: 'EMEA' });
    expect(changes).toEqual([{ objectType: 'Contact', eventType: 'CREATE', record }]);
    // What the caller left out is empty, as in the real system (not generated).
    expect(record.jobTitle).toBeNull();
    const back = c.nativeView(c.unwrapOne(call(request('GET', c.itemPath(String(nativeId)))).body as Body));
    expect(back).toEqual({
      firstName: 'Ada',
      region: 'EMEA',
      account: c.id === 'pipedrive' || c.id === 'outreach' || c.id === 'salesloft' ? Number(account.nativeId) : account.nativeId,
    });
  });

  it(`updates a contact with ${c.update.method}, reported as UPDATE`, () => {
    const { data, changes, call, contacts } = setup();
    const { record } = contacts[4]!;
    const answer = call(request(c.update.method, c.itemPath(record.nativeId), c.update.body(record.nativeId, 'Augusta')));
    expect(answer.statusCode).toBe(c.update.status);
    const after = data.crm.Contact.get(record.id)!;
    expect(firstName(after)).toBe('Augusta');
    expect((after as CrmRecord<'Contact'>).lastName).toBe((record as CrmRecord<'Contact'>).lastName);
    expect(changes.map((change) => [change.objectType, change.eventType, change.record.id])).toEqual([['Contact', 'UPDATE', record.id]]);
  });

  it('deletes a contact, reported as DELETE; it is gone natively too', () => {
    const { data, changes, call, contacts } = setup();
    const { record } = contacts[6]!;
    const answer = call(request('DELETE', c.itemPath(record.nativeId)));
    expect(answer.statusCode).toBe(c.deleteStatus);
    expect(data.crm.Contact.get(record.id)).toBeUndefined();
    expect(changes.filter((change) => change.objectType === 'Contact').map((change) => [change.eventType, change.record.id])).toEqual([['DELETE', record.id]]);
    const again = call(request('GET', c.itemPath(record.nativeId)));
    expect(again.statusCode).toBe(404);
    c.missing(again.body);
  });

  it('answers an unknown path with its own 404', () => {
    const { call } = setup();
    const answer = call(request('GET', c.notFound.path));
    expect(answer.statusCode).toBe(404);
    c.notFound.check(answer.body);
  });

  it('answers an unknown record id with its own 404, for reads and writes alike', () => {
    const { call, changes } = setup();
    const id = c.id === 'apollo' ? 'f'.repeat(24) : c.id === 'salesforce' ? '003000000000000AAA' : '999999999';
    for (const method of ['GET', c.update.method, 'DELETE'] as const) {
      const answer = call(request(method, c.itemPath(id), method === 'GET' || method === 'DELETE' ? undefined : c.update.body(id, 'X')));
      expect(answer.statusCode).toBe(404);
      c.missing(answer.body);
    }
    expect(changes).toEqual([]);
  });

  it('refuses a wrong-typed field with its own 4xx naming the native field, changing nothing', () => {
    const { data, changes, call, contacts } = setup();
    const { record } = contacts[2]!;
    const versionBefore = data.crm.Contact.version;
    const answer = call(request(c.update.method, c.itemPath(record.nativeId), c.update.body(record.nativeId, c.badFirstName)));
    expect(answer.statusCode).toBe(c.badStatus);
    expect(JSON.stringify(answer.body)).toContain(c.firstNameField);
    expect(data.crm.Contact.get(record.id)).toBe(record);
    expect(data.crm.Contact.version).toBe(versionBefore);
    expect(changes).toEqual([]);
  });

  it('refuses a body that is not an object with its own 4xx, changing nothing', () => {
    const { changes, call, data } = setup();
    const before = data.crm.Contact.size;
    const answer = call(request('POST', c.create.path, ['not', 'an', 'object']));
    expect(answer.statusCode).toBeGreaterThanOrEqual(400);
    expect(answer.statusCode).toBeLessThan(500);
    expect(data.crm.Contact.size).toBe(before);
    expect(changes).toEqual([]);
  });

  it('renders records and engagement records natively, custom fields included', () => {
    const { data, context, contacts } = setup();
    const entry = contacts.find((candidate) => (candidate.record as CrmRecord<'Contact'>).associations.accountIds.length > 0)!;
    const account = data.crm.Account.get((entry.record as CrmRecord<'Contact'>).associations.accountIds[0]!)!;
    const view = c.nativeView(system.nativeRecord('Contact', entry.record, entry.extra, context) as Body);
    expect(view.firstName).toBe(firstName(entry.record));
    expect(String(view.region)).toBe(String((entry.extra.custom as Body).region));
    expect(String(view.account)).toBe(account.nativeId);

    const mailbox = data.mailboxes.entries()[0]!;
    expect(c.engagementEmail(system.nativeEngagement('mailboxes', mailbox.record, mailbox.extra, context) as Body)).toBe(mailbox.record.email);
    const user = data.users.entries()[0]!;
    const nativeUser = system.nativeEngagement('users', user.record, user.extra, context) as Body;
    expect(c.engagementEmail(nativeUser)).toBe(user.record.email);
    expect(JSON.stringify(nativeUser)).toContain(String((user.extra.custom as Body).tier));
    // Same input, same output: nothing depends on the wall clock.
    expect(system.nativeRecord('Contact', entry.record, entry.extra, context)).toEqual(system.nativeRecord('Contact', entry.record, entry.extra, context));
  });
});
