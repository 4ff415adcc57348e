import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import type { ExchangeResult } from '../src/model/connection.js';
import { ENGAGEMENT_UNMAPPED, UNIFIED_ENGAGEMENT_OBJECTS } from '../src/unified/engagement-objects.js';
import type { Exchange } from './helpers/openapi-conformance.js';
import { serviceChecker } from './helpers/service-document.js';
import { API_KEY, type CallOptions, type CallResult, devServerTransport, mswTransport, type Transport } from './helpers/transports.js';

/**
 * The service's unified engagement objects, over both transports (MSW in this process, the dev
 * server on a real port), each case on a fresh virtual-clock sandbox; every success is checked
 * against the service's own v1 document (test/helpers/service-document.ts reads its
 * contradictions as its examples say). The curl lines of docs/reference/unified-engagement.md
 * ("The unified engagement objects": list the sequences, start one) are calls of its first case.
 */
const PLATFORMS = ['outreach', 'salesloft', 'apollo'] as const;
type Platform = (typeof PLATFORMS)[number];

interface Checked {
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** Not checked: a request beyond the document (a search by other filters than its one). */
  raw(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  readonly violations: string[];
  readonly covered: Set<string>;
}

function checked(t: Transport): Checked {
  const check = serviceChecker();
  const violations: string[] = [];
  return {
    violations,
    covered: check.covered,
    raw: (method, path, options) => t.call(method, path, options),
    async call(method, path, options = {}) {
      const res = await t.call(method, path, options);
      const query = new URLSearchParams(Object.entries(options.query ?? {}).map(([key, value]) => [key, String(value)])).toString();
      const exchange: Exchange = {
        request: { method, path, query, headers: {}, ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }) },
        response: { status: res.status, headers: {}, body: res.text },
      };
      violations.push(...check(exchange));
      return res;
    },
  };
}

/** The members of a body that pass. */
const kept = (body: Record<string, unknown>, keep: (key: string) => boolean) => Object.fromEntries(Object.entries(body).filter(([key]) => keep(key)));

function expectError(res: CallResult, status: number, errorCode: string, field?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body.errorCode, res.text).toBe(errorCode);
  expect(typeof res.body.message).toBe('string');
  if (field !== undefined) expect(res.body.metadata?.field, res.text).toBe(field);
}

async function link(t: Checked, integrationId: string): Promise<ExchangeResult> {
  const { linkToken } = (await t.call('POST', '/link/token')).body;
  const { publicToken } = (await t.call('POST', '/sandbox/public-token', { json: { integrationId, linkToken } })).body;
  return (await t.call('POST', '/link/exchange', { json: { publicToken } })).body;
}

async function ready(t: Checked, sandbox: Sandbox, integrationId: string): Promise<ExchangeResult> {
  const connection = await link(t, integrationId);
  await sandbox.advance('10s');
  return connection;
}

/** The passthrough's answer to a native request. */
async function native(t: Checked, accessToken: string, method: string, path: string, body?: unknown, query?: Record<string, string>) {
  // The passthrough is not among the document's unified operations: not checked against it.
  const res = await t.raw('POST', '/crm/passthrough', {
    json: { accessToken, method, path, ...(body === undefined ? {} : { body }), ...(query ? { query } : {}) },
  });
  expect(res.status, res.text).toBe(200);
  return res.body as { statusCode: number; body: any };
}

/** Each platform's native contact: where it is read, its last name, city and custom field `region` there. */
const CONTACTS = {
  outreach: {
    read: (id: string) => `prospects/${id}`,
    fields: (body: any) => ({
      lastName: body.data.attributes.lastName,
      email: body.data.attributes.emails[0],
      city: body.data.attributes.addressCity,
      region: body.data.attributes.custom1,
    }),
    create: {
      path: 'prospects',
      body: { data: { type: 'prospect', attributes: { firstName: 'Grace', lastName: 'Hopper', emails: ['grace@navy.example'], addressCity: 'Arlington' } } },
    },
  },
  salesloft: {
    read: (id: string) => `people/${id}`,
    fields: (body: any) => ({ lastName: body.data.last_name, email: body.data.email_address, city: body.data.city, region: body.data.custom_fields.region }),
    create: { path: 'people', body: { first_name: 'Grace', last_name: 'Hopper', email_address: 'grace@navy.example', city: 'Arlington' } },
  },
  apollo: {
    read: (id: string) => `contacts/${id}`,
    fields: (body: any) => ({
      lastName: body.contact.last_name,
      email: body.contact.email,
      city: body.contact.city,
      region: body.contact.typed_custom_fields.region,
    }),
    create: { path: 'contacts', body: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@navy.example', city: 'Arlington' } },
  },
} as const;

/** Where each platform shows a contact's place in its sequences, natively. */
async function nativeEnrolments(t: Checked, platform: Platform, accessToken: string, contactNativeId: string) {
  if (platform === 'outreach') {
    const states = await native(t, accessToken, 'GET', 'sequenceStates', undefined, { 'filter[prospect][id]': contactNativeId });
    return states.body.data.map((state: any) => ({ sequence: String(state.relationships.sequence.data.id), state: state.attributes.state }));
  }
  if (platform === 'salesloft') {
    const memberships = await native(t, accessToken, 'GET', 'cadence_memberships', undefined, { person_id: contactNativeId });
    return memberships.body.data.map((membership: any) => ({ sequence: String(membership.cadence.id), state: membership.current_state }));
  }
  const contact = await native(t, accessToken, 'GET', `contacts/${contactNativeId}`);
  return contact.body.contact.contact_campaign_statuses.map((status: any) => ({ sequence: status.emailer_campaign_id, state: status.status }));
}

const cases: Array<{ name: string; run: (t: Checked, sandbox: Sandbox) => Promise<void> }> = [
  {
    name: 'every engagement operation of the document answers on Outreach, Salesloft and Apollo as the document describes it',
    run: async (t, sandbox) => {
      for (const platform of PLATFORMS) {
        const { accessToken } = await ready(t, sandbox, platform);
        for (const object of UNIFIED_ENGAGEMENT_OBJECTS) {
          const label = `${platform} ${object.name}`;
          const page = await t.call('GET', `/engagement/${object.many}`, { query: { accessToken, limit: 3 } });
          expect(page.status, `${label}: ${page.text}`).toBe(200);
          expect(Object.keys(page.body)).toEqual([object.listKey, 'nextPageCursor']);
          const [one] = page.body[object.listKey];
          expect(one, label).toBeDefined();
          expect(one.id, label).toMatch(/^[0-9a-f]{32}$/);
          expect(one).not.toHaveProperty('additional');
          const withNative = await t.call('GET', `/engagement/${object.many}`, { query: { accessToken, limit: 1, allFields: true } });
          expect(typeof withNative.body[object.listKey][0].additional, label).toBe('object');
          // The native record itself, not an empty object.
          expect(Object.keys(withNative.body[object.listKey][0].additional).length, label).toBeGreaterThan(0);
          if (object.operations.includes('get')) {
            expect((await t.call('GET', `/engagement/${object.one}`, { query: { accessToken, id: one.id } })).body, label).toEqual({ [object.key]: one });
            const got = await t.call('GET', `/engagement/${object.one}`, { query: { accessToken, id: one.id, allFields: 'true' } });
            expect(got.body[object.key].additional, label).toEqual(withNative.body[object.listKey][0].additional);
            expectError(await t.call('GET', `/engagement/${object.one}`, { query: { accessToken, id: 'f'.repeat(32) } }), 404, 'OBJECT_NOT_FOUND', 'id');
          }
        }
        const first = async (list: string) => (await t.call('GET', `/engagement/${list}`, { query: { accessToken, limit: 1 } })).body;
        const user = (await first('users')).users[0];
        const contact = (await first('contacts')).contacts[0];

        const account = await t.call('POST', '/engagement/account', {
          json: {
            accessToken,
            account: kept(
              {
                name: 'Blue Cross',
                description: 'Insurance',
                industry: 'Health',
                numberOfEmployees: 100,
                website: 'www.bluecross.example',
                address: { city: 'Scranton' },
              },
              // A field a platform keeps nowhere is refused by name (decision 0044): left out there.
              (key) => !ENGAGEMENT_UNMAPPED[platform]!.Account.includes(key),
            ),
          },
        });
        expect(account.status, account.text).toBe(200);
        expect((await t.call('PATCH', '/engagement/account', { json: { accessToken, id: account.body.id, account: { industry: 'Insurance' } } })).body).toEqual(
          {
            id: account.body.id,
          },
        );
        const accountRead = (await t.call('GET', '/engagement/account', { query: { accessToken, id: account.body.id } })).body.account;
        expect(accountRead).toMatchObject({ name: 'Blue Cross', industry: 'Insurance', locality: 'Scranton', address: { city: 'Scranton' } });

        const created = await t.call('POST', '/engagement/contact', {
          json: {
            accessToken,
            contact: { firstName: 'Tom', lastName: 'Smith', jobTitle: 'Director of Operations', address: { city: 'Scranton', country: 'USA' } },
          },
        });
        expect(created.status, created.text).toBe(200);
        const updated = await t.call('PATCH', '/engagement/contact', { json: { accessToken, id: created.body.id, contact: { jobTitle: 'COO' } } });
        expect(updated.body).toEqual({ id: created.body.id });
        const found = await t.call('POST', '/engagement/contacts/search', {
          json: { accessToken, filters: { emails: { address: { equals: contact.emails[0].address } } } },
        });
        expect(found.body.contacts.map((item: { id: string }) => item.id)).toContain(contact.id);

        const task = await t.call('POST', '/engagement/task', {
          json: { accessToken, task: { type: 'call', body: 'Call about paper', dueDate: '2025-02-01T10:00:00Z', contactId: contact.id, ownerUserId: user.id } },
        });
        expect(task.status, task.text).toBe(200);
        expect((await t.call('PATCH', '/engagement/task', { json: { accessToken, id: task.body.id, task: { body: 'Call about more paper' } } })).status).toBe(
          200,
        );
        const completed = await t.call('POST', '/engagement/task/complete', {
          json: {
            accessToken,
            id: task.body.id,
            fields: { type: 'call', durationSeconds: 120, phone: '8192223333', body: 'Went well', dispositionKey: 'answered_meeting_set' },
          },
        });
        expect(completed.body, completed.text).toEqual({ id: task.body.id });
        const taskRead = (await t.call('GET', '/engagement/task', { query: { accessToken, id: task.body.id } })).body.task;
        expect(taskRead).toMatchObject({
          type: 'call',
          body: 'Call about more paper',
          status: 'complete',
          associations: { contactId: contact.id, ownerUserId: user.id },
        });
        const call = (await t.call('GET', '/engagement/call', { query: { accessToken, id: taskRead.associations.callId } })).body.call;
        expect(call).toMatchObject({
          phone: '8192223333',
          disposition: 'Answered - Meeting Set',
          durationSeconds: 120,
          note: 'Went well',
          associations: { taskId: task.body.id },
        });

        const sequences = (await t.call('GET', '/engagement/sequences', { query: { accessToken } })).body.sequences;
        const mailbox = (await first('mailboxes')).mailboxes[0];
        const started = await t.call('POST', '/engagement/sequence/start', {
          json: { accessToken, id: sequences[0].id, fields: { contactId: created.body.id, mailboxId: mailbox.id } },
        });
        expect(started.status, started.text).toBe(200);
        const action = (await t.call('GET', '/engagement/action', { query: { accessToken, id: started.body.id } })).body.action;
        expect(action).toMatchObject({
          type: 'email',
          status: 'to_do',
          associations: { contactId: created.body.id, ownerUserId: mailbox.associations.ownerUserId },
        });

        // A call step, completed: the contact moves on to the next step.
        const actions = (await t.call('GET', '/engagement/actions', { query: { accessToken, limit: 200 } })).body.actions;
        const callStep = actions.find((item: { type: string; status: string }) => item.type === 'call' && item.status === 'to_do');
        expect(callStep, label(platform)).toBeDefined();
        const done = await t.call('POST', '/engagement/action/complete', {
          json: { accessToken, id: callStep.id, fields: { type: 'call', durationSeconds: 60 } },
        });
        expect(done.body, done.text).toEqual({ id: callStep.id });
        const after = (await t.call('GET', '/engagement/action', { query: { accessToken, id: callStep.id } })).body.action;
        expect(after.modifiedTime).not.toBe(callStep.modifiedTime);
        expect(after.associations.callId).toMatch(/^[0-9a-f]{32}$/);
        // The user's task is named on it.
        const owner = (await t.call('GET', '/engagement/user', { query: { accessToken, id: user.id } })).body.user;
        expect(owner).toEqual((await first('users')).users[0]);
        expect(owner.associations.taskIds).toContain(task.body.id);
        expect(
          (await t.call('POST', '/engagement/emails/search', { json: { accessToken, filters: { sequenceId: { equals: sequences[0].id } } } })).status,
        ).toBe(200);
      }
      // Every operation of the document was met, and each answer and accepted request conformed to it.
      const documented = Object.entries(serviceDocumentPaths()).flatMap(([path, methods]) => methods.map((method) => `${method} ${path}`));
      expect(documented.filter((operation) => !t.covered.has(operation))).toEqual([]);
      expect(t.violations).toEqual([]);
    },
  },
  {
    name: 'lists page to the end, each record once, nextPageCursor null on the last page; cursor=1 is the first page',
    run: async (t, sandbox) => {
      const { accessToken } = await ready(t, sandbox, 'outreach');
      for (const object of UNIFIED_ENGAGEMENT_OBJECTS) {
        const all = (await t.call('GET', `/engagement/${object.many}`, { query: { accessToken, limit: 200 } })).body;
        expect(all.nextPageCursor, object.name).toBeNull();
        const seen: string[] = [];
        let cursor: string | null = '1';
        let pages = 0;
        while (cursor) {
          const res: CallResult = await t.call('GET', `/engagement/${object.many}`, { query: { accessToken, limit: 4, cursor } });
          expect(res.status, res.text).toBe(200);
          expect(res.body).toHaveProperty('nextPageCursor');
          seen.push(...res.body[object.listKey].map((item: { id: string }) => item.id));
          cursor = res.body.nextPageCursor;
          pages++;
        }
        expect(seen, object.name).toEqual(all[object.listKey].map((item: { id: string }) => item.id));
        expect(pages).toBe(Math.max(1, Math.ceil(seen.length / 4)));
      }
      const page = await t.call('GET', '/engagement/contacts', { query: { accessToken, limit: 2 } });
      expectError(await t.call('GET', '/engagement/tasks', { query: { accessToken, cursor: page.body.nextPageCursor } }), 400, 'INVALID_FIELD_VALUE', 'cursor');
      expect(t.violations).toEqual([]);
    },
  },
  {
    name: 'searches: a contact by email as the document shows, and by any of its fields; emails by contact and sequence; bad filters are 400s naming them',
    run: async (t, sandbox) => {
      const { accessToken } = await ready(t, sandbox, 'salesloft');
      const contacts = (await t.call('GET', '/engagement/contacts', { query: { accessToken, limit: 200 } })).body.contacts;
      const target = contacts[5];
      const byEmail = await t.call('POST', '/engagement/contacts/search', {
        json: { accessToken, filters: { emails: { address: { equals: target.emails[0].address } } } },
      });
      expect(byEmail.body).toEqual({ contacts: [target], nextPageCursor: null });
      // Beyond the document's one filter (so not checked against its request schema).
      const search = async (filters: unknown, list = 'contacts') => {
        const res = await t.raw('POST', `/engagement/${list}/search`, { json: { accessToken, filters, limit: 200 } });
        expect(res.status, res.text).toBe(200);
        return res.body[list].map((item: { id: string }) => item.id);
      };
      const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);
      expect(await search({ lastName: { startsWith: target.lastName.slice(0, 3) } })).toEqual(
        ids(contacts.filter((c: any) => c.lastName?.startsWith(target.lastName.slice(0, 3)))),
      );
      expect(await search({ accountId: { equals: target.associations.accountId } })).toEqual(
        ids(contacts.filter((c: any) => c.associations.accountId === target.associations.accountId)),
      );
      expect(await search({ phones: { type: { equals: 'personal' } } })).toEqual(
        ids(contacts.filter((c: any) => c.phones.some((p: any) => p.type === 'personal'))),
      );
      const emails = (await t.call('GET', '/engagement/emails', { query: { accessToken, limit: 200 } })).body.emails;
      const sent = emails.find((email: any) => email.associations.sequenceId !== null);
      const filters = { contactId: { equals: sent.associations.contactId }, sequenceId: { equals: sent.associations.sequenceId } };
      expect(await search(filters, 'emails')).toEqual(
        ids(emails.filter((e: any) => e.associations.contactId === sent.associations.contactId && e.associations.sequenceId === sent.associations.sequenceId)),
      );
      expect(await search({ isBounced: { equals: true } }, 'emails')).toEqual(ids(emails.filter((e: any) => e.isBounced)));
      const bad = (filters: unknown) => t.raw('POST', '/engagement/contacts/search', { json: { accessToken, filters } });
      expectError(await bad({ colour: { equals: 'red' } }), 400, 'INVALID_FIELD_VALUE', 'filters.colour');
      expect((await bad({ colour: { equals: 'red' } })).body.message).toContain(
        'allowed: id, firstName, lastName, jobTitle, accountId, ownerUserId, createdTime, modifiedTime, emails, phones',
      );
      expectError(await bad({ emails: { address: { like: 'x' } } }), 400, 'INVALID_FIELD_VALUE', 'filters.emails.address.like');
      expectError(await bad({ emails: { domain: { equals: 'x' } } }), 400, 'INVALID_FIELD_VALUE', 'filters.emails.domain');
      expectError(await bad([]), 400, 'INVALID_FIELD_VALUE', 'filters');
      expect(t.violations).toEqual([]);
    },
  },
  {
    name: 'writes: the document’s schemas, a 400 naming the bad field, what the document does not take ignored and named',
    run: async (t, sandbox) => {
      const { accessToken, connectionId } = await ready(t, sandbox, 'outreach');
      const before = sandbox.listRecords(connectionId, 'Contact').length;
      const write = (method: string, body: Record<string, unknown>) => t.call(method, '/engagement/contact', { json: { accessToken, ...body } });
      expectError(await write('POST', { contact: { lastName: 5 } }), 400, 'INVALID_FIELD_VALUE', 'contact.lastName');
      expectError(await write('POST', { contact: { emails: 'a@b.example' } }), 400, 'INVALID_FIELD_VALUE', 'contact.emails');
      expectError(
        await write('POST', { contact: { emails: [{ address: 'a@b.example', type: 'home' }] } }),
        400,
        'INVALID_FIELD_VALUE',
        'contact.emails[0].type',
      );
      expectError(await write('POST', { contact: { address: { street: 'Main St' } } }), 400, 'INVALID_FIELD_VALUE', 'contact.address.street');
      const readOnly = await write('POST', { contact: { id: 'x', lastName: 'Smith' } });
      expectError(readOnly, 400, 'INVALID_FIELD_VALUE', 'contact.id');
      expect(readOnly.body.message).toContain('writable: firstName, lastName, jobTitle, address, emails, phones, additional');
      expectError(
        await write('POST', { contact: { additional: { favouriteColour: 'red' } } }),
        400,
        'INVALID_FIELD_VALUE',
        'contact.additional.favouriteColour',
      );
      expectError(await write('POST', {}), 400, 'INVALID_FIELD_VALUE', 'contact');
      expectError(await write('PATCH', { contact: {} }), 400, 'INVALID_FIELD_VALUE', 'id');
      expectError(await write('PATCH', { id: 'f'.repeat(32), contact: {} }), 404, 'OBJECT_NOT_FOUND', 'id');
      expect(sandbox.listRecords(connectionId, 'Contact').length).toBe(before);

      // The document's EngContactCreate has no emails or phones: real clients send them, and they are taken; what the contact cannot keep is named.
      const created = await write('POST', {
        contact: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          emails: [{ address: 'ada@engines.example' }, { address: 'ada@home.example', type: 'personal' }],
          phones: [
            { number: '555-0100', type: 'work' },
            { number: '555-0199', type: 'personal' },
          ],
          isVip: true,
          additional: { custom_fields: { region: 'EMEA', SellScale_Personalization: 'Loves engines' }, custom2: 'gold' },
        },
        extra: 1,
      });
      expect(created.status, created.text).toBe(200);
      expect(created.headers.get('x-sandbox-ignored-fields')).toBe(
        'extra (not a field of this request), contact.isVip (not a field of Contact), contact.emails[1] (the contact keeps one email address: the primary one), ' +
          'contact.additional.custom_fields.SellScale_Personalization (not a custom field of this org: region, tier, source, score)',
      );
      const contact = (await t.call('GET', '/engagement/contact', { query: { accessToken, id: created.body.id, allFields: true } })).body.contact;
      expect(contact).toMatchObject({
        firstName: 'Ada',
        lastName: 'Lovelace',
        emails: [{ address: 'ada@engines.example', type: 'work', isPrimary: true }],
        phones: [
          { number: '555-0100', type: 'work', isPrimary: true },
          { number: '555-0199', type: 'personal', isPrimary: false },
        ],
        associations: { actionIds: [], taskIds: [] },
      });
      // No account: the key is absent, as the CRM records' (decision 0045), not null.
      expect(contact.associations).not.toHaveProperty('accountId');
      expect(contact.additional.attributes).toMatchObject({ custom1: 'EMEA', custom2: 'gold' });

      // An account field Outreach has no place for is refused by name (decision 0044): nothing is written.
      const refused = await t.call('POST', '/engagement/account', {
        json: { accessToken, account: { name: 'Engines', phone: '555', address: { line1: '1 Main', city: 'London' } } },
      });
      expectError(refused, 400, 'INVALID_FIELD_VALUE', 'account.phone');
      expect(refused.body.metadata.integrationId).toBe('outreach');
      expectError(
        await t.call('POST', '/engagement/account', { json: { accessToken, account: { name: 'Engines', address: { line1: '1 Main', city: 'London' } } } }),
        400,
        'INVALID_FIELD_VALUE',
        'account.address.line1',
      );
      const account = await t.call('POST', '/engagement/account', { json: { accessToken, account: { name: 'Engines', address: { city: 'London' } } } });
      expect(account.status, account.text).toBe(200);
      expect(account.headers.get('x-sandbox-ignored-fields')).toBeNull();
      expect((await t.call('GET', '/engagement/account', { query: { accessToken, id: account.body.id } })).body.account).toMatchObject({
        name: 'Engines',
        locality: 'London',
        address: { city: 'London' },
      });
      expectError(
        await t.call('POST', '/engagement/account', { json: { accessToken, account: { industry: 'x' } } }),
        400,
        'INVALID_FIELD_VALUE',
        'account.name',
      );

      // Tasks: required fields and links named.
      const user = (await t.call('GET', '/engagement/users', { query: { accessToken, limit: 1 } })).body.users[0];
      const task = (body: Record<string, unknown>) => t.call('POST', '/engagement/task', { json: { accessToken, task: body } });
      const valid = { type: 'email', dueDate: '2025-03-01T09:00:00Z', contactId: created.body.id, ownerUserId: user.id };
      expectError(await task({ ...valid, type: 'meeting' }), 400, 'INVALID_FIELD_VALUE', 'task.type');
      expectError(await task({ ...valid, dueDate: 'soon' }), 400, 'INVALID_FIELD_VALUE', 'task.dueDate');
      expectError(await task({ ...valid, contactId: 'f'.repeat(32) }), 400, 'INVALID_FIELD_VALUE', 'task.contactId');
      expectError(await task({ ...valid, ownerUserId: 'nobody' }), 400, 'INVALID_FIELD_VALUE', 'task.ownerUserId');
      const { ownerUserId: _, ...withoutOwner } = valid;
      expectError(await task(withoutOwner), 400, 'INVALID_FIELD_VALUE', 'task.ownerUserId');
      expectError(await t.call('PATCH', '/engagement/task', { json: { accessToken, id: 'f'.repeat(32), task: {} } }), 404, 'OBJECT_NOT_FOUND', 'id');
      expect((await task(valid)).status).toBe(200);
      expect(t.violations).toEqual([]);
    },
  },
  {
    name: 'starting a sequence: enrolled natively, counted, and refused for a disabled sequence, an unknown contact or mailbox, a contact already in it',
    run: async (t, sandbox) => {
      for (const platform of PLATFORMS) {
        const { accessToken } = await ready(t, sandbox, platform);
        const sequences = (await t.call('GET', '/engagement/sequences', { query: { accessToken } })).body.sequences;
        const [sequence] = sequences;
        const disabled = sequences.find((item: { isEnabled: boolean }) => !item.isEnabled);
        expect(disabled, platform).toBeDefined();
        const mailbox = (await t.call('GET', '/engagement/mailboxes', { query: { accessToken, limit: 1 } })).body.mailboxes[0];
        const made = await t.call('POST', '/engagement/contact', { json: { accessToken, contact: { firstName: 'Ada', lastName: 'Lovelace' } } });
        const contactId = made.body.id;
        const nativeId = String(
          (await t.call('GET', '/engagement/contact', { query: { accessToken, id: contactId, allFields: true } })).body.contact.additional.id,
        );
        const start = (id: string, fields: Record<string, unknown>) => t.call('POST', '/engagement/sequence/start', { json: { accessToken, id, fields } });

        expectError(await start('f'.repeat(32), { contactId, mailboxId: mailbox.id }), 404, 'OBJECT_NOT_FOUND', 'id');
        expectError(await start(sequence.id, { contactId, mailboxId: 'f'.repeat(32) }), 400, 'INVALID_FIELD_VALUE', 'fields.mailboxId');
        expectError(await start(sequence.id, { contactId: 'f'.repeat(32), mailboxId: mailbox.id }), 400, 'INVALID_FIELD_VALUE', 'fields.contactId');
        expectError(await start(sequence.id, { contactId }), 400, 'INVALID_FIELD_VALUE', 'fields.mailboxId');
        const refused = await start(disabled.id, { contactId, mailboxId: mailbox.id });
        expectError(refused, 400, 'INVALID_FIELD_VALUE', 'id');
        expect(refused.body.metadata.reason).toBe('disabled');
        expect(await nativeEnrolments(t, platform, accessToken, nativeId)).toEqual([]);

        const started = await start(sequence.id, { contactId, mailboxId: mailbox.id });
        expect(started.status, started.text).toBe(200);
        const again = await start(sequence.id, { contactId, mailboxId: mailbox.id });
        expectError(again, 400, 'INVALID_FIELD_VALUE', 'fields.contactId');
        expect(again.body.metadata.reason).toBe('active');

        const after = (await t.call('GET', '/engagement/sequences', { query: { accessToken } })).body.sequences[0];
        expect(after.scheduledCount, platform).toBe(sequence.scheduledCount + 1);
        const contact = (await t.call('GET', '/engagement/contact', { query: { accessToken, id: contactId } })).body.contact;
        expect(contact.associations.actionIds).toEqual([started.body.id]);
        const sequenceNativeId = String(
          (await t.call('GET', '/engagement/sequences', { query: { accessToken, allFields: true } })).body.sequences[0].additional.id,
        );
        expect(await nativeEnrolments(t, platform, accessToken, nativeId), platform).toEqual([{ sequence: sequenceNativeId, state: 'active' }]);
        const owner = (await t.call('GET', '/engagement/user', { query: { accessToken, id: mailbox.associations.ownerUserId } })).body.user;
        expect(owner.associations.actionIds).toContain(started.body.id);
      }
      expect(t.violations).toEqual([]);
    },
  },
  {
    name: 'a native start is the same enrolment: refused as the platform refuses it, then seen by the unified reads',
    run: async (t, sandbox) => {
      const { accessToken } = await ready(t, sandbox, 'outreach');
      const contact = (await t.call('POST', '/engagement/contact', { json: { accessToken, contact: { lastName: 'Hopper' } } })).body;
      const prospectId = (await t.call('GET', '/engagement/contact', { query: { accessToken, id: contact.id, allFields: true } })).body.contact.additional.id;
      const state = (sequence: number) => ({
        data: {
          type: 'sequenceState',
          relationships: {
            prospect: { data: { type: 'prospect', id: prospectId } },
            sequence: { data: { type: 'sequence', id: sequence } },
            mailbox: { data: { type: 'mailbox', id: 1 } },
          },
        },
      });
      const archived = await native(t, accessToken, 'POST', 'sequenceStates', state(5));
      expect(archived).toMatchObject({ statusCode: 422, body: { errors: [{ source: { pointer: '/data/relationships/sequence' } }] } });
      const made = await native(t, accessToken, 'POST', 'sequenceStates', state(2));
      expect(made.statusCode, JSON.stringify(made.body)).toBe(201);
      expect(made.body.data.relationships.mailbox.data).toEqual({ type: 'mailbox', id: 1 });
      expect((await native(t, accessToken, 'POST', 'sequenceStates', state(2))).statusCode).toBe(422);
      const read = (await t.call('GET', '/engagement/contact', { query: { accessToken, id: contact.id } })).body.contact;
      expect(read.associations.actionIds).toHaveLength(1);
      const action = (await t.call('GET', '/engagement/action', { query: { accessToken, id: read.associations.actionIds[0] } })).body.action;
      expect(action).toMatchObject({ type: 'email', status: 'to_do' });
      // Outreach's finish ends it: a finished action has no step left to complete.
      await native(t, accessToken, 'POST', `sequenceStates/${made.body.data.id}/actions/finish`);
      expect((await t.call('GET', '/engagement/action', { query: { accessToken, id: action.id } })).body.action.status).toBe('complete');
      const done = await t.call('POST', '/engagement/action/complete', { json: { accessToken, id: action.id, fields: { type: 'other' } } });
      expectError(done, 400, 'INVALID_FIELD_VALUE', 'id');
      expect(t.violations).toEqual([]);
    },
  },
  {
    name: 'one store: a contact written through the unified API reads natively in the platform’s shape, and a native one reads through the unified API',
    run: async (t, sandbox) => {
      for (const platform of PLATFORMS) {
        const { accessToken } = await ready(t, sandbox, platform);
        const shape = CONTACTS[platform];
        const created = await t.call('POST', '/engagement/contact', {
          json: {
            accessToken,
            contact: {
              firstName: 'Ada',
              lastName: 'Lovelace',
              emails: [{ address: 'ada@engines.example' }],
              address: { city: 'London' },
              additional: { custom_fields: { region: 'EMEA' } },
            },
          },
        });
        const nativeId = String(
          (await t.call('GET', '/engagement/contact', { query: { accessToken, id: created.body.id, allFields: true } })).body.contact.additional.id,
        );
        const read = await native(t, accessToken, 'GET', shape.read(nativeId));
        expect(read.statusCode, platform).toBe(200);
        expect(shape.fields(read.body), platform).toEqual({ lastName: 'Lovelace', email: 'ada@engines.example', city: 'London', region: 'EMEA' });

        const made = await native(t, accessToken, 'POST', shape.create.path, shape.create.body);
        expect(made.statusCode, JSON.stringify(made.body)).toBeLessThan(300);
        const found = await t.call('POST', '/engagement/contacts/search', {
          json: { accessToken, filters: { emails: { address: { equals: 'grace@navy.example' } } } },
        });
        expect(found.body.contacts, platform).toHaveLength(1);
        expect(found.body.contacts[0]).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', address: { city: 'Arlington' } });
        // And back: a unified update reads natively.
        await t.call('PATCH', '/engagement/contact', { json: { accessToken, id: found.body.contacts[0].id, contact: { lastName: 'Hopper-Murray' } } });
        const nativeGrace = String(
          (await t.call('GET', '/engagement/contact', { query: { accessToken, id: found.body.contacts[0].id, allFields: true } })).body.contact.additional.id,
        );
        expect(shape.fields((await native(t, accessToken, 'GET', shape.read(nativeGrace))).body).lastName).toBe('Hopper-Murray');
      }
      expect(t.violations).toEqual([]);
    },
  },
  {
    name: 'events: a contact or account written through any door is one OBJECT_CHANGE, as before; tasks, sequence starts and completions are none',
    run: async (t, sandbox) => {
      const { accessToken, connectionId } = await ready(t, sandbox, 'salesloft');
      sandbox.createWebhook(connectionId, 'http://127.0.0.1:2/hooks');
      const events = () => sandbox.emittedEvents().filter((event) => event.type === 'OBJECT_CHANGE');
      const created = await t.call('POST', '/engagement/contact', { json: { accessToken, contact: { firstName: 'Ada', lastName: 'Lovelace' } } });
      const record = sandbox.getRecord(connectionId, 'Contact', `v.contact.${created.body.id}`);
      expect(events().map((event) => event.data)).toEqual([{ objectType: 'Contact', eventType: 'CREATE', record }]);
      // The id an event carries finds the engagement record too.
      expect((await t.call('GET', '/engagement/contact', { query: { accessToken, id: record.id } })).body.contact.id).toBe(created.body.id);
      await native(t, accessToken, 'POST', 'people', CONTACTS.salesloft.create.body);
      await t.call('PATCH', '/engagement/account', {
        json: {
          accessToken,
          id: (await t.call('GET', '/engagement/accounts', { query: { accessToken, limit: 1 } })).body.accounts[0].id,
          account: { industry: 'x' },
        },
      });
      expect(events().map((event) => `${event.data.objectType} ${event.data.eventType}`)).toEqual(['Contact CREATE', 'Contact CREATE', 'Account UPDATE']);
      const user = (await t.call('GET', '/engagement/users', { query: { accessToken, limit: 1 } })).body.users[0];
      const task = await t.call('POST', '/engagement/task', {
        json: { accessToken, task: { type: 'other', dueDate: '2025-03-01T09:00:00Z', contactId: created.body.id, ownerUserId: user.id } },
      });
      await t.call('POST', '/engagement/task/complete', { json: { accessToken, id: task.body.id, fields: {} } });
      const [sequence] = (await t.call('GET', '/engagement/sequences', { query: { accessToken } })).body.sequences;
      const mailbox = (await t.call('GET', '/engagement/mailboxes', { query: { accessToken, limit: 1 } })).body.mailboxes[0];
      expect(
        (
          await t.call('POST', '/engagement/sequence/start', {
            json: { accessToken, id: sequence.id, fields: { contactId: created.body.id, mailboxId: mailbox.id } },
          })
        ).status,
      ).toBe(200);
      expect(events()).toHaveLength(3);
      expect(t.violations).toEqual([]);
    },
  },
  {
    name: 'the service’s rules: 409 while syncing, engagement objects for engagement connections, tenancy, faults and the journal',
    run: async (t, sandbox) => {
      const fresh = await link(t, 'apollo');
      expectError(await t.call('GET', '/engagement/sequences', { query: { accessToken: fresh.accessToken } }), 409, 'CONNECTION_SYNCING');
      expectError(await t.call('POST', '/engagement/contact', { json: { accessToken: fresh.accessToken, contact: {} } }), 409, 'CONNECTION_SYNCING');
      expectError(
        await t.call('POST', '/engagement/sequence/start', { json: { accessToken: fresh.accessToken, id: 'x', fields: {} } }),
        409,
        'CONNECTION_SYNCING',
      );
      await sandbox.advance('3s');
      expect((await t.call('GET', '/engagement/sequences', { query: { accessToken: fresh.accessToken } })).status).toBe(200);

      const hubspot = await ready(t, sandbox, 'hubspot');
      expectError(
        await t.call('GET', '/engagement/contacts', { query: { accessToken: hubspot.accessToken } }),
        400,
        'INTEGRATION_NOT_SUPPORTED',
        'accessToken',
      );
      // The spec's users and mailboxes lists are served on every connection, as they always were.
      expect((await t.call('GET', '/engagement/users', { query: { accessToken: hubspot.accessToken, limit: 1 } })).status).toBe(200);
      expectError(await t.call('GET', '/engagement/contacts', { query: { accessToken: 'access_nope' } }), 401, 'INVALID_ACCESS_TOKEN');
      expectError(await t.call('GET', '/engagement/contacts', { query: { accessToken: fresh.accessToken }, apiKey: 'other-key' }), 401, 'INVALID_ACCESS_TOKEN');
      expectError(await t.call('GET', '/engagement/contact', { query: { accessToken: fresh.accessToken } }), 400, 'INVALID_FIELD_VALUE', 'id');
      expectError(await t.call('GET', '/engagement/calls', { query: { accessToken: fresh.accessToken, limit: 0 } }), 400, 'INVALID_FIELD_VALUE', 'limit');

      sandbox.setFaults({ route: 'GET /engagement/sequences', errorRate: 1 });
      const faulted = await t.call('GET', '/engagement/sequences', { query: { accessToken: fresh.accessToken } });
      expect(faulted.status).toBe(503);
      sandbox.setFaults([]);
      const journal = sandbox.requests({ apiKey: API_KEY, path: '/engagement/sequences' });
      expect(journal.map((entry) => entry.status)).toEqual([409, 200, 503]);
      expect(journal[1]!.connectionId).toBe(fresh.connectionId);
      expect(t.violations).toEqual([]);
    },
  },
];

/** The engagement operations of the service's document, by path. */
function serviceDocumentPaths(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const object of UNIFIED_ENGAGEMENT_OBJECTS) {
    const add = (path: string, method: string) => {
      paths[path] = [...(paths[path] ?? []), method];
    };
    for (const operation of object.operations) {
      if (object.beyondDocument?.includes(operation)) continue;
      if (operation === 'list') add(`/engagement/${object.many}`, 'GET');
      if (operation === 'get') add(`/engagement/${object.one}`, 'GET');
      if (operation === 'create') add(`/engagement/${object.one}`, 'POST');
      if (operation === 'update') add(`/engagement/${object.one}`, 'PATCH');
      if (operation === 'search') add(`/engagement/${object.many}/search`, 'POST');
      if (operation === 'complete' || operation === 'start') add(`/engagement/${object.one}/${operation}`, 'POST');
    }
  }
  return paths;
}

const label = (platform: string) => `${platform}: a call step to do`;

for (const make of [mswTransport, devServerTransport]) {
  const transport = make();
  describe(`unified engagement objects over ${transport.name}`, () => {
    let sandbox: Sandbox;
    beforeEach(async () => {
      sandbox = createSandbox({ clock: 'virtual', apiKeys: [API_KEY, 'other-key'] });
      await transport.use(sandbox);
    });
    afterAll(() => transport.close());
    for (const { name, run } of cases) it(name, () => run(checked(transport), sandbox));
  });
}

describe('the engagement operations of the service’s document', () => {
  it('are every /engagement operation the document has, and the descriptions serve each', async () => {
    const { serviceDocument } = await import('./helpers/service-document.js');
    const document = serviceDocument();
    const inDocument = Object.entries<Record<string, unknown>>(document.paths)
      .filter(([path]) => path.startsWith('/engagement/') && path !== '/engagement/emails/search')
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((method) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
          .map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    const described = Object.entries(serviceDocumentPaths())
      .flatMap(([path, methods]) => methods.map((method) => `${method} ${path}`))
      .sort();
    expect(described).toEqual(inDocument);
  });
});

describe('determinism', () => {
  it('the same seed and the same calls give byte-identical answers', async () => {
    const { sandboxRequest } = await import('./helpers/sandbox-call.js');
    const session = async () => {
      const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
      const { accessToken } = sandbox.connect({ apiKey: 'a', integrationId: 'salesloft' });
      await sandbox.advance('10s');
      const texts: string[] = [];
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await sandboxRequest(sandbox, method, path, { key: 'a', ...(body === undefined ? {} : { body }) });
        texts.push(response.body);
        return JSON.parse(response.body);
      };
      const contact = await call('POST', '/engagement/contact', {
        accessToken,
        contact: { lastName: 'Lovelace', emails: [{ address: 'ada@engines.example' }] },
      });
      const [sequence] = (await call('GET', `/engagement/sequences?accessToken=${accessToken}`)).sequences;
      const [mailbox] = (await call('GET', `/engagement/mailboxes?accessToken=${accessToken}&limit=1`)).mailboxes;
      const started = await call('POST', '/engagement/sequence/start', {
        accessToken,
        id: sequence.id,
        fields: { contactId: contact.id, mailboxId: mailbox.id },
      });
      await sandbox.advance('1h');
      await call('POST', '/engagement/action/complete', { accessToken, id: started.id, fields: { type: 'other' } }).catch(() => undefined);
      for (const list of ['contacts', 'actions', 'calls', 'sequences'])
        await call('GET', `/engagement/${list}?accessToken=${accessToken}&limit=200&allFields=true`);
      sandbox.close();
      return texts;
    };
    expect(await session()).toEqual(await session());
  });
});

describe('snapshots of the engagement objects', () => {
  it('keep sequence starts, completions and logged calls; an earlier release’s snapshot, without these collections, reads them as seeded', async () => {
    const { callSandbox } = await import('./helpers/sandbox-call.js');
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
    const { accessToken } = sandbox.connect({ apiKey: 'a', integrationId: 'outreach' });
    await sandbox.advance('10s');
    const call = (method: string, path: string, body?: unknown) => callSandbox(sandbox, method, path, { key: 'a', ...(body === undefined ? {} : { body }) });
    const seeded = (await call('GET', `/engagement/sequences?accessToken=${accessToken}`)).body;
    const [contact] = (await call('GET', `/engagement/contacts?accessToken=${accessToken}&limit=1`)).body.contacts;
    const [mailbox] = (await call('GET', `/engagement/mailboxes?accessToken=${accessToken}&limit=1`)).body.mailboxes;
    const started = await call('POST', '/engagement/sequence/start', {
      accessToken,
      id: seeded.sequences[1].id,
      fields: { contactId: contact.id, mailboxId: mailbox.id },
    });
    expect(started.status).toBe(200);
    const task = (await call('GET', `/engagement/tasks?accessToken=${accessToken}&limit=200`)).body.tasks.find((item: any) => item.status === 'to_do');
    expect((await call('POST', '/engagement/task/complete', { accessToken, id: task.id, fields: { type: 'call', durationSeconds: 30 } })).status).toBe(200);
    const lists = async (target: Sandbox) =>
      Promise.all(
        ['sequences', 'actions', 'tasks', 'calls', 'emails', 'call-dispositions', 'contacts'].map(async (list) =>
          JSON.stringify((await callSandbox(target, 'GET', `/engagement/${list}?accessToken=${accessToken}&limit=200`, { key: 'a' })).body),
        ),
      );
    const before = await lists(sandbox);

    const restored = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
    restored.restore(JSON.parse(JSON.stringify(sandbox.snapshot({ apiKey: 'a' }))), { apiKey: 'a' });
    expect(await lists(restored)).toEqual(before);

    // A snapshot of a release before these collections: they are as seeded, the rest as saved.
    const earlier = JSON.parse(JSON.stringify(sandbox.snapshot({ apiKey: 'a' })));
    for (const connection of earlier.connections) {
      for (const name of ['sequences', 'calls', 'engagementEmails', 'callDispositions']) delete connection.data[name];
    }
    const old = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
    old.restore(earlier, { apiKey: 'a' });
    const [sequences, actions, , calls] = await lists(old);
    // The sequences as seeded, counting the saved start.
    expect(sequences).toBe(before[0]);
    expect(JSON.parse(sequences!).sequences[1].scheduledCount).toBe(seeded.sequences[1].scheduledCount + 1);
    expect(actions).toBe(before[1]);
    expect(JSON.parse(calls!).calls).toHaveLength(JSON.parse(before[3]!).calls.length - 1);
    for (const target of [sandbox, restored, old]) target.close();
  });
});
