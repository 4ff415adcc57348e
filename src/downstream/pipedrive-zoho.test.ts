import { describe, expect, it } from 'vitest';
import { seededData } from '../../test/helpers/seeded-data.js';
import type { CrmObjectType, CrmRecord } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';
import type { ConnectionData } from '../store/connection-data.js';
import { downstreamFor } from './index.js';
import type { DownstreamRequest } from './types.js';

/** Pipedrive's and Zoho's search and paging, as their API references describe them. */

function makeData(integrationId: IntegrationId) {
  const { data, changes, context } = seededData(integrationId);
  const call = (method: DownstreamRequest['method'], path: string, body?: unknown, query: Record<string, string> = {}) =>
    downstreamFor(integrationId).handle({ method, path, query, body }, context) as { statusCode: number; headers: Record<string, string>; body: any };
  return { data, changes, context, call };
}

const all = <T extends CrmObjectType>(data: ConnectionData, type: T) => [...data.crm[type].values()] as unknown as CrmRecord<T>[];

describe('pipedrive', () => {
  it('pages persons with start/limit to the end without gaps, more_items_in_collection saying when more follow', () => {
    const { data, call } = makeData('pipedrive');
    const seen: number[] = [];
    let start = 0;
    for (let guard = 0; guard < 100; guard++) {
      const body = call('GET', 'v1/persons', undefined, { start: String(start), limit: '13' }).body;
      seen.push(...body.data.map((person: any) => person.id));
      const { pagination } = body.additional_data;
      if (!pagination.more_items_in_collection) break;
      start = pagination.next_start;
    }
    expect(seen).toEqual(all(data, 'Contact').map((contact) => Number(contact.nativeId)));
  });

  it('searches persons by name, email (exact or not) and organization, best matches first', () => {
    const { data, call } = makeData('pipedrive');
    const person = all(data, 'Contact').find((contact) => contact.associations.accountIds.length > 0 && contact.email)!;
    const exact = call('GET', 'v1/persons/search', undefined, { term: person.email!, fields: 'email', exact_match: 'true' });
    expect(exact.statusCode).toBe(200);
    expect(exact.body.data.items).toEqual([
      expect.objectContaining({ result_score: 1, item: expect.objectContaining({ id: Number(person.nativeId), type: 'person', emails: [person.email] }) }),
    ]);
    const lastName = person.lastName!;
    const byName = call('GET', 'v1/persons/search', undefined, { term: lastName, fields: 'name' }).body.data.items;
    expect(byName.map((hit: any) => hit.item.id)).toContain(Number(person.nativeId));
    const scores = byName.map((hit: any) => hit.result_score);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    const account = data.crm.Account.get(person.associations.accountIds[0]!)!;
    const inOrg = call('GET', 'v1/persons/search', undefined, { term: lastName, organization_id: account.nativeId }).body.data.items;
    expect(inOrg.length).toBeGreaterThan(0);
    for (const hit of inOrg) expect(hit.item.organization.id).toBe(Number(account.nativeId));
  });

  it('searches organizations and deals, deals by status', () => {
    const { data, call } = makeData('pipedrive');
    const account = all(data, 'Account')[2]!;
    const orgs = call('GET', 'v1/organizations/search', undefined, { term: account.name!, exact_match: 'true' }).body.data.items;
    expect(orgs[0].item).toMatchObject({ id: Number(account.nativeId), type: 'organization', name: account.name });
    const deal = all(data, 'Deal').find((candidate) => candidate.isWon)!;
    const word = deal.name!.split(/\s+/)[0]!;
    const won = call('GET', 'v1/deals/search', undefined, { term: word, status: 'won' }).body.data.items;
    expect(won.map((hit: any) => hit.item.id)).toContain(Number(deal.nativeId));
    for (const hit of won) expect(hit.item.status).toBe('won');
  });

  it('refuses a short term or an unknown field in its error envelope', () => {
    const { call } = makeData('pipedrive');
    expect(call('GET', 'v1/persons/search', undefined, { term: 'a' })).toMatchObject({
      statusCode: 400,
      body: { success: false, error: expect.stringContaining("'term'"), error_info: expect.any(String) },
    });
    expect(call('GET', 'v1/persons/search', undefined, { term: 'ab', fields: 'shoe' })).toMatchObject({ statusCode: 400, body: { success: false } });
    expect(call('GET', 'v1/persons/search', undefined, { term: 'ab', organization_id: 'x' })).toMatchObject({ statusCode: 400, body: { success: false } });
    // Nothing found is success with no items.
    expect(call('GET', 'v1/persons/search', undefined, { term: 'zzzzqqqq' }).body).toMatchObject({ success: true, data: { items: [] } });
  });

  it('a person created natively is found by search and reported as CREATE', () => {
    const { changes, call } = makeData('pipedrive');
    const created = call('POST', 'v1/persons', { name: 'Quintessa Marlowe', email: 'q@marlowe.test' });
    expect(created.statusCode).toBe(201);
    expect(changes).toEqual([expect.objectContaining({ objectType: 'Contact', eventType: 'CREATE' })]);
    const hits = call('GET', 'v1/persons/search', undefined, { term: 'Quintessa' }).body.data.items;
    expect(hits.map((hit: any) => hit.item.id)).toEqual([created.body.data.id]);
  });
});

describe('zoho', () => {
  it('pages with page/per_page to the end without gaps; info.more_records says when more follow', () => {
    const { data, call } = makeData('zoho');
    const seen: string[] = [];
    for (let page = 1; page < 100; page++) {
      const answer = call('GET', 'Contacts', undefined, { page: String(page), per_page: '17' });
      if (answer.statusCode === 204) break;
      seen.push(...answer.body.data.map((contact: any) => contact.id));
      if (!answer.body.info.more_records) break;
    }
    expect(seen).toEqual(all(data, 'Contact').map((contact) => contact.nativeId));
  });

  it('searches by criteria with equals, starts_with, in, comparisons, and/or and parentheses', () => {
    const { data, call } = makeData('zoho');
    const contacts = all(data, 'Contact');
    const c = contacts[3]!;
    const q = (criteria: string, more: Record<string, string> = {}) => call('GET', 'Contacts/search', undefined, { criteria, ...more });
    expect(q(`(Email:equals:${c.email})`).body.data.map((row: any) => row.id)).toEqual([c.nativeId]);
    const prefix = c.lastName!.slice(0, 2);
    const starts = q(`(Last_Name:starts_with:${prefix})`, { per_page: '200' }).body;
    expect(starts.info.count).toBe(contacts.filter((x) => x.lastName!.toLowerCase().startsWith(prefix.toLowerCase())).length);
    const pair = q(`(Email:in:${contacts[1]!.email},${contacts[2]!.email})`).body.data.map((row: any) => row.id);
    expect(pair).toEqual([contacts[1]!.nativeId, contacts[2]!.nativeId]);
    const either = q(`((Email:equals:${contacts[1]!.email})or(Email:equals:${contacts[2]!.email}))and(Last_Name:equals:${contacts[2]!.lastName})`).body.data;
    expect(either.map((row: any) => row.id)).toEqual([contacts[2]!.nativeId]);
    const deals = all(data, 'Deal');
    const big = call('GET', 'Deals/search', undefined, { criteria: '(Amount:greater_than:10000)', per_page: '200' });
    const expected = deals.filter((d) => d.amount !== null && d.amount > 10000).length;
    if (expected === 0) expect(big.statusCode).toBe(204);
    else expect(big.body.info.count).toBe(expected);
    // A lookup compares by name.
    const withAccount = contacts.find((x) => x.associations.accountIds.length > 0)!;
    const account = data.crm.Account.get(withAccount.associations.accountIds[0]!) as CrmRecord<'Account'>;
    const byAccount = q(`(Account_Name:equals:${account.name!.replace(/([(),])/g, '\\$1')})`).body.data.map((row: any) => row.id);
    expect(byAccount).toContain(withAccount.nativeId);
  });

  it('searches by email, phone and word; 204 when nothing matches', () => {
    const { data, call } = makeData('zoho');
    const c = all(data, 'Contact').find((x) => x.phone)!;
    expect(call('GET', 'Contacts/search', undefined, { email: c.email! }).body.data[0].id).toBe(c.nativeId);
    expect(call('GET', 'Contacts/search', undefined, { phone: c.phone! }).body.data.map((row: any) => row.id)).toContain(c.nativeId);
    expect(call('GET', 'Contacts/search', undefined, { word: c.lastName! }).body.data.map((row: any) => row.id)).toContain(c.nativeId);
    expect(call('GET', 'Contacts/search', undefined, { email: 'nobody@nowhere.test' })).toMatchObject({ statusCode: 204, body: null });
  });

  it('refuses bad searches in its { code, details, message, status } form', () => {
    const { call } = makeData('zoho');
    expect(call('GET', 'Contacts/search')).toEqual(
      expect.objectContaining({
        statusCode: 400,
        body: { code: 'REQUIRED_PARAM_MISSING', details: { param: 'criteria' }, message: 'One of the expected parameter is missing', status: 'error' },
      }),
    );
    expect(call('GET', 'Contacts/search', undefined, { criteria: '(Email:like:x)' })).toMatchObject({
      statusCode: 400,
      body: { code: 'INVALID_QUERY', details: { reason: 'invalid operator found', api_name: 'Email', operator: 'like' }, status: 'error' },
    });
    expect(call('GET', 'Contacts/search', undefined, { criteria: '(Shoe_Size:equals:9)' }).body.details).toMatchObject({ api_name: 'Shoe_Size' });
    expect(call('GET', 'Contacts/search', undefined, { criteria: 'Email:equals:x' }).body.code).toBe('INVALID_QUERY');
    expect(call('GET', 'Widgets/search', undefined, { word: 'ab' })).toMatchObject({ statusCode: 404, body: { code: 'INVALID_URL_PATTERN' } });
  });
});

describe('pipedrive mailbox', () => {
  const emails = (data: ConnectionData) => all(data, 'Email');

  it('reads a stored Email as a mail message, with its body on asking, and as a thread of its own', () => {
    const { data, call, context } = makeData('pipedrive');
    const email = emails(data).find((candidate) => candidate.isIncoming && candidate.associations.contactIds.length > 0)!;
    const contact = data.crm.Contact.get(email.associations.contactIds[0]!) as CrmRecord<'Contact'>;
    const owner = data.crm.User.get(email.associations.ownerUserId!)!;
    const answer = call('GET', `v1/mailbox/mailMessages/${email.nativeId}`, undefined, { include_body: '1' });
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toMatchObject({ success: true, statusCode: 2000, statusText: 'Success', service: 'email-api' });
    expect(answer.body.data).toMatchObject({
      id: Number(email.nativeId),
      from: [{ email_address: email.from, linked_person_id: Number(contact.nativeId), linked_person_name: `${contact.firstName} ${contact.lastName}` }],
      to: email.to.map((address) => ({ email_address: address })),
      user_id: Number(owner.nativeId),
      mail_thread_id: Number(email.nativeId),
      subject: email.subject,
      snippet: email.body!.slice(0, 225),
      sent_flag: 0,
      has_attachments_flag: email.hasAttachment ? 1 : 0,
      message_time: `${email.messageDate!.slice(0, 19)}.000Z`,
      body: email.bodyHtml,
    });
    expect(call('GET', `v1/mailbox/mailMessages/${email.nativeId}`).body.data.body).toBeUndefined();
    const { body: nativeBody, ...withoutBody } = answer.body.data;
    expect(nativeBody).toBe(email.bodyHtml);
    expect(downstreamFor('pipedrive').nativeRecord('Email', email, data.crm.Email.entry(email.id)!.extra, context)).toEqual(withoutBody);
    const thread = call('GET', `v1/mailbox/mailThreads/${email.nativeId}`).body.data;
    expect(thread).toMatchObject({ id: Number(email.nativeId), subject: email.subject, folders: ['inbox'], message_count: 1, first_message_to_me_flag: 1 });
    expect(call('GET', `v1/mailbox/mailThreads/${email.nativeId}/mailMessages`).body.data).toEqual([withoutBody]);
    const inbox = call('GET', 'v1/mailbox/mailThreads', undefined, { folder: 'inbox', limit: '500' }).body.data.map((row: any) => row.id);
    expect(inbox).toEqual(
      emails(data)
        .filter((candidate) => candidate.isIncoming)
        .map((candidate) => Number(candidate.nativeId)),
    );
    expect(call('GET', 'v1/mailbox/mailThreads', undefined, { folder: 'drafts' }).body.data).toEqual([]);
    expect(call('GET', 'v1/mailbox/mailMessages/1')).toMatchObject({ statusCode: 404, body: { success: false } });
  });

  it("lists a person's, a deal's and an organization's mail messages, newest first", () => {
    const { data, call } = makeData('pipedrive');
    const email = emails(data).find((candidate) => candidate.associations.dealIds.length > 0)!;
    for (const [collection, type, assoc] of [
      ['deals', 'Deal', 'dealIds'],
      ['organizations', 'Account', 'accountIds'],
      ['persons', 'Contact', 'contactIds'],
    ] as const) {
      const target = data.crm[type].get(email.associations[assoc][0]!)!;
      const answer = call('GET', `v1/${collection}/${target.nativeId}/mailMessages`);
      expect(answer.statusCode).toBe(200);
      const items = answer.body.data as any[];
      const expected = emails(data).filter((candidate) => candidate.associations[assoc].includes(target.id));
      expect(items.map((item) => item.data.id).sort()).toEqual(expected.map((candidate) => Number(candidate.nativeId)).sort());
      expect(items[0]).toMatchObject({ object: 'mailMessage', data: { subject: expect.any(String) } });
      const times = items.map((item) => item.data.message_time);
      expect(times).toEqual([...times].sort().reverse());
    }
    expect(call('GET', 'v1/persons/1/mailMessages')).toMatchObject({ statusCode: 404, body: { success: false, error: 'Person not found' } });
  });

  it('refuses every write to mail in its own error body: the mailbox API is read-only', () => {
    const { data, changes, call } = makeData('pipedrive');
    const email = emails(data)[0]!;
    const refused = { statusCode: 404, body: { success: false, error: 'Unknown method .', data: null } };
    expect(call('POST', 'v1/mailbox/mailMessages', { subject: 'x' })).toMatchObject(refused);
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      expect(call(method, `v1/mailbox/mailMessages/${email.nativeId}`, { subject: 'x' })).toMatchObject(refused);
      expect(call(method, `v1/mailbox/mailThreads/${email.nativeId}`, { read_flag: 0 })).toMatchObject(refused);
    }
    expect(data.crm.Email.get(email.id)).toBe(email);
    expect(changes).toEqual([]);
  });
});

describe('zoho emails', () => {
  const emails = (data: ConnectionData) => all(data, 'Email');

  it("lists a record's emails ten at a time under email_related_list, and shows one with its content", () => {
    const { data, call, context } = makeData('zoho');
    const counts = new Map<string, number>();
    for (const email of emails(data)) for (const id of email.associations.accountIds) counts.set(id, (counts.get(id) ?? 0) + 1);
    const [accountId] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const account = data.crm.Account.get(accountId)!;
    const expected = emails(data).filter((email) => email.associations.accountIds.includes(accountId));
    const seen: string[] = [];
    let index: string | null = '0';
    while (index !== null) {
      const page: { statusCode: number; body: any } = call('GET', `Accounts/${account.nativeId}/Emails`, undefined, { index });
      expect(page.statusCode).toBe(200);
      expect(page.body.email_related_list.length).toBeLessThanOrEqual(10);
      seen.push(...page.body.email_related_list.map((row: any) => row.message_id));
      expect(page.body.info.more_records).toBe(page.body.info.next_index !== null);
      index = page.body.info.next_index;
    }
    expect(seen).toEqual(expected.map((email) => email.nativeId));
    const email = expected[0]!;
    const one = call('GET', `Accounts/${account.nativeId}/Emails/${email.nativeId}`);
    expect(one.statusCode).toBe(200);
    expect(one.body.email_related_list[0]).toMatchObject({
      message_id: email.nativeId,
      subject: email.subject,
      from: { email: email.from },
      to: email.to.map((address) => ({ email: address })),
      sent: !email.isIncoming,
      content: email.bodyHtml,
      mail_format: 'html',
      status: [{ type: email.isBounced ? 'bounced' : 'sent' }],
      linked_record: { id: account.nativeId, module: { api_name: 'Accounts' } },
    });
    expect(downstreamFor('zoho').nativeRecord('Email', email, data.crm.Email.entry(email.id)!.extra, context)).toMatchObject({
      message_id: email.nativeId,
      content: email.bodyHtml,
    });
    const lonely = all(data, 'Lead').find((lead) => !emails(data).some((candidate) => candidate.associations.leadIds.includes(lead.id)))!;
    expect(call('GET', `Leads/${lonely.nativeId}/Emails`)).toMatchObject({ statusCode: 204, body: null });
    expect(call('GET', `Tasks/${lonely.nativeId}/Emails`)).toMatchObject({ statusCode: 404, body: { code: 'INVALID_URL_PATTERN' } });
    expect(call('GET', 'constructor/1/Emails')).toMatchObject({ statusCode: 404, body: { code: 'INVALID_URL_PATTERN' } });
  });

  it('sends an email from a contact: logged as a stored Email on it, from its user, reported as CREATE', () => {
    const { data, changes, call } = makeData('zoho');
    const contact = all(data, 'Contact')[5]!;
    const user = all(data, 'User')[1]!;
    const answer = call('POST', `Contacts/${contact.nativeId}/actions/send_mail`, {
      data: [
        {
          from: { user_name: 'Rep', email: user.email },
          to: [{ user_name: contact.lastName, email: contact.email }],
          cc: [{ user_name: 'Boss', email: 'boss@acme.com' }],
          subject: 'Quote',
          content: '<p>Here &amp; now</p>',
        },
      ],
    });
    expect(answer).toMatchObject({
      statusCode: 200,
      body: { data: [{ code: 'SUCCESS', details: { message_id: expect.any(String) }, message: 'Your mail has been sent successfully.', status: 'success' }] },
    });
    const email = data.crm.Email.getByNativeId(answer.body.data[0].details.message_id)!.record as CrmRecord<'Email'>;
    expect(email).toMatchObject({
      from: user.email,
      to: [contact.email],
      cc: ['boss@acme.com'],
      subject: 'Quote',
      body: 'Here & now',
      bodyHtml: '<p>Here &amp; now</p>',
      messageDate: '2025-01-01T00:00:00.000Z',
      isIncoming: false,
      status: 'SENT',
      associations: { contactIds: [contact.id], ownerUserId: user.id },
    });
    expect(changes).toEqual([{ objectType: 'Email', eventType: 'CREATE', record: email }]);
    expect(call('GET', `Contacts/${contact.nativeId}/Emails/${email.nativeId}`).body.email_related_list[0]).toMatchObject({ subject: 'Quote', sent: true });
    const missing = call('POST', `Contacts/${contact.nativeId}/actions/send_mail`, { data: [{ from: { email: user.email }, subject: 'x' }] });
    expect(missing).toMatchObject({
      statusCode: 400,
      body: { data: [{ code: 'MANDATORY_NOT_FOUND', details: { api_name: 'to' }, message: 'required field not found', status: 'error' }] },
    });
    expect(changes).toHaveLength(1);
  });
});
