import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index.js';
import { type DevServer, startDevServer } from '../src/node/dev-server.js';
import { verifySignature } from '../src/webhooks/signature.js';
import { launchChromium } from './helpers/browser.js';
import { Receiver } from './helpers/receiver.js';

/**
 * The link widget and the inspector in a real (headless, Debian) Chromium, against the dev
 * server on 127.0.0.1: a customer's frontend links an account through /link/init.js, its
 * backend exchanges the public token, and the inspector shows the connection, its records and
 * their deliveries. The tests run in order and share one browser (it is slow to start here).
 * Set CRM_SANDBOX_SCREENSHOTS=docs/images to refresh the README's screenshots.
 */
const API_KEY = 'browser-test-key';
const SCREENSHOTS = process.env.CRM_SANDBOX_SCREENSHOTS;

let sandboxServer: DevServer;
let app: Server;
let appUrl: string;
let browser: { context: BrowserContext; close: () => Promise<void> };
const receiver = new Receiver();
/** What the customer's backend did, for the tests to check. */
const backend = { linkTokens: [] as string[], exchanged: [] as Array<{ connectionId: string; accessToken: string; integrationId: string }> };

async function callSandbox(path: string, body?: unknown) {
  const response = await fetch(sandboxServer.url + path, {
    method: 'POST',
    headers: { 'service-api-token': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  return { status: response.status, json: (await response.json()) as Record<string, string> };
}

/** The customer's frontend: a connect button, the widget loaded from the sandbox's URL. */
function frontendPage(sandboxUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme app</title>
<script src="${sandboxUrl}/link/init.js"></script></head>
<body style="font-family:system-ui;padding:24px">
<h1>Acme app</h1><button id="connect">Connect your CRM</button><p id="result" role="status"></p>
<script>
  const result = document.getElementById('result');
  CrmSandboxLink.init({
    onLoad: () => { document.body.dataset.linkLoaded = 'yes'; },
    onSuccess: async (publicToken) => {
      result.textContent = 'exchanging…';
      const answer = await fetch('/api/exchange', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ publicToken }) }).then((r) => r.json());
      result.textContent = 'Connected ' + answer.connectionId + ' (' + answer.integrationId + ')';
    },
    onClose: () => { result.textContent = 'closed'; },
  });
  document.getElementById('connect').addEventListener('click', async () => {
    const { linkToken } = await fetch('/api/link-token', { method: 'POST' }).then((r) => r.json());
    CrmSandboxLink.open({ linkToken });
  });
</script></body></html>`;
}

/** The customer's backend: link token, exchange, webhook; the API token never reaches the browser. */
function startFrontend(sandboxUrl: string): Promise<Server> {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk));
    req.on('end', async () => {
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'GET' && req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(frontendPage(sandboxUrl));
      } else if (req.url === '/api/link-token') {
        const { json } = await callSandbox('/link/token');
        backend.linkTokens.push(json.linkToken!);
        send(200, { linkToken: json.linkToken });
      } else if (req.url === '/api/exchange') {
        const exchange = await callSandbox('/link/exchange', { publicToken: JSON.parse(text).publicToken });
        if (exchange.status !== 200) return send(exchange.status, exchange.json);
        const { connectionId, accessToken, integrationId } = exchange.json as { connectionId: string; accessToken: string; integrationId: string };
        backend.exchanged.push({ connectionId, accessToken, integrationId });
        await callSandbox('/connection/webhook', { accessToken, webhook: { webhookUrl: receiver.url } });
        send(200, { connectionId, integrationId });
      } else {
        send(404, {});
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function shoot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
}

/** Record ids contain dots, which a CSS id selector must escape. */
const CSS_ESCAPE = (id: string) => id.replace(/\./g, '\\.');

/** The text of a delivery row's cell, once the row exists. */
async function deliveryCell(page: Page, eventId: string, cell: 'state' | 'answer' | 'attempts' | 'what'): Promise<string> {
  return (await page.locator(`#deliveries tr[data-event-id="${eventId}"] td.${cell}`).textContent()) ?? '';
}

/** Waits until a delivery row shows the expected cell text (the page polls; no fixed sleeps). */
async function waitForDelivery(page: Page, eventId: string, cell: 'state' | 'answer' | 'attempts', pattern: RegExp): Promise<void> {
  await page.waitForFunction(
    ({ eventId, cell, source }) => {
      const node = document.querySelector(`#deliveries tr[data-event-id="${eventId}"] td.${cell}`);
      return node !== null && new RegExp(source).test(node.textContent ?? '');
    },
    { eventId, cell, source: pattern.source },
  );
}

/**
 * Creates a record with the inspector's form and returns its id, read from the message once it
 * names a record other than the one it showed before: the message of an earlier create stays on
 * the page, and reading it would pick that record (and wait forever for its delivery to fail).
 */
async function createRecordFromPage(page: Page, fields: string): Promise<string> {
  await page.getByLabel(/^Fields \(JSON/).fill(fields);
  const before = (await page.locator('#editor-message').textContent()) ?? '';
  await page.getByRole('button', { name: 'Create record' }).click();
  const message = await page.waitForFunction((previous) => {
    const text = document.getElementById('editor-message')?.textContent ?? '';
    return text.startsWith('Created v.contact.') && text !== previous ? text : false;
  }, before);
  return ((await message.jsonValue()) as string).replace('Created ', '');
}

/** The eventId of a record's first event, from the delivery log (an event held back never reaches the receiver). */
async function eventIdInLog(recordId: string): Promise<string> {
  for (;;) {
    const answer = await fetch(`${sandboxServer.url}/sandbox/connections/${backend.exchanged[0]!.connectionId}/deliveries`, {
      headers: { 'service-api-token': API_KEY },
    }).then((response) => response.json());
    const found = (answer.deliveries as Array<{ eventId: string; event: { data: { record?: { id: string } } } }>).find(
      (delivery) => delivery.event.data.record?.id === recordId,
    );
    if (found) return found.eventId;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The eventId of the first event the receiver got about a record. */
async function eventIdOfRecord(recordId: string): Promise<string> {
  for (;;) {
    const found = receiver.received.find((request) => request.json?.data?.record?.id === recordId);
    if (found) return found.json.eventId as string;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  await receiver.start();
  // Retries and status moves hours away: during the test only the page's actions make them.
  const sandbox = createSandbox({ apiKeys: [API_KEY], retrySchedule: ['1h'], initialSyncDelay: '1h', readyDelay: '2h', seed: 10 });
  sandboxServer = await startDevServer(sandbox, { port: 0 });
  app = await startFrontend(sandboxServer.url);
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => {
    if (!app) return resolve();
    app.close(() => resolve());
    app.closeAllConnections();
  });
  await sandboxServer?.close();
  await receiver.stop();
});

// A real browser on a busy machine: each test gets two minutes (none asserts on time).
describe('in a real browser', { timeout: 120_000 }, () => {
  let connectionId = '';
  let inspector: Page;
  /** The event redelivered from the page: the screenshot shows its attempts. */
  let redelivered = '';

  it('links an account through the widget; the backend exchanges the public token; the inspector shows the connection', async () => {
    const page = await browser.context.newPage();
    await page.goto(appUrl);
    await page.waitForFunction(
      () =>
        document.body.dataset.linkLoaded === 'yes' && (window as unknown as { CrmSandboxLink: { state: { isLoaded: boolean } } }).CrmSandboxLink.state.isLoaded,
    );
    await page.getByRole('button', { name: 'Connect your CRM' }).click();

    const widget = page.frameLocator('iframe[title="Link your account"]');
    await widget.getByRole('heading', { name: 'Choose your system' }).waitFor();
    await shoot(page, 'link-widget');
    await widget.getByRole('button', { name: 'Salesforce' }).click();
    await widget.getByRole('heading', { name: 'Sign in to Salesforce' }).waitFor();
    await widget.getByLabel('Organisation name').fill('Globex Test Org');
    // Keyboard: Enter submits the sign-in step.
    await widget.getByLabel('Organisation name').press('Enter');
    await widget.getByRole('heading', { name: 'Allow access' }).waitFor();
    await widget.getByRole('button', { name: 'Connect' }).click();

    await page.locator('#result', { hasText: 'Connected' }).waitFor();
    expect(await page.locator('iframe').count()).toBe(0);
    expect(backend.exchanged).toHaveLength(1);
    connectionId = backend.exchanged[0]!.connectionId;
    expect(backend.exchanged[0]!.integrationId).toBe('salesforce');
    expect(await page.locator('#result').textContent()).toBe(`Connected ${connectionId} (salesforce)`);

    inspector = await browser.context.newPage();
    await inspector.goto(`${sandboxServer.url}/sandbox/ui`);
    // This server takes only its own key: the default one was tried, and the form says how to give one.
    await inspector.getByRole('alert').filter({ hasText: 'This server does not take the default key sandbox-api-key' }).waitFor();
    expect(await inspector.locator('#token-hint').textContent()).toContain('/sandbox/ui?token=KEY');
    await inspector.getByLabel('API token (service-api-token)').fill(API_KEY);
    await inspector.getByRole('button', { name: 'Open inspector' }).click();
    const row = inspector.locator(`#connections tr[data-connection-id="${connectionId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('salesforce');
    expect(await row.textContent()).toContain('Globex Test Org');
    // The token is kept for the tab: a reload does not ask again.
    expect(await inspector.evaluate(() => sessionStorage.getItem('crm-sandbox.apiToken'))).toBe(API_KEY);
    await inspector.reload();
    await row.waitFor();

    // Scenarios: listed, and one runs on the linked connection with its report shown.
    await inspector.getByRole('tab', { name: 'Scenarios' }).click();
    await inspector.getByRole('button', { name: 'Pick crm-activity' }).click();
    expect(await inspector.locator('#optional-view').textContent()).toContain('A deal through its stages to Closed Won');
    // On a new link, so the connection the next tests inspect keeps only its own events.
    await inspector.locator('#scenario-connection').selectOption('');
    await inspector.locator('#scenario-webhook').fill(receiver.url);
    await inspector.getByRole('button', { name: /^Run/ }).click();
    await inspector.locator('#scenario-report', { hasText: '"scenario": "crm-activity"' }).waitFor({ timeout: 20_000 });
    const report = JSON.parse((await inspector.locator('#scenario-report').textContent()) ?? '{}');
    expect(report.failures).toEqual([]);
    expect(report.connection.webhookUrl).toBe(receiver.url);
    expect(report.events.filter((event: { state: string }) => event.state === 'succeeded')).toHaveLength(29);

    // The request journal: "not available" exactly when its endpoint is a 404.
    for (const [tab, path] of [['Requests', '/sandbox/requests']] as const) {
      const exists = (await fetch(sandboxServer.url + path, { headers: { 'service-api-token': API_KEY } })).status !== 404;
      await inspector.getByRole('tab', { name: tab }).click();
      await inspector.locator('#optional-view > *').first().waitFor();
      expect(await inspector.locator('#optional-view').textContent()).toContain(exists ? '' : `Not available in this sandbox: GET ${path} answered 404.`);
      if (exists) expect(await inspector.locator('#optional-view').textContent()).not.toContain('Not available');
    }
    await inspector.getByRole('tab', { name: 'Connections' }).click();
    await row.waitFor();
    await page.close();
  });

  it("creates a record in the inspector and shows its delivery with the receiver's answer", async () => {
    // A click anywhere on the row opens the connection (here its org).
    await inspector.locator(`#connections tr[data-connection-id="${connectionId}"] td`, { hasText: 'Globex Test Org' }).click();
    await inspector.locator(`#open-${connectionId}[aria-pressed="true"]`).waitFor();
    await inspector.locator('#webhook', { hasText: receiver.url }).waitFor();
    await inspector.locator('#records-table tbody tr').first().waitFor();
    // The unified reads answer 409 until the first sync: the inspector shows what the app gets.
    await inspector.locator('#unified-error', { hasText: '409 CONNECTION_SYNCING: data still syncing' }).waitFor();
    const recordId = await createRecordFromPage(inspector, '{"firstName":"Browser","lastName":"Tester","email":"browser@example.com"}');

    const eventId = await eventIdOfRecord(recordId);
    await waitForDelivery(inspector, eventId, 'state', /^succeeded$/);
    expect(await deliveryCell(inspector, eventId, 'what')).toBe('Contact CREATE');
    expect(await deliveryCell(inspector, eventId, 'answer')).toMatch(/^200 · \d+ ms$/);

    // The attempt's signed headers and exact body, as the receiver got them.
    await inspector.locator(`#details-${eventId}`).click();
    const detail = inspector.locator(`#detail-${eventId}`);
    await detail.locator('pre.event-body').waitFor();
    const got = receiver.received.find((request) => request.json.eventId === eventId)!;
    expect(await detail.locator('pre.event-body').textContent()).toBe(got.body);
    expect(await detail.textContent()).toContain(`x-service-signature: ${got.headers['x-service-signature']}`);
    await inspector.locator(`#details-${eventId}`).click();
    await detail.waitFor({ state: 'detached' });
  });

  it('redelivers a failed delivery from the page', async () => {
    receiver.behaviour = () => 500;
    const recordId = await createRecordFromPage(inspector, '{"firstName":"Failing"}');
    const eventId = await eventIdOfRecord(recordId);
    await waitForDelivery(inspector, eventId, 'state', /^retrying/);
    expect(await deliveryCell(inspector, eventId, 'answer')).toMatch(/^500 · /);
    // Why it waits: its failed attempt and the time of the next.
    expect(await deliveryCell(inspector, eventId, 'state')).toMatch(/^retryingfailed once \(last answer 500\); next attempt in (60 min|1 h)$/);

    receiver.behaviour = () => 204;
    await inspector.getByRole('button', { name: `Redeliver event ${eventId}` }).click();
    await waitForDelivery(inspector, eventId, 'state', /^succeeded$/);
    expect(await deliveryCell(inspector, eventId, 'attempts')).toBe('2');
    expect(await deliveryCell(inspector, eventId, 'answer')).toMatch(/^204 · /);
    const attempts = receiver.received.filter((request) => request.json.eventId === eventId);
    expect(attempts).toHaveLength(2);
    const { accessToken } = backend.exchanged[0]!;
    for (const attempt of attempts) {
      expect(
        verifySignature({
          accessToken,
          body: attempt.body,
          timestamp: attempt.headers['x-service-timestamp'] as string,
          signature: attempt.headers['x-service-signature'] as string,
        }),
      ).toBe(true);
    }
    // The log shows both attempts: the receiver's 500, then the 204 of the redelivery.
    await inspector.locator(`#details-${eventId}`).click();
    const rows = inspector.locator(`#detail-${eventId} table.attempts-table tbody tr`);
    await rows.nth(1).waitFor();
    expect(await rows.locator('td.attempt-status').allTextContents()).toEqual(['500', '204']);
    redelivered = eventId;
    await inspector.locator(`#details-${eventId}`).click();
    await inspector.locator(`#detail-${eventId}`).waitFor({ state: 'detached' });
  });

  it('says why each pending event waits, and "Retry now" sends the event they wait behind: once accepted, the rest follow at once', async () => {
    receiver.behaviour = () => 401;
    const held = await eventIdOfRecord(await createRecordFromPage(inspector, '{"firstName":"Held"}'));
    await waitForDelivery(inspector, held, 'state', /^retrying/);
    const behindId = await createRecordFromPage(inspector, '{"firstName":"Behind"}');
    const behind = await eventIdInLog(behindId);
    // Never sent: it waits behind the retrying one, and says so.
    await waitForDelivery(inspector, behind, 'state', /^pending/);
    expect(await deliveryCell(inspector, behind, 'state')).toMatch(
      new RegExp(`^pendingbehind ${held.slice(0, 8)}… which failed once \\(last answer 401\\); next attempt in (60 min|1 h)$`),
    );
    expect(await inspector.locator('#retry-summary').textContent()).toMatch(
      new RegExp(`^Contact CREATE \\(${held.slice(0, 8)}…\\) failed once \\(last answer 401\\); next attempt in (60 min|1 h); 1 event waits behind it\\.$`),
    );
    expect(receiver.received.filter((request) => request.json.eventId === behind)).toHaveLength(0);

    receiver.behaviour = () => 204;
    await inspector.getByRole('button', { name: 'Retry now' }).click();
    await waitForDelivery(inspector, held, 'state', /^succeeded$/);
    await waitForDelivery(inspector, behind, 'state', /^succeeded$/);
    await inspector.locator('#announce', { hasText: `Retried now: ${held.slice(0, 8)}… succeeded (204 · ` }).waitFor();
    expect(await inspector.locator('#retry-now').count()).toBe(0);
    expect(receiver.received.filter((request) => request.json.eventId === held).map((request) => request.json.eventId)).toHaveLength(2);
  });

  it('edits and deletes a record and moves the status from the page, each change showing its event', async () => {
    const first = inspector.locator('#records-table tbody tr').first();
    const recordId = (await first.getAttribute('data-record-id'))!;
    await inspector.locator(`#edit-${CSS_ESCAPE(recordId)}`).click();
    await inspector.getByRole('heading', { name: `Edit ${recordId}` }).waitFor();
    const fields = JSON.parse(await inspector.getByLabel('Fields to change (JSON)').inputValue());
    expect(fields.id).toBeUndefined();
    await inspector.getByLabel('Fields to change (JSON)').fill('{"jobTitle":"Chief Inspector"}');
    await inspector.getByRole('button', { name: 'Save changes' }).click();
    await inspector.locator(`#records-table tr[data-record-id="${recordId}"]`).waitFor();
    await inspector.locator('#deliveries td.what', { hasText: 'Contact UPDATE' }).waitFor();
    const stored = await fetch(`${sandboxServer.url}/sandbox/connections/${connectionId}/records/Contact/${recordId}`, {
      headers: { 'service-api-token': API_KEY },
    });
    expect((await stored.json()).record.jobTitle).toBe('Chief Inspector');

    // A bad field is refused with the field named, and nothing is lost from the form.
    await inspector.getByLabel(/^Fields \(JSON/).fill('{"firstName":42}');
    await inspector.getByRole('button', { name: 'Create record' }).click();
    await inspector.locator('#editor-message.error', { hasText: 'field: firstName' }).waitFor();
    expect(await inspector.getByLabel(/^Fields \(JSON/).inputValue()).toBe('{"firstName":42}');

    inspector.once('dialog', (dialog) => void dialog.accept());
    await inspector.getByRole('button', { name: `Delete ${recordId}` }).click();
    await inspector.locator(`#records-table tr[data-record-id="${recordId}"]`).waitFor({ state: 'detached' });
    await inspector.locator('#deliveries td.what', { hasText: 'Contact DELETE' }).waitFor();

    await inspector.getByLabel('Move status to').selectOption('READY');
    await inspector.getByRole('button', { name: 'Set status' }).click();
    await inspector.locator(`#connections tr[data-connection-id="${connectionId}"] td.status-READY`).waitFor();
    await inspector.locator('#deliveries td.what', { hasText: 'STATUS_CHANGE READY' }).waitFor();
  });

  it("shows the connection's unified records by object, the first page and more, each record's JSON as GET /crm/{objects} answers it", async () => {
    const { accessToken } = backend.exchanged[0]!;
    /** Every page of a unified list, as the app reads it. */
    const walk = async (path: string, key: string) => {
      const records: Array<{ id: string }> = [];
      let cursor: string | null = null;
      do {
        const page: Record<string, unknown> = await (
          await fetch(`${sandboxServer.url}${path}?accessToken=${accessToken}&limit=10${cursor ? `&cursor=${cursor}` : ''}`, {
            headers: { 'service-api-token': API_KEY },
          })
        ).json();
        records.push(...(page[key] as Array<{ id: string }>));
        cursor = page.nextPageCursor as string | null;
      } while (cursor !== null);
      return records;
    };
    const shownIds = () =>
      inspector.locator('#unified-table tbody tr[data-unified-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-unified-id')));
    // The newest first: the list's order, from its end.
    const contacts = (await walk('/crm/contacts', 'contacts')).reverse();
    expect(contacts.length).toBeGreaterThan(20);
    // READY since the test before: the first page, ten records (the ones just created among them), and a way to more.
    await inspector.locator('#unified-status', { hasText: 'GET /crm/contacts, newest first · 10 records in 1 page · more after' }).waitFor();
    expect(await shownIds()).toEqual(contacts.slice(0, 10).map((contact) => contact.id));
    await inspector.getByRole('button', { name: /^More/ }).click();
    await inspector.locator('#unified-status', { hasText: '20 records in 2 pages' }).waitFor();
    expect(await shownIds()).toEqual(contacts.slice(0, 20).map((contact) => contact.id));
    while (await inspector.locator('#unified-more').isVisible()) {
      const before = (await shownIds()).length;
      await inspector.locator('#unified-more').click();
      await inspector.waitForFunction((count) => document.querySelectorAll('#unified-table tbody tr[data-unified-id]').length > count, before);
    }
    await inspector.locator('#unified-status', { hasText: 'the last page' }).waitFor();
    expect(await shownIds()).toEqual(contacts.map((contact) => contact.id));

    // The search box: the records with the text in any value, in any case; none, said so.
    const tester = contacts.find((contact) => (contact as { email?: string }).email === 'browser@example.com')!;
    await inspector.getByLabel('Search').fill('BROWSER@example');
    await inspector
      .locator('#unified-status', { hasText: 'GET /crm/contacts, newest first, with "BROWSER@example" · 1 record in 1 page · the last page' })
      .waitFor();
    expect(await shownIds()).toEqual([tester.id]);
    await inspector.getByLabel('Search').fill('no-such-text-anywhere');
    await inspector.locator('#unified', { hasText: 'No Contact record has "no-such-text-anywhere".' }).waitFor();
    await inspector.getByLabel('Search').fill('');
    await inspector.locator('#unified-status', { hasText: 'GET /crm/contacts, newest first · 10 records in 1 page · more after' }).waitFor();

    // Another object, from the first page again; a record opens to its JSON, the route's record exactly.
    await inspector.locator('#unified-type').selectOption('Deal');
    await inspector.locator('#unified-status', { hasText: 'GET /crm/deals, newest first · 10 records in 1 page' }).waitFor();
    const deals = (await walk('/crm/deals', 'deals')).reverse();
    const deal = deals[0]!;
    await inspector.getByRole('button', { name: `Show the JSON of ${deal.id}` }).click();
    const json = inspector.locator(`#unified-detail-${CSS_ESCAPE(deal.id)} pre.unified-json`);
    await json.waitFor();
    expect(JSON.parse((await json.textContent())!)).toEqual(deal);
    expect(await inspector.locator(`#unified-json-${CSS_ESCAPE(deal.id)}`).getAttribute('aria-expanded')).toBe('true');
    // The objects the integration serves, emails among them.
    expect(await inspector.locator('#unified-type option').allTextContents()).toContain('Email (/crm/emails)');

    // The README's picture: a delivery's attempts and signed headers, and a unified record's JSON.
    await inspector.locator(`#details-${redelivered}`).click();
    await inspector.locator(`#detail-${redelivered} table.attempts-table tbody tr`).nth(1).waitFor();
    await shoot(inspector, 'inspector');
  });

  it("shows an engagement connection's sequences, read only, and a sequence start in their counts", async () => {
    const headers = { 'service-api-token': API_KEY, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) =>
      (await fetch(`${sandboxServer.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
    const { linkToken } = await post('/link/token', {});
    const { publicToken } = await post('/sandbox/public-token', { linkToken, integrationId: 'salesloft' });
    const { connectionId: salesloft, accessToken } = await post('/link/exchange', { publicToken });
    await post(`/sandbox/connections/${salesloft}/status`, { status: 'READY' });
    await inspector.getByRole('button', { name: `Open connection ${salesloft}` }).click();
    await inspector.locator('#records-table tbody tr').first().waitFor();
    await inspector.getByLabel('Type').selectOption('Engagement sequences');
    const first = inspector.locator('#records-table tbody tr').first();
    await first.locator('td', { hasText: 'Outbound - New Leads' }).waitFor();
    expect(await inspector.locator('#records-table tbody tr').count()).toBe(5);
    expect(await first.textContent()).toContain('read only');
    expect(await inspector.locator('#editor').textContent()).toContain('GET /engagement/sequences');
    const before = Number(await first.locator('td').nth(4).textContent());
    const read = async (list: string) => (await fetch(`${sandboxServer.url}/engagement/${list}?accessToken=${accessToken}&limit=1`, { headers })).json();
    const [sequence] = (await read('sequences')).sequences;
    const [contact] = (await read('contacts')).contacts;
    const [mailbox] = (await read('mailboxes')).mailboxes;
    expect((await post('/engagement/sequence/start', { accessToken, id: sequence.id, fields: { contactId: contact.id, mailboxId: mailbox.id } })).id).toMatch(
      /^[0-9a-f]{32}$/,
    );
    // The next poll shows the new contact in the sequence's scheduled count.
    await first
      .locator('td')
      .nth(4)
      .filter({ hasText: String(before + 1) })
      .waitFor();
    // A CRM connection offers no engagement objects, and shows its CRM records again.
    await inspector.getByRole('button', { name: `Open connection ${connectionId}` }).click();
    expect(await inspector.locator('#record-type optgroup').count()).toBe(0);
    expect(await inspector.locator('#record-type').inputValue()).toBe('Contact');
  });

  it('shows a used or unknown link token as an error in the widget, and ignores messages from elsewhere', async () => {
    const page = await browser.context.newPage();
    await page.goto(appUrl);
    await page.waitForFunction(() => document.body.dataset.linkLoaded === 'yes');
    const open = (linkToken: string) =>
      page.evaluate(
        (token) => (window as unknown as { CrmSandboxLink: { open(o: { linkToken: string }): void } }).CrmSandboxLink.open({ linkToken: token }),
        linkToken,
      );
    const widget = page.frameLocator('iframe[title="Link your account"]');

    await open(backend.linkTokens[0]!); // completed in the first test
    await widget.getByRole('alert').filter({ hasText: 'LINK_TOKEN_USED' }).waitFor();
    await shoot(page, 'link-widget-error');
    // A message that does not come from the widget's frame and origin is not a success.
    await page.evaluate(() => window.postMessage({ source: 'crm-sandbox-link', type: 'success', publicToken: 'public_forged' }, '*'));
    await widget.getByRole('button', { name: 'Close' }).first().click();
    await page.locator('#result', { hasText: 'closed' }).waitFor();
    expect(await page.locator('iframe').count()).toBe(0);

    await open('link_0000');
    await widget.getByRole('alert').filter({ hasText: 'INVALID_LINK_TOKEN' }).waitFor();
    // Escape closes the widget, as the close button does.
    await page.evaluate(() => (document.getElementById('result')!.textContent = ''));
    await widget.getByRole('heading', { name: 'Something went wrong' }).press('Escape');
    await page.locator('#result', { hasText: 'closed' }).waitFor();
    expect(backend.exchanged).toHaveLength(1);
    await page.close();
  });

  it('opens without asking for a token: ?token= (kept for the tab, taken out of the address), or the default key on this machine; a browser at / lands on it', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${sandboxServer.url}/sandbox/ui?token=${API_KEY}`);
    await page.locator(`#connections tr[data-connection-id="${connectionId}"]`).waitFor();
    expect(new URL(page.url()).search).toBe('');
    expect(await page.evaluate(() => sessionStorage.getItem('crm-sandbox.apiToken'))).toBe(API_KEY);
    expect(await page.locator('#api-token').count()).toBe(0);
    await page.close();

    // A server with the default key, as `serve` starts: no form at all, from / too.
    const plain = await startDevServer(createSandbox({ seed: 11 }), { port: 0 });
    try {
      const { publicToken } = await fetch(`${plain.url}/sandbox/public-token`, {
        method: 'POST',
        headers: { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' },
        body: '{}',
      }).then((response) => response.json());
      const linked = await fetch(`${plain.url}/link/exchange`, {
        method: 'POST',
        headers: { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' },
        body: JSON.stringify({ publicToken }),
      }).then((response) => response.json());
      const fresh = await browser.context.newPage();
      await fresh.goto(`${plain.url}/`);
      expect(new URL(fresh.url()).pathname).toBe('/sandbox/ui');
      await fresh.locator(`#connections tr[data-connection-id="${linked.connectionId}"]`).waitFor();
      expect(await fresh.locator('#api-token').count()).toBe(0);
      expect(await fresh.evaluate(() => sessionStorage.getItem('crm-sandbox.apiToken'))).toBe('sandbox-api-key');
      await fresh.close();
    } finally {
      await plain.close();
    }
  });

  it('links an account with the keyboard alone', async () => {
    const page = await browser.context.newPage();
    await page.goto(appUrl);
    await page.waitForFunction(() => document.body.dataset.linkLoaded === 'yes');
    await page.getByRole('button', { name: 'Connect your CRM' }).focus();
    await page.keyboard.press('Enter');
    const widget = page.frameLocator('iframe[title="Link your account"]');
    await widget.getByRole('heading', { name: 'Choose your system' }).waitFor();
    // Each step's title has the focus: Tab goes to its first control.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab'); // Salesforce → HubSpot
    await page.keyboard.press('Enter');
    await widget.getByRole('heading', { name: 'Sign in to HubSpot' }).waitFor();
    await page.keyboard.press('Tab'); // Organisation name, prefilled
    await page.keyboard.press('Enter'); // submits the sign-in step
    await widget.getByRole('heading', { name: 'Allow access' }).waitFor();
    await page.keyboard.press('Tab'); // Back
    await page.keyboard.press('Tab'); // Connect
    await page.keyboard.press('Enter');
    await page.locator('#result', { hasText: '(hubspot)' }).waitFor();
    expect(backend.exchanged.map((connection) => connection.integrationId)).toEqual(['salesforce', 'hubspot']);
    // Focus goes back to the button that opened the widget.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('connect');
    await page.close();
  });
});
