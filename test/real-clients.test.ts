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
