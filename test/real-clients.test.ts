import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import { startDevServer } from '../src/node/dev-server.js';

/**
 * Two open-source applications that shipped against the service, their calls replayed unchanged
 * against the dev server but for the base URL and the API token header's name (`vessel-api-token`
 * → `service-api-token`): the request shapes, paths and reads below are theirs, including what
 * they got wrong (a PATCH without an id, fields the service does not know, a base URL ending in
 * `/`). Python's `requests` is played by fetch: `json=` and `data=json.dumps()` bodies,
 * `params=`, `raise_for_status()`, and `response.json()[key]`, which fails on a missing key.
 */
const API_KEY = 'lotus-key';
const stoppers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of stoppers.splice(0).reverse()) await stop();
});

async function serve(): Promise<{ sandbox: Sandbox; base: string }> {
  const sandbox = createSandbox({ clock: 'virtual', apiKeys: [API_KEY], tokens: 'random' });
  const server = await startDevServer(sandbox, { port: 0, host: '127.0.0.1' });
  stoppers.push(
    () => sandbox.close(),
    () => server.close(),
  );
  return { sandbox, base: server.url };
}

/** `requests`' answer: `raise_for_status()` throws on 4xx/5xx; `json()[key]` throws a KeyError on a missing key. */
async function request(
  method: string,
  url: string,
  init: { headers?: Record<string, string>; json?: unknown; data?: string; params?: Record<string, unknown> } = {},
) {
  const target = new URL(url);
  for (const [key, value] of Object.entries(init.params ?? {})) target.searchParams.append(key, String(value));
  // As requests does: `json=` sets the content type unless a header already did.
  const typed = Object.keys(init.headers ?? {}).some((name) => name.toLowerCase() === 'content-type');
  const headers = { ...init.headers, ...(init.json !== undefined && !typed ? { 'content-type': 'application/json' } : {}) };
  const body = init.json !== undefined ? JSON.stringify(init.json) : init.data;
  // Node's fetch would collapse nothing: the path goes out as written, '//' included.
  const response = await fetch(target, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : undefined;
  return {
    status: response.status,
    raiseForStatus: () => {
      if (response.status >= 400) throw new Error(`HTTPError ${response.status}: ${text}`);
    },
    json: () =>
      new Proxy(parsed as Record<string, unknown>, {
        get: (target, key) => {
          if (typeof key === 'string' && !(key in target)) throw new Error(`KeyError: '${key}'`);
          return target[key as string];
        },
      }),
  };
}

/** A Python dict's `[key]` on a parsed object (a KeyError on a missing key). */
function index(value: unknown, key: string): any {
  if (typeof value !== 'object' || value === null || !(key in value)) throw new Error(`KeyError: '${key}'`);
  return (value as Record<string, unknown>)[key];
}

describe('a billing product: links Salesforce, syncs accounts both ways, writes invoices as notes', () => {
  it('runs its sync unchanged', async () => {
    const { sandbox, base } = await serve();
    const VESSEL = base; // was "https://api.vessel.land"
    const headers = { 'service-api-token': API_KEY };

    // link_token, then (the sandbox's stand-in for the link widget) a public token, then store_token.
    const { linkToken } = (await request('POST', `${VESSEL}/link/token`, { headers })).json() as any;
    const { publicToken } = (
      await request('POST', `${VESSEL}/sandbox/public-token`, { headers, json: { integrationId: 'salesforce', linkToken } })
    ).json() as any;
    const exchanged = (
      await request('POST', `${VESSEL}/link/exchange`, { headers: { ...headers, 'Content-Type': 'application/json' }, json: { publicToken } })
    ).json();
    for (const key of ['connectionId', 'accessToken', 'nativeOrgURL', 'nativeOrgId', 'integrationId']) index(exchanged, key);
    const accessToken = exchanged.accessToken as string;
    await sandbox.advance('10s');

    // sync_customers_with_salesforce, the CRM as the source: read every account with all fields.
    const listed = await request('GET', `${VESSEL}/crm/accounts?accessToken=${accessToken}&allFields=true`, { headers });
    listed.raiseForStatus();
    const accounts = listed.json().accounts as any[];
    expect(accounts.length).toBeGreaterThan(0);
    for (const account of accounts) {
      index(account, 'name');
      index(account, 'nativeId');
      index(account, 'id');
      const additional = index(account, 'additional');
      expect(typeof (additional.AccountNumber ?? null)).not.toBe('undefined'); // .get(): may be absent
      const billing = index(additional, 'BillingAddress');
      index(additional, 'ShippingAddress');
      if (billing) for (const part of ['street', 'city', 'state', 'country', 'postalCode']) index(billing, part);
    }

    // …and with the billing product as the source: create the customers Salesforce lacks, update the others.
    const url = `${VESSEL}/crm/account`;
    const jsonHeaders = { 'Content-Type': 'application/json', ...headers };
    const payload: Record<string, unknown> = { accessToken, account: { name: 'Wayne Enterprises', email: 'billing@wayne.example' } };
    payload.additional = { ShippingAddress: { street: '1007 Mountain Drive', city: 'Gotham', state: 'NJ', country: 'US', postalCode: '07001' } };
    const created = await request('POST', url, { headers: jsonHeaders, data: JSON.stringify(payload) });
    const unifiedId = created.json().id as string;
    const got = await request('GET', `${url}?accessToken=${accessToken}&id=${unifiedId}`, { headers: jsonHeaders });
    const nativeId = index(got.json().account, 'nativeId');
    expect(nativeId).toMatch(/^001/);
    // Its update sends no id: the service answered a 400, which it never reads.
    const updated = await request('PATCH', url, { headers: jsonHeaders, data: JSON.stringify(payload) });
    expect(updated.status).toBe(400);

    // send_invoice_to_salesforce: a note on the account, its title a native field.
    const note = {
      accountId: unifiedId,
      content: JSON.stringify({ lotus_url: 'https://app.example/customers/c_1', invoice_pdf: 'https://files.example/i_1.pdf' }),
      isPrivate: false,
      additional: { Title: '[LOTUS] Invoice on 2025-01-01' },
    };
    const posted = await request('POST', `${VESSEL}/crm/note`, { headers, json: { accessToken, note } });
    posted.raiseForStatus();
    const noteId = posted.json().id as string;
    const read = await request('GET', `${VESSEL}/crm/note?accessToken=${accessToken}&id=${noteId}`, { headers });
    const nativeNoteId = index(read.json().note, 'nativeId');
    expect(nativeNoteId).toMatch(/^002/);
    // Salesforce has it as the client wrote it.
    const native = await request('POST', `${VESSEL}/crm/passthrough`, {
      headers,
      json: { accessToken, method: 'GET', path: `services/data/v53.0/sobjects/Note/${nativeNoteId}` },
    });
    expect(native.json().body).toMatchObject({ Title: '[LOTUS] Invoice on 2025-01-01', ParentId: nativeId, Body: note.content });
  });
});

describe('a sales product: pages engagement users and mailboxes from a base URL ending in /', () => {
  it('finds a user and a mailbox by email, walking every page from cursor=1 to a falsy nextPageCursor', async () => {
    const { sandbox, base } = await serve();
    const { accessToken, connectionId } = sandbox.connect({ apiKey: API_KEY, integrationId: 'outreach' });
    await sandbox.advance('10s');
    const vesselApiUrl = `${base}/`; // was "https://api.vessel.land/"
    const headers = { 'service-api-token': API_KEY, 'x-access-token': accessToken };

    const users = sandbox.parts.registry.dataOf(sandbox.parts.registry.find(connectionId)!).users.values();
    const wanted = [...users].at(-1)!;
    // get_user_by_email
    let nextPageCursor: unknown = 1;
    let found: any;
    let pages = 0;
    while (nextPageCursor && !found) {
      const response = await request('GET', `${vesselApiUrl}/engagement/users?accessToken=${accessToken}&cursor=${nextPageCursor}&limit=10`, { headers });
      nextPageCursor = response.json().nextPageCursor;
      pages++;
      for (const user of response.json().users as any[]) if (user.email === wanted.email) found = user;
    }
    expect(found?.id).toBe(wanted.id);
    expect(pages).toBeGreaterThan(1);

    // find_mailbox_by_email: one page of 100 holds them all, so nextPageCursor is read on the last page.
    const mailboxUrl = `${vesselApiUrl}/engagement/mailboxes`;
    nextPageCursor = 1;
    const emails: string[] = [];
    while (nextPageCursor) {
      const response = await request('GET', mailboxUrl, { headers, params: { accessToken, limit: 100, cursor: nextPageCursor } });
      nextPageCursor = response.json().nextPageCursor;
      for (const mailbox of response.json().mailboxes as any[]) emails.push(mailbox.email);
    }
    expect(emails.length).toBeGreaterThan(0);
    expect(nextPageCursor).toBeNull();
  });
});

describe('a sales product: syncs contacts, sequences and the emails they sent on Outreach and Salesloft', () => {
  it.each(['outreach', 'salesloft'])('%s: its daily sync runs unchanged, from its first read to the email it reads back', async (integrationId) => {
    const { sandbox, base } = await serve();
    const { accessToken, connectionId } = sandbox.connect({ apiKey: API_KEY, integrationId: integrationId as 'outreach' });
    await sandbox.advance('10s');
    const vesselApiUrl = `${base}/`; // was "https://api.vessel.land/"
    const headers = { 'service-api-token': API_KEY, 'x-access-token': accessToken };
    const data = sandbox.parts.registry.dataOf(sandbox.parts.registry.find(connectionId)!);

    // get_user_by_email: every page of users, cursor from 1 to a falsy nextPageCursor.
    const wanted = [...data.users.values()].at(-1)!;
    let cursor: unknown = 1;
    let user: any;
    while (cursor) {
      const response = await request('GET', `${vesselApiUrl}/engagement/users?accessToken=${accessToken}&cursor=${cursor}&limit=100`, { headers });
      response.raiseForStatus();
      for (const item of response.json().users as any[]) if (item.email === wanted.email) user = item;
      cursor = response.json().nextPageCursor;
    }
    expect(user.id).toBe(wanted.id);

    // create_contact: emails (which the document's EngContactCreate lacks) and Salesloft's custom-field container, on either platform.
    const email = 'pam.beesly@dunder-mifflin.example';
    const created = await request('POST', `${vesselApiUrl}/engagement/contact`, {
      headers,
      json: {
        contact: {
          firstName: 'Pam',
          lastName: 'Beesly',
          jobTitle: 'Office Administrator',
          emails: [{ address: email }],
          additional: { custom_fields: { region: 'AMER' } },
        },
        accessToken,
      },
    });
    created.raiseForStatus();
    const contactId = created.json().id as string;

    // find_contact_by_email
    const resp = (
      await request('POST', `${vesselApiUrl}/engagement/contacts/search`, {
        headers,
        json: { accessToken, filters: { emails: { address: { equals: email } } } },
      })
    ).json();
    expect(index(index(resp, 'contacts')[0], 'id')).toBe(contactId);

    // update_contact_personalization: a custom field the simulated org does not define is ignored (and named), the write succeeds.
    const patched = await request('PATCH', `${vesselApiUrl}/engagement/contact`, {
      headers,
      json: { accessToken, id: contactId, contact: { additional: { custom_fields: { SellScale_Personalization: 'Saw your art show' } } } },
    });
    patched.raiseForStatus();
    expect(patched.json().id).toBe(contactId);

    // get_mailboxes and get_sequences: every page, cursor from 1, nextPageCursor read on each.
    const walk = async (list: 'mailboxes' | 'sequences') => {
      const items: any[] = [];
      let next: unknown = 1;
      while (next) {
        const response = await request('GET', `${vesselApiUrl}/engagement/${list}`, { headers, params: { accessToken, limit: 100, cursor: next } });
        response.raiseForStatus();
        items.push(...(response.json()[list] as any[]));
        next = response.json().nextPageCursor;
      }
      return items;
    };
    const mailbox = (await walk('mailboxes')).find((item) => item.email === wanted.email) ?? (await walk('mailboxes'))[0];
    const sequence = (await walk('sequences')).find((item) => item.name === 'Outbound - New Leads');
    expect(sequence).toBeDefined();

    // add_contact_to_sequence
    const started = await request('POST', `${vesselApiUrl}/engagement/sequence/start`, {
      headers,
      json: { accessToken, id: sequence.id, fields: { mailboxId: mailbox.id, contactId } },
    });
    started.raiseForStatus();
    expect(Object.keys(started.json())).toEqual(['id']);
    // The platform holds the enrolment: an Outreach sequence state, a Salesloft cadence membership.
    const prospect = data.crm.Contact.get(`v.contact.${contactId}`)!;
    const nativeRead =
      integrationId === 'outreach'
        ? { method: 'GET', path: 'sequenceStates', query: { 'filter[prospect][id]': prospect.nativeId } }
        : { method: 'GET', path: 'cadence_memberships', query: { person_id: prospect.nativeId } };
    const enrolled = (await request('POST', `${vesselApiUrl}/crm/passthrough`, { headers, json: { accessToken, ...nativeRead } })).json() as any;
    expect(enrolled.body.data).toHaveLength(1);

    // get_emails_for_contact_in_sequence: none sent to the new contact yet; a seeded prospect's sent email, read back whole.
    const sent = async (contact: string, sequenceId: string) =>
      (
        await request('POST', `${vesselApiUrl}/engagement/emails/search`, {
          headers,
          json: { accessToken, filters: { contactId: { equals: contact }, sequenceId: { equals: sequenceId } } },
        })
      ).json().emails as any[];
    expect(await sent(contactId, sequence.id)).toEqual([]);
    const seeded = [...data.engagementEmails.values()].find((item) => item.associations.sequenceId === sequence.id && item.associations.contactId !== null)!;
    const emails = await sent(seeded.associations.contactId!.slice('v.contact.'.length), sequence.id);
    expect(emails.map((item) => item.id)).toContain(seeded.id);
    const read = await request('GET', `${vesselApiUrl}/engagement/email`, { headers, params: { accessToken, id: emails[0].id, allFields: 'true' } });
    read.raiseForStatus();
    const { email: one } = read.json() as any;
    expect(one).toMatchObject({ id: emails[0].id, subject: expect.any(String), associations: { sequenceId: sequence.id } });
    expect(typeof one.additional).toBe('object');
  });
});
