// The page of test/browser-msw.test.ts, bundled by esbuild for Chromium: the sandbox runs in the
// page under MSW's service worker, as a browser suite (vitest browser mode, Storybook) would run it.
// It imports the built package by its root name, as a user's page does: under the `browser`
// condition a bundler resolves `crm-sandbox` to its browser build.

import { createSandbox, verifySignature } from 'crm-sandbox';
import { createHandlers, onUnhandled } from 'crm-sandbox/msw';
import { HttpResponse, http } from 'msw';
import { setupWorker } from 'msw/browser';

interface Delivered {
  body: string;
  headers: Record<string, string>;
  verified: boolean;
  tampered: boolean;
}

/** Where the flow is, for the test to say where it stopped. */
const step = (name: string) => console.log(`step: ${name}`);

/** Runs the whole flow in the page and answers what it saw, for the test to check. */
async function runFlow(origin: string) {
  const API = `${origin}/service`;
  const WEBHOOK = `${origin}/app/webhooks`;
  const sandbox = createSandbox({ clock: 'virtual', seed: 11, apiKeys: ['page-key'] });
  const delivered: Array<{ request: Request; text: string }> = [];
  const worker = setupWorker(
    ...createHandlers(sandbox, { baseUrl: API }),
    // The app's webhook endpoint is an MSW handler too: the sandbox posts with the page's fetch.
    http.post(WEBHOOK, async ({ request }) => {
      delivered.push({ request, text: await request.clone().text() });
      return HttpResponse.json({ ok: true });
    }),
  );
  step('worker starting');
  // onUnhandled: msw 2 calls it onUnhandledRequest, msw 3 onUnhandledFrame.
  await worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, ...onUnhandled('error'), quiet: true });

  const call = async (path: string, body?: unknown) => {
    const response = await fetch(API + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'service-api-token': 'page-key', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: await response.json() };
  };

  step('worker started');
  const { json: linked } = await call('/sandbox/public-token', { integrationId: 'hubspot' });
  const { json: exchanged } = await call('/link/exchange', { publicToken: linked.publicToken });
  const accessToken: string = exchanged.accessToken;
  const webhook = await call('/connection/webhook', { accessToken, webhook: { webhookUrl: WEBHOOK } });
  step('advancing');
  await sandbox.advance('10s'); // NEW_CONNECTION → INITIAL_SYNCED → READY

  step('reading pages');
  const firstPage = await call(`/engagement/users?accessToken=${accessToken}&limit=5`);
  const secondPage = await call(`/engagement/users?accessToken=${accessToken}&limit=5&cursor=${firstPage.json.nextPageCursor}`);
  const badCursor = await call(`/engagement/users?accessToken=${accessToken}&cursor=bm9wZTp4OjE`);
  const contacts = await call(`/sandbox/connections/${exchanged.connectionId}/records/Contact`);

  const events: Delivered[] = delivered.map(({ request, text }) => {
    const check = (body: string | Uint8Array) =>
      verifySignature({
        accessToken,
        body,
        timestamp: request.headers.get('x-service-timestamp'),
        signature: request.headers.get('x-service-signature'),
      });
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return {
      body: text,
      headers,
      verified: check(new TextEncoder().encode(text)) && check(text),
      tampered: check(text.replace('"status"', '"Status"')),
    };
  });
  worker.stop();
  sandbox.close();
  return {
    accessToken,
    connectionId: exchanged.connectionId as string,
    webhookStatus: webhook.status,
    firstPage: firstPage.json,
    secondPage: secondPage.json,
    badCursor,
    contacts: contacts.json,
    events,
    nodeGlobals: typeof (globalThis as { Buffer?: unknown }).Buffer,
  };
}

(window as unknown as { runFlow: typeof runFlow }).runFlow = runFlow;
document.body.dataset.ready = 'yes';
