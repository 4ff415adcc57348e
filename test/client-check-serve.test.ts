import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClientCheckReport } from '../src/client-check/report.js';
import { buildOpenApiDocument } from '../src/core/openapi/build-document.js';
import { createSandbox } from '../src/index.js';
import { startDevServer } from '../src/node/dev-server.js';
import { launchChromium } from './helpers/browser.js';
import { type Cli, killAll, serveCli } from './helpers/cli.js';
import { type Exchange, openApiChecker } from './helpers/openapi-conformance.js';

/**
 * client-check on a running server (`serve --client-check`), as a compose or container setup
 * uses it: clients of two tenants run against it, each tenant's report comes from
 * `GET /sandbox/client-check`, and the inspector shows it — with a real browser caught sending
 * the API token.
 */
const running: Cli[] = [];
const servers: Server[] = [];
afterAll(async () => {
  killAll(running);
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

const CLIENT_JS = fileURLToPath(new URL('client-check/client.mjs', import.meta.url));
const CLIENT_PY = fileURLToPath(new URL('client-check/client.py', import.meta.url));
const check = openApiChecker(buildOpenApiDocument());

/** Runs a client with the server's URL and an API key; resolves with its exit status and output. */
function runClient(command: string[], url: string, apiKey: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, CRM_SANDBOX_URL: url, CRM_SANDBOX_API_KEY: apiKey } });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** One control-API call, its answer checked against the OpenAPI document. */
async function control(url: string, apiKey: string, method: string, pathAndQuery: string) {
  const response = await fetch(url + pathAndQuery, { method, headers: { 'service-api-token': apiKey } });
  const text = await response.text();
  const [path, query = ''] = pathAndQuery.split('?');
  const exchange: Exchange = {
    request: { method, path: path!, query, headers: { 'service-api-token': apiKey } },
    response: { status: response.status, headers: {}, body: text },
  };
  expect(check(exchange)).toEqual([]);
  return { status: response.status, body: JSON.parse(text) };
}

const failing = (report: ClientCheckReport) => report.rules.filter((rule) => rule.status === 'fail').map((rule) => rule.rule);

describe('serve --client-check', () => {
  it("judges each tenant's client apart; GET /sandbox/client-check answers the caller's report; DELETE starts it over", async () => {
    const cli = await serveCli(['--client-check', '--api-key', 'team-a,team-b', '--initial-sync-delay', '500ms', '--ready-delay', '1s', '--quiet'], running);
    expect(cli.output()).toContain(`client-check: on; each API token's report at GET ${cli.url}/sandbox/client-check`);
    const [careful, flawed] = await Promise.all([
      runClient(['python3', CLIENT_PY], cli.url, 'team-a'),
      runClient([process.execPath, CLIENT_JS, '--flaw', 'browser-token'], cli.url, 'team-b'),
    ]);
    expect(careful, careful.output).toMatchObject({ code: 0 });
    expect(flawed, flawed.output).toMatchObject({ code: 0 });
    const a = (await control(cli.url, 'team-a', 'GET', '/sandbox/client-check?final=true')).body as ClientCheckReport;
    expect(failing(a)).toEqual([]);
    expect(a).toMatchObject({ ok: true, final: true, settings: { seed: 1, pageSize: 10, retryAfter: '1s-2s', faults: true, deleteConnectionAfter: null } });
    expect(a.requests).toBeGreaterThan(10);
    const b = (await control(cli.url, 'team-b', 'GET', '/sandbox/client-check')).body as ClientCheckReport;
    expect(failing(b)).toEqual(['api-token-off-browsers']);
    expect(b.rules.find((rule) => rule.rule === 'api-token-off-browsers')!.evidence[0]).toMatchObject({
      request: 'POST /link/token',
      detail: 'sent the service-api-token from a browser page at http://localhost:5173 (Origin header)',
    });
    expect((await control(cli.url, 'team-b', 'GET', '/sandbox/client-check?strict=maybe')).status).toBe(400);
    expect((await control(cli.url, 'team-b', 'DELETE', '/sandbox/client-check')).status).toBe(200);
    expect((await control(cli.url, 'team-b', 'GET', '/sandbox/client-check')).body).toMatchObject({ ok: true, requests: 0 });
    expect((await control(cli.url, 'team-a', 'GET', '/sandbox/client-check')).body.requests).toBe(a.requests);
    expect((await control(cli.url, 'nobody', 'GET', '/sandbox/client-check')).status).toBe(401);
  });

  it('is off without the flag: the route answers 404 saying how to turn it on', async () => {
    const cli = await serveCli(['--quiet'], running);
    expect(cli.output()).not.toContain('client-check');
    const off = await control(cli.url, 'sandbox-api-key', 'GET', '/sandbox/client-check');
    expect(off).toMatchObject({ status: 404, body: { errorCode: 'ROUTE_NOT_FOUND', message: expect.stringContaining('crm-sandbox serve --client-check') } });
  });

  it("shows the report in the inspector's Client check tab, with a real browser caught sending the API token", async () => {
    const sandbox = createSandbox({ apiKeys: ['k'], initialSyncDelay: '500ms', readyDelay: '1s' });
    sandbox.startClientCheck();
    const server = await startDevServer(sandbox, { port: 0 });
    const off = await startDevServer(createSandbox({ apiKeys: ['k'] }), { port: 0 });
    // A page of another origin that calls the service with the API token: the browser asks first (CORS preflight), and the sandbox allows nothing.
    const page = createServer((_request, response) => {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><script>fetch(${JSON.stringify(`${server.url}/connection/connections`)}, { headers: { 'service-api-token': 'k' } }).then(() => { document.title = 'sent'; }, () => { document.title = 'refused'; });</script>`,
        );
    });
    servers.push(page);
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const browser = await launchChromium();
    try {
      const frontend = await browser.context.newPage();
      await frontend.goto(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
      await frontend.waitForFunction(() => document.title === 'refused');

      const inspector = await browser.context.newPage();
      const problems: string[] = [];
      inspector.on('pageerror', (error) => problems.push(error.message));
      inspector.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      await inspector.goto(`${server.url}/sandbox/ui`);
      await inspector.getByLabel('API token (service-api-token)').fill('k');
      await inspector.getByRole('button', { name: 'Open inspector' }).click();
      await inspector.getByRole('tab', { name: 'Client check' }).click();
      const row = inspector.locator('#client-check-rules tr[data-rule="api-token-off-browsers"]');
      await row.waitFor();
      expect(await row.locator('td').first().textContent()).toBe('FAIL');
      expect(await row.textContent()).toMatch(
        /OPTIONS \/connection\/connections: a browser page at http:\/\/127\.0\.0\.1:\d+ asked to send the service-api-token \(CORS preflight\)/,
      );
      expect(await row.textContent()).toContain('Fix: call the service from your backend only');
      expect(await inspector.locator('#client-check-headline').textContent()).toMatch(/^1 of 11 rules failed, 10 not exercised; 1 request since /);
      expect(await inspector.locator('#client-check-rules tr[data-rule="pages-to-the-end"] td').first().textContent()).toBe('NOT EXERCISED');
      // The tabs are keyboard-usable: the arrow keys move between them.
      await inspector.getByRole('tab', { name: 'Client check' }).press('ArrowLeft');
      expect(await inspector.getByRole('tab', { name: 'Requests' }).getAttribute('aria-selected')).toBe('true');
      await inspector.getByRole('tab', { name: 'Requests' }).press('ArrowRight');
      await inspector.getByRole('button', { name: 'Start over' }).click();
      await inspector.locator('#client-check-headline', { hasText: 'No rule failed, 11 not exercised; 0 requests' }).waitFor();

      await inspector.goto(`${off.url}/sandbox/ui`);
      await inspector.getByLabel('API token (service-api-token)').fill('k');
      await inspector.getByRole('button', { name: 'Open inspector' }).click();
      await inspector.getByRole('tab', { name: 'Client check' }).click();
      await inspector.getByText('Not available: client-check is off: start the server with crm-sandbox serve --client-check').waitFor();
      // The inspector's own calls (the control API) are never judged, and nothing broke its CSP.
      expect(problems.filter((text) => !/404 \(Not Found\)/.test(text))).toEqual([]);
    } finally {
      await browser.close();
      await server.close();
      await off.close();
    }
  });
});
