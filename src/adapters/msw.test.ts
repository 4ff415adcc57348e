import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../index.js';
import { createHandlers, DEFAULT_BASE_URL, onUnhandled } from './msw.js';

const servers: Array<ReturnType<typeof setupServer>> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

function listen(handlers: ReturnType<typeof createHandlers>) {
  const server = setupServer(...handlers);
  server.listen(onUnhandled('error'));
  servers.push(server);
}

describe('createHandlers', () => {
  it('is one handler for everything under the base URL: the core does the routing', () => {
    const sandbox = createSandbox();
    const handlers = createHandlers(sandbox);
    expect(handlers.map((handler) => handler.info.path)).toEqual([`${DEFAULT_BASE_URL}/*`]);
    sandbox.close();
  });

  it('serves under a base URL with a path, and only there', async () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    listen(createHandlers(sandbox, { baseUrl: 'https://gateway.test/crm/v1/' }));
    const token = await fetch('https://gateway.test/crm/v1/link/token', { method: 'POST', headers: { 'service-api-token': 'sandbox-api-key' } });
    expect(token.status).toBe(200);
    expect(await token.json()).toEqual({ linkToken: expect.stringMatching(/^link_/) });
    const unknown = await fetch('https://gateway.test/crm/v1/nope', { headers: { 'service-api-token': 'sandbox-api-key' } });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).errorCode).toBe('ROUTE_NOT_FOUND');
    // Outside the base path nothing answers: MSW reports the request as unhandled (on stderr,
    // captured here so a passing run prints nothing) and the request fails.
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await expect(fetch('https://gateway.test/link/token', { method: 'POST' })).rejects.toThrow();
      expect(printed.mock.calls.map((args) => args.join(' ')).join('\n')).toMatch(
        /\[MSW\] Error: intercepted a request without a matching request handler:[\s\S]*POST https:\/\/gateway\.test\/link\/token/,
      );
    } finally {
      printed.mockRestore();
    }
  });
});
