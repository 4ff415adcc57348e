import { afterEach, describe, expect, it } from 'vitest';
import { seededData } from '../../test/helpers/seeded-data.js';
import { createSandbox, type Sandbox } from '../index.js';
import type { CrmObjectType, CrmRecord } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';
import type { ConnectionData } from '../store/connection-data.js';
import { type DatasetSize, DEFAULT_DATASET } from '../store/seed/seed-connection.js';
import { downstreamFor } from './index.js';
import { NATIVE_EMAIL_WRITES } from './native-email.js';
import type { DownstreamRequest } from './types.js';

/** What each system does beyond the shared contract: its own objects, queries, quirks and errors. */

function makeData(integrationId: IntegrationId, size: DatasetSize = DEFAULT_DATASET) {
  const { data, changes, context } = seededData(integrationId, { size });
  const system = downstreamFor(integrationId);
  const call = (method: DownstreamRequest['method'], path: string, body?: unknown, query: Record<string, string> = {}) =>
    system.handle({ method, path, query, body }, context) as { statusCode: number; headers: Record<string, string>; body: any };
  return { data, changes, context, call };
}

const nth = <T extends CrmRecord = CrmRecord>(data: ConnectionData, type: CrmObjectType, index: number) => data.crm[type].entries()[index]!.record as T;

describe('salesforce', () => {
  const V = 'services/data/v53.0';

  it('answers SOQL with the selected columns only, filtered and sorted, names matched case-insensitively', () => {
    const { data, call } = makeData('salesforce');
    const contact = nth<CrmRecord<'Contact'>>(data, 'Contact', 9);
    const answer = call('GET', `${V}/query`, undefined, { q: `select id, email from contact where Email = '${contact.email}'` });
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toEqual({
      totalSize: 1,
      done: true,
      records: [
        { attributes: { type: 'Contact', url: `/services/data/v53.0/sobjects/Contact/${contact.nativeId}` }, Id: contact.nativeId, Email: contact.email },
      ],
    });
    const sorted = call('GET', `${V}/query`, undefined, { q: 'SELECT Name FROM Account ORDER BY Name DESC LIMIT 3' }).body.records.map((row: any) => row.Name);
    const names = [...data.crm.Account.values()]
      .map((account) => (account as CrmRecord<'Account'>).name!)
      .sort()
      .reverse();
    expect(sorted).toEqual(names.slice(0, 3));
  });

  it('refuses bad SOQL natively: MALFORMED_QUERY, INVALID_FIELD, INVALID_TYPE', () => {
    const { call } = makeData('salesforce');
    const q = (text: string) => call('GET', `${V}/query`, undefined, { q: text });
    expect(q('SELEC Id FROM Contact')).toMatchObject({ statusCode: 400, body: [{ errorCode: 'MALFORMED_QUERY' }] });
    expect(q('SELECT Id FROM Contact LIMIT ten')).toMatchObject({ statusCode: 400, body: [{ errorCode: 'MALFORMED_QUERY' }] });
    expect(q('SELECT Id, Nickname FROM Contact')).toMatchObject({
      statusCode: 400,
      body: [{ errorCode: 'INVALID_FIELD', message: expect.stringContaining("'Nickname'") }],
    });
    expect(q('SELECT Id FROM Widget__c')).toMatchObject({ statusCode: 400, body: [{ errorCode: 'INVALID_TYPE' }] });
  });

  it('hands long query answers out in batches of 2000 through nextRecordsUrl', () => {
    const { data, call } = makeData('salesforce', { ...DEFAULT_DATASET, crm: { ...DEFAULT_DATASET.crm, Contact: 2150 } });
    const first = call('GET', `${V}/query`, undefined, { q: 'SELECT Id FROM Contact' }).body;
    expect(first).toMatchObject({ totalSize: 2150, done: false });
    expect(first.records).toHaveLength(2000);
    const locator = (first.nextRecordsUrl as string).replace('/services/data/v53.0/', '');
    const rest = call('GET', `services/data/v53.0/${locator}`).body;
    expect(rest).toMatchObject({ totalSize: 2150, done: true });
    expect(rest.nextRecordsUrl).toBeUndefined();
    expect([...first.records, ...rest.records].map((row: any) => row.Id)).toEqual(data.crm.Contact.entries().map((entry) => entry.record.nativeId));
    expect(call('GET', `${V}/query/garbage`)).toMatchObject({ statusCode: 400, body: [{ errorCode: 'INVALID_QUERY_LOCATOR' }] });
  });

  it('creates an Opportunity from percent probability and a date, deriving the won/closed flags from the stage', () => {
    const { data, call } = makeData('salesforce');
    const account = nth(data, 'Account', 0);
    const created = call('POST', `${V}/sobjects/Opportunity`, {
      Name: 'Big one',
      StageName: 'Closed Won',
      CloseDate: '2025-03-01',
      Probability: 40,
      Amount: 1000,
      AccountId: account.nativeId,
    });
    expect(created).toMatchObject({ statusCode: 201, body: { success: true, errors: [] } });
    const deal = data.crm.Deal.getByNativeId(created.body.id)!.record as CrmRecord<'Deal'>;
    expect(deal).toMatchObject({ probability: '0.4', closeDate: '2025-03-01T00:00:00.000Z', isWon: true, isClosed: true, expectedRevenue: 400 });
    const native = call('GET', `${V}/sobjects/Opportunity/${deal.nativeId}`).body;
    expect(native).toMatchObject({ Probability: 40, CloseDate: '2025-03-01', IsWon: true, ExpectedRevenue: 400, AccountId: account.nativeId });
    expect(native.CreatedDate).toBe('2025-01-01T00:00:00.000+0000');
  });

  it('refuses missing, read-only, unknown and dangling fields with their native codes, changing nothing', () => {
    const { data, changes, call } = makeData('salesforce');
    const contact = nth(data, 'Contact', 0);
    const size = data.crm.Deal.size;
    expect(call('POST', `${V}/sobjects/Opportunity`, { Name: 'No stage', CloseDate: '2025-03-01' })).toMatchObject({
      statusCode: 400,
      body: [{ errorCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [StageName]', fields: ['StageName'] }],
    });
    const path = `${V}/sobjects/Contact/${contact.nativeId}`;
    expect(call('PATCH', path, { Name: 'X' }).body).toMatchObject([{ errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['Name'] }]);
    expect(call('PATCH', path, { Nickname__c: 'X' }).body).toMatchObject([
      { errorCode: 'INVALID_FIELD', message: "No such column 'Nickname__c' on sobject of type Contact" },
    ]);
    expect(call('PATCH', path, { AccountId: '001000000000000AAA' }).body).toMatchObject([{ errorCode: 'INVALID_CROSS_REFERENCE_KEY', fields: ['AccountId'] }]);
    expect(call('PATCH', path, { Region__c: { nested: true } }).body).toMatchObject([{ errorCode: 'JSON_PARSER_ERROR', fields: ['Region__c'] }]);
    expect(call('PATCH', path, 'FirstName=X').body).toMatchObject([{ errorCode: 'JSON_PARSER_ERROR' }]);
    expect(data.crm.Deal.size).toBe(size);
    expect(data.crm.Contact.get(contact.id)).toBe(contact);
    expect(changes).toEqual([]);
  });

  it('keeps custom fields written on update in extra, visible to the UPDATE it reports', () => {
    const { data, changes, call, context } = makeData('salesforce');
    const contact = nth(data, 'Contact', 1);
    const seen: unknown[] = [];
    const answer = call('PATCH', `${V}/sobjects/Contact/${contact.nativeId}`, { Tier__c: 'Platinum' });
    expect(answer).toMatchObject({ statusCode: 204, body: null });
    seen.push(data.crm.Contact.entry(contact.id)!.extra.custom);
    expect(seen[0]).toMatchObject({ tier: 'Platinum' });
    expect(changes).toHaveLength(1);
    expect(downstreamFor('salesforce').nativeRecord('Contact', changes[0]!.record, data.crm.Contact.entry(contact.id)!.extra, context)).toMatchObject({
      Tier__c: 'Platinum',
    });
  });

  it('links an EventRelation to an event and a contact; its kind follows RelationId', () => {
    const { data, call } = makeData('salesforce');
    const event = nth<CrmRecord<'Event'>>(data, 'Event', 0);
    const contact = nth(data, 'Contact', 50);
    const created = call('POST', `${V}/sobjects/EventRelation`, { EventId: event.nativeId, RelationId: contact.nativeId, Status: 'Accepted' });
    expect(created.statusCode).toBe(201);
    const attendee = data.crm.EventAttendee.getByNativeId(created.body.id)!.record as CrmRecord<'EventAttendee'>;
    expect(attendee).toMatchObject({
      status: 'Confirmed',
      associatedObjectType: 'Contact',
      email: null,
      associations: { eventId: event.id, associationId: contact.id },
    });
    expect((data.crm.Event.get(event.id) as CrmRecord<'Event'>).associations.eventAttendeeIds).toContain(attendee.id);
  });

  it('moves IsClosed with a Task status, and links WhoId to a Lead', () => {
    const { data, call } = makeData('salesforce');
    const lead = nth(data, 'Lead', 0);
    const created = call('POST', `${V}/sobjects/Task`, { Subject: 'Call', WhoId: lead.nativeId, ActivityDate: '2025-02-03' });
    const task = data.crm.Task.getByNativeId(created.body.id)!.record as CrmRecord<'Task'>;
    expect(task).toMatchObject({ subject: 'Call', status: 'Not Started', priority: 'Normal', isDone: false, dueDate: '2025-02-03T00:00:00.000Z' });
    expect(task.associations.leadIds).toEqual([lead.id]);
    call('PATCH', `${V}/sobjects/Task/${task.nativeId}`, { Status: 'Completed' });
    expect(call('GET', `${V}/sobjects/Task/${task.nativeId}`).body).toMatchObject({ Status: 'Completed', IsClosed: true, WhoId: lead.nativeId });
  });

  it('serves Users read-only and describes its sObjects', () => {
    const { data, call } = makeData('salesforce');
    const user = nth(data, 'User', 0);
    expect(call('DELETE', `${V}/sobjects/User/${user.nativeId}`)).toMatchObject({ statusCode: 405, body: [{ errorCode: 'METHOD_NOT_ALLOWED' }] });
    expect(call('PUT', `${V}/sobjects/Contact/${nth(data, 'Contact', 0).nativeId}`)).toMatchObject({
      statusCode: 405,
      body: [{ message: "HTTP Method 'PUT' not allowed. Allowed are GET,PATCH,DELETE,HEAD" }],
    });
    const global = call('GET', `${V}/sobjects`).body;
    expect(global.sobjects.find((item: any) => item.name === 'Opportunity')).toMatchObject({ keyPrefix: '006', createable: true });
    const described = call('GET', `${V}/sobjects/Contact`).body;
    expect(described.objectDescribe.name).toBe('Contact');
    expect(described.recentItems[0].Id).toBe(nth(data, 'Contact', 0).nativeId);
    expect(call('GET', `${V}/sobjects/Contact/${nth(data, 'Contact', 0).nativeId}`, undefined, { fields: 'email' }).body).toEqual({
      attributes: expect.any(Object),
      Id: nth(data, 'Contact', 0).nativeId,
      Email: (nth(data, 'Contact', 0) as CrmRecord<'Contact'>).email,
    });
    expect(call('GET', 'services/data/latest/sobjects/Contact').statusCode).toBe(404);
  });
});

describe('hubspot', () => {
  it('creates with v4 association types and lists them back with ?associations=', () => {
    const { data, call } = makeData('hubspot');
    const company = nth(data, 'Account', 3);
    const deal = nth(data, 'Deal', 4);
    const created = call('POST', 'crm/v3/objects/contacts', {
      properties: { email: 'ada@example.com', lastname: 'Lovelace' },
      associations: [
        { to: { id: company.nativeId }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 }] },
        { to: { id: deal.nativeId }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 4 }] },
      ],
    });
    expect(created.statusCode).toBe(201);
    const contact = data.crm.Contact.getByNativeId(created.body.id)!.record as CrmRecord<'Contact'>;
    expect(contact.associations).toMatchObject({ accountIds: [company.id], dealIds: [deal.id] });
    const read = call('GET', `crm/v3/objects/contacts/${contact.nativeId}`, undefined, { associations: 'companies,deals,bogus' }).body;
    expect(read.associations).toEqual({
      companies: { results: [{ id: company.nativeId, type: 'contact_to_company' }] },
      deals: { results: [{ id: deal.nativeId, type: 'contact_to_deal' }] },
    });
    const bad = call('POST', 'crm/v3/objects/contacts', {
      properties: {},
      associations: [{ to: { id: company.nativeId }, types: [{ associationTypeId: 999 }] }],
    });
    expect(bad).toMatchObject({ statusCode: 400, body: { category: 'VALIDATION_ERROR' } });
  });

  it('refuses unknown, read-only and non-numeric properties as VALIDATION_ERROR, with a stable correlationId', () => {
    const { data, call, changes } = makeData('hubspot');
    const company = nth(data, 'Account', 0);
    const path = `crm/v3/objects/companies/${company.nativeId}`;
    const unknown = call('PATCH', path, { properties: { favourite_colour: 'red' } });
    expect(unknown).toMatchObject({ statusCode: 400, body: { status: 'error', category: 'VALIDATION_ERROR' } });
    expect(unknown.body.message).toContain('PROPERTY_DOESNT_EXIST');
    expect(unknown.body.message).toContain('Property \\"favourite_colour\\" does not exist');
    expect(call('PATCH', path, { properties: { createdate: '2020-01-01' } }).body.message).toContain('READ_ONLY_VALUE');
    expect(call('PATCH', path, { properties: { numberofemployees: 'lots' } }).body.message).toContain('INVALID_INTEGER');
    expect(call('PATCH', path, { properties: { favourite_colour: 'red' } }).body.correlationId).toBe(unknown.body.correlationId);
    expect(call('PATCH', path, { nope: true }).body.category).toBe('VALIDATION_ERROR');
    expect(changes).toEqual([]);
  });

  it('renders every property as a string and takes numbers for numeric ones', () => {
    const { data, call } = makeData('hubspot');
    const company = nth<CrmRecord<'Account'>>(data, 'Account', 0);
    const answer = call('PATCH', `crm/v3/objects/companies/${company.nativeId}`, {
      properties: { numberofemployees: '250', annualrevenue: 1.5e6, score: '77' },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.body.properties).toMatchObject({ numberofemployees: '250', annualrevenue: '1500000', score: '77' });
    expect(data.crm.Account.get(company.id)).toMatchObject({ numberOfEmployees: 250, annualRevenue: 1_500_000 });
    expect(data.crm.Account.entry(company.id)!.extra.custom).toMatchObject({ score: 77 });
  });

  it('maps task status and priority to its own enums, and status COMPLETED closes the task', () => {
    const { data, call } = makeData('hubspot');
    const created = call('POST', 'crm/v3/objects/tasks', {
      properties: { hs_task_subject: 'Follow up', hs_task_priority: 'MEDIUM', hs_timestamp: '2025-02-01T09:00:00Z' },
    });
    const task = data.crm.Task.getByNativeId(created.body.id)!.record;
    expect(task).toMatchObject({ priority: 'Normal', status: 'Not Started', isDone: false, dueDate: '2025-02-01T09:00:00.000Z' });
    const updated = call('PATCH', `crm/v3/objects/tasks/${task.nativeId}`, { properties: { hs_task_status: 'COMPLETED' } });
    expect(updated.body.properties).toMatchObject({ hs_task_status: 'COMPLETED', hs_task_priority: 'MEDIUM' });
    expect(data.crm.Task.get(task.id)).toMatchObject({ status: 'Completed', isDone: true });
  });

  it('lists owners flat and read-only, and honours ?properties=', () => {
    const { data, call } = makeData('hubspot');
    const owners = call('GET', 'crm/v3/owners', undefined, { limit: '100' }).body;
    expect(owners.results).toHaveLength(data.crm.User.size);
    expect(owners.paging).toBeUndefined();
    const user = nth<CrmRecord<'User'>>(data, 'User', 0);
    expect(owners.results[0]).toMatchObject({ id: user.nativeId, email: user.email, firstName: user.firstName, archived: false });
    expect(call('GET', `crm/v3/owners/${user.nativeId}`).body.id).toBe(user.nativeId);
    expect(call('POST', 'crm/v3/owners', {}).statusCode).toBe(405);
    const listed = call('GET', 'crm/v3/objects/contacts', undefined, { properties: 'firstname', limit: '2' }).body;
    expect(Object.keys(listed.results[0].properties).sort()).toEqual(['createdate', 'firstname', 'hs_object_id', 'lastmodifieddate']);
    expect(listed.paging.next).toEqual({ after: '2', link: 'https://api.hubapi.com/crm/v3/objects/contacts?properties=firstname&limit=2&after=2' });
  });
});

describe('pipedrive', () => {
  it('keeps tasks and meetings in one activities collection, told apart by type', () => {
    const { data, call } = makeData('pipedrive');
    const person = nth(data, 'Contact', 0);
    const task = call('POST', 'v1/activities', {
      type: 'task',
      subject: 'Call back',
      due_date: '2025-02-03',
      due_time: '14:30',
      done: 1,
      person_id: Number(person.nativeId),
    });
    expect(task.statusCode).toBe(201);
    expect(data.crm.Task.getByNativeId(String(task.body.data.id))!.record).toMatchObject({
      subject: 'Call back',
      dueDate: '2025-02-03T14:30:00.000Z',
      isDone: true,
      status: 'Completed',
      associations: { contactIds: [person.id] },
    });
    const meeting = call('POST', 'v1/activities', { type: 'meeting', subject: 'Demo', due_date: '2025-02-04', due_time: '10:00', duration: '00:45' });
    expect(meeting.body.data).toMatchObject({ type: 'meeting', due_date: '2025-02-04', due_time: '10:00', duration: '00:45' });
    const event = data.crm.Event.getByNativeId(String(meeting.body.data.id))!.record;
    expect(event).toMatchObject({ type: 'Meeting', startDateTime: '2025-02-04T10:00:00.000Z', endDateTime: '2025-02-04T10:45:00.000Z' });
    // Moving the day keeps the time and the duration.
    call('PUT', `v1/activities/${event.nativeId}`, { due_date: '2025-02-05' });
    expect(data.crm.Event.get(event.id)).toMatchObject({ startDateTime: '2025-02-05T10:00:00.000Z', endDateTime: '2025-02-05T10:45:00.000Z' });
    const total = data.crm.Task.size + data.crm.Event.size;
    const tail = call('GET', 'v1/activities', undefined, { start: String(total - 3), limit: '10' }).body;
    expect(tail.data).toHaveLength(3);
    expect(tail.data.at(-1).id).toBe(meeting.body.data.id);
    expect(tail.additional_data.pagination).toEqual({ start: total - 3, limit: 10, more_items_in_collection: false });
    expect(call('POST', 'v1/activities', { type: 'task', due_date: 'tomorrow' })).toMatchObject({
      statusCode: 400,
      body: { success: false, error: expect.stringContaining('due_date') },
    });
  });

  it('moves a deal between open, won and lost with status, and between stages with stage_id', () => {
    const { data, call } = makeData('pipedrive');
    const deal = data.crm.Deal.entries().find((entry) => !(entry.record as CrmRecord<'Deal'>).isClosed)!.record;
    call('PUT', `v1/deals/${deal.nativeId}`, { stage_id: 3 });
    expect(data.crm.Deal.get(deal.id)).toMatchObject({ stage: 'Needs Analysis', isClosed: false });
    const won = call('PUT', `v1/deals/${deal.nativeId}`, { status: 'won' });
    expect(won.body.data).toMatchObject({ status: 'won', stage_id: 5 });
    expect(data.crm.Deal.get(deal.id)).toMatchObject({ stage: 'Closed Won', isWon: true, isClosed: true });
    expect(call('PUT', `v1/deals/${deal.nativeId}`, { stage_id: 99 })).toMatchObject({ statusCode: 400, body: { success: false } });
    expect(call('PUT', `v1/deals/${deal.nativeId}`, { status: 'maybe' }).statusCode).toBe(400);
  });

  it('ignores unknown fields, says "Unknown method" to PATCH, and wants a name for a person', () => {
    const { data, call, changes } = makeData('pipedrive');
    const person = nth(data, 'Contact', 0);
    expect(call('PUT', `v1/persons/${person.nativeId}`, { first_name: 'Ada', favourite_colour: 'red' }).statusCode).toBe(200);
    expect(call('PATCH', `v1/persons/${person.nativeId}`, { first_name: 'Bea' })).toMatchObject({ statusCode: 404, body: { error: 'Unknown method .' } });
    expect(call('POST', 'v1/persons', { email: 'x@example.com' })).toMatchObject({ statusCode: 400, body: { success: false, error: 'Name must be given.' } });
    expect(
      call('PUT', `v1/persons/${person.nativeId}`, {
        phone: [
          { value: '555-1', primary: true },
          { value: '555-2', label: 'mobile' },
        ],
      }).body.data.phone,
    ).toEqual([
      { label: 'work', value: '555-1', primary: true },
      { label: 'mobile', value: '555-2', primary: false },
    ]);
    expect(changes.map((change) => change.eventType)).toEqual(['UPDATE', 'UPDATE']);
    expect(data.crm.Contact.get(person.id)).toMatchObject({ firstName: 'Ada', phone: '555-1', mobilePhone: '555-2' });
  });

  it('answers a page past the end with data: null, and lead ids as strings', () => {
    const { data, call } = makeData('pipedrive');
    expect(call('GET', 'v1/persons', undefined, { start: '5000' }).body).toMatchObject({
      success: true,
      data: null,
      additional_data: { pagination: { more_items_in_collection: false } },
    });
    expect(call('GET', 'v1/persons', undefined, { limit: 'many' })).toMatchObject({ statusCode: 400, body: { success: false } });
    const lead = nth(data, 'Lead', 0);
    expect(call('GET', `v1/leads/${lead.nativeId}`).body.data.id).toBe(lead.nativeId);
  });
});

describe('zoho', () => {
  it('refuses a record without its mandatory field, naming it, and a body without data', () => {
    const { data, call, changes } = makeData('zoho');
    const size = data.crm.Contact.size;
    expect(call('POST', 'Contacts', { data: [{ First_Name: 'Ada' }] })).toMatchObject({
      statusCode: 400,
      body: { data: [{ code: 'MANDATORY_NOT_FOUND', details: { api_name: 'Last_Name' }, status: 'error' }] },
    });
    expect(call('POST', 'Contacts', { First_Name: 'Ada' })).toMatchObject({
      statusCode: 400,
      body: { code: 'REQUIRED_PARAM_MISSING', details: { param: 'data' } },
    });
    expect(call('PATCH', 'Contacts', {})).toMatchObject({ statusCode: 405, body: { code: 'INVALID_REQUEST_METHOD' } });
    expect(data.crm.Contact.size).toBe(size);
    expect(changes).toEqual([]);
  });

  it('answers with 204 past the last page, and users under their own envelope', () => {
    const { data, call } = makeData('zoho');
    expect(call('GET', 'Contacts', undefined, { page: '99' })).toMatchObject({ statusCode: 204, body: null });
    const users = call('GET', 'users', undefined, { per_page: '5' }).body;
    expect(users.users).toHaveLength(5);
    expect(users.info).toEqual({ per_page: 5, count: 5, page: 1, more_records: true });
    expect(call('GET', `users/${nth(data, 'User', 0).nativeId}`).body.users[0].email).toBe((nth(data, 'User', 0) as CrmRecord<'User'>).email);
    expect(call('POST', 'users', { data: [{}] }).statusCode).toBe(405);
  });

  it('writes lookups by id and answers writes with SUCCESS details', () => {
    const { data, call } = makeData('zoho');
    const contact = nth(data, 'Contact', 5);
    const created = call('POST', 'Notes', { data: [{ Note_Content: 'Met at the fair', Parent_Id: { id: contact.nativeId }, $se_module: 'Contacts' }] });
    expect(created).toMatchObject({
      statusCode: 201,
      body: { data: [{ code: 'SUCCESS', message: 'record added', status: 'success', details: { Created_Time: '2025-01-01T00:00:00+00:00' } }] },
    });
    const noteId = created.body.data[0].details.id;
    const note = call('GET', `Notes/${noteId}`).body.data[0];
    expect(note).toMatchObject({ Note_Content: 'Met at the fair', Parent_Id: { id: contact.nativeId }, $se_module: 'Contacts' });
    expect(call('PUT', `Notes/${noteId}`, { data: [{ Parent_Id: { id: '5000' } }] })).toMatchObject({
      statusCode: 400,
      body: { data: [{ code: 'INVALID_DATA', details: { api_name: 'Parent_Id' } }] },
    });
    expect(call('DELETE', `Notes/${noteId}`).body).toEqual({
      data: [{ code: 'SUCCESS', details: { id: noteId }, message: 'record deleted', status: 'success' }],
    });
  });

  it('embeds an event’s attendees as Participants', () => {
    const { data, context } = makeData('zoho');
    const entry = data.crm.Event.entries()[0]!;
    const native = downstreamFor('zoho').nativeRecord('Event', entry.record, entry.extra, context) as any;
    const attendees = (entry.record as CrmRecord<'Event'>).associations.eventAttendeeIds;
    expect(native.Participants).toHaveLength(attendees.length);
    expect(native.Participants[0]).toMatchObject({ type: 'user', status: expect.any(String) });
  });
});

describe('outreach', () => {
  it('checks the JSON:API document: type mismatch 409, no data 400', () => {
    const { call, changes } = makeData('outreach');
    expect(call('POST', 'prospects', { data: { type: 'account', attributes: {} } })).toMatchObject({
      statusCode: 409,
      body: { errors: [{ id: 'typeMismatch' }] },
    });
    expect(call('POST', 'prospects', { type: 'prospect' })).toMatchObject({ statusCode: 400, body: { errors: [{ id: 'badRequest' }] } });
    expect(changes).toEqual([]);
  });

  it('points validation errors at the attribute or relationship at fault', () => {
    const { data, call } = makeData('outreach');
    const prospect = nth(data, 'Contact', 0);
    const patch = (body: object) => call('PATCH', `prospects/${prospect.nativeId}`, { data: { type: 'prospect', id: Number(prospect.nativeId), ...body } });
    expect(patch({ attributes: { nickname: 'Ada' } })).toMatchObject({
      statusCode: 422,
      body: { errors: [{ id: 'validationError', source: { pointer: '/data/attributes/nickname' } }] },
    });
    expect(patch({ attributes: { emails: 'ada@example.com' } }).body.errors[0].source.pointer).toBe('/data/attributes/emails');
    expect(patch({ relationships: { account: { data: { type: 'account', id: 1 } } } }).body.errors[0].source.pointer).toBe('/data/relationships/account');
    expect(patch({ attributes: { createdAt: '2020-01-01T00:00:00Z' } }).statusCode).toBe(422);
  });

  it('sets an opportunity stage by relationship; tasks are the engagement tasks, completed by markComplete', () => {
    const { data, call } = makeData('outreach');
    const opportunity = nth(data, 'Deal', 0);
    const answer = call('PATCH', `opportunities/${opportunity.nativeId}`, {
      data: { type: 'opportunity', relationships: { stage: { data: { type: 'opportunityStage', id: 7 } } } },
    });
    expect(answer.body.data.relationships.stage).toEqual({ data: { type: 'opportunityStage', id: 7 } });
    expect(data.crm.Deal.get(opportunity.id)).toMatchObject({ stage: 'Closed Lost', isClosed: true, isWon: false });
    const task = data.engagementTasks.entries().find((entry) => entry.record.state === 'incomplete')!;
    expect(call('PATCH', `tasks/${task.seq}`, { data: { type: 'task', attributes: { state: 'complete' } } })).toMatchObject({
      statusCode: 422,
      body: { errors: [{ id: 'validationError', source: { pointer: '/data/attributes/state' } }] },
    });
    const done = call('POST', `tasks/${task.seq}/actions/markComplete`);
    expect(done.body.data.attributes).toMatchObject({ state: 'complete', completedAt: '2025-01-01T00:00:00.000Z' });
    expect(data.engagementTasks.get(task.record.id)).toMatchObject({ state: 'complete' });
  });

  it('lists the engagement mailboxes read-only, with JSON:API links', () => {
    const { data, call } = makeData('outreach');
    const page = call('GET', 'mailboxes', undefined, { 'page[size]': '10', 'page[offset]': '10' }).body;
    expect(page.data).toHaveLength(10);
    expect(page.data[0]).toMatchObject({ type: 'mailbox', id: 11, attributes: { email: data.mailboxes.entries()[10]!.record.email } });
    expect(page.meta.count).toBe(data.mailboxes.size);
    expect(page.links.next).toBe('https://api.outreach.io/api/v2/mailboxes?page%5Bsize%5D=10&page%5Boffset%5D=20');
    expect(page.links.prev).toContain('page%5Boffset%5D=0');
    expect(call('GET', 'mailboxes/11').body.data.attributes.email).toBe(data.mailboxes.entries()[10]!.record.email);
    expect(call('GET', 'mailboxes/999').statusCode).toBe(404);
    expect(call('POST', 'mailboxes', { data: { type: 'mailbox' } })).toMatchObject({ statusCode: 405, body: { errors: [{ id: 'methodNotAllowed' }] } });
  });
});

describe('salesloft', () => {
  it('hangs a note off a person or an account by associated_with_type and _id', () => {
    const { data, call } = makeData('salesloft');
    const account = nth(data, 'Account', 1);
    const created = call('POST', 'notes', { content: 'Renewal talk', associated_with_type: 'account', associated_with_id: Number(account.nativeId) });
    expect(created.statusCode).toBe(200);
    expect(created.body.data).toMatchObject({ content: 'Renewal talk', associated_with_type: 'account', associated_with_id: Number(account.nativeId) });
    expect(data.crm.Note.getByNativeId(String(created.body.data.id))!.record.associations).toMatchObject({ accountIds: [account.id], contactIds: [] });
    expect(call('POST', 'notes', { content: 'x', associated_with_type: 'account' })).toMatchObject({
      statusCode: 422,
      body: { errors: { associated_with_id: ['is required with associated_with_type'] } },
    });
    expect(call('POST', 'notes', { content: 'x', associated_with_type: 'deal', associated_with_id: 1 }).body.errors.associated_with_type).toBeDefined();
  });

  it('counts pages on request and clamps per_page to 100', () => {
    const { data, call } = makeData('salesloft');
    const page = call('GET', 'people', undefined, { per_page: '500', include_paging_counts: 'true' }).body;
    expect(page.data).toHaveLength(100);
    expect(page.metadata.paging).toEqual({ per_page: 100, current_page: 1, next_page: 2, prev_page: null, total_pages: 2, total_count: data.crm.Contact.size });
    expect(call('GET', 'people', undefined, { page: '0' })).toMatchObject({ statusCode: 422, body: { errors: { page: [expect.any(String)] } } });
  });

  it('reads references as { id, _href } and writes them as _id; users are read-only', () => {
    const { data, call } = makeData('salesloft');
    const person = nth(data, 'Contact', 0);
    const account = nth(data, 'Account', 7);
    const answer = call('PUT', `people/${person.nativeId}`, { account_id: Number(account.nativeId) });
    expect(answer.body.data.account).toEqual({ id: Number(account.nativeId), _href: `https://api.salesloft.com/v2/accounts/${account.nativeId}` });
    expect(answer.body.data.account_id).toBeUndefined();
    expect(call('PUT', `people/${person.nativeId}`, { account_id: 1 })).toMatchObject({
      statusCode: 422,
      body: { errors: { account_id: [expect.any(String)] } },
    });
    expect(call('DELETE', `users/${nth(data, 'User', 0).nativeId}`)).toMatchObject({ statusCode: 404, body: { status: 404, error: 'Not Found' } });
  });
});

describe('apollo', () => {
  it('lists the engagement mailboxes as email_accounts', () => {
    const { data, call } = makeData('apollo');
    const accounts = call('GET', 'email_accounts').body.email_accounts;
    expect(accounts).toHaveLength(data.mailboxes.size);
    const mailbox = data.mailboxes.entries()[0]!.record;
    expect(accounts[0]).toMatchObject({
      id: mailbox.id.slice(0, 24),
      email: mailbox.email,
      user_id: mailbox.associations.ownerUserId!.slice(0, 24),
      active: true,
    });
  });

  it('searches users (the engagement users) by GET or POST and has no other user routes', () => {
    const { data, call } = makeData('apollo');
    const total = data.users.size;
    expect(call('GET', 'users/search', undefined, { per_page: '5' }).body.pagination).toEqual({
      page: 1,
      per_page: 5,
      total_entries: total,
      total_pages: Math.ceil(total / 5),
    });
    expect(call('POST', 'users/search', { page: 3, per_page: 5 }).body.users).toHaveLength(5);
    expect(call('POST', 'users', {})).toMatchObject({ statusCode: 404, body: { error: 'Not found' } });
    expect(call('POST', 'contacts/search', { per_page: 'ten' })).toMatchObject({ statusCode: 422, body: { error: expect.stringContaining('per_page') } });
  });

  it('sets an opportunity stage by its 24-hex stage id', () => {
    const { data, call } = makeData('apollo');
    const won = data.crm.Deal.entries().find((entry) => (entry.record as CrmRecord<'Deal'>).stage === 'Closed Won')!.record;
    const stageId = call('GET', `opportunities/${won.nativeId}`).body.opportunity.opportunity_stage_id;
    expect(stageId).toMatch(/^[0-9a-f]{24}$/);
    const created = call('POST', 'opportunities', { name: 'Expansion', amount: 5000, opportunity_stage_id: stageId, closed_date: '2025-06-30' });
    expect(created.body.opportunity).toMatchObject({ stage_name: 'Closed Won', is_won: true, closed_date: '2025-06-30' });
    expect(call('POST', 'opportunities', { name: 'X', opportunity_stage_id: 'f'.repeat(24) })).toMatchObject({
      statusCode: 422,
      body: { error: expect.stringContaining('opportunity_stage_id') },
    });
    expect(call('DELETE', `opportunities/${created.body.opportunity.id}`).body).toEqual({ deleted: true });
  });
});

describe('native email writes through the passthrough', () => {
  const KEY = 'email-key';
  let sandbox: Sandbox | undefined;
  afterEach(() => sandbox?.close());

  function start(integrationId: IntegrationId) {
    sandbox = createSandbox({ seed: 5, clock: 'virtual', apiKeys: [KEY], emailEvents: true });
    const { accessToken, connectionId } = sandbox.connect({ integrationId });
    const events: any[] = [];
    sandbox.onEvent((event) => events.push(event));
    const passthrough = async (method: string, path: string, body?: unknown) => {
      const res = await sandbox!.handle({
        method: 'POST',
        path: '/crm/passthrough',
        query: '',
        headers: { 'service-api-token': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ accessToken, method, path, ...(body === undefined ? {} : { body }) }),
      });
      expect(res.status).toBe(200);
      return JSON.parse(res.body) as { statusCode: number; body: any };
    };
    const contact = sandbox.listRecords(connectionId, 'Contact').find((record) => (record as any).email)! as any;
    return { sandbox, connectionId, events, passthrough, contact };
  }

  /** A native create of an email to `contact`, and the native id it answers. */
  const CREATES: Partial<Record<IntegrationId, (contact: any) => { path: string; body: unknown; id(body: any): string }>> = {
    salesforce: (contact) => ({
      path: 'services/data/v59.0/sobjects/EmailMessage',
      body: { Subject: 'Native', TextBody: 'Hi', FromAddress: 'rep@acme.com', ToIds: [contact.nativeId], Status: '3' },
      id: (body) => body.id,
    }),
    hubspot: (contact) => ({
      path: 'crm/v3/objects/emails',
      body: {
        properties: {
          hs_timestamp: '2025-01-01T00:00:00Z',
          hs_email_subject: 'Native',
          hs_email_text: 'Hi',
          hs_email_headers: JSON.stringify({ from: { email: 'rep@acme.com' }, to: [{ email: contact.email }], cc: [], bcc: [] }),
        },
        associations: [{ to: { id: contact.nativeId }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 198 }] }],
      },
      id: (body) => body.id,
    }),
    zoho: (contact) => ({
      path: `Contacts/${contact.nativeId}/actions/send_mail`,
      body: { data: [{ from: { email: 'rep@acme.com' }, to: [{ email: contact.email }], subject: 'Native', content: 'Hi', mail_format: 'text' }] },
      id: (body) => body.data[0].details.message_id,
    }),
  };

  it.each(['salesforce', 'hubspot', 'zoho'] as const)('%s: a native create is a stored Email with its fields and links, and its CREATE event', async (id) => {
    expect(NATIVE_EMAIL_WRITES[id].create).toBe(true);
    const { sandbox, connectionId, events, passthrough, contact } = start(id);
    const create = CREATES[id]!(contact);
    const answer = await passthrough('POST', create.path, create.body);
    expect(answer.statusCode).toBeLessThan(300);
    const nativeId = create.id(answer.body);
    const email = sandbox.listRecords(connectionId, 'Email').find((record) => record.nativeId === nativeId)!;
    expect(email).toMatchObject({
      nativeId,
      from: 'rep@acme.com',
      to: [contact.email],
      subject: 'Native',
      body: 'Hi',
      isIncoming: false,
      associations: { contactIds: [contact.id], ownerUserId: expect.any(String) },
    });
    await sandbox.settle();
    const changes = events.filter((event) => event.type === 'OBJECT_CHANGE').map((event) => event.data);
    expect(changes).toEqual([{ objectType: 'Email', eventType: 'CREATE', record: email }]);
  });

  it('pipedrive: refuses an email write in its own error body; no Email is stored and no event sent', async () => {
    expect(NATIVE_EMAIL_WRITES.pipedrive).toEqual({ create: false, update: false });
    const { sandbox, connectionId, events, passthrough } = start('pipedrive');
    const before = sandbox.listRecords(connectionId, 'Email');
    const answer = await passthrough('POST', 'v1/mailbox/mailMessages', { subject: 'Native', to: [{ email_address: 'a@b.c' }] });
    expect(answer).toMatchObject({ statusCode: 404, url: 'https://api.pipedrive.com/v1/mailbox/mailMessages' });
    expect(answer.body).toEqual({ success: false, error: 'Unknown method .', error_info: expect.any(String), data: null, additional_data: null });
    expect((await passthrough('PUT', `v1/mailbox/mailMessages/${before[0]!.nativeId}`, { subject: 'x' })).statusCode).toBe(404);
    expect(sandbox.listRecords(connectionId, 'Email')).toEqual(before);
    await sandbox.settle();
    expect(events.filter((event) => event.type === 'OBJECT_CHANGE')).toEqual([]);
  });
});
