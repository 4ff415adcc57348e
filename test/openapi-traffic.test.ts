import { afterAll, expect, it, vi } from 'vitest';
import { buildOpenApiDocument } from '../src/core/openapi/build-document.js';
import { createSandbox, Sandbox } from '../src/index.js';
import { type Exchange, openApiChecker } from './helpers/openapi-conformance.js';
import { Receiver } from './helpers/receiver.js';

/**
 * The request table of test/endpoints.test.ts (over both transports), and the in-process tests of
 * the inspector routes, webhooks and passthrough, run again with every answer of the sandbox
 * recorded; then each answer is checked against the OpenAPI document.
 */
const traffic: Exchange[] = [];
const handle = Sandbox.prototype.handle;
vi.spyOn(Sandbox.prototype, 'handle').mockImplementation(async function (this: Sandbox, request) {
  const response = await handle.call(this, request);
  traffic.push({ request, response });
  return response;
});
afterAll(() => vi.restoreAllMocks());

await import('./endpoints.test.js');
await import('./unified-crm.test.js');
await import('./unified-engagement.test.js');
await import('./inspector-routes.test.js');
await import('./webhooks.test.js');
await import('./passthrough-fidelity.test.js');

/** The control API's routes that the tables above do not reach, happy and unhappy, answered by the core (and recorded). */
it('walks the rest of the control API and the link widget', async () => {
  const sandbox = createSandbox({ apiKeys: ['k'], initialSyncDelay: '50ms', readyDelay: '100ms' });
  const receiver = await new Receiver().start();
  const call = async (method: string, path: string, body?: unknown, apiKey: string | null = 'k') => {
    const [pathname = '', query = ''] = path.split('?');
    const response = await sandbox.handle({
      method,
      path: pathname,
      query,
      headers: { ...(apiKey === null ? {} : { 'service-api-token': apiKey }), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: response.body === '' ? undefined : JSON.parse(response.body) };
  };
  try {
    const { linkToken } = (await call('POST', '/link/token')).body;
    expect((await call('GET', `/link/widget/session?linkToken=${linkToken}`, undefined, null)).status).toBe(200);
    expect((await call('GET', '/link/widget/session?linkToken=nope', undefined, null)).status).toBe(401);
    const widget = await call('POST', '/link/widget/public-token', { linkToken, integrationId: 'salesforce', orgName: 'Acme' }, null);
    expect(widget.status).toBe(200);
    expect((await call('POST', '/link/widget/public-token', { linkToken, integrationId: 'nope' }, null)).status).toBe(400);
    const { connectionId } = (await call('POST', '/link/exchange', { publicToken: widget.body.publicToken })).body;

    expect((await call('PUT', `/sandbox/connections/${connectionId}/chaos`, { duplicate: 0.5, delay: '100ms-1s' })).status).toBe(200);
    expect((await call('PUT', `/sandbox/connections/${connectionId}/chaos`, { duplicate: 2 })).status).toBe(400);
    expect((await call('GET', `/sandbox/connections/${connectionId}/chaos`)).status).toBe(200);
    expect((await call('PUT', `/sandbox/connections/${connectionId}/chaos`, {})).status).toBe(200);
    expect(await call('POST', `/sandbox/connections/${connectionId}/deliveries/retry`)).toEqual({ status: 200, body: { deliveries: [] } });
    expect((await call('POST', `/sandbox/connections/${'0'.repeat(32)}/deliveries/retry`)).status).toBe(404);
    expect((await call('GET', '/sandbox/attempts')).status).toBe(200);
    expect((await call('GET', `/sandbox/attempts?after=0&wait=10ms&connectionId=${connectionId}`)).status).toBe(200);
    expect((await call('GET', '/sandbox/attempts?after=-1')).status).toBe(400);
    expect((await call('GET', '/sandbox/attempts?wait=10')).status).toBe(400);

    expect((await call('PUT', '/sandbox/faults', { route: '/engagement', latency: '10ms-20ms', errorRate: 0.1 })).status).toBe(200);
    expect((await call('PUT', '/sandbox/faults', { rules: [{ errorStatus: 200 }] })).status).toBe(400);
    expect((await call('GET', '/sandbox/faults')).status).toBe(200);
    expect((await call('PUT', '/sandbox/faults', {})).status).toBe(200);

    expect((await call('GET', '/sandbox/requests?method=POST&limit=5')).status).toBe(200);
    expect((await call('GET', '/sandbox/requests?status=abc')).status).toBe(400);
    expect((await call('DELETE', '/sandbox/requests')).status).toBe(200);

    const snapshot = await call('GET', '/sandbox/snapshot');
    expect(snapshot.status).toBe(200);
    expect((await call('PUT', '/sandbox/snapshot', snapshot.body)).status).toBe(200);
    expect((await call('PUT', '/sandbox/snapshot', { ...snapshot.body, seed: -1 })).status).toBe(400);

    expect((await call('GET', '/sandbox/scenarios')).status).toBe(200);
    const run = await call('POST', '/sandbox/scenarios/deal-won/run', { webhookUrl: receiver.url });
    expect(run.status, JSON.stringify(run.body).slice(0, 300)).toBe(200);
    expect((await call('POST', '/sandbox/scenarios/nope/run', {})).status).toBe(404);
    expect((await call('POST', '/sandbox/scenarios/run', { definition: { description: 'x', steps: [{ advance: 'later' }] } })).status).toBe(400);

    expect((await call('POST', '/sandbox/reset?all=maybe')).status).toBe(400);
    expect((await call('POST', '/sandbox/reset?all=true')).status).toBe(403); // no admin key configured
    expect((await call('POST', '/sandbox/reset')).status).toBe(200);
    expect((await call('GET', '/openapi.json', undefined, null)).status).toBe(200);

    expect((await call('GET', '/sandbox/client-check')).status).toBe(404); // client-check is off
    sandbox.startClientCheck();
    expect((await call('GET', '/connection/connections', undefined)).status).toBe(200);
    expect((await call('GET', '/sandbox/client-check?final=true')).status).toBe(200);
    expect((await call('GET', '/sandbox/client-check?rules=nope')).status).toBe(400);
    expect((await call('DELETE', '/sandbox/client-check')).status).toBe(200);
  } finally {
    sandbox.close();
    await receiver.stop();
  }
});

it('every answer of the request table conforms to the OpenAPI document', () => {
  const document: any = buildOpenApiDocument();
  const check = openApiChecker(document);
  const violations = traffic.flatMap(check);
  expect(traffic.length).toBeGreaterThan(400);
  const statuses = new Set(traffic.map((exchange) => exchange.response.status));
  // The table reaches the error statuses too, not only the happy paths.
  for (const status of [200, 201, 400, 401, 404, 405, 409, 413, 415]) expect(statuses, `status ${status}`).toContain(status);
  expect(violations).toEqual([]);
  // Every operation of the document was exercised.
  const operations = Object.entries<object>(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
  expect(operations.filter((operation) => !check.covered.has(operation))).toEqual([]);
});

it('the checker finds an undocumented status and a body off its schema', () => {
  const check = openApiChecker(buildOpenApiDocument());
  const exchange = (method: string, path: string, status: number, body: unknown): Exchange => ({
    request: { method, path, query: '', headers: {} },
    response: { status, headers: {}, body: JSON.stringify(body) },
  });
  expect(check(exchange('GET', '/sandbox/health', 409, { message: 'no' }))).toEqual([expect.stringContaining('status not documented')]);
  expect(check(exchange('GET', '/connection/connections', 200, { connections: [{ connectionId: 'c' }] }))).toEqual([
    expect.stringContaining('must have required property'),
  ]);
  expect(check(exchange('GET', '/connection/connections', 401, { message: 'no', errorCode: 'NOT_A_CODE' }))).toHaveLength(1);
  const accepted = {
    ...exchange('POST', '/link/exchange', 200, { connectionId: 'c' }),
    request: { method: 'POST', path: '/link/exchange', query: '', headers: {}, body: '{"publicToken":""}' },
  };
  expect(check(accepted).join('\n')).toContain('accepted a request body off its schema');
  expect(check(exchange('GET', '/nowhere', 404, { message: 'no route', errorCode: 'ROUTE_NOT_FOUND' }))).toEqual([]);
});
