import { AssociationTypes, Client } from '@hubspot/api-client';
import { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4/index.js';
import { FilterOperatorEnum } from '@hubspot/api-client/lib/codegen/crm/contacts/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceEvent } from '../../src/model/events.js';
import { openApiChecker } from '../helpers/openapi-conformance.js';
import { type BridgedCall, type SdkBridge, startSdkBridge } from '../helpers/sdk-bridge.js';
import { HUBSPOT_CRM_RESPONSES } from '../vendor-specs/hubspot/crm-responses.js';

/**
 * HubSpot as `@hubspot/api-client` 14 sees it, through the SDK bridge: the flows of the SDK's
 * README and HubSpot's CRM guides, unchanged. The SDK's deserialisers must find every field its
 * models declare, typed as declared; after each test, every answer is checked against HubSpot's
 * published response schema for its operation (test/vendor-specs/hubspot/).
 */

const checkAnswer = openApiChecker(HUBSPOT_CRM_RESPONSES);

/** The spec's verdict on one bridged answer: a 204 has no body; any other is checked against the operation's schema. */
function vendorSpecViolations(call: BridgedCall): string[] {
  const { statusCode, body } = call.answer;
  const label = `${call.request.method} ${call.request.path} → ${statusCode}`;
  if (statusCode === 204) return body === null ? [] : [`${label}: a 204 with a body`];
  return checkAnswer({
    request: {
      method: call.request.method,
      path: `/${call.request.path}`,
      query: '',
      headers: {},
      body: call.request.body === undefined ? undefined : JSON.stringify(call.request.body),
    },
    response: { status: statusCode, headers: {}, body: JSON.stringify(body) },
  });
}

let bridge: SdkBridge | undefined;
afterEach(async () => {
  const calls = bridge?.calls ?? [];
  await bridge?.close();
  bridge = undefined;
  expect(calls.every((call) => call.status === 200)).toBe(true);
  expect(calls.flatMap(vendorSpecViolations)).toEqual([]);
});

async function start() {
  bridge = await startSdkBridge({ integrationId: 'hubspot', hosts: ['https://api.hubapi.com'] });
  const events: ServiceEvent[] = [];
  bridge.sandbox.onEvent((event) => events.push(event));
  return { bridge, client: new Client({ accessToken: bridge.accessToken }), events };
}

const objectChanges = (events: ServiceEvent[]) => events.filter((event) => event.type === 'OBJECT_CHANGE') as Array<ServiceEvent & { data: any }>;

/** What the SDK's `SimplePublicObject` declares, typed as its deserialiser makes it. */
function expectSdkObject(object: { id: unknown; createdAt: unknown; updatedAt: unknown; archived?: unknown; properties: unknown }) {
  expect(object.id).toMatch(/^\d+$/);
  expect(object.createdAt).toBeInstanceOf(Date);
  expect(object.updatedAt).toBeInstanceOf(Date);
  expect(Number.isNaN((object.createdAt as Date).getTime())).toBe(false);
  expect(object.archived).toBe(false);
  expect(typeof object.properties).toBe('object');
}

describe('@hubspot/api-client 14: objects', () => {
  it('creates a contact, reads it with several properties (repeated properties=) and updates it', async () => {
    const { bridge, client, events } = await start();
    const created = await client.crm.contacts.basicApi.create({
      properties: { email: 'ada@sdk.test', firstname: 'Ada', lastname: 'Sdk', jobtitle: 'Engineer' },
      associations: [],
    });
    expectSdkObject(created);
    const read = await client.crm.contacts.basicApi.getById(created.id, ['email', 'firstname', 'lastname', 'jobtitle']);
    expectSdkObject(read);
    expect(read.properties).toMatchObject({ email: 'ada@sdk.test', firstname: 'Ada', lastname: 'Sdk', jobtitle: 'Engineer', hs_object_id: created.id });
    expect(bridge.calls[1]!.request.query).toMatchObject({ properties: ['email', 'firstname', 'lastname', 'jobtitle'] });
    const updated = await client.crm.contacts.basicApi.update(created.id, { properties: { jobtitle: 'Lead Engineer' } });
    expect(updated.properties.jobtitle).toBe('Lead Engineer');
    // The unified side and the events see the native writes.
    const contact = bridge.sandbox.listRecords(bridge.connectionId, 'Contact').find((record) => record.nativeId === created.id)!;
    expect(contact).toMatchObject({ firstName: 'Ada', lastName: 'Sdk', jobTitle: 'Lead Engineer' });
    await bridge.sandbox.settle();
    expect(objectChanges(events).map((event) => [event.data.eventType ?? event.data.changeType, JSON.stringify(event).includes(contact.id)])).toEqual([
      [expect.stringMatching(/CREATE/), true],
      [expect.stringMatching(/UPDATE/), true],
    ]);
  });

  it('archives a contact: the next read is the SDK’s 404 ApiException with HubSpot’s error body', async () => {
    const { bridge, client } = await start();
    const contact = bridge.sandbox.listRecords(bridge.connectionId, 'Contact')[0]!;
    await client.crm.contacts.basicApi.archive(contact.nativeId!);
    const failure = await client.crm.contacts.basicApi.getById(contact.nativeId!).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 404, body: { status: 'error', category: 'OBJECT_NOT_FOUND' } });
    expect(bridge.sandbox.listRecords(bridge.connectionId, 'Contact').some((record) => record.id === contact.id)).toBe(false);
  });

  it('companies and deals: create, read with properties, update', async () => {
    const { client } = await start();
    const company = await client.crm.companies.basicApi.create({
      properties: { name: 'Sdk Co', domain: 'sdk-co.test', industry: 'COMPUTER_SOFTWARE' },
      associations: [],
    });
    const readCompany = await client.crm.companies.basicApi.getById(company.id, ['name', 'domain', 'industry']);
    expectSdkObject(readCompany);
    expect(readCompany.properties).toMatchObject({ name: 'Sdk Co', domain: 'sdk-co.test', industry: 'COMPUTER_SOFTWARE' });
    const deal = await client.crm.deals.basicApi.create({
      properties: { dealname: 'Sdk deal', amount: '1500', pipeline: 'default' },
      associations: [
        {
          to: { id: company.id },
          types: [{ associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined as any, associationTypeId: AssociationTypes.dealToCompany }],
        },
      ],
    });
    const readDeal = await client.crm.deals.basicApi.getById(deal.id, ['dealname', 'amount'], undefined, ['companies']);
    expectSdkObject(readDeal);
    expect(readDeal.properties).toMatchObject({ dealname: 'Sdk deal', amount: '1500' });
    expect(readDeal.associations?.companies?.results).toEqual([{ id: company.id, type: 'deal_to_company' }]);
    const updated = await client.crm.deals.basicApi.update(deal.id, { properties: { amount: '2000' } });
    expect(updated.properties.amount).toBe('2000');
  });
});

describe('@hubspot/api-client 14: emails', () => {
  it('logs an email on a contact, reads it with its association, updates it and finds it: a stored Email and its events', async () => {
    const { bridge, client, events } = await start();
    const contact = bridge.sandbox.listRecords(bridge.connectionId, 'Contact').find((record) => 'email' in record)! as {
      id: string;
      nativeId: string;
      email: string;
    };
    const created = await client.crm.objects.emails.basicApi.create({
      properties: {
        hs_timestamp: '2025-01-01T09:00:00.000Z',
        hs_email_direction: 'EMAIL',
        hs_email_status: 'SENT',
        hs_email_subject: 'Sdk email',
        hs_email_text: 'Logged through the SDK',
        hs_email_headers: JSON.stringify({ from: { email: 'rep@acme.com' }, to: [{ email: contact.email }], cc: [], bcc: [] }),
      },
      associations: [
        {
          to: { id: contact.nativeId },
          types: [{ associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined as any, associationTypeId: AssociationTypes.emailToContact }],
        },
      ],
    });
    expectSdkObject(created);
    const read = await client.crm.objects.emails.basicApi.getById(created.id, ['hs_email_subject', 'hs_email_to_email'], undefined, ['contacts']);
    expectSdkObject(read);
    expect(read.properties).toMatchObject({ hs_email_subject: 'Sdk email', hs_email_to_email: contact.email });
    expect(read.associations?.contacts?.results).toEqual([{ id: contact.nativeId, type: 'email_to_contact' }]);
    const updated = await client.crm.objects.emails.basicApi.update(created.id, { properties: { hs_email_status: 'BOUNCED' } });
    expect(updated.properties.hs_email_status).toBe('BOUNCED');
    const found = await client.crm.objects.emails.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: 'hs_email_subject', operator: FilterOperatorEnum.Eq, value: 'Sdk email' }] }],
      properties: ['hs_email_subject'],
      limit: 10,
      after: '0',
      sorts: [],
    });
    expect(found.results.map((email) => email.id)).toEqual([created.id]);
    const email = bridge.sandbox.listRecords(bridge.connectionId, 'Email').find((record) => record.nativeId === created.id)!;
    expect(email).toMatchObject({ subject: 'Sdk email', from: 'rep@acme.com', to: [contact.email], isBounced: true, status: 'BOUNCED' });
    expect(email.associations).toMatchObject({ contactIds: [contact.id] });
    // Email changes are events only with emailEvents (off here): the native writes emit none.
    await bridge.sandbox.settle();
    expect(objectChanges(events)).toEqual([]);
  });
});

describe('@hubspot/api-client 14: paging and search', () => {
  it('pages with getPage and after, and getAll reads every contact once', async () => {
    const { bridge, client } = await start();
    const first = await client.crm.contacts.basicApi.getPage(2, undefined, ['email', 'firstname'], undefined, ['companies']);
    expect(first.results).toHaveLength(2);
    for (const contact of first.results) expectSdkObject(contact);
    expect(Object.keys(first.results[0]!.properties).sort()).toEqual(['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate']);
    expect(first.paging?.next?.after).toBe('2');
    expect(first.paging?.next?.link).toContain('properties=email&properties=firstname');
    const second = await client.crm.contacts.basicApi.getPage(2, first.paging!.next!.after, ['email']);
    expect(second.results.map((contact) => contact.id)).not.toContain(first.results[0]!.id);
    const all = await client.crm.contacts.getAll(50, undefined, ['email']);
    const unified = bridge.sandbox.listRecords(bridge.connectionId, 'Contact');
    expect(new Set(all.map((contact) => contact.id)).size).toBe(unified.length);
    expect(all.map((contact) => contact.id).sort()).toEqual(unified.map((record) => record.nativeId).sort());
  });

  it('searches with doSearch: filters, a sort, properties, limit and after as the README writes them', async () => {
    const { bridge, client } = await start();
    const contact = bridge.sandbox.listRecords(bridge.connectionId, 'Contact')[3] as { nativeId: string; email: string };
    const found = await client.crm.contacts.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: 'email', operator: FilterOperatorEnum.Eq, value: contact.email }] }],
      sorts: ['-createdate'],
      properties: ['email', 'createdate'],
      limit: 100,
      after: '0',
    });
    expect(found.total).toBe(1);
    expect(found.results.map((row) => row.id)).toEqual([contact.nativeId]);
    expectSdkObject(found.results[0]!);
    // The properties the body names (and those HubSpot always shows), not every property.
    expect(Object.keys(found.results[0]!.properties).sort()).toEqual(['createdate', 'email', 'hs_object_id', 'lastmodifieddate']);
    const recent = await client.crm.contacts.searchApi.doSearch({
      filterGroups: [{ filters: [{ propertyName: 'createdate', operator: FilterOperatorEnum.Gte, value: String(Date.parse('2024-01-01T00:00:00Z')) }] }],
      sorts: [{ propertyName: 'createdate', direction: 'DESCENDING' }] as any,
      properties: ['createdate', 'firstname', 'lastname'],
      limit: 5,
      after: '0',
    });
    expect(recent.total).toBeGreaterThan(0);
    const dates = recent.results.map((row) => row.properties.createdate!);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(dates.every((date) => date >= '2024-01-01')).toBe(true);
  });
});

describe('@hubspot/api-client 14: batch', () => {
  it('creates, reads, updates and archives deals in batches; the unified deals and events follow', async () => {
    const { bridge, client, events } = await start();
    const created = await client.crm.deals.batchApi.create({
      inputs: [
        { properties: { dealname: 'Batch A', amount: '100' }, associations: [] },
        { properties: { dealname: 'Batch B', amount: '200' }, associations: [] },
      ],
    });
    expect(created.status).toBe('COMPLETE');
    expect(created.completedAt).toBeInstanceOf(Date);
    const ids = created.results.map((deal) => deal.id);
    expect(ids).toHaveLength(2);
    const read = await client.crm.deals.batchApi.read({ inputs: ids.map((id) => ({ id })), properties: ['dealname', 'amount'], propertiesWithHistory: [] });
    expect(read.results.map((deal) => [deal.properties.dealname, deal.properties.amount]).sort()).toEqual([
      ['Batch A', '100'],
      ['Batch B', '200'],
    ]);
    expect(read.results.every((deal) => !('pipeline' in deal.properties))).toBe(true);
    const updated = await client.crm.deals.batchApi.update({ inputs: ids.map((id) => ({ id, properties: { amount: '300' } })) });
    expect(updated.results.map((deal) => deal.properties.amount)).toEqual(['300', '300']);
    const unified = () => bridge.sandbox.listRecords(bridge.connectionId, 'Deal').filter((deal) => ids.includes(deal.nativeId!));
    expect(unified().map((deal) => (deal as { amount?: unknown }).amount)).toEqual([300, 300]);
    await client.crm.deals.batchApi.archive({ inputs: ids.map((id) => ({ id })) });
    expect(unified()).toEqual([]);
    await bridge.sandbox.settle();
    expect(objectChanges(events)).toHaveLength(6);
  });
});

describe('@hubspot/api-client 14: v4 associations', () => {
  it('links a company to a contact with an array body (the README flow), lists, reads on the object and archives the link', async () => {
    const { bridge, client, events } = await start();
    const contact = await client.crm.contacts.basicApi.create({ properties: { firstname: 'Linus', lastname: 'Link' } });
    const company = await client.crm.companies.basicApi.create({ properties: { domain: 'linked.test', name: 'Linked' } });
    const labels = await client.crm.associations.v4.basicApi.create('companies', company.id, 'contacts', contact.id, [
      { associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined, associationTypeId: AssociationTypes.companyToContact },
    ]);
    expect(labels).toMatchObject({ fromObjectTypeId: '0-2', toObjectTypeId: '0-1', labels: [] });
    expect(bridge.calls.at(-1)!.request.body).toEqual([{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 280 }]);
    // The README reads with singular object names.
    const page = await client.crm.associations.v4.basicApi.getPage('contact', contact.id, 'company', undefined, 10);
    expect(page.results.map((row) => String(row.toObjectId))).toEqual([company.id]);
    expect(page.results[0]!.associationTypes).toContainEqual(
      expect.objectContaining({ category: 'HUBSPOT_DEFINED', typeId: AssociationTypes.contactToCompany }),
    );
    const read = await client.crm.contacts.basicApi.getById(contact.id, ['firstname'], undefined, ['companies']);
    expect(read.associations?.companies?.results.map((row) => row.id)).toEqual([company.id]);
    const unifiedContact = bridge.sandbox.listRecords(bridge.connectionId, 'Contact').find((record) => record.nativeId === contact.id)!;
    const unifiedCompany = bridge.sandbox.listRecords(bridge.connectionId, 'Account').find((record) => record.nativeId === company.id)!;
    expect(unifiedContact.associations).toMatchObject({ accountIds: [unifiedCompany.id] });
    await client.crm.associations.v4.basicApi.archive('contacts', contact.id, 'companies', company.id);
    expect((await client.crm.associations.v4.basicApi.getPage('contacts', contact.id, 'companies')).results).toEqual([]);
    await bridge.sandbox.settle();
    // Two creates, the link and the unlink.
    expect(objectChanges(events)).toHaveLength(4);
  });

  it('takes the primary association type (contact to company, 1) as the same link', async () => {
    const { bridge, client } = await start();
    const contact = bridge.sandbox.listRecords(bridge.connectionId, 'Contact')[0]!;
    const company = bridge.sandbox.listRecords(bridge.connectionId, 'Account').at(-1)!;
    await client.crm.associations.v4.basicApi.create('contacts', contact.nativeId!, 'companies', company.nativeId!, [
      { associationCategory: AssociationSpecAssociationCategoryEnum.HubspotDefined, associationTypeId: AssociationTypes.primaryContactToCompany },
    ]);
    expect(bridge.sandbox.getRecord(bridge.connectionId, 'Contact', contact.id).associations).toMatchObject({
      accountIds: expect.arrayContaining([company.id]),
    });
  });
});
