import { describe, expect, it } from 'vitest';
import { seededData } from '../../../test/helpers/seeded-data.js';
import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import type { ConnectionData } from '../../store/connection-data.js';
import { downstreamFor } from '../index.js';
import type { DownstreamRequest } from '../types.js';

/** Salesforce as its REST API and SOQL references describe it, over the connection's records. */

const V = 'services/data/v59.0';

function makeData() {
  const { data, changes, context } = seededData('salesforce');
  const call = (method: DownstreamRequest['method'], path: string, body?: unknown, query: Record<string, string> = {}) =>
    downstreamFor('salesforce').handle({ method, path, query, body }, context) as { statusCode: number; headers: Record<string, string>; body: any };
  const q = (text: string) => call('GET', `${V}/query`, undefined, { q: text });
  return { data, changes, context, call, q };
}

const all = <T extends CrmObjectType>(data: ConnectionData, type: T) => [...data.crm[type].values()] as unknown as CrmRecord<T>[];
const ids = (body: any) => body.records.map((row: any) => row.Id);

describe('salesforce SOQL', () => {
  it('filters with =, !=, <, >, LIKE, IN and NOT IN, strings case-insensitively', () => {
    const { data, q } = makeData();
    const contacts = all(data, 'Contact');
    const c = contacts[4]!;
    expect(ids(q(`SELECT Id FROM Contact WHERE Email = '${c.email!.toUpperCase()}'`).body)).toEqual([c.nativeId]);
    expect(q(`SELECT Id FROM Contact WHERE Email != '${c.email}'`).body.totalSize).toBe(contacts.length - 1);
    expect(ids(q(`SELECT Id FROM Contact WHERE Email IN ('${contacts[1]!.email}', '${contacts[2]!.email}', 'x@y.z')`).body)).toEqual([
      contacts[1]!.nativeId,
      contacts[2]!.nativeId,
    ]);
    expect(q(`SELECT Id FROM Contact WHERE Email NOT IN ('${contacts[1]!.email}')`).body.totalSize).toBe(contacts.length - 1);
    const prefix = c.lastName!.slice(0, 2);
    expect(q(`SELECT Id FROM Contact WHERE LastName LIKE '${prefix}%'`).body.totalSize).toBe(
      contacts.filter((x) => x.lastName!.toLowerCase().startsWith(prefix.toLowerCase())).length,
    );
    const deals = all(data, 'Deal');
    expect(q('SELECT Id FROM Opportunity WHERE Amount > 10000').body.totalSize).toBe(deals.filter((d) => d.amount !== null && d.amount > 10000).length);
    expect(q('SELECT Id FROM Opportunity WHERE Amount < 10000').body.totalSize).toBe(deals.filter((d) => d.amount !== null && d.amount < 10000).length);
    expect(q('SELECT Id FROM Opportunity WHERE IsWon = true').body.totalSize).toBe(deals.filter((d) => d.isWon).length);
    expect(q('SELECT Id FROM Opportunity WHERE Amount = null').body.totalSize).toBe(deals.filter((d) => d.amount === null).length);
  });

  it('joins with AND, OR, NOT and parentheses, and refuses AND mixed with OR without them', () => {
    const { data, q } = makeData();
    const deals = all(data, 'Deal');
    const both = deals.filter((d) => d.isWon || (d.amount !== null && d.amount > 50000 && !d.isClosed));
    expect(q('SELECT Id FROM Opportunity WHERE IsWon = true OR (Amount > 50000 AND IsClosed = false)').body.totalSize).toBe(both.length);
    expect(q('SELECT Id FROM Opportunity WHERE NOT IsWon = true').body.totalSize).toBe(deals.filter((d) => !d.isWon).length);
    expect(q('SELECT Id FROM Opportunity WHERE IsWon = true OR Amount > 5 AND IsClosed = false')).toMatchObject({
      statusCode: 400,
      body: [{ errorCode: 'MALFORMED_QUERY' }],
    });
  });

  it('sorts by several fields with NULLS LAST, windows with LIMIT and OFFSET, and counts with COUNT()', () => {
    const { data, q } = makeData();
    const deals = all(data, 'Deal');
    const rows = q('SELECT Id, Amount, Name FROM Opportunity ORDER BY Amount DESC NULLS LAST, Name ASC').body.records;
    const amounts = rows.map((row: any) => row.Amount);
    const withAmount = amounts.filter((amount: number | null) => amount !== null);
    expect(withAmount).toEqual([...withAmount].sort((a: number, b: number) => b - a));
    expect(amounts.slice(withAmount.length).every((amount: null) => amount === null)).toBe(true);
    const page = q('SELECT Id FROM Opportunity ORDER BY Amount DESC NULLS LAST, Name ASC LIMIT 5 OFFSET 3').body;
    expect(page).toMatchObject({ totalSize: 5, done: true });
    expect(ids(page)).toEqual(rows.slice(3, 8).map((row: any) => row.Id));
    expect(q('SELECT COUNT() FROM Opportunity').body).toEqual({ totalSize: deals.length, done: true, records: [] });
    expect(q('SELECT COUNT() FROM Opportunity WHERE IsWon = true').body.totalSize).toBe(deals.filter((d) => d.isWon).length);
    expect(q('SELECT Id FROM Contact OFFSET 2001')).toMatchObject({ statusCode: 400, body: [{ errorCode: 'NUMBER_OUTSIDE_VALID_RANGE' }] });
  });

  it('reads and filters parent relationship fields, nested as Salesforce nests them', () => {
    const { data, q } = makeData();
    const contact = all(data, 'Contact').find((c) => c.associations.accountIds.length > 0)!;
    const account = data.crm.Account.get(contact.associations.accountIds[0]!) as CrmRecord<'Account'>;
    const row = q(`SELECT Id, Account.Name, Account.Industry, Owner.Email FROM Contact WHERE Id = '${contact.nativeId}'`).body.records[0];
    expect(row.Account).toEqual({
      attributes: { type: 'Account', url: `/services/data/v59.0/sobjects/Account/${account.nativeId}` },
      Name: account.name,
      Industry: account.industry,
    });
    const byParent = q(`SELECT Id FROM Contact WHERE Account.Name = '${account.name!.replace(/'/g, "\\'")}'`).body;
    expect(ids(byParent)).toContain(contact.nativeId);
    const orphan = all(data, 'Contact').find((c) => c.associations.accountIds.length === 0);
    if (orphan) expect(q(`SELECT Account.Name FROM Contact WHERE Id = '${orphan.nativeId}'`).body.records[0].Account).toBeNull();
    const task = all(data, 'Task').find((t) => t.associations.contactIds.length > 0)!;
    const who = q(`SELECT Who.Name FROM Task WHERE Id = '${task.nativeId}'`).body.records[0].Who;
    expect(who.attributes.type).toBe('Name');
    expect(q('SELECT Acount.Name FROM Contact')).toMatchObject({ statusCode: 400, body: [{ errorCode: 'INVALID_FIELD' }] });
  });

  it('answers child relationship subqueries per parent, filtered, sorted and limited, null without children', () => {
    const { data, q } = makeData();
    const account = all(data, 'Account').find((a) => a.associations.contactIds.length > 1)!;
    const answer = q(`SELECT Name, (SELECT LastName, Email FROM Contacts ORDER BY LastName DESC LIMIT 5) FROM Account WHERE Id = '${account.nativeId}'`);
    expect(answer.statusCode).toBe(200);
    const row = answer.body.records[0];
    expect(row.Name).toBe(account.name);
    const expected = account.associations.contactIds
      .map((id) => data.crm.Contact.get(id) as CrmRecord<'Contact'>)
      .filter((contact) => contact.associations.accountIds[0] === account.id);
    expect(row.Contacts).toMatchObject({ totalSize: Math.min(5, expected.length), done: true });
    const names = row.Contacts.records.map((record: any) => record.LastName);
    expect(names).toEqual([...names].sort((a: string, b: string) => b.toLowerCase().localeCompare(a.toLowerCase())));
    expect(row.Contacts.records[0]).toEqual({
      attributes: expect.objectContaining({ type: 'Contact' }),
      LastName: expect.any(String),
      Email: expect.anything(),
    });
    const lonely = all(data, 'Account').find((a) => a.associations.contactIds.length === 0);
    if (lonely) expect(q(`SELECT Id, (SELECT Id FROM Contacts) FROM Account WHERE Id = '${lonely.nativeId}'`).body.records[0].Contacts).toBeNull();
    // The subquery needs no Id in the outer select list.
    const withoutId = q(`SELECT Name, (SELECT Id FROM Opportunities) FROM Account WHERE Id = '${account.nativeId}'`).body.records[0];
    expect(Object.keys(withoutId)).toEqual(['attributes', 'Name', 'Opportunities']);
    expect(q('SELECT Id, (SELECT Id FROM Widgets) FROM Account')).toMatchObject({ statusCode: 400, body: [{ errorCode: 'INVALID_TYPE' }] });
    expect(q('SELECT Id, (SELECT Nickname FROM Contacts) FROM Account')).toMatchObject({ statusCode: 400, body: [{ errorCode: 'INVALID_FIELD' }] });
    expect(q('SELECT Id, (SELECT Id FROM Contacts FROM Account')).toMatchObject({ statusCode: 400, body: [{ errorCode: 'MALFORMED_QUERY' }] });
  });

  it('refuses a literal of the wrong type for the field, as INVALID_FIELD', () => {
    const { q } = makeData();
    expect(q('SELECT Id FROM Opportunity WHERE Name = 5')).toMatchObject({
      statusCode: 400,
      body: [{ errorCode: 'INVALID_FIELD', message: expect.stringContaining('enclosed in quotes') }],
    });
    expect(q("SELECT Id FROM Opportunity WHERE Amount > '5'")).toMatchObject({ statusCode: 400, body: [{ errorCode: 'INVALID_FIELD' }] });
    expect(q("SELECT Id FROM Contact WHERE Email = 'unterminated")).toMatchObject({ statusCode: 400, body: [{ errorCode: 'MALFORMED_QUERY' }] });
    expect(q('SELECT FROM Contact')).toMatchObject({ statusCode: 400, body: [{ errorCode: 'MALFORMED_QUERY' }] });
  });

  it('compares dates with date literals and date-times relative to sandbox time', () => {
    const { data, q } = makeData();
    const contacts = all(data, 'Contact');
    // Sandbox time is 2025-01-01: seeded records were created before it.
    expect(q('SELECT COUNT() FROM Contact WHERE CreatedDate < 2025-01-01T00:00:00Z').body.totalSize).toBe(
      contacts.filter((c) => c.createdTime < '2025-01-01').length,
    );
    expect(q('SELECT COUNT() FROM Contact WHERE CreatedDate = LAST_N_DAYS:30').body.totalSize).toBe(
      contacts.filter((c) => Date.parse(c.createdTime) >= Date.parse('2024-12-02T00:00:00Z')).length,
    );
    const deals = all(data, 'Deal');
    expect(q('SELECT COUNT() FROM Opportunity WHERE CloseDate >= 2025-01-01').body.totalSize).toBe(
      deals.filter((d) => d.closeDate !== null && d.closeDate >= '2025-01-01').length,
    );
  });

  it('pages a long answer through nextRecordsUrl to the end, on the version asked', () => {
    const { data, q, call } = makeData();
    const first = q('SELECT Id FROM Contact LIMIT 10').body;
    expect(first.done).toBe(true);
    expect(first.records[0].attributes.url).toContain('/services/data/v59.0/');
    expect(data.crm.Contact.size).toBeLessThan(2000);
    expect(call('GET', `${V}/query/bm90IGEgcXVlcnk-2000`)).toMatchObject({ statusCode: 400, body: [{ errorCode: 'INVALID_QUERY_LOCATOR' }] });
  });
});

describe("salesforce SOQL string literals: Salesforce's Quoted String Escape Sequences", () => {
  /** Contacts whose last names hold what the escapes stand for, and the id of each by last name. */
  function withNames() {
    const { call, q } = makeData();
    const names = [
      'L50%tag',
      'L50Xtag',
      'L5_tag',
      'L5Ztag',
      "O'Brien",
      'back\\slash',
      'tab\there',
      'line\nbreak',
      'cr\rx',
      'ff\fx',
      'bs\bx',
      'quote"d',
      'é-acute',
    ];
    const idOf = new Map<string, string>();
    for (const name of names) {
      const created = call('POST', `${V}/sobjects/Contact`, { LastName: name });
      expect(created.statusCode, name).toBe(201);
      idOf.set(name, created.body.id);
    }
    const found = (where: string) => {
      const answer = q(`SELECT Id, LastName FROM Contact WHERE ${where}`);
      expect(answer.statusCode, where).toBe(200);
      return (answer.body.records as Array<{ LastName: string }>).map((row) => row.LastName).filter((name) => idOf.has(name));
    };
    return { q, found };
  }

  // Each row: the WHERE clause as a client writes it (the SOQL text), and the last names it finds.
  const table: Array<[string, string[]]> = [
    [String.raw`LastName LIKE 'L50\%tag'`, ['L50%tag']],
    ["LastName LIKE 'L50%tag'", ['L50%tag', 'L50Xtag']],
    [String.raw`LastName LIKE 'L50\%%'`, ['L50%tag']],
    [String.raw`LastName LIKE 'L5\_tag'`, ['L5_tag']],
    ["LastName LIKE 'L5_tag'", ['L5_tag', 'L5Ztag']],
    [String.raw`LastName LIKE 'l5\_TAG'`, ['L5_tag']],
    [String.raw`LastName = 'O\'Brien'`, ["O'Brien"]],
    [String.raw`LastName LIKE 'O\'%'`, ["O'Brien"]],
    [String.raw`LastName = 'back\\slash'`, ['back\\slash']],
    [String.raw`LastName LIKE 'back\\%'`, ['back\\slash']],
    [String.raw`LastName = 'tab\there'`, ['tab\there']],
    [String.raw`LastName = 'tab\There'`, ['tab\there']],
    [String.raw`LastName = 'line\nbreak'`, ['line\nbreak']],
    [String.raw`LastName = 'line\Nbreak'`, ['line\nbreak']],
    [String.raw`LastName = 'cr\rx'`, ['cr\rx']],
    [String.raw`LastName = 'cr\Rx'`, ['cr\rx']],
    [String.raw`LastName = 'ff\fx'`, ['ff\fx']],
    [String.raw`LastName = 'ff\Fx'`, ['ff\fx']],
    [String.raw`LastName = 'bs\bx'`, ['bs\bx']],
    [String.raw`LastName = 'bs\Bx'`, ['bs\bx']],
    [String.raw`LastName = 'quote\"d'`, ['quote"d']],
    [String.raw`LastName = '\u00e9-acute'`, ['é-acute']],
    [String.raw`LastName IN ('O\'Brien', 'back\\slash')`, ["O'Brien", 'back\\slash']],
  ];
  it.each(table)('%s finds %j', (where, names) => {
    expect(withNames().found(where)).toEqual(names);
  });

  // "If you use a backslash character in any other context, an error occurs": \% and \_ are a LIKE pattern's only.
  const refused: Array<[string, string]> = [
    [String.raw`LastName = 'L50\%tag'`, String.raw`Invalid string literal 'L50\%tag'. Illegal character sequence '\%' in string literal.`],
    [String.raw`LastName IN ('L5\_tag')`, String.raw`Invalid string literal 'L5\_tag'. Illegal character sequence '\_' in string literal.`],
    [String.raw`LastName = 'Anne\-Marie'`, String.raw`Invalid string literal 'Anne\-Marie'. Illegal character sequence '\-' in string literal.`],
    [String.raw`LastName LIKE 'C:\Users%'`, String.raw`Invalid string literal 'C:\Users%'. Illegal character sequence '\U' in string literal.`],
    [String.raw`LastName = '\u00zz'`, String.raw`Invalid string literal '\u00zz'. Illegal unicode sequence. '\u00zz' in string literal.`],
  ];
  it.each(refused)('%s is MALFORMED_QUERY', (where, message) => {
    expect(withNames().q(`SELECT Id FROM Contact WHERE ${where}`)).toMatchObject({ statusCode: 400, body: [{ errorCode: 'MALFORMED_QUERY', message }] });
  });

  it('refuses a date or date-time literal that names no real day or time, as Salesforce does', () => {
    const { q } = withNames();
    expect(q('SELECT Id FROM Opportunity WHERE CloseDate > 2024-02-29').statusCode).toBe(200);
    for (const [literal, message] of [
      ['CloseDate > 2025-02-30', 'Invalid date: 2025-02-30'],
      ['CloseDate = 2025-06-31', 'Invalid date: 2025-06-31'],
      ['CreatedDate > 2025-01-01T25:00:00Z', 'Invalid datetime: 2025-01-01T25:00:00Z'],
      ['CreatedDate > 2025-02-29T10:00:00Z', 'Invalid datetime: 2025-02-29T10:00:00Z'],
    ]) {
      expect(q(`SELECT Id FROM Opportunity WHERE ${literal}`), literal).toMatchObject({ statusCode: 400, body: [{ errorCode: 'MALFORMED_QUERY', message }] });
    }
  });
});

describe('salesforce describe', () => {
  it('describes an sObject’s fields: types, references, what may be written, custom fields', () => {
    const { call } = makeData();
    const answer = call('GET', `${V}/sobjects/Contact/describe`);
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toMatchObject({ name: 'Contact', keyPrefix: '003', createable: true });
    const fields = Object.fromEntries(answer.body.fields.map((field: any) => [field.name, field]));
    expect(fields.AccountId).toMatchObject({ type: 'reference', referenceTo: ['Account'], relationshipName: 'Account', createable: true });
    expect(fields.Email).toMatchObject({ type: 'email', createable: true, nillable: true });
    expect(fields.LastName).toMatchObject({ nillable: false });
    expect(fields.Name).toMatchObject({ createable: false, updateable: false });
    expect(fields.CreatedDate).toMatchObject({ type: 'datetime', createable: false });
    expect(fields.Region__c).toMatchObject({ custom: true, createable: true });
    expect(call('GET', `${V}/sobjects/Account/describe`).body.childRelationships).toContainEqual(
      expect.objectContaining({ childSObject: 'Contact', field: 'AccountId', relationshipName: 'Contacts' }),
    );
    expect(call('GET', `${V}/sobjects/User/describe`).body.fields.every((field: any) => !field.createable)).toBe(true);
    expect(call('GET', `${V}/sobjects/Widget__c/describe`)).toMatchObject({ statusCode: 404, body: [{ errorCode: 'NOT_FOUND' }] });
  });
});

describe('salesforce sObject collections', () => {
  it('creates many, each reported as CREATE; a bad record fails alone, or rolls all back with allOrNone', () => {
    const { data, changes, call } = makeData();
    const size = data.crm.Contact.size;
    const created = call('POST', `${V}/composite/sobjects`, {
      records: [
        { attributes: { type: 'Contact' }, LastName: 'One', Email: 'one@example.com' },
        { attributes: { type: 'Contact' }, FirstName: 'No last name' },
        { attributes: { type: 'Account' }, Name: 'Acme Two' },
      ],
    });
    expect(created.statusCode).toBe(200);
    expect(created.body).toEqual([
      { id: expect.stringMatching(/^003/), success: true, errors: [] },
      { success: false, errors: [{ statusCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [LastName]', fields: ['LastName'] }] },
      { id: expect.stringMatching(/^001/), success: true, errors: [] },
    ]);
    expect(data.crm.Contact.size).toBe(size + 1);
    expect(changes.map((change) => `${change.objectType}:${change.eventType}`)).toEqual(['Contact:CREATE', 'Account:CREATE']);

    const rolled = call('POST', `${V}/composite/sobjects`, {
      allOrNone: true,
      records: [
        { attributes: { type: 'Contact' }, LastName: 'Fine' },
        { attributes: { type: 'Contact' }, Nickname: 'x', LastName: 'Bad' },
      ],
    });
    expect(rolled.body).toEqual([
      { success: false, errors: [expect.objectContaining({ statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK' })] },
      { success: false, errors: [{ statusCode: 'INVALID_FIELD', message: "No such column 'Nickname' on sobject of type Contact", fields: ['Nickname'] }] },
    ]);
    expect(changes).toHaveLength(2);
    const noType = call('POST', `${V}/composite/sobjects`, { records: [{ LastName: 'x' }] });
    expect(noType.body[0]).toMatchObject({ success: false, errors: [{ statusCode: 'INVALID_TYPE' }] });
  });

  it('updates, reads and deletes many, answering per id', () => {
    const { data, changes, call } = makeData();
    const [a, b] = all(data, 'Contact');
    const updated = call('PATCH', `${V}/composite/sobjects`, {
      records: [
        { attributes: { type: 'Contact' }, Id: a!.nativeId, Title: 'CTO' },
        { attributes: { type: 'Contact' }, Id: '003000000000000AAA', Title: 'CEO' },
      ],
    });
    expect(updated.body).toEqual([
      { id: a!.nativeId, success: true, errors: [] },
      {
        id: '003000000000000AAA',
        success: false,
        errors: [{ statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id', fields: ['Id'] }],
      },
    ]);
    expect(data.crm.Contact.get(a!.id)).toMatchObject({ jobTitle: 'CTO' });
    const read = call('GET', `${V}/composite/sobjects/Contact`, undefined, { ids: `${a!.nativeId},${b!.nativeId},003000000000000AAA`, fields: 'Title,Email' });
    expect(read.body).toEqual([
      { attributes: expect.objectContaining({ type: 'Contact' }), Id: a!.nativeId, Title: 'CTO', Email: (a as CrmRecord<'Contact'>).email },
      expect.objectContaining({ Id: b!.nativeId }),
      null,
    ]);
    const deleted = call('DELETE', `${V}/composite/sobjects`, undefined, { ids: `${a!.nativeId},${b!.nativeId}` });
    expect(deleted.body).toEqual([
      { id: a!.nativeId, success: true, errors: [] },
      { id: b!.nativeId, success: true, errors: [] },
    ]);
    const again = call('DELETE', `${V}/composite/sobjects`, undefined, { ids: a!.nativeId });
    expect(again.body[0].errors[0].statusCode).toBe('ENTITY_IS_DELETED');
    expect(changes.filter((change) => change.eventType === 'DELETE').map((change) => change.record.id)).toEqual(expect.arrayContaining([a!.id, b!.id]));
    expect(call('GET', `${V}/composite/sobjects/Contact`, undefined, { ids: b!.nativeId })).toMatchObject({ statusCode: 400 });
    const tooMany = call('POST', `${V}/composite/sobjects`, {
      records: Array.from({ length: 201 }, () => ({ attributes: { type: 'Contact' }, LastName: 'x' })),
    });
    expect(tooMany).toMatchObject({ statusCode: 400, body: [{ errorCode: 'EXCEEDED_ID_LIMIT' }] });
  });

  it('answers missing records and bad bodies with NOT_FOUND and JSON_PARSER_ERROR', () => {
    const { call } = makeData();
    expect(call('GET', `${V}/sobjects/Contact/003000000000000AAA`)).toMatchObject({ statusCode: 404, body: [{ errorCode: 'NOT_FOUND' }] });
    expect(call('PATCH', `${V}/composite/sobjects`, { nope: true })).toMatchObject({ statusCode: 400, body: [{ errorCode: 'JSON_PARSER_ERROR' }] });
  });
});

describe('salesforce field names, in any case', () => {
  it('reads body field names case-insensitively, stores them under the canonical name, and refuses two spellings of one field', () => {
    const { data, changes, call } = makeData();
    const created = call('POST', `${V}/sobjects/Contact`, { lastname: 'Lower', EMAIL: 'lower@example.com', region__C: 'EMEA' });
    expect(created).toMatchObject({ statusCode: 201, body: { success: true } });
    const row = call('GET', `${V}/sobjects/Contact/${created.body.id}`).body;
    expect(row).toMatchObject({ LastName: 'Lower', Email: 'lower@example.com', Region__c: 'EMEA' });
    expect(row).not.toHaveProperty('lastname');
    expect(changes.map((change) => `${change.objectType}:${change.eventType}`)).toEqual(['Contact:CREATE']);
    expect(call('PATCH', `${V}/sobjects/Contact/${created.body.id}`, { title: 'CFO' }).statusCode).toBe(204);
    expect(all(data, 'Contact').find((contact) => contact.nativeId === created.body.id)).toMatchObject({ lastName: 'Lower', jobTitle: 'CFO' });
    expect(call('POST', `${V}/sobjects/Contact`, { LastName: 'A', lastname: 'B' })).toMatchObject({
      statusCode: 400,
      body: [{ errorCode: 'JSON_PARSER_ERROR', message: 'Duplicate field: LastName', fields: ['LastName'] }],
    });
    // An unknown field keeps the spelling sent, for the error to name it.
    expect(call('POST', `${V}/sobjects/Contact`, { lastName: 'x', nickName: 'y' }).body).toEqual([
      { message: "No such column 'nickName' on sobject of type Contact", errorCode: 'INVALID_FIELD', fields: ['nickName'] },
    ]);
  });

  it('takes a one-record body with its attributes, and refuses an Id in a create as Salesforce does', () => {
    const { call } = makeData();
    const created = call('POST', `${V}/sobjects/Account`, { attributes: { type: 'Account' }, Name: 'With Attributes' });
    expect(created).toMatchObject({ statusCode: 201, body: { success: true, errors: [] } });
    expect(call('POST', `${V}/sobjects/Account`, { id: created.body.id, Name: 'Again' })).toMatchObject({
      statusCode: 400,
      body: [{ errorCode: 'INVALID_FIELD', message: 'The Id field should not be specified in the sobject data.' }],
    });
  });

  it('updates a collection whose records carry `id` in lower case, and reports each id', () => {
    const { data, call } = makeData();
    const [a, b] = all(data, 'Contact');
    const updated = call('PATCH', `${V}/composite/sobjects`, {
      allOrNone: false,
      records: [
        { id: a!.nativeId, attributes: { type: 'Contact' }, title: 'VP' },
        { id: b!.nativeId, attributes: { type: 'Contact' }, Title: 'Head', title: 'Twice' },
        { id: '003000000000000AAA', attributes: { type: 'Contact' }, Title: 'CEO' },
      ],
    });
    expect(updated.body).toEqual([
      { id: a!.nativeId, success: true, errors: [] },
      { id: b!.nativeId, success: false, errors: [{ statusCode: 'JSON_PARSER_ERROR', message: 'Duplicate field: Title', fields: ['Title'] }] },
      {
        id: '003000000000000AAA',
        success: false,
        errors: [{ statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id', fields: ['Id'] }],
      },
    ]);
    expect(data.crm.Contact.get(a!.id)).toMatchObject({ jobTitle: 'VP' });
    const created = call('POST', `${V}/composite/sobjects`, { records: [{ attributes: { type: 'Contact' }, lastname: 'Many', id: a!.nativeId }] });
    expect(created.body[0]).toMatchObject({ success: false, errors: [{ statusCode: 'INVALID_FIELD_FOR_INSERT_UPDATE' }] });
  });
});

describe('salesforce sObject collections: records read with a request body', () => {
  it('reads {ids, fields} by POST as GET reads them by query, up to 2000 ids', () => {
    const { data, call } = makeData();
    const [a, b] = all(data, 'Contact');
    const ids = [a!.nativeId, '003000000000000AAA', b!.nativeId];
    const posted = call('POST', `${V}/composite/sobjects/contact`, { ids, fields: ['id', 'lastname', 'Email'] });
    expect(posted.statusCode).toBe(200);
    expect(posted.body).toEqual(call('GET', `${V}/composite/sobjects/Contact`, undefined, { ids: ids.join(','), fields: 'id,lastname,Email' }).body);
    expect(posted.body[0]).toEqual({
      attributes: { type: 'Contact', url: `/services/data/v59.0/sobjects/Contact/${a!.nativeId}` },
      Id: a!.nativeId,
      LastName: (a as CrmRecord<'Contact'>).lastName,
      Email: (a as CrmRecord<'Contact'>).email,
    });
    expect(posted.body[1]).toBeNull();
    const post = (body: unknown) => call('POST', `${V}/composite/sobjects/Contact`, body);
    expect(post({ ids, fields: ['Nickname'] })).toMatchObject({
      statusCode: 400,
      body: [{ errorCode: 'INVALID_FIELD', message: "No such column 'Nickname' on entity 'Contact'." }],
    });
    expect(post({ ids })).toMatchObject({ statusCode: 400, body: [{ errorCode: 'MALFORMED_QUERY' }] });
    expect(post({ fields: ['Id'] })).toMatchObject({ statusCode: 400, body: [{ errorCode: 'MALFORMED_ID' }] });
    expect(post({ ids: a!.nativeId, fields: ['Id'] })).toMatchObject({ statusCode: 400, body: [{ errorCode: 'JSON_PARSER_ERROR' }] });
    expect(post({ ids: Array.from({ length: 2001 }, () => a!.nativeId), fields: ['Id'] })).toMatchObject({
      statusCode: 400,
      body: [{ errorCode: 'EXCEEDED_ID_LIMIT' }],
    });
    expect(post({ ids: Array.from({ length: 2000 }, () => a!.nativeId), fields: ['Id'] }).body).toHaveLength(2000);
    expect(call('POST', `${V}/composite/sobjects/Widget`, { ids, fields: ['Id'] })).toMatchObject({ statusCode: 404, body: [{ errorCode: 'NOT_FOUND' }] });
  });
});

describe('salesforce EmailMessage', () => {
  const emails = (data: ConnectionData) => all(data, 'Email');

  it('reads a stored Email as an EmailMessage: its fields, its related record and its sender as creator', () => {
    const { data, call, context } = makeData();
    const email = emails(data).find((candidate) => candidate.associations.dealIds.length > 0 && candidate.cc.length > 0) ?? emails(data)[0]!;
    const answer = call('GET', `${V}/sobjects/EmailMessage/${email.nativeId}`);
    expect(answer.statusCode).toBe(200);
    const deal = email.associations.dealIds[0] ? data.crm.Deal.get(email.associations.dealIds[0])! : data.crm.Account.get(email.associations.accountIds[0]!)!;
    const owner = data.crm.User.get(email.associations.ownerUserId!)!;
    expect(answer.body).toMatchObject({
      attributes: { type: 'EmailMessage', url: `/services/data/v59.0/sobjects/EmailMessage/${email.nativeId}` },
      Id: email.nativeId,
      Subject: email.subject,
      TextBody: email.body,
      HtmlBody: email.bodyHtml,
      FromAddress: email.from,
      ToAddress: email.to.join('; '),
      CcAddress: email.cc.length > 0 ? email.cc.join('; ') : null,
      BccAddress: null,
      Incoming: email.isIncoming,
      Status: '3',
      IsBounced: email.isBounced,
      HasAttachment: email.hasAttachment,
      MessageDate: email.messageDate!.replace('Z', '+0000'),
      RelatedToId: deal.nativeId,
      CreatedById: owner.nativeId,
    });
    expect(downstreamFor('salesforce').nativeRecord('Email', email, data.crm.Email.entry(email.id)!.extra, context)).toMatchObject({
      attributes: { type: 'EmailMessage' },
      Id: email.nativeId,
      Subject: email.subject,
    });
  });

  it('answers SOQL over EmailMessage, its RelatedTo parent and the Emails of an account', () => {
    const { data, call, q } = makeData();
    const incoming = emails(data).filter((email) => email.isIncoming);
    expect(q('SELECT COUNT() FROM EmailMessage WHERE Incoming = true').body.totalSize).toBe(incoming.length);
    const onAccount = emails(data).find((email) => email.associations.dealIds.length === 0 && email.associations.accountIds.length > 0)!;
    const account = data.crm.Account.get(onAccount.associations.accountIds[0]!)! as CrmRecord<'Account'>;
    const rows = q(`SELECT Id, Subject, RelatedTo.Name FROM EmailMessage WHERE RelatedToId = '${account.nativeId}'`).body.records;
    expect(rows.map((row: any) => row.Id)).toContain(onAccount.nativeId);
    expect(rows[0].RelatedTo).toMatchObject({ attributes: { type: 'Name' }, Name: account.name });
    const parent = q(`SELECT Name, (SELECT Subject FROM Emails) FROM Account WHERE Id = '${account.nativeId}'`).body.records[0];
    expect(parent.Emails.records.map((row: any) => row.Subject)).toContain(onAccount.subject);
    const describe = call('GET', `${V}/sobjects/EmailMessage/describe`).body;
    expect(describe).toMatchObject({ name: 'EmailMessage', label: 'Email Message', keyPrefix: '02s', labelPlural: 'Email Messages' });
    expect(describe.fields.find((field: any) => field.name === 'RelatedToId')).toMatchObject({
      type: 'reference',
      referenceTo: ['Account', 'Opportunity'],
      relationshipName: 'RelatedTo',
    });
  });

  it('creates an EmailMessage: a stored Email with its recipients, links and owner, reported as CREATE', () => {
    const { data, changes, call } = makeData();
    const contact = all(data, 'Contact').find((candidate) => candidate.email)!;
    const deal = all(data, 'Deal')[0]!;
    const answer = call('POST', `${V}/sobjects/EmailMessage`, {
      Subject: 'Pricing',
      TextBody: 'See attached',
      HtmlBody: '<p>See attached</p>',
      FromAddress: 'rep@acme.com',
      ToAddress: 'Ann <ann@example.com>; bob@example.com',
      ToIds: [contact.nativeId],
      Status: '3',
      RelatedToId: deal.nativeId,
      MessageDate: '2025-01-02T10:00:00.000+0000',
    });
    expect(answer).toMatchObject({ statusCode: 201, body: { success: true, errors: [] } });
    const entry = data.crm.Email.getByNativeId(answer.body.id)!;
    const email = entry.record as CrmRecord<'Email'>;
    expect(answer.body.id.startsWith('02s')).toBe(true);
    expect(email).toMatchObject({
      subject: 'Pricing',
      body: 'See attached',
      bodyHtml: '<p>See attached</p>',
      from: 'rep@acme.com',
      to: ['ann@example.com', 'bob@example.com', contact.email],
      cc: [],
      bcc: [],
      messageDate: '2025-01-02T10:00:00.000Z',
      isIncoming: false,
      isBounced: false,
      hasAttachment: false,
      status: 'SENT',
      associations: { contactIds: [contact.id], dealIds: [deal.id], accountIds: [], leadIds: [], ownerUserId: all(data, 'User')[0]!.id },
    });
    expect(changes).toEqual([{ objectType: 'Email', eventType: 'CREATE', record: email }]);
    // Left out, the sender is the API user (who owns it) and the subject empty, as the unified Email requires both.
    const bare = call('POST', `${V}/sobjects/EmailMessage`, { Status: '5', TextBody: 'draft' });
    expect(bare.statusCode).toBe(201);
    expect(data.crm.Email.getByNativeId(bare.body.id)!.record).toMatchObject({ from: all(data, 'User')[0]!.email, subject: '', status: 'DRAFT' });
  });

  it('refuses what Salesforce refuses on create, changing nothing', () => {
    const { data, changes, call } = makeData();
    const size = data.crm.Email.size;
    const post = (body: unknown) => call('POST', `${V}/sobjects/EmailMessage`, body);
    expect(post({ Subject: 'No status' }).body).toEqual([
      { errorCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [Status]', fields: ['Status'] },
    ]);
    expect(post({ Status: '9' }).body).toEqual([
      { errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', message: 'bad value for restricted picklist field: 9', fields: ['Status'] },
    ]);
    expect(post({ Status: 'constructor' }).body).toMatchObject([{ errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', fields: ['Status'] }]);
    expect(post({ Status: '3', IsBounced: true }).body).toMatchObject([{ errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['IsBounced'] }]);
    expect(post({ Status: '3', ToIds: ['003000000000000AAA'] }).body).toMatchObject([{ errorCode: 'INVALID_CROSS_REFERENCE_KEY', fields: ['ToIds'] }]);
    expect(post({ Status: '3', RelatedToId: '001000000000000AAA' }).body).toMatchObject([
      { errorCode: 'INVALID_CROSS_REFERENCE_KEY', fields: ['RelatedToId'] },
    ]);
    expect(data.crm.Email.size).toBe(size);
    expect(changes).toEqual([]);
  });

  it('updates a draft; a sent email takes only IsExternallyVisible, custom fields and Status New to Read', () => {
    const { data, changes, call } = makeData();
    const sent = emails(data).find((email) => !email.isIncoming)!;
    const path = `${V}/sobjects/EmailMessage/${sent.nativeId}`;
    expect(call('PATCH', path, { Subject: 'Changed' })).toMatchObject({
      statusCode: 400,
      body: [{ errorCode: 'INSUFFICIENT_ACCESS_OR_READONLY', fields: ['Subject'] }],
    });
    expect(call('PATCH', path, { Status: '5' }).body).toMatchObject([{ errorCode: 'INSUFFICIENT_ACCESS_OR_READONLY', fields: ['Status'] }]);
    expect(call('PATCH', path, { Incoming: true }).body).toMatchObject([{ errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['Incoming'] }]);
    expect(data.crm.Email.get(sent.id)).toBe(sent);
    expect(changes).toEqual([]);
    expect(call('PATCH', path, { IsExternallyVisible: true, Tier__c: 'Gold' }).statusCode).toBe(204);
    expect(call('GET', path).body).toMatchObject({ IsExternallyVisible: true, Tier__c: 'Gold', Subject: sent.subject });
    const draft = call('POST', `${V}/sobjects/EmailMessage`, { Status: '5', Subject: 'Draft', FromAddress: 'rep@acme.com' }).body.id;
    expect(call('PATCH', `${V}/sobjects/EmailMessage/${draft}`, { Subject: 'Final', CcAddress: 'c@example.com', Status: '3' }).statusCode).toBe(204);
    expect(data.crm.Email.getByNativeId(draft)!.record).toMatchObject({ subject: 'Final', cc: ['c@example.com'], status: 'SENT' });
    expect(changes.map((change) => [change.objectType, change.eventType])).toEqual([
      ['Email', 'UPDATE'],
      ['Email', 'CREATE'],
      ['Email', 'UPDATE'],
    ]);
  });
});

describe('salesforce Account addresses and Note titles', () => {
  it('answers BillingAddress from the address, and keeps the shipping address and AccountNumber as written', () => {
    const { data, changes, call, q } = makeData();
    const account = all(data, 'Account').find((candidate) => candidate.address?.city)!;
    const path = `${V}/sobjects/Account/${account.nativeId}`;
    const before = call('GET', path).body;
    const { street, city, state, postalCode, country } = account.address!;
    expect(before.BillingAddress).toEqual({ city, country, geocodeAccuracy: null, latitude: null, longitude: null, postalCode, state, street });
    expect(before).toMatchObject({ ShippingStreet: null, ShippingCity: null, ShippingAddress: null, AccountNumber: null });
    const write = { ShippingStreet: '1 Dock Rd', ShippingCity: 'Leith', ShippingPostalCode: 'EH6', ShippingCountry: 'UK', AccountNumber: 'CD355118' };
    expect(call('PATCH', path, write).statusCode).toBe(204);
    const after = call('GET', path).body;
    expect(after).toMatchObject({ ...write, ShippingState: null, BillingAddress: before.BillingAddress });
    expect(after.ShippingAddress).toEqual({
      city: 'Leith',
      country: 'UK',
      geocodeAccuracy: null,
      latitude: null,
      longitude: null,
      postalCode: 'EH6',
      state: null,
      street: '1 Dock Rd',
    });
    expect(data.crm.Account.entry(account.id)!.extra.native).toEqual(write);
    expect(changes.map((change) => [change.objectType, change.eventType])).toEqual([['Account', 'UPDATE']]);
    expect(q("SELECT Id, AccountNumber, ShippingAddress FROM Account WHERE AccountNumber = 'CD355118'").body.records).toEqual([
      { attributes: after.attributes, Id: account.nativeId, AccountNumber: 'CD355118', ShippingAddress: after.ShippingAddress },
    ]);
    expect(call('PATCH', path, { BillingAddress: { city: 'X' } }).body).toMatchObject([
      { errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE', fields: ['BillingAddress'] },
    ]);
    const bare = call('POST', `${V}/sobjects/Account`, { Name: 'No address' }).body.id;
    expect(call('GET', `${V}/sobjects/Account/${bare}`).body).toMatchObject({ BillingAddress: null, ShippingAddress: null });
    const describe = call('GET', `${V}/sobjects/Account/describe`).body.fields;
    expect(describe.find((field: any) => field.name === 'ShippingCity')).toMatchObject({ compoundFieldName: 'ShippingAddress', updateable: true });
    expect(describe.find((field: any) => field.name === 'BillingAddress')).toMatchObject({ type: 'address', soapType: 'urn:address', updateable: false });
  });

  it("keeps a note's written Title; a note written without one shows the start of its body", () => {
    const { data, call } = makeData();
    const account = all(data, 'Account')[0]!;
    const created = call('POST', `${V}/sobjects/Note`, { ParentId: account.nativeId, Title: '[LOTUS] Invoice 42', Body: 'Paid in full\nThanks' });
    expect(created.statusCode).toBe(201);
    const path = `${V}/sobjects/Note/${created.body.id}`;
    expect(call('GET', path).body).toMatchObject({ Title: '[LOTUS] Invoice 42', Body: 'Paid in full\nThanks' });
    expect(call('PATCH', path, { Title: '[LOTUS] Invoice 43' }).statusCode).toBe(204);
    expect(call('GET', path).body.Title).toBe('[LOTUS] Invoice 43');
    expect(call('PATCH', path, { Title: '' }).body).toEqual([
      { errorCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [Title]', fields: ['Title'] },
    ]);
    const seeded = all(data, 'Note')[0]!;
    expect(call('GET', `${V}/sobjects/Note/${seeded.nativeId}`).body.Title).toBe((seeded.content ?? '').split('\n')[0]!.slice(0, 80));
  });
});
