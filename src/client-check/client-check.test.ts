import { describe, expect, it } from 'vitest';
import { type Exchange, openApiChecker } from '../../test/helpers/openapi-conformance.js';
import { callSandbox } from '../../test/helpers/sandbox-call.js';
import { buildOpenApiDocument } from '../core/openapi/build-document.js';
import { createSandbox, type Sandbox } from '../index.js';
import type { ClientCheckOptions } from './client-check.js';
import { nextPageCursorOf } from './conduct.js';
import { type ClientCheckReport, formatReport } from './report.js';
import type { RuleId } from './rules.js';

/**
 * client-check on a virtual clock: a client's waits are `sandbox.advance()`, so every gap the
 * rules judge is exact. The CLI with real clients (JavaScript and Python) is tested in
 * test/client-check.test.ts.
 */
type Answer = Awaited<ReturnType<typeof callSandbox>>;

function checked(options: ClientCheckOptions = {}, apiKeys = ['a']): Sandbox {
  const sandbox = createSandbox({ clock: 'virtual', apiKeys, initialSyncDelay: '3s', readyDelay: '5s' });
  sandbox.startClientCheck(options);
  return sandbox;
}

const call = (sandbox: Sandbox, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  callSandbox(sandbox, method, path, { ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });

/** A request sent again until it is answered, waiting as a careful client does: Retry-After, growing pauses on 5xx, a second on 409. */
async function patiently(sandbox: Sandbox, send: () => Promise<Answer>): Promise<Answer> {
  let pause = 200;
  for (;;) {
    const answer = await send();
    if (answer.status === 429) await sandbox.advance(`${answer.headers['retry-after']}s`);
    else if (answer.status >= 500) await sandbox.advance(`${(pause *= 2)}ms`);
    else if (answer.status === 409) await sandbox.advance('1s');
    else return answer;
  }
}

/** Link a connection as a client does: link token, public token (the widget's stand-in), exchange. */
async function link(sandbox: Sandbox): Promise<{ connectionId: string; accessToken: string }> {
  const { linkToken } = (await call(sandbox, 'POST', '/link/token')).body;
  const { publicToken } = (await call(sandbox, 'POST', '/sandbox/public-token', { linkToken })).body;
  return (await call(sandbox, 'POST', '/link/exchange', { publicToken })).body;
}

/** Every page of a list, following nextPageCursor, each page requested patiently. */
async function walk(sandbox: Sandbox, list: string, accessToken: string, limit?: number): Promise<number> {
  let cursor: string | undefined;
  let records = 0;
  do {
    const query = `accessToken=${accessToken}${limit ? `&limit=${limit}` : ''}${cursor ? `&cursor=${cursor}` : ''}`;
    const page = (await patiently(sandbox, () => call(sandbox, 'GET', `/engagement/${list}?${query}`))).body;
    records += page[list].length;
    cursor = page.nextPageCursor;
  } while (cursor);
  return records;
}

/** The careful client's whole session. */
async function carefulSession(sandbox: Sandbox): Promise<{ connectionId: string; accessToken: string }> {
  const connection = await link(sandbox);
  const { webhook } = (
    await call(sandbox, 'POST', '/connection/webhook', { accessToken: connection.accessToken, webhook: { webhookUrl: 'http://127.0.0.1:9/hooks' } })
  ).body;
  expect(await walk(sandbox, 'users', connection.accessToken)).toBeGreaterThan(30);
  expect(await walk(sandbox, 'mailboxes', connection.accessToken, 50)).toBeGreaterThan(40);
  await patiently(sandbox, () =>
    call(sandbox, 'POST', '/crm/passthrough', { accessToken: connection.accessToken, method: 'GET', path: 'crm/v3/objects/contacts' }),
  );
  expect((await call(sandbox, 'GET', `/connection/webhook?accessToken=${connection.accessToken}&webhookId=${webhook.webhookId}`)).status).toBe(200);
  expect((await call(sandbox, 'DELETE', '/connection/webhook', { accessToken: connection.accessToken, webhookId: webhook.webhookId })).status).toBe(200);
  return connection;
}

const report = (sandbox: Sandbox, final = true, apiKey = 'a') => sandbox.clientCheck!.report(apiKey, { final });
const rule = (result: ClientCheckReport, id: RuleId) => result.rules.find((item) => item.rule === id)!;
const statuses = (result: ClientCheckReport) => Object.fromEntries(result.rules.map((item) => [item.rule, item.status]));

describe('client-check, judged on a virtual clock', () => {
  it('passes a careful client, with what exercised each rule as evidence', async () => {
    const sandbox = checked();
    await carefulSession(sandbox);
    const result = report(sandbox);
    expect(statuses(result)).toEqual({
      'waits-while-syncing': 'pass',
      'honours-retry-after': 'pass',
      'backs-off-on-5xx': 'pass',
      'pages-to-the-end': 'pass',
      'cursor-stays-with-its-list': 'pass',
      'limit-within-bounds': 'pass',
      'drops-deleted-connections': 'not-exercised',
      'one-webhook-per-connection': 'pass',
      'api-token-off-browsers': 'pass',
      'exchanges-each-public-token-once': 'pass',
      'passthrough-path-without-host': 'pass',
    });
    expect(result.ok).toBe(true);
    expect(sandbox.clientCheck!.report('a', { final: true, strict: true }).ok).toBe(false);
    expect(rule(result, 'honours-retry-after').evidence[0]).toMatchObject({
      status: 200,
      detail: expect.stringMatching(
        /^sent again 1\.000 s after its 429 at \+\d+\.\d{3}s \(Retry-After: 1\)$|^sent again 2\.000 s after its 429 at \+\d+\.\d{3}s \(Retry-After: 2\)$/,
      ),
    });
    expect(rule(result, 'waits-while-syncing').summary).toMatch(
      /^1 new connection; e\.g\. connection \w{8}… synced at \+3\.000s: 3 reads answered 409 while it synced$/,
    );
    expect(rule(result, 'pages-to-the-end').evidence.map((item) => item.detail)).toEqual([
      expect.stringMatching(/^walked the users of connection \w{8}… to the end: 4 pages, \+3\.000s to \+\d/),
      expect.stringMatching(/^walked the mailboxes of connection \w{8}… to the end: 5 pages/),
    ]);
    expect(result.hardCases.rateLimited).toBeGreaterThan(0);
    expect(result.hardCases.unavailable).toBeGreaterThan(0);
    expect(result.requests).toBeGreaterThan(20);
    // The journal says which answers client-check injected.
    expect(
      sandbox
        .requests({ apiKey: 'a' })
        .map((entry) => entry.fault)
        .filter(Boolean),
    ).toEqual(expect.arrayContaining(['client-check 429', 'client-check 503']));
  });

  it('judges the paging of every unified engagement list: a walk from cursor=1 to the end passes, one stopped short fails; writes are no lists', async () => {
    const sandbox = checked({ faults: false, pageSize: 10 });
    const { linkToken } = (await call(sandbox, 'POST', '/link/token')).body;
    const { publicToken } = (await call(sandbox, 'POST', '/sandbox/public-token', { linkToken, integrationId: 'outreach' })).body;
    const { accessToken } = (await call(sandbox, 'POST', '/link/exchange', { publicToken })).body;
    await sandbox.advance('5s');
    // A real client's walk: cursor=1 first, then each nextPageCursor to a null one.
    let cursor: string | null = '1';
    let pages = 0;
    while (cursor) {
      const page: Answer = await call(sandbox, 'GET', `/engagement/sequences?accessToken=${accessToken}&limit=100&cursor=${cursor}`);
      expect(page.body.sequences.length).toBeLessThanOrEqual(10);
      cursor = page.body.nextPageCursor;
      pages++;
    }
    expect(pages).toBe(1);
    await walk(sandbox, 'contacts', accessToken, 100);
    // A write to a contact is not paged: its body's limit-free request is no list.
    expect((await call(sandbox, 'POST', '/engagement/contact', { accessToken, contact: { lastName: 'Lovelace' } })).status).toBe(200);
    const walked = report(sandbox, false);
    expect(rule(walked, 'pages-to-the-end').evidence.map((item) => item.detail)).toEqual([
      expect.stringMatching(/^walked the contacts of connection \w{8}… to the end: 13 pages/),
    ]);
    // Calls: the first page, then the first page again (cursor=1), leaving the walk.
    await call(sandbox, 'GET', `/engagement/calls?accessToken=${accessToken}`);
    await call(sandbox, 'GET', `/engagement/calls?accessToken=${accessToken}&cursor=1`);
    const result = report(sandbox);
    expect(rule(result, 'pages-to-the-end').status).toBe('fail');
    expect(rule(result, 'pages-to-the-end').evidence.map((item) => item.detail)).toEqual([
      expect.stringMatching(/^read the first page again, leaving the calls of connection \w{8}… at page 1/),
      expect.stringMatching(/^the calls of connection \w{8}… stopped at page 1/),
    ]);
  });

  it('caps pages at the page size, whatever limit asks; a bad limit is still refused', async () => {
    const sandbox = checked({ faults: false, pageSize: 7 });
    const { accessToken } = await link(sandbox);
    await sandbox.advance('3s');
    const page = async (limit: string) => (await call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}${limit}`)).body;
    expect((await page('')).users).toHaveLength(7);
    expect((await page('&limit=150')).users).toHaveLength(7);
    expect((await page('&limit=3')).users).toHaveLength(3);
    expect(await page('&limit=500')).toMatchObject({ errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'limit' } });
    // The journal keeps what the client sent.
    expect(sandbox.requests({ apiKey: 'a', path: '/engagement' }).map((entry) => entry.query.replace(/accessToken=\w+&?/, ''))).toEqual([
      '',
      'limit=150',
      'limit=3',
      'limit=500',
    ]);
    expect(rule(report(sandbox), 'limit-within-bounds')).toMatchObject({
      status: 'fail',
      failures: 1,
      summary: `GET /engagement/users?accessToken=${accessToken.slice(0, 12)}…&limit=500: answered 400: limit must be an integer from 1 to 200, got "500"`,
    });
  });

  it('walks the unified lists and searches as the engagement lists: capped pages, cursors in the query or the body, null the last', async () => {
    const sandbox = checked({ faults: false, pageSize: 7 });
    const { accessToken, connectionId } = await link(sandbox);
    await sandbox.advance('3s');
    const all = (await callSandbox(sandbox, 'GET', `/sandbox/connections/${connectionId}/records/Contact?limit=200`)).body.records as Array<{ id: string }>;
    expect(all.length).toBeGreaterThan(14);
    // A list, its cursor in the query; then a search of every contact (no filter matches all), its cursor and limit in the body.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Answer = await call(sandbox, 'GET', `/crm/contacts?accessToken=${accessToken}&limit=150${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.contacts.length).toBeLessThanOrEqual(7);
      seen.push(...page.body.contacts.map((contact: { id: string }) => contact.id));
      cursor = page.body.nextPageCursor;
    } while (cursor !== null);
    expect(seen).toEqual(all.map((contact) => contact.id));
    const searched: string[] = [];
    cursor = null;
    do {
      const page: Answer = await call(sandbox, 'POST', '/crm/contacts/search', {
        accessToken,
        filters: { lastName: { not: '' } },
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.body.contacts.length).toBeLessThanOrEqual(7);
      searched.push(...page.body.contacts.map((contact: { id: string }) => contact.id));
      cursor = page.body.nextPageCursor;
    } while (cursor !== null);
    expect(searched).toEqual(seen);
    // A smaller limit is kept, in the body or the query; a bad one is refused and judged.
    expect((await call(sandbox, 'POST', '/crm/contacts/search', { accessToken, limit: 3 })).body.contacts).toHaveLength(3);
    expect((await call(sandbox, 'POST', `/crm/deals/search?accessToken=${accessToken}&limit=2`, { limit: 50 })).body.deals).toHaveLength(2);
    expect((await call(sandbox, 'POST', '/crm/contacts/search', { accessToken, limit: 500 })).body).toMatchObject({ metadata: { field: 'limit' } });
    // The two short searches have more pages, unread: in progress until the client is done.
    const result = report(sandbox, false);
    expect(rule(result, 'pages-to-the-end')).toMatchObject({ status: 'pass', exercised: 4, summary: expect.stringMatching(/; 2 walks still in progress$/) });
    expect(rule(result, 'pages-to-the-end').evidence.map((item) => item.detail)).toEqual([
      `walked the /crm/contacts of connection ${connectionId.slice(0, 8)}… to the end: ${Math.ceil(all.length / 7)} pages, +3.000s to +3.000s`,
      `walked the /crm/contacts/search of connection ${connectionId.slice(0, 8)}… to the end: ${Math.ceil(all.length / 7)} pages, +3.000s to +3.000s`,
    ]);
    expect(rule(result, 'limit-within-bounds')).toMatchObject({
      status: 'fail',
      failures: 1,
      summary: 'POST /crm/contacts/search: answered 400: limit must be an integer from 1 to 200, got "500"',
    });
    // The journal keeps what the client sent: the cap is not written into it.
    expect(sandbox.requests({ apiKey: 'a', path: '/crm/deals/search' }).map((entry) => [entry.query.replace(/accessToken=\w+&?/, ''), entry.body])).toEqual([
      ['limit=2', '{"limit":50}'],
    ]);
  });

  it('fails a search walk left unfinished or started over; another search is another walk; cursor=1 is a first page', async () => {
    const sandbox = checked({ faults: false });
    const { accessToken, connectionId } = await link(sandbox);
    await sandbox.advance('3s');
    const search = (filters: unknown, cursor?: string) =>
      call(sandbox, `POST`, `/crm/contacts/search${cursor ? `?cursor=${cursor}` : ''}`, { accessToken, filters });
    const first = await search({ lastName: { not: '' } });
    expect(first.body.nextPageCursor).toEqual(expect.any(String));
    // Other filters (the same ones in another order are the same search) and a list of the same object: walks of their own.
    await search({ firstName: { not: '' } });
    await call(sandbox, 'GET', `/crm/contacts?accessToken=${accessToken}&cursor=1`);
    expect(rule(report(sandbox, false), 'pages-to-the-end')).toMatchObject({ status: 'pass', exercised: 3 });
    expect(rule(report(sandbox, false), 'cursor-stays-with-its-list').exercised).toBe(0);
    await search({ lastName: { not: '' } });
    const restarted = rule(report(sandbox, false), 'pages-to-the-end');
    expect(restarted).toMatchObject({ status: 'fail', failures: 1 });
    expect(restarted.evidence[0]!.detail).toMatch(
      new RegExp(`^read the first page again, leaving the /crm/contacts/search of connection ${connectionId.slice(0, 8)}… at page 1: the nextPageCursor`),
    );
    const final = rule(report(sandbox, true), 'pages-to-the-end');
    expect(final.failures).toBe(4);
    expect(final.evidence.slice(1).map((item) => item.detail.replace(/ \(.*/, ''))).toEqual([
      `the /crm/contacts/search of connection ${connectionId.slice(0, 8)}… stopped at page 1: its nextPageCursor`,
      `the /crm/contacts of connection ${connectionId.slice(0, 8)}… stopped at page 1: its nextPageCursor`,
      `the /crm/contacts/search of connection ${connectionId.slice(0, 8)}… stopped at page 1: its nextPageCursor`,
    ]);
  });

  it("fails a list's cursor sent to its search, or another object's list", async () => {
    const sandbox = checked({ faults: false });
    const { accessToken } = await link(sandbox);
    await sandbox.advance('3s');
    const { nextPageCursor } = (await call(sandbox, 'GET', `/crm/contacts?accessToken=${accessToken}`)).body;
    expect((await call(sandbox, 'POST', '/crm/contacts/search', { accessToken, cursor: nextPageCursor })).status).toBe(400);
    expect((await call(sandbox, 'GET', `/crm/deals?accessToken=${accessToken}&cursor=${nextPageCursor}`)).status).toBe(400);
    const result = rule(report(sandbox, false), 'cursor-stays-with-its-list');
    expect(result).toMatchObject({ status: 'fail', failures: 2, exercised: 2 });
    expect(result.evidence[0]!.detail).toMatch(/\(it was issued at \+3\.000s for the \/crm\/contacts of connection \w{8}…\)$/);
  });

  it('puts its 429s and 503s in the way of unified reads (lists, searches, records), never of unified writes', async () => {
    const sandbox = checked({ retryAfter: '1s' });
    const { accessToken } = await link(sandbox);
    await sandbox.advance('3s');
    const { contacts } = (await patiently(sandbox, () => call(sandbox, 'GET', `/crm/contacts?accessToken=${accessToken}`))).body;
    const reads = [
      () => call(sandbox, 'GET', `/crm/contact?accessToken=${accessToken}&id=${contacts[0].id}`),
      () => call(sandbox, 'POST', '/crm/contacts/search', { accessToken, filters: { lastName: { not: '' } } }),
      () => call(sandbox, 'GET', `/crm/contact/batch?accessToken=${accessToken}&ids=${contacts[1].id}`),
    ];
    const statuses = new Set<number>();
    for (let i = 0; i < 8; i++) for (const read of reads) statuses.add((await patiently(sandbox, read)).status);
    expect([...statuses]).toEqual([200]);
    for (let i = 0; i < 12; i++) {
      const write = await call(sandbox, 'PATCH', '/crm/contact', { accessToken, id: contacts[0].id, contact: { jobTitle: `Title ${i}` } });
      expect(write.status).toBe(200);
    }
    const injected = sandbox.requests({ apiKey: 'a', path: '/crm' }).filter((entry) => entry.fault);
    expect(new Set(injected.map((entry) => entry.fault))).toEqual(new Set(['client-check 429', 'client-check 503']));
    expect(injected.filter((entry) => entry.method === 'PATCH')).toEqual([]);
    const result = report(sandbox);
    expect(rule(result, 'honours-retry-after')).toMatchObject({ status: 'pass' });
    expect(rule(result, 'backs-off-on-5xx')).toMatchObject({ status: 'pass' });
  });

  it('reads null as the last page, whatever the key order; a page without nextPageCursor is the last too', () => {
    expect(nextPageCursorOf('{"contacts":[{"id":"1"}],"nextPageCursor":null}')).toBeUndefined();
    expect(nextPageCursorOf('{"contacts":[],"nextPageCursor":"Y29udGFjdHM6MQ"}')).toBe('Y29udGFjdHM6MQ');
    expect(nextPageCursorOf('{"nextPageCursor":"abc","users":[{"id":"1"}]}')).toBe('abc');
    expect(nextPageCursorOf('{"nextPageCursor":null,"users":[]}')).toBeUndefined();
    expect(nextPageCursorOf('{"users":[]}')).toBeUndefined();
    expect(nextPageCursorOf('{"users":[],"nextPageCursor":""}')).toBeUndefined();
  });

  it('fails a retry storm on a syncing connection, and a read that waited passes', async () => {
    const sandbox = checked({ faults: false });
    const { accessToken } = await link(sandbox);
    for (let i = 0; i < 5; i++) {
      expect((await call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}`)).status).toBe(409);
      await sandbox.advance('10ms');
    }
    const result = rule(report(sandbox), 'waits-while-syncing');
    expect(result).toMatchObject({ status: 'fail', failures: 4, hint: expect.stringContaining('STATUS_CHANGE INITIAL_SYNCED') });
    expect(result.evidence[0]).toMatchObject({ since: '+0.010s', status: 409, detail: 'sent again 10 ms after its 409 at +0.000s (wait at least 250 ms)' });
  });

  it('fails a retry before Retry-After has passed, and one after it passes', async () => {
    const sandbox = checked({ retryAfter: '2s' });
    const { accessToken } = await link(sandbox);
    await sandbox.advance('3s');
    const read = () => call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}`);
    let answer = await read();
    while (answer.status !== 429) answer = await read();
    expect(answer).toMatchObject({ headers: { 'retry-after': '2' }, body: { errorCode: 'RATE_LIMITED', metadata: { retryAfter: 2 } } });
    await sandbox.advance('1s');
    expect(await read()).toMatchObject({ status: 429, headers: { 'retry-after': '1' } });
    await sandbox.advance('1s');
    expect((await read()).status).toBe(200);
    const result = rule(report(sandbox), 'honours-retry-after');
    expect(result).toMatchObject({ status: 'fail', failures: 1, exercised: 2 });
    expect(result.evidence).toEqual([
      expect.objectContaining({ since: '+4.000s', status: 429, detail: 'sent again 1.000 s after its 429 at +3.000s (Retry-After: 2)' }),
    ]);
  });

  it('fails a retry of a 5xx without a pause', async () => {
    const sandbox = checked({ retryAfter: '1s' });
    const { accessToken } = await link(sandbox);
    await sandbox.advance('3s');
    const read = () => call(sandbox, 'GET', `/engagement/mailboxes?accessToken=${accessToken}`);
    let answer = await read();
    for (let i = 0; i < 20 && answer.status !== 503; i++) {
      if (answer.status === 429) await sandbox.advance('1s');
      answer = await read();
    }
    expect(answer.body).toMatchObject({ errorCode: 'INJECTED_FAULT', message: 'service temporarily unavailable; retry with backoff' });
    while (answer.status === 503) answer = await read();
    const result = rule(report(sandbox), 'backs-off-on-5xx');
    expect(result.status).toBe('fail');
    expect(result.evidence[0]!.detail).toMatch(/^sent again 0 ms after its 503 at \+\d+\.\d{3}s \(wait at least 100 ms, doubling after each further 5xx\)$/);
  });

  it('fails retries of a 5xx at a steady pause: each further 5xx in a row doubles the wait wanted', async () => {
    const sandbox = checked({ faults: false });
    sandbox.setFaults({ route: '/connection/connections', errorRate: 1, errorStatus: 503 });
    const read = () => call(sandbox, 'GET', '/connection/connections');
    expect((await read()).status).toBe(503);
    for (const pause of ['150ms', '150ms', '400ms']) {
      await sandbox.advance(pause);
      expect((await read()).status).toBe(503);
    }
    const result = rule(report(sandbox), 'backs-off-on-5xx');
    expect(result).toMatchObject({ status: 'fail', failures: 1, exercised: 4 });
    expect(result.evidence.map((item) => item.detail)).toEqual([
      'sent again 150 ms after its 503 at +0.150s, its 2nd 5xx in a row (wait at least 200 ms, doubling after each further 5xx)',
    ]);
    sandbox.setFaults([]);
    await sandbox.advance('800ms');
    expect((await read()).status).toBe(200);
    expect(rule(report(sandbox), 'backs-off-on-5xx').failures).toBe(1);
  });

  it('fails a walk left unfinished: when the client is done, or at once when it starts the list over', async () => {
    const sandbox = checked({ faults: false });
    const { accessToken, connectionId } = await link(sandbox);
    await sandbox.advance('3s');
    const first = await call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}`);
    expect(first.body.nextPageCursor).toEqual(expect.any(String));
    expect(rule(report(sandbox, false), 'pages-to-the-end')).toMatchObject({
      status: 'pass',
      summary: '1 list walk that needed paging, none broke it; 1 walk still in progress',
    });
    expect(rule(report(sandbox, true), 'pages-to-the-end')).toMatchObject({
      status: 'fail',
      summary: `the users of connection ${connectionId.slice(0, 8)}… stopped at page 1: its nextPageCursor (${first.body.nextPageCursor.slice(0, 8)}…, answered at +3.000s) was never requested`,
    });
    await call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}`);
    expect(rule(report(sandbox, false), 'pages-to-the-end')).toMatchObject({
      status: 'fail',
      failures: 1,
      evidence: [expect.objectContaining({ detail: expect.stringMatching(/^read the first page again, leaving the users of connection \w{8}… at page 1/) })],
    });
  });

  it("fails a cursor sent with another connection's accessToken, naming where it came from", async () => {
    const sandbox = checked({ faults: false });
    const one = await link(sandbox);
    const two = await link(sandbox);
    await sandbox.advance('3s');
    const { nextPageCursor } = (await call(sandbox, 'GET', `/engagement/users?accessToken=${one.accessToken}`)).body;
    expect((await call(sandbox, 'GET', `/engagement/users?accessToken=${two.accessToken}&cursor=${nextPageCursor}`)).status).toBe(400);
    const result = rule(report(sandbox, false), 'cursor-stays-with-its-list');
    expect(result.status).toBe('fail');
    expect(result.evidence[0]!.detail).toBe(
      `answered 400: cursor belongs to another list or connection; pass back a nextPageCursor unchanged (it was issued at +3.000s for the users of connection ${one.connectionId.slice(0, 8)}…, sent with connection ${two.connectionId.slice(0, 8)}…'s accessToken)`,
    );
  });

  it('deletes each connection mid-run when asked, and fails a client that keeps using its accessToken', async () => {
    const sandbox = checked({ faults: false, deleteConnectionAfter: '5s' });
    const { accessToken, connectionId } = await link(sandbox);
    await sandbox.advance('5s');
    expect(sandbox.connections('a')).toEqual([]);
    const read = () => call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}`);
    expect((await read()).body.errorCode).toBe('INVALID_ACCESS_TOKEN');
    await sandbox.advance('50ms');
    await read(); // still in flight: not held against it
    expect(rule(report(sandbox), 'drops-deleted-connections')).toMatchObject({
      status: 'pass',
      summary: expect.stringMatching(
        /^1 accessToken answered 401; e\.g\. accessToken access_\w{5}… of connection \w{8}… \(deleted by client-check at \+5\.000s\) was not sent again after its first 401 at \+5\.000s$/,
      ),
    });
    await sandbox.advance('1s');
    await read();
    const result = report(sandbox);
    expect(rule(result, 'drops-deleted-connections')).toMatchObject({ status: 'fail', failures: 1 });
    expect(rule(result, 'drops-deleted-connections').evidence[0]!.detail).toBe(
      `used its accessToken 1.050 s after that token's first 401 at +5.000s (connection ${connectionId.slice(0, 8)}…, deleted by client-check at +5.000s)`,
    );
    expect(result.hardCases).toMatchObject({
      connectionsDeleted: 1,
      cases: [expect.objectContaining({ case: 'connection-deleted', connectionId, since: '+5.000s' })],
    });
  });

  it('fails a second webhook and a webhookId the connection does not have', async () => {
    const sandbox = checked({ faults: false });
    const { accessToken } = await link(sandbox);
    const body = { accessToken, webhook: { webhookUrl: 'http://127.0.0.1:9/hooks' } };
    expect((await call(sandbox, 'POST', '/connection/webhook', body)).status).toBe(200);
    expect((await call(sandbox, 'POST', '/connection/webhook', body)).status).toBe(400);
    expect((await call(sandbox, 'DELETE', '/connection/webhook', { accessToken, webhookId: 'f'.repeat(32) })).status).toBe(404);
    const result = rule(report(sandbox), 'one-webhook-per-connection');
    expect(result).toMatchObject({ status: 'fail', failures: 2, exercised: 3 });
    expect(result.evidence.map((item) => item.detail)).toEqual([
      expect.stringMatching(
        /^created a second webhook for connection \w{8}…: answered 400 WEBHOOK_ALREADY_EXISTS \(its webhook \w{8}… was created at \+0\.000s\)$/,
      ),
      'named a webhookId the connection does not have (answered 404): keep the one POST /connection/webhook answered',
    ]);
  });

  it('fails the API token sent from a browser: an Origin header, or a preflight asking to send it', async () => {
    const sandbox = checked({ faults: false });
    await call(sandbox, 'GET', '/connection/connections', undefined, { origin: 'http://localhost:5173' });
    await sandbox.handle({
      method: 'OPTIONS',
      path: '/connection/connections',
      query: '',
      headers: { origin: 'http://localhost:5173', 'access-control-request-headers': 'content-type,service-api-token' },
    });
    // The control API (the inspector's) is not the service: not judged.
    await call(sandbox, 'GET', '/sandbox/connections', undefined, { origin: 'http://127.0.0.1:4010' });
    const result = rule(report(sandbox), 'api-token-off-browsers');
    expect(result.evidence.map((item) => [item.request, item.detail])).toEqual([
      ['GET /connection/connections', 'sent the service-api-token from a browser page at http://localhost:5173 (Origin header)'],
      ['OPTIONS /connection/connections', 'a browser page at http://localhost:5173 asked to send the service-api-token (CORS preflight)'],
    ]);
  });

  it('fails a second exchange of a public token, and a passthrough given a URL', async () => {
    const sandbox = checked({ faults: false });
    const { linkToken } = (await call(sandbox, 'POST', '/link/token')).body;
    const { publicToken } = (await call(sandbox, 'POST', '/sandbox/public-token', { linkToken })).body;
    const { accessToken } = (await call(sandbox, 'POST', '/link/exchange', { publicToken })).body;
    await sandbox.advance('1s');
    expect((await call(sandbox, 'POST', '/link/exchange', { publicToken })).status).toBe(400);
    expect(
      (await call(sandbox, 'POST', '/crm/passthrough', { accessToken, method: 'GET', path: 'https://api.hubapi.com/crm/v3/objects/contacts' })).status,
    ).toBe(400);
    const result = report(sandbox);
    expect(rule(result, 'exchanges-each-public-token-once').evidence[0]!.detail).toBe(
      'answered 400 PUBLIC_TOKEN_USED: the public token was exchanged already at +0.000s',
    );
    expect(rule(result, 'passthrough-path-without-host')).toMatchObject({
      status: 'fail',
      evidence: [expect.objectContaining({ request: 'POST /crm/passthrough (GET https://api.hubapi.com/crm/v3/objects/contacts)' })],
    });
  });

  it('puts the same hard cases in the way of the same reads under a seed, other ones under another', async () => {
    const run = async (seed: number) => {
      const sandbox = checked({ seed });
      await carefulSession(sandbox);
      return report(sandbox).hardCases.cases.map(({ at: _at, ...rest }) => rest);
    };
    const first = await run(1);
    expect(first.length).toBeGreaterThanOrEqual(2);
    expect(await run(1)).toEqual(first);
    expect(await run(2)).not.toEqual(first);
  });

  it("keeps each tenant's conduct and hard cases apart; the report route answers the caller's, 404 when it is off", async () => {
    const sandbox = checked({ faults: false }, ['a', 'b']);
    await call(sandbox, 'GET', '/connection/connections', undefined, { origin: 'http://localhost:5173' });
    expect(rule(report(sandbox), 'api-token-off-browsers').status).toBe('fail');
    expect(rule(report(sandbox, true, 'b'), 'api-token-off-browsers').status).toBe('not-exercised');
    // An unknown key is no tenant: nothing recorded, and no preflight is pinned on anyone when there are several.
    await callSandbox(sandbox, 'GET', '/connection/connections', { key: 'nope', headers: { origin: 'http://x' } });
    await sandbox.handle({
      method: 'OPTIONS',
      path: '/connection/connections',
      query: '',
      headers: { origin: 'http://x', 'access-control-request-headers': 'service-api-token' },
    });
    expect(report(sandbox).requests + report(sandbox, true, 'b').requests).toBe(1);
    const answered = await callSandbox(sandbox, 'GET', '/sandbox/client-check?final=true&rules=api-token-off-browsers', { key: 'b' });
    expect(answered.body).toMatchObject({ ok: true, final: true, rules: [{ rule: 'api-token-off-browsers', status: 'not-exercised' }] });
    expect((await callSandbox(sandbox, 'GET', '/sandbox/client-check?rules=nope')).body).toMatchObject({
      errorCode: 'INVALID_FIELD_VALUE',
      metadata: { field: 'rules' },
    });
    expect((await callSandbox(sandbox, 'DELETE', '/sandbox/client-check')).status).toBe(200);
    expect(report(sandbox).requests).toBe(0);
    const off = await callSandbox(createSandbox({ apiKeys: ['a'] }), 'GET', '/sandbox/client-check');
    expect(off).toMatchObject({ status: 404, body: { errorCode: 'ROUTE_NOT_FOUND', message: expect.stringContaining('serve --client-check') } });
  });

  it("keeps its verdicts across a reset, and does not judge the reset sandbox's tokens by the old ones", async () => {
    // Seeded tokens, as the CLI's sandbox has them: a reset sandbox issues the same ones again.
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'], tokens: 'seeded', initialSyncDelay: '3s', readyDelay: '5s' });
    sandbox.startClientCheck({ faults: false, deleteConnectionAfter: '5s' });
    const before = await link(sandbox);
    await call(sandbox, 'GET', '/connection/connections', undefined, { origin: 'http://localhost:5173' });
    await sandbox.advance('5s');
    expect((await call(sandbox, 'GET', `/engagement/users?accessToken=${before.accessToken}`)).status).toBe(401);
    sandbox.reset();
    const after = await link(sandbox);
    expect(after.accessToken).toBe(before.accessToken);
    await sandbox.advance('3s');
    expect((await call(sandbox, 'GET', `/engagement/users?accessToken=${after.accessToken}`)).status).toBe(200);
    const result = report(sandbox);
    expect(statuses(result)).toMatchObject({ 'drops-deleted-connections': 'pass', 'api-token-off-browsers': 'fail', 'waits-while-syncing': 'pass' });
    expect(rule(result, 'drops-deleted-connections').evidence[0]!.detail).toMatch(
      /^accessToken access_\w{5}… of connection \w{8}… \(deleted by client-check at \+5\.000s\) was not sent again after its first 401 at \+5\.000s$/,
    );
    expect(rule(result, 'drops-deleted-connections')).toMatchObject({ exercised: 1, failures: 0 });
  });

  it('answers as the OpenAPI document says: the injected 429s and 503s, and reports with failures', async () => {
    const sandbox = checked({ deleteConnectionAfter: '20s' });
    const traffic: Exchange[] = [];
    const handle = sandbox.handle.bind(sandbox);
    sandbox.handle = async (request) => {
      const response = await handle(request);
      traffic.push({ request, response });
      return response;
    };
    const { accessToken } = await carefulSession(sandbox);
    await call(sandbox, 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: 'http://127.0.0.1:9/hooks' } });
    await call(sandbox, 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: 'http://127.0.0.1:9/hooks' } });
    await sandbox.advance('20s');
    await call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}`);
    await sandbox.advance('1s');
    await call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}`);
    const answered = await call(sandbox, 'GET', '/sandbox/client-check?final=true');
    expect(answered.body.rules.filter((item: { status: string }) => item.status === 'fail').map((item: { rule: string }) => item.rule)).toEqual([
      'drops-deleted-connections',
      'one-webhook-per-connection',
    ]);
    const statuses = new Set(traffic.map((exchange) => exchange.response.status));
    for (const status of [200, 400, 401, 429, 503]) expect(statuses).toContain(status);
    expect(traffic.flatMap(openApiChecker(buildOpenApiDocument()))).toEqual([]);
  });

  it('formats the report: one row per rule, then each failure with its evidence and a fix', async () => {
    const sandbox = checked({ faults: false });
    await call(sandbox, 'GET', '/connection/connections', undefined, { origin: 'http://localhost:5173' });
    const text = formatReport(report(sandbox));
    expect(text.split('\n').slice(0, 4)).toEqual([
      'client-check: 1 of 11 rules failed, 10 not exercised; 1 request',
      '  hard cases: 0 answers 429 (Retry-After 1s-2s), 0 answers 503, pages of at most 10 (--no-faults); seed 1',
      '',
      '  NOT EXERCISED  waits-while-syncing               no connection was linked through POST /link/exchange, and no read was answered 409',
    ]);
    expect(text).toMatch(
      /^ {2}FAIL {11}api-token-off-browsers +GET \/connection\/connections: sent the service-api-token from a browser page at http:\/\/localhost:5173 \(Origin header\)$/m,
    );
    expect(text).toMatch(/^ {2}NOT EXERCISED {2}honours-retry-after +no request was answered 429/m);
    expect(text).toContain(
      '\napi-token-off-browsers: Keeps the API token off browsers\n    +0.000s  [200] GET /connection/connections: sent the service-api-token',
    );
    expect(text).toMatch(/\n {2}fix: call the service from your backend only/);
  });
});
