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

describe('hubspot emails', () => {
  const emailsOf = (data: ConnectionData) => [...data.crm.Email.values()] as CrmRecord<'Email'>[];

  it('reads a stored Email as an email engagement, by its collection name or its object type id', () => {
    const { data, call, context } = makeData();
    const email = emailsOf(data).find((candidate) => !candidate.isIncoming && candidate.associations.contactIds.length > 0)!;
    const contact = data.crm.Contact.get(email.associations.contactIds[0]!) as CrmRecord<'Contact'>;
    const owner = data.crm.User.get(email.associations.ownerUserId!) as CrmRecord<'User'>;
    const answer = call('GET', `crm/v3/objects/0-49/${email.nativeId}`, undefined, { associations: 'contacts' });
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toMatchObject({
      id: email.nativeId,
      properties: {
        hs_timestamp: email.messageDate,
        hubspot_owner_id: owner.nativeId,
        hs_email_direction: 'EMAIL',
        hs_email_status: email.status,
        hs_email_subject: email.subject,
        hs_email_text: email.body,
        hs_email_html: email.bodyHtml,
        hs_email_from_email: email.from,
        hs_email_from_firstname: owner.firstName,
        hs_email_to_email: email.to.join(';'),
        hs_email_to_firstname: contact.firstName,
        hs_object_id: email.nativeId,
      },
      associations: { contacts: { results: [{ id: contact.nativeId, type: 'email_to_contact' }] } },
    });
    expect(JSON.parse(answer.body.properties.hs_email_headers)).toMatchObject({
      from: { email: email.from, firstName: owner.firstName, lastName: owner.lastName },
      to: [{ email: contact.email, firstName: contact.firstName, lastName: contact.lastName }],
    });
    expect(call('GET', `crm/v3/objects/emails/${email.nativeId}`, undefined, { associations: 'contacts' }).body).toEqual(answer.body);
    expect(downstreamFor('hubspot').nativeRecord('Email', email, data.crm.Email.entry(email.id)!.extra, context)).toMatchObject({
      id: email.nativeId,
      properties: { hs_email_subject: email.subject },
    });
    const found = search(call, 'emails', { filterGroups: [{ filters: [{ propertyName: 'hs_email_direction', operator: 'EQ', value: 'INCOMING_EMAIL' }] }] });
    expect(found.body.total).toBe(emailsOf(data).filter((candidate) => candidate.isIncoming).length);
    const properties = Object.fromEntries(call('GET', 'crm/v3/properties/emails').body.results.map((property: any) => [property.name, property]));
    expect(properties.hs_email_status).toMatchObject({ type: 'enumeration', modificationMetadata: { readOnlyValue: false } });
    expect(properties.hs_email_to_email).toMatchObject({ modificationMetadata: { readOnlyValue: true } });
  });

  it('logs an email with headers and associations: a stored Email with its people and links, reported as CREATE', () => {
    const { data, changes, call } = makeData();
    const contact = nth<CrmRecord<'Contact'>>(data, 'Contact', 3);
    const company = nth(data, 'Account', 1);
    const owner = nth<CrmRecord<'User'>>(data, 'User', 2);
    const headers = {
      from: { email: 'Rep One <rep@acme.com>', firstName: 'Rep', lastName: 'One' },
      sender: { email: 'rep@acme.com' },
      to: [{ email: `${contact.firstName} <${contact.email}>`, firstName: contact.firstName, lastName: contact.lastName }],
      cc: [{ email: 'boss@acme.com' }],
      bcc: [],
    };
    const answer = call('POST', 'crm/v3/objects/emails', {
      properties: {
        hs_timestamp: '1735729200000',
        hubspot_owner_id: owner.nativeId,
        hs_email_direction: 'FORWARDED_EMAIL',
        hs_email_status: 'BOUNCED',
        hs_email_subject: 'Renewal',
        hs_email_text: 'Hello',
        hs_email_headers: JSON.stringify(headers),
        hs_attachment_ids: '1234;5678',
      },
      associations: [
        { to: { id: contact.nativeId }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 198 }] },
        { to: { id: company.nativeId }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 186 }] },
      ],
    });
    expect(answer.statusCode).toBe(201);
    const email = data.crm.Email.getByNativeId(answer.body.id)!.record as CrmRecord<'Email'>;
    expect(email).toMatchObject({
      from: 'rep@acme.com',
      to: [contact.email],
      cc: ['boss@acme.com'],
      bcc: [],
      subject: 'Renewal',
      body: 'Hello',
      bodyHtml: null,
      messageDate: '2025-01-01T11:00:00.000Z',
      isIncoming: false,
      isBounced: true,
      hasAttachment: true,
      status: 'BOUNCED',
      associations: { contactIds: [contact.id], accountIds: [company.id], dealIds: [], leadIds: [], ownerUserId: owner.id },
    });
    expect(changes).toEqual([{ objectType: 'Email', eventType: 'CREATE', record: email }]);
    // What was written reads back as written: the forwarded direction, the names in the headers, the attachment ids.
    expect(answer.body.properties).toMatchObject({
      hs_email_direction: 'FORWARDED_EMAIL',
      hs_email_headers: JSON.stringify(headers),
      hs_email_from_firstname: 'Rep',
      hs_email_from_email: 'rep@acme.com',
      hs_attachment_ids: '1234;5678',
    });
    const logged = call('POST', 'crm/v3/objects/emails', { properties: { hs_timestamp: '2025-01-01T00:00:00Z', hubspot_owner_id: owner.nativeId } });
    expect(data.crm.Email.getByNativeId(logged.body.id)!.record).toMatchObject({ from: owner.email, subject: '', to: [], status: null });
  });

  it('refuses a create without hs_timestamp, unknown options and bad headers, changing nothing', () => {
    const { data, changes, call } = makeData();
    const size = data.crm.Email.size;
    const post = (properties: Record<string, unknown>) => call('POST', 'crm/v3/objects/emails', { properties });
    expect(post({ hs_email_subject: 'x' })).toMatchObject({ statusCode: 400, body: { category: 'VALIDATION_ERROR', message: 'hs_timestamp is required' } });
    const bad = post({ hs_timestamp: '2025-01-01T00:00:00Z', hs_email_status: 'LOST' });
    expect(bad).toMatchObject({ statusCode: 400, body: { category: 'VALIDATION_ERROR' } });
    expect(bad.body.message).toContain('"name":"hs_email_status"');
    expect(post({ hs_timestamp: '2025-01-01T00:00:00Z', hs_email_headers: '{not json' }).body.message).toContain('hs_email_headers');
    expect(post({ hs_timestamp: '2025-01-01T00:00:00Z', hs_email_from_email: 'a@b.c' }).body.message).toContain('READ_ONLY_VALUE');
    expect(data.crm.Email.size).toBe(size);
    expect(changes).toEqual([]);
  });

  it('updates an email, links it from a contact with v4 (its own type ids both ways), and archives it', () => {
    const { data, changes, call } = makeData();
    const email = emailsOf(data).find((candidate) => !candidate.isBounced)!;
    const updated = call('PATCH', `crm/v3/objects/emails/${email.nativeId}`, {
      properties: { hs_email_status: 'BOUNCED', hs_email_direction: 'INCOMING_EMAIL' },
    });
    expect(updated.statusCode).toBe(200);
    expect(data.crm.Email.get(email.id)).toMatchObject({ status: 'BOUNCED', isBounced: true, isIncoming: true });
    const contact = all(data).find((candidate) => !email.associations.contactIds.includes(candidate.id))!;
    const linked = call('PUT', `crm/v4/objects/contacts/${contact.nativeId}/associations/emails/${email.nativeId}`, [
      { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 197 },
    ]);
    expect(linked.statusCode).toBe(201);
    expect((data.crm.Email.get(email.id) as CrmRecord<'Email'>).associations.contactIds).toContain(contact.id);
    expect(call('GET', `crm/v4/objects/contacts/${contact.nativeId}/associations/emails`).body.results).toEqual([
      { toObjectId: Number(email.nativeId), associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 197, label: null }] },
    ]);
    expect(call('GET', `crm/v4/objects/emails/${email.nativeId}/associations/contacts`).body.results).toContainEqual({
      toObjectId: Number(contact.nativeId),
      associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId: 198, label: null }],
    });
    expect(call('DELETE', `crm/v3/objects/emails/${email.nativeId}`).statusCode).toBe(204);
    expect(data.crm.Email.get(email.id)).toBeUndefined();
    expect(changes.map((change) => [change.objectType, change.eventType])).toEqual([
      ['Email', 'UPDATE'],
      ['Email', 'UPDATE'],
      ['Email', 'DELETE'],
    ]);
  });
});

const all = (data: ConnectionData) => [...data.crm.Contact.values()] as CrmRecord<'Contact'>[];
