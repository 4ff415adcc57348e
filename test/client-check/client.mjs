// A client of the service written from its interface alone, for `crm-sandbox client-check`: it
// links an account, creates the webhook, waits for the first sync, reads every page of users,
// mailboxes and the unified contacts, every page of a unified search of deals, calls the
// passthrough, and cleans up. Careful by default; `--flaw NAME` gives it one
// of the flaws client-check must catch (see FLAWS). `--until-gone` keeps reading until the
// connection is deleted (client-check --delete-connection), then stops using its token.
// Node's standard library only. Exit status 0 when the session ran to its end.
import { createServer } from 'node:http';

const FLAWS = [
  'reads-while-syncing', // retries a 409 at once instead of waiting for the sync (three times, then gives up)
  'ignores-retry-after', // retries a 429 at once
  'no-backoff', // retries a 503 at once
  'first-page-only', // stops after the first page
  'search-first-page-only', // stops a search after its first page
  'foreign-cursor', // sends one connection's cursor with another connection's accessToken
  'limit-out-of-bounds', // asks for limit=500 first
  'reuses-deleted-token', // keeps calling with the accessToken after its 401
  'second-webhook', // creates the webhook again instead of keeping the webhookId
  'browser-token', // sends the API token from a browser page (Origin header)
  'exchange-twice', // exchanges the public token a second time
  'passthrough-url', // gives the passthrough a whole URL
];

const args = process.argv.slice(2);
const flaw = args.includes('--flaw') ? args[args.indexOf('--flaw') + 1] : undefined;
if (flaw !== undefined && !FLAWS.includes(flaw)) throw new Error(`unknown flaw ${flaw}; one of ${FLAWS.join(', ')}`);
const untilGone = args.includes('--until-gone');
const BASE = process.env.CRM_SANDBOX_URL;
const API_KEY = process.env.CRM_SANDBOX_API_KEY;
if (!BASE || !API_KEY) throw new Error('run me under crm-sandbox client-check: CRM_SANDBOX_URL and CRM_SANDBOX_API_KEY');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The connection is gone: its accessToken answered 401. */
class Gone extends Error {}

/** The reads-while-syncing flaw: its 409s retried at once, three times, it stops reading. */
class GaveUp extends Error {}

/** One call to the service, retried as the service asks: after Retry-After on 429, with growing pauses on 5xx, after a pause on 409. */
async function call(method, path, { query, body } = {}) {
  const url = new URL(path, BASE);
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  const headers = {
    'service-api-token': API_KEY,
    ...(body ? { 'content-type': 'application/json' } : {}),
    ...(flaw === 'browser-token' ? { origin: 'http://localhost:5173' } : {}),
  };
  let pause = 200;
  let syncing = 0;
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
    const answer = { status: response.status, body: await response.json() };
    if (response.status === 409 && flaw === 'reads-while-syncing') {
      if (++syncing > 3) throw new GaveUp(`${method} ${path}: still syncing after three retries at once`);
      continue;
    }
    if (response.status === 429 && attempt < 500) {
      await sleep(flaw === 'ignores-retry-after' ? 20 : Number(response.headers.get('retry-after')) * 1000);
    } else if (response.status >= 500 && attempt < 6) {
      if (flaw !== 'no-backoff') await sleep((pause *= 2));
    } else if (response.status === 409 && answer.body.errorCode === 'CONNECTION_SYNCING' && attempt < 2000) {
      if (flaw !== 'reads-while-syncing') await sleep(1000);
    } else if (response.status === 401 && answer.body.errorCode === 'INVALID_ACCESS_TOKEN') {
      throw new Gone(`${method} ${path}: the connection is gone`);
    } else {
      return answer;
    }
  }
}

/** Like {@link call}, but a 2xx is required. */
async function ok(method, path, options) {
  const answer = await call(method, path, options);
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function link() {
  const { linkToken } = await ok('POST', '/link/token');
  const { publicToken } = await ok('POST', '/sandbox/public-token', { body: { linkToken } });
  const connection = await ok('POST', '/link/exchange', { body: { publicToken } });
  if (flaw === 'exchange-twice') await call('POST', '/link/exchange', { body: { publicToken } });
  return connection;
}

/** The first nextPageCursor each list gave (the foreign-cursor flaw reuses one). */
const firstCursors = {};

/** Every record of a list (an engagement list's name, or a unified list's path), following nextPageCursor until a page answers it null. */
async function readAll(list, accessToken) {
  const path = list.startsWith('/') ? list : `/engagement/${list}`;
  const key = path.split('/').pop();
  const records = [];
  let cursor;
  let limit = flaw === 'limit-out-of-bounds' ? 500 : 100;
  for (;;) {
    const answer = await call('GET', path, { query: { accessToken, limit, cursor } });
    if (answer.status === 400 && flaw === 'limit-out-of-bounds') {
      limit = 100;
      continue;
    }
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
    records.push(...answer.body[key]);
    cursor = answer.body.nextPageCursor;
    firstCursors[key] ??= cursor;
    if (!cursor || flaw === 'first-page-only') return records;
  }
}

/** Every record a unified search finds: the same filters on each page, the cursor in the body, until nextPageCursor is null. */
async function searchAll(path, key, accessToken, filters) {
  const records = [];
  let cursor = null;
  for (;;) {
    const page = await ok('POST', path, { body: { accessToken, filters, limit: 100, ...(cursor === null ? {} : { cursor }) } });
    records.push(...page[key]);
    cursor = page.nextPageCursor;
    if (cursor === null || flaw === 'first-page-only' || flaw === 'search-first-page-only') return records;
  }
}

/** A webhook receiver on 127.0.0.1: resolves `synced(connectionId)` when its INITIAL_SYNCED event comes. */
async function startReceiver() {
  const waiting = new Map();
  const seen = new Set();
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const event = JSON.parse(text);
      const connectionId = request.headers['x-service-connection-id'];
      if (event.type === 'STATUS_CHANGE' && event.data.status !== 'NEW_CONNECTION') {
        seen.add(connectionId);
        waiting.get(connectionId)?.();
      }
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/webhooks`,
    synced: (connectionId) => (seen.has(connectionId) ? Promise.resolve() : new Promise((resolve) => waiting.set(connectionId, resolve))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function session() {
  const receiver = await startReceiver();
  try {
    const connection = await link();
    const { accessToken, connectionId } = connection;
    const { webhook } = await ok('POST', '/connection/webhook', { body: { accessToken, webhook: { webhookUrl: receiver.url } } });
    if (flaw === 'second-webhook') await call('POST', '/connection/webhook', { body: { accessToken, webhook: { webhookUrl: receiver.url } } });
    // Careful: the first read waits for the connection's STATUS_CHANGE INITIAL_SYNCED event.
    if (flaw === 'reads-while-syncing') {
      try {
        await readAll('users', accessToken);
      } catch (error) {
        if (!(error instanceof GaveUp)) throw error;
        console.log(`${error.message}: stopping`);
        return;
      }
    } else await receiver.synced(connectionId);
    try {
      const path = flaw === 'passthrough-url' ? 'https://api.hubapi.com/crm/v3/objects/contacts' : 'crm/v3/objects/contacts';
      const passthrough = await call('POST', '/crm/passthrough', { body: { accessToken, method: 'GET', path, query: { limit: '5' } } });
      await ok('GET', '/connection/webhook', { query: { accessToken, webhookId: webhook.webhookId } });
      const users = await readAll('users', accessToken);
      if (flaw === 'foreign-cursor') {
        const other = await link();
        await ok('POST', '/connection/webhook', { body: { accessToken: other.accessToken, webhook: { webhookUrl: receiver.url } } });
        await receiver.synced(other.connectionId);
        await call('GET', '/engagement/users', { query: { accessToken: other.accessToken, cursor: firstCursors.users } });
      }
      const mailboxes = await readAll('mailboxes', accessToken);
      const contacts = await readAll('/crm/contacts', accessToken);
      const deals = await searchAll('/crm/deals/search', 'deals', accessToken, { name: { not: '' } });
      console.log(
        `read ${users.length} users, ${mailboxes.length} mailboxes, ${contacts.length} contacts, ${deals.length} deals; passthrough ${passthrough.status}`,
      );
      // Keep syncing until the connection is deleted under us.
      while (untilGone) {
        await readAll('users', accessToken);
        await sleep(500);
      }
      await ok('DELETE', '/connection/webhook', { body: { accessToken, webhookId: webhook.webhookId } });
    } catch (error) {
      if (!(error instanceof Gone)) throw error;
      console.log(`connection ${connectionId} is gone: not using its accessToken again`);
      if (flaw === 'reuses-deleted-token') {
        for (let i = 0; i < 3; i++) {
          await sleep(300);
          await call('GET', '/engagement/users', { query: { accessToken } }).catch(() => undefined);
        }
      }
    }
  } finally {
    await receiver.close();
  }
}

await session();
