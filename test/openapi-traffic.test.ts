import { afterAll, expect, it, vi } from 'vitest';
import { Sandbox } from '../src/core/sandbox.js';
import { buildOpenApiDocument } from '../src/openapi/document.js';
import { openApiChecker, type Exchange } from './helpers/openapi-conformance.js';

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
await import('./inspector-routes.test.js');
await import('./webhooks.test.js');
await import('./passthrough-fidelity.test.js');

it('every answer of the request table conforms to the OpenAPI document', () => {
  const check = openApiChecker(buildOpenApiDocument());
  const violations = traffic.flatMap(check);
  expect(traffic.length).toBeGreaterThan(400);
  const statuses = new Set(traffic.map((exchange) => exchange.response.status));
  // The table reaches the error statuses too, not only the happy paths.
  for (const status of [200, 201, 400, 401, 404, 405, 409, 413, 415]) expect(statuses, `status ${status}`).toContain(status);
  expect(violations).toEqual([]);
  // Most operations were exercised, not just a few.
  expect(check.covered.size).toBeGreaterThanOrEqual(25);
});

it('the checker finds an undocumented status and a body off its schema', () => {
  const check = openApiChecker(buildOpenApiDocument());
  const exchange = (method: string, path: string, status: number, body: unknown): Exchange => ({
    request: { method, path, query: '', headers: {} },
    response: { status, headers: {}, body: JSON.stringify(body) },
  });
  expect(check(exchange('GET', '/sandbox/health', 409, { message: 'no' }))).toEqual([expect.stringContaining('status not documented')]);
  expect(check(exchange('GET', '/connection/connections', 200, { connections: [{ connectionId: 'c' }] }))).toEqual([expect.stringContaining('must have required property')]);
  expect(check(exchange('GET', '/connection/connections', 401, { message: 'no', errorCode: 'NOT_A_CODE' }))).toHaveLength(1);
  expect(check(exchange('GET', '/nowhere', 404, { message: 'no route', errorCode: 'ROUTE_NOT_FOUND' }))).toEqual([]);
});
