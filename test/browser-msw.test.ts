import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BuildOptions, build } from 'esbuild';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index.js';
import { signPayload, verifySignature } from '../src/webhooks/signature.js';
import { launchChromium } from './helpers/browser.js';

/**
 * The package's root entry, bundled for a browser, in a real (headless, Debian) Chromium: a page
 * bundled from test/browser-page/page.ts (it imports `crm-sandbox` and `crm-sandbox/msw`, the
 * built package, which the `browser` condition resolves to the browser build) registers MSW's
 * `setupWorker(...createHandlers(sandbox, { baseUrl }))`, links a connection, reads pages, and
 * receives signed events at a webhook that another MSW handler answers, on the virtual clock.
 * Everything is served from 127.0.0.1; the test server records any request that reaches it, so
 * one that MSW should have answered would show.
 */
let server: Server;
let origin: string;
let browser: { context: BrowserContext; close: () => Promise<void> };
const reachedServer: string[] = [];
/** Scripts added by a test: path → bundled code. */
const pages = new Map<string, Uint8Array>();

/** What the page's bundle is made of (esbuild's metafile inputs). */
let pageInputs: string[] = [];

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [new URL('./browser-page/page.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const script = bundle.outputFiles[0]!.contents;
  pageInputs = Object.keys(bundle.metafile.inputs);
  const worker = readFileSync(new URL('../node_modules/msw/lib/mockServiceWorker.js', import.meta.url));
  const page =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>crm-sandbox in the browser</title></head><body><script type="module" src="/page.js"></script></body></html>';
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    else if (path === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    else if (path === '/readme') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page.replace('/page.js', '/readme.js'));
    else if (pages.has(path!)) res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(pages.get(path!));
    else if (path === '/mockServiceWorker.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(worker);
    else {
      if (path !== '/favicon.ico') reachedServer.push(`${req.method} ${path}`);
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

interface FlowResult {
  accessToken: string;
  connectionId: string;
  webhookStatus: number;
  firstPage: { users: Array<{ id: string }>; nextPageCursor?: string };
  secondPage: { users: Array<{ id: string }> };
  badCursor: { status: number; json: { errorCode?: string; metadata?: { field?: string } } };
  contacts: { records?: Array<Record<string, unknown>> } & Record<string, unknown>;
  events: Array<{ body: string; headers: Record<string, string>; verified: boolean; tampered: boolean }>;
  nodeGlobals: string;
}

describe('crm-sandbox, bundled for a browser, under setupWorker in Chromium', () => {
  it('serves the interface, and delivers signed events to an MSW-answered webhook on the virtual clock', async () => {
    // The root entry resolved to the browser build: no Node entry, no node: module in the page.
    expect(pageInputs).toContain('dist/browser.js');
    expect(pageInputs.filter((input) => input === 'dist/index.js' || input.startsWith('node:') || input.includes('dist/node/'))).toEqual([]);
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const log: string[] = [];
    page.on('console', (message) => log.push(message.text()));
    // Chromium's worker start can be slow on a shared machine: a step log shows where a run stopped.
    const timer = setTimeout(() => console.error('browser-msw page log so far:', log), 50_000);
    await page.goto(`${origin}/`);
    await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' });
    const result = (await page.evaluate((at) => (window as unknown as { runFlow: (o: string) => Promise<unknown> }).runFlow(at), origin)) as FlowResult;
    clearTimeout(timer);
    await page.close();

    expect(errors).toEqual([]);
    expect(result.nodeGlobals).toBe('undefined'); // really a browser: no Buffer to lean on
    expect(result.accessToken).toMatch(/^access_[0-9a-f]{40}$/);
    expect(result.webhookStatus).toBe(200);

    // Pages: 5 users, a cursor, the next 5 after them; a foreign cursor is a 400 naming it.
    expect(result.firstPage.users).toHaveLength(5);
    expect(result.firstPage.nextPageCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(result.secondPage.users).toHaveLength(5);
    expect(result.secondPage.users.map((user) => user.id)).not.toContain(result.firstPage.users[0]!.id);
    expect(result.badCursor.status).toBe(400);
    expect(result.badCursor.json.metadata?.field).toBe('cursor');
    // The bundled fixtures reach the core as data: Ada from fixtures/acme.json leads the contacts.
    expect(JSON.stringify(result.contacts)).toContain('ada.lovelace@acme.example');

    // Events: in order, signed, and verified in the page (string and Uint8Array bodies) and here.
    const statuses = result.events.map((event) => (JSON.parse(event.body) as { data: { status: string } }).data.status);
    expect(statuses).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);
    for (const event of result.events) {
      expect(event.verified).toBe(true);
      expect(event.tampered).toBe(false);
      expect(event.headers['x-service-connection-id']).toBe(result.connectionId);
      const timestamp = event.headers['x-service-timestamp']!;
      expect(event.headers['x-service-signature']).toBe(signPayload(result.accessToken, event.body, timestamp));
      expect(verifySignature({ accessToken: result.accessToken, body: event.body, timestamp, signature: event.headers['x-service-signature'] })).toBe(true);
    }
    // MSW answered everything under the base URL and the webhook: nothing reached the real server.
    expect(reachedServer).toEqual([]);

    // Deterministic across platforms: the same calls on Node give byte-identical event bodies and the same pages.
    const node = await sameFlowOnNode(`${origin}/app/webhooks`);
    expect(node.accessToken).toBe(result.accessToken);
    expect(node.firstPage).toEqual(result.firstPage);
    expect(node.secondPage).toEqual(result.secondPage);
    expect(node.eventBodies).toEqual(result.events.map((event) => event.body));
  }, 60_000);
});

describe('the browser example of docs/testing.md', () => {
  it('runs as written in Chromium (its URLs moved onto the test server), with the built package', async () => {
    const doc = readFileSync(new URL('../docs/testing.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf("## In the browser, with MSW's `setupWorker`"));
    const example = /```ts\n([\s\S]*?)```/
      .exec(section)![1]!
      .replaceAll('https://api.service.test', `${origin}/readme-service`)
      .replaceAll('https://app.test/webhooks', `${origin}/readme-app/webhooks`);
    const bundle = await build({
      stdin: { contents: example, loader: 'ts', resolveDir: new URL('..', import.meta.url).pathname },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'error',
    });
    pages.set('/readme.js', bundle.outputFiles[0]!.contents);
    const page = await browser.context.newPage();
    const log: string[] = [];
    const errors: string[] = [];
    // The example's own lines (a status and a verdict, or a count and a cursor), not MSW's banner.
    page.on('console', (message) => /^([A-Z_]+ |\d+ )/.test(message.text()) && log.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${origin}/readme`);
    await expect.poll(() => log.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    await page.close();
    expect(errors).toEqual([]);
    expect(log.slice(0, 3)).toEqual(['NEW_CONNECTION signed', 'INITIAL_SYNCED signed', 'READY signed']);
    expect(log[3]).toMatch(/^5 [A-Za-z0-9_-]+$/);
    // (The Node replay of the first test posts to /app/webhooks; the example's URLs are its own.)
    expect(reachedServer.filter((request) => request.includes('/readme-'))).toEqual([]);
  }, 60_000);
});

/** The inputs of a bundle of `contents` (resolved from the package root) made with esbuild's `options`. */
async function bundleInputs(contents: string, options: Pick<BuildOptions, 'platform' | 'conditions'>): Promise<string[]> {
  const bundle = await build({
    stdin: { contents, resolveDir: new URL('..', import.meta.url).pathname },
    bundle: true,
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    ...options,
  });
  return Object.keys(bundle.metafile.inputs);
}

/** Inputs a browser bundle must not have: the Node entry, src/node's modules, any node: module. */
const nodeOnly = (inputs: string[]) =>
  inputs.filter((input) => input === 'dist/index.js' || input.startsWith('node:') || input.includes('dist/node/') || input.includes('http-transport'));

describe('the package entries crm-sandbox and crm-sandbox/browser', () => {
  it('both resolve to the built browser entry under the browser condition, with no Node module in the graph', async () => {
    const browserEntry = await import('crm-sandbox/browser');
    expect(typeof browserEntry.createSandbox).toBe('function');
    expect(typeof browserEntry.verifySignature).toBe('function');
    for (const entry of ['crm-sandbox', 'crm-sandbox/browser']) {
      const contents = `export { createSandbox, verifySignature } from '${entry}'; export { createHandlers } from 'crm-sandbox/msw';`;
      // A bundler for browsers sets the condition itself; one for any platform is told it.
      const variants: Array<Pick<BuildOptions, 'platform' | 'conditions'>> = [{ platform: 'browser' }, { platform: 'neutral', conditions: ['browser'] }];
      for (const options of variants) {
        const inputs = await bundleInputs(contents, options);
        expect(inputs, `${entry} with ${JSON.stringify(options)}`).toContain('dist/browser.js');
        expect(nodeOnly(inputs), `${entry} with ${JSON.stringify(options)}`).toEqual([]);
      }
    }
  });

  it('crm-sandbox is the Node entry everywhere else: in Node, and in a bundle for Node', async () => {
    expect(import.meta.resolve('crm-sandbox')).toBe(new URL('../dist/index.js', import.meta.url).href);
    const inputs = await bundleInputs("export { createSandbox } from 'crm-sandbox';", { platform: 'node' });
    expect(inputs).toContain('dist/index.js');
    expect(inputs).toContain('dist/node/platform.js');
    expect(inputs).not.toContain('dist/browser.js');
  });
});

/** The page's calls, made on a Node sandbox with the same options (its core, Node's platform). */
async function sameFlowOnNode(webhookUrl: string) {
  const sandbox = createSandbox({ clock: 'virtual', seed: 11, apiKeys: ['page-key'] });
  const bodies: string[] = [];
  sandbox.onEvent((event) => bodies.push(event.eventId));
  const call = async (path: string, body?: unknown) => {
    const [pathname, query = ''] = path.split('?');
    const response = await sandbox.handle({
      method: body === undefined ? 'GET' : 'POST',
      path: pathname!,
      query,
      headers: { 'service-api-token': 'page-key', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return JSON.parse(response.body);
  };
  try {
    const { publicToken } = await call('/sandbox/public-token', { integrationId: 'hubspot' });
    const { accessToken } = await call('/link/exchange', { publicToken });
    // Delivered to the test server this time (a 404: only the bodies, as emitted, are compared).
    await call('/connection/webhook', { accessToken, webhook: { webhookUrl } });
    await sandbox.advance('10s');
    const firstPage = await call(`/engagement/users?accessToken=${accessToken}&limit=5`);
    const secondPage = await call(`/engagement/users?accessToken=${accessToken}&limit=5&cursor=${firstPage.nextPageCursor}`);
    return { accessToken, firstPage, secondPage, eventBodies: bodies.map((eventId) => sandbox.parts.dispatcher.bodyOf(eventId)) };
  } finally {
    sandbox.close();
  }
}
