import { describe, expect, it } from 'vitest';
import { seededData } from '../../../test/helpers/seeded-data.js';
import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import type { ConnectionData } from '../../store/connection-data.js';
import { downstreamFor } from '../index.js';
import type { DownstreamRequest } from '../types.js';

/**
 * HubSpot as its CRM v3/v4 docs describe it: search, batch, archived reads, properties and v4
 * associations, over the connection's records (so the unified side and the events agree).
 */

function makeData() {
  const { data, changes, context } = seededData('hubspot');
  const call = (method: DownstreamRequest['method'], path: string, body?: unknown, query: Record<string, string> = {}) =>
    downstreamFor('hubspot').handle({ method, path, query, body }, context) as { statusCode: number; headers: Record<string, string>; body: any };
  return { data, changes, context, call };
}

const nth = <T extends CrmRecord = CrmRecord>(data: ConnectionData, type: CrmObjectType, index: number) => data.crm[type].entries()[index]!.record as T;
const search = (call: ReturnType<typeof makeData>['call'], type: string, body: unknown) => call('POST', `crm/v3/objects/${type}/search`, body);

describe('hubspot company domain', () => {
  it('takes domain as a writable property: it becomes the website, reads back, reported as UPDATE', () => {
    const { data, changes, call } = makeData();
    const company = nth(data, 'Account', 0);
    const answer = call('PATCH', `crm/v3/objects/companies/${company.nativeId}`, { properties: { domain: 'example.org' } });
    expect(answer.statusCode).toBe(200);
    expect(answer.body.properties.domain).toBe('example.org');
    expect(data.crm.Account.get(company.id)).toMatchObject({ website: 'https://example.org' });
    expect(changes).toEqual([expect.objectContaining({ objectType: 'Account', eventType: 'UPDATE' })]);
    const created = call('POST', 'crm/v3/objects/companies', { properties: { name: 'Both', domain: 'ignored.io', website: 'https://www.both.io' } });
    expect(created.body.properties).toMatchObject({ website: 'https://www.both.io', domain: 'both.io' });
  });

  it('describes domain as writable and hs_object_id as read-only in the properties API', () => {
    const { call } = makeData();
    const all = call('GET', 'crm/v3/properties/companies');
    expect(all.statusCode).toBe(200);
    const byName = Object.fromEntries(all.body.results.map((property: any) => [property.name, property]));
    expect(byName.domain.modificationMetadata).toEqual({ archivable: false, readOnlyDefinition: true, readOnlyValue: false });
    expect(byName.hs_object_id.modificationMetadata.readOnlyValue).toBe(true);
    expect(byName.createdate).toMatchObject({ type: 'datetime', modificationMetadata: { readOnlyValue: true } });
    expect(byName.region.modificationMetadata).toEqual({ archivable: true, readOnlyDefinition: false, readOnlyValue: false });
    expect(byName.associations).toBeUndefined();
    expect(call('GET', 'crm/v3/properties/0-2/domain').body).toMatchObject({ name: 'domain', type: 'string' });
    expect(call('GET', 'crm/v3/properties/companies/nope')).toMatchObject({ statusCode: 404, body: { status: 'error', category: 'OBJECT_NOT_FOUND' } });
    expect(call('GET', 'crm/v3/properties/widgets').statusCode).toBe(404);
  });
});

describe('hubspot search', () => {
  it('filters with EQ (case-insensitive), returns the default properties and the total', () => {
    const { data, call } = makeData();
    const contact = nth<CrmRecord<'Contact'>>(data, 'Contact', 5);
    const answer = search(call, 'contacts', { filterGroups: [{ filters: [{ propertyName: 'email', operator: 'EQ', value: contact.email!.toUpperCase() }] }] });
    expect(answer.statusCode).toBe(200);
    expect(answer.body.total).toBe(1);
    expect(answer.body.paging).toBeUndefined();
    expect(answer.body.results[0].id).toBe(contact.nativeId);
    expect(Object.keys(answer.body.results[0].properties).sort()).toEqual(['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname']);
  });

  it('ORs filter groups and ANDs filters within one; IN, NEQ, HAS_PROPERTY, CONTAINS_TOKEN and BETWEEN', () => {
    const { data, call } = makeData();
    const contacts = [...data.crm.Contact.values()] as CrmRecord<'Contact'>[];
    const [a, b] = [contacts[1]!, contacts[2]!];
    const ids = (body: any) => body.results.map((row: any) => row.id);
    const or = search(call, 'contacts', {
      filterGroups: [{ filters: [{ propertyName: 'email', value: a.email }] }, { filters: [{ propertyName: 'email', value: b.email }] }],
    });
    expect(ids(or.body)).toEqual([a.nativeId, b.nativeId]);
    const and = search(call, 'contacts', {
      filterGroups: [
        {
          filters: [
            { propertyName: 'email', value: a.email },
            { propertyName: 'firstname', operator: 'NEQ', value: a.firstName },
          ],
        },
      ],
    });
    expect(and.body.total).toBe(0);
    const inList = search(call, 'contacts', {
      filterGroups: [{ filters: [{ propertyName: 'email', operator: 'IN', values: [a.email, b.email, 'nobody@nowhere.test'] }] }],
    });
    expect(ids(inList.body)).toEqual([a.nativeId, b.nativeId]);
    const domain = a.email!.split('@')[1]!;
    const token = search(call, 'contacts', {
      filterGroups: [{ filters: [{ propertyName: 'email', operator: 'CONTAINS_TOKEN', value: `*@${domain}` }] }],
      limit: 200,
    });
    expect(token.body.total).toBe(contacts.filter((contact) => contact.email?.endsWith(`@${domain}`)).length);
    const withPhone = search(call, 'contacts', { filterGroups: [{ filters: [{ propertyName: 'phone', operator: 'HAS_PROPERTY' }] }] });
    expect(withPhone.body.total).toBe(contacts.filter((contact) => contact.phone).length);
    const deals = [...data.crm.Deal.values()] as CrmRecord<'Deal'>[];
    const between = search(call, 'deals', {
      filterGroups: [{ filters: [{ propertyName: 'amount', operator: 'BETWEEN', value: '1000', highValue: '50000' }] }],
    });
    expect(between.body.total).toBe(deals.filter((deal) => deal.amount !== null && deal.amount >= 1000 && deal.amount <= 50000).length);
    // A date-time filter takes epoch milliseconds, as HubSpot's do.
    const cutoff = Date.parse(contacts[10]!.createdTime);
    const newer = search(call, 'contacts', { filterGroups: [{ filters: [{ propertyName: 'createdate', operator: 'GT', value: String(cutoff) }] }] });
    expect(newer.body.total).toBe(contacts.filter((contact) => Date.parse(contact.createdTime) > cutoff).length);
  });

  it('pages with after to the end without gaps or repeats, sorted as asked', () => {
    const { data, call } = makeData();
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const answer = search(call, 'contacts', { sorts: [{ propertyName: 'lastname', direction: 'DESCENDING' }], limit: 7, ...(after ? { after } : {}) });
      expect(answer.statusCode).toBe(200);
      expect(answer.body.total).toBe(data.crm.Contact.size);
      seen.push(...answer.body.results.map((row: any) => row.id));
      after = answer.body.paging?.next.after;
      pages++;
    } while (after && pages < 100);
    expect(seen).toHaveLength(data.crm.Contact.size);
    expect(new Set(seen).size).toBe(seen.length);
    const lastNames = seen.map((id) => (data.crm.Contact.getByNativeId(id)!.record as CrmRecord<'Contact'>).lastName!.toLowerCase());
    expect(lastNames).toEqual([...lastNames].sort().reverse());
  });

  it('searches by free-text query and returns the properties asked for', () => {
    const { data, call } = makeData();
    const company = nth<CrmRecord<'Account'>>(data, 'Account', 3);
    const word = company.name!.split(/\s+/)[0]!;
    const answer = search(call, 'companies', { query: word, properties: ['name', 'industry'] });
    expect(answer.body.results.map((row: any) => row.id)).toContain(company.nativeId);
    for (const row of answer.body.results) expect(row.properties.name.toLowerCase()).toContain(word.toLowerCase());
    expect(Object.keys(answer.body.results[0].properties)).toEqual(expect.arrayContaining(['name', 'industry', 'hs_object_id']));
    expect(answer.body.results[0].properties.website).toBeUndefined();
  });

  it('refuses unknown properties, unknown operators and too many filters as VALIDATION_ERROR', () => {
    const { call } = makeData();
    const unknown = search(call, 'contacts', { filterGroups: [{ filters: [{ propertyName: 'shoe_size', value: '9' }] }] });
    expect(unknown).toMatchObject({ statusCode: 400, body: { status: 'error', category: 'VALIDATION_ERROR' } });
    expect(unknown.body.message).toContain('shoe_size');
    const operator = search(call, 'contacts', { filterGroups: [{ filters: [{ propertyName: 'email', operator: 'LIKE', value: 'x' }] }] });
    expect(operator).toMatchObject({ statusCode: 400, body: { category: 'VALIDATION_ERROR', message: expect.stringContaining('operator') } });
    const groups = Array.from({ length: 6 }, () => ({ filters: [{ propertyName: 'email', value: 'x' }] }));
    expect(search(call, 'contacts', { filterGroups: groups }).body.message).toContain('at most 5 filterGroups');
    expect(search(call, 'contacts', { filterGroups: [{ filters: [{ propertyName: 'email', operator: 'IN' }] }] }).statusCode).toBe(400);
    expect(search(call, 'contacts', { limit: 'ten' }).statusCode).toBe(400);
    expect(search(call, 'contacts', { after: '10000' })).toMatchObject({ statusCode: 400, body: { message: expect.stringContaining('10000') } });
    expect(search(call, 'widgets', {}).statusCode).toBe(404);
  });
});

describe('hubspot batch', () => {
  it('reads many by id or by a unique property, 207 with the ids it could not find', () => {
    const { data, call } = makeData();
    const [a, b] = [nth<CrmRecord<'Contact'>>(data, 'Contact', 0), nth<CrmRecord<'Contact'>>(data, 'Contact', 1)];
    const read = call('POST', 'crm/v3/objects/contacts/batch/read', { inputs: [{ id: a.nativeId }, { id: b.nativeId }], properties: ['email'] });
    expect(read).toMatchObject({ statusCode: 200, body: { status: 'COMPLETE', results: [{ id: a.nativeId }, { id: b.nativeId }] } });
    expect(read.body.results[0].properties.email).toBe(a.email);
    const byEmail = call('POST', 'crm/v3/objects/contacts/batch/read', { idProperty: 'email', inputs: [{ id: b.email }], properties: [] });
    expect(byEmail.body.results.map((row: any) => row.id)).toEqual([b.nativeId]);
    expect(call('GET', `crm/v3/objects/contacts/${encodeURIComponent(b.email!)}`, undefined, { idProperty: 'email' }).body.id).toBe(b.nativeId);
    expect(call('GET', 'crm/v3/objects/contacts/nobody@nowhere.test', undefined, { idProperty: 'email' }).statusCode).toBe(404);
    expect(call('GET', `crm/v3/objects/contacts/x`, undefined, { idProperty: 'shoe' }).statusCode).toBe(400);
    const partial = call('POST', 'crm/v3/objects/contacts/batch/read', { inputs: [{ id: a.nativeId }, { id: '1' }] });
    expect(partial).toMatchObject({ statusCode: 207, body: { numErrors: 1, errors: [{ category: 'OBJECT_NOT_FOUND', context: { ids: ['1'] } }] } });
  });

  it('creates, updates and archives many: each reported, visible in the store; a bad input changes nothing', () => {
    const { data, changes, call } = makeData();
    const size = data.crm.Contact.size;
    const created = call('POST', 'crm/v3/objects/contacts/batch/create', {
      inputs: [{ properties: { email: 'one@example.com', lastname: 'One' } }, { properties: { email: 'two@example.com', lastname: 'Two' } }],
    });
    expect(created).toMatchObject({ statusCode: 201, body: { status: 'COMPLETE' } });
    const ids: string[] = created.body.results.map((row: any) => row.id);
    expect(data.crm.Contact.size).toBe(size + 2);
    expect(changes.map((change) => change.eventType)).toEqual(['CREATE', 'CREATE']);

    const updated = call('POST', 'crm/v3/objects/contacts/batch/update', { inputs: ids.map((id) => ({ id, properties: { jobtitle: 'CTO' } })) });
    expect(updated.statusCode).toBe(200);
    expect(updated.body.results.map((row: any) => row.properties.jobtitle)).toEqual(['CTO', 'CTO']);
    expect(ids.map((id) => (data.crm.Contact.getByNativeId(id)!.record as CrmRecord<'Contact'>).jobTitle)).toEqual(['CTO', 'CTO']);

    const before = changes.length;
    const bad = call('POST', 'crm/v3/objects/contacts/batch/create', { inputs: [{ properties: { lastname: 'Fine' } }, { properties: { shoe_size: 9 } }] });
    expect(bad).toMatchObject({ statusCode: 400, body: { category: 'VALIDATION_ERROR' } });
    const missing = call('POST', 'crm/v3/objects/contacts/batch/update', {
      inputs: [
        { id: ids[0], properties: { jobtitle: 'CEO' } },
        { id: '1', properties: {} },
      ],
    });
    expect(missing).toMatchObject({ statusCode: 404, body: { category: 'OBJECT_NOT_FOUND' } });
    expect(changes.length).toBe(before);

    expect(call('POST', 'crm/v3/objects/contacts/batch/archive', { inputs: ids.map((id) => ({ id })).concat({ id: '1' }) }).statusCode).toBe(204);
    expect(data.crm.Contact.size).toBe(size);
    expect(changes.slice(before).map((change) => change.eventType)).toEqual(['DELETE', 'DELETE']);
    const tooMany = call('POST', 'crm/v3/objects/contacts/batch/read', { inputs: Array.from({ length: 101 }, (_v, i) => ({ id: String(i) })) });
    expect(tooMany).toMatchObject({ statusCode: 400, body: { category: 'VALIDATION_ERROR' } });
    expect(call('POST', 'crm/v3/objects/contacts/batch/upsertish', { inputs: [] }).statusCode).toBe(404);
  });

  it('lists and reads archived records with archived=true', () => {
    const { data, call } = makeData();
    const contact = nth(data, 'Contact', 3);
    expect(call('GET', 'crm/v3/objects/contacts', undefined, { archived: 'true' }).body.results).toEqual([]);
    expect(call('DELETE', `crm/v3/objects/contacts/${contact.nativeId}`).statusCode).toBe(204);
    expect(call('GET', `crm/v3/objects/contacts/${contact.nativeId}`).statusCode).toBe(404);
    const archived = call('GET', 'crm/v3/objects/contacts', undefined, { archived: 'true' }).body;
    expect(archived.results).toEqual([expect.objectContaining({ id: contact.nativeId, archived: true, archivedAt: '2025-01-01T00:00:00.000Z' })]);
    expect(call('GET', `crm/v3/objects/contacts/${contact.nativeId}`, undefined, { archived: 'true' }).body).toMatchObject({
      id: contact.nativeId,
      archived: true,
    });
    expect(call('GET', 'crm/v3/objects/contacts', undefined, { archived: 'false' }).body.results[0].archived).toBe(false);
  });
});

describe('hubspot v4 associations', () => {
  it('lists a record’s associations with numeric ids and type ids', () => {
    const { data, call } = makeData();
    const contact = ([...data.crm.Contact.values()] as CrmRecord<'Contact'>[]).find(
      (record) => record.associations.accountIds.length > 0,
    ) as CrmRecord<'Contact'>;
    const answer = call('GET', `crm/v4/objects/contacts/${contact.nativeId}/associations/companies`);
    expect(answer.statusCode).toBe(200);
    expect(answer.body.results).toEqual(
      contact.associations.accountIds.map((id) => ({
        toObjectId: Number(data.crm.Account.get(id)!.nativeId),
        associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 279, label: null }],
      })),
    );
  });

  it('links with the default type and with a given one, unlinks, keeping both ends and reporting UPDATE', () => {
    const { data, changes, call } = makeData();
    const contact = ([...data.crm.Contact.values()] as CrmRecord<'Contact'>[]).find((record) => record.associations.dealIds.length === 0)!;
    const deal = nth(data, 'Deal', 2);
    const linked = call('PUT', `crm/v4/objects/contacts/${contact.nativeId}/associations/default/deals/${deal.nativeId}`);
    expect(linked).toMatchObject({
      statusCode: 200,
      body: { status: 'COMPLETE', results: [{ from: { id: contact.nativeId }, to: { id: deal.nativeId }, associationSpec: { associationTypeId: 4 } }] },
    });
    expect(data.crm.Contact.get(contact.id)!.associations).toMatchObject({ dealIds: [deal.id] });
    expect((data.crm.Deal.get(deal.id) as CrmRecord<'Deal'>).associations.contactIds).toContain(contact.id);
    expect(changes).toEqual([expect.objectContaining({ objectType: 'Contact', eventType: 'UPDATE' })]);
    // From the deal's side the same link reads back with the deal-to-contact type.
    const back = call('GET', `crm/v4/objects/deals/${deal.nativeId}/associations/contacts`).body.results;
    expect(back).toContainEqual({ toObjectId: Number(contact.nativeId), associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 3, label: null }] });

    expect(call('DELETE', `crm/v4/objects/contacts/${contact.nativeId}/associations/deals/${deal.nativeId}`).statusCode).toBe(204);
    expect(data.crm.Contact.get(contact.id)!.associations).toMatchObject({ dealIds: [] });
    const note = nth(data, 'Note', 0);
    const labelled = call('PUT', `crm/v4/objects/0-1/${contact.nativeId}/associations/notes/${note.nativeId}`, [
      { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 201 },
    ]);
    expect(labelled).toMatchObject({
      statusCode: 201,
      body: { fromObjectTypeId: '0-1', toObjectTypeId: '0-46', toObjectId: Number(note.nativeId), labels: [] },
    });
    expect((data.crm.Note.get(note.id) as CrmRecord<'Note'>).associations.contactIds).toContain(contact.id);
  });

  it('reads and links in batches', () => {
    const { data, call } = makeData();
    const [a, b] = [nth(data, 'Contact', 0), nth(data, 'Contact', 1)];
    const company = nth(data, 'Account', 7);
    const linked = call('POST', 'crm/v4/associations/contacts/companies/batch/associate/default', {
      inputs: [
        { from: { id: a.nativeId }, to: { id: company.nativeId } },
        { from: { id: b.nativeId }, to: { id: company.nativeId } },
      ],
    });
    expect(linked).toMatchObject({ statusCode: 200, body: { status: 'COMPLETE' } });
    const read = call('POST', 'crm/v4/associations/contacts/companies/batch/read', { inputs: [{ id: a.nativeId }, { id: b.nativeId }, { id: '1' }] });
    expect(read.statusCode).toBe(207);
    for (const row of read.body.results) expect(row.to.map((item: any) => item.toObjectId)).toContain(Number(company.nativeId));
    expect(read.body.errors[0].context).toEqual({ fromObjectId: ['1'] });
    expect(
      call('POST', 'crm/v4/associations/contacts/companies/batch/archive', { inputs: [{ from: { id: a.nativeId }, to: [{ id: company.nativeId }] }] })
        .statusCode,
    ).toBe(204);
    expect((data.crm.Account.get(company.id) as CrmRecord<'Account'>).associations.contactIds).not.toContain(a.id);
  });

  it('answers bad objects, ids and type ids in HubSpot’s error body, changing nothing', () => {
    const { data, changes, call } = makeData();
    const contact = nth(data, 'Contact', 0);
    const deal = nth(data, 'Deal', 0);
    expect(call('GET', `crm/v4/objects/contacts/1/associations/deals`)).toMatchObject({ statusCode: 404, body: { category: 'OBJECT_NOT_FOUND' } });
    expect(call('GET', `crm/v4/objects/widgets/1/associations/deals`).statusCode).toBe(404);
    expect(
      call('PUT', `crm/v4/objects/contacts/${contact.nativeId}/associations/deals/${deal.nativeId}`, [
        { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 },
      ]),
    ).toMatchObject({
      statusCode: 400,
      body: { category: 'VALIDATION_ERROR' },
    });
    expect(call('PUT', `crm/v4/objects/notes/${nth(data, 'Note', 0).nativeId}/associations/default/leads/${nth(data, 'Lead', 0).nativeId}`)).toMatchObject({
      statusCode: 400,
      body: { message: expect.stringContaining('No association types') },
    });
    expect(changes).toEqual([]);
  });
});
