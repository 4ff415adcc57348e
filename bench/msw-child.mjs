// In-process MSW: a page GET through createHandlers + setupServer against a bare MSW handler
// answering the same body and headers; alternating rounds in one process. Prints ms per request.
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { createHandlers } from '../dist/adapters/msw.js';
import { createSandbox } from '../dist/index.js';

const BASE = 'https://api.service.test';
const sandbox = createSandbox({ clock: 'virtual', dataset: { engagement: { users: 250 } } });
const { connectionId, accessToken } = sandbox.connect();
sandbox.setStatus(connectionId, 'READY');
const url = `${BASE}/engagement/users?accessToken=${accessToken}&limit=100`;
const headers = { 'service-api-token': 'sandbox-api-key' };

const sandboxServer = setupServer(...createHandlers(sandbox, { baseUrl: BASE }));
sandboxServer.listen({ onUnhandledRequest: 'error' });
const first = await fetch(url, { headers });
const body = await first.text();
const responseHeaders = Object.fromEntries(first.headers);
sandboxServer.close();
const bareServer = setupServer(http.get(`${BASE}/engagement/users`, () => new Response(body, { status: 200, headers: responseHeaders })));

async function perRequest(server, count) {
  server.listen({ onUnhandledRequest: 'error' });
  const started = performance.now();
  for (let i = 0; i < count; i++) await (await fetch(url, { headers })).text();
  const ms = (performance.now() - started) / count;
  server.close();
  return ms;
}

const rounds = { sandbox: [], bare: [] };
await perRequest(bareServer, 300);
await perRequest(sandboxServer, 300);
for (let i = 0; i < 3; i++) {
  rounds.bare.push(await perRequest(bareServer, 1500));
  rounds.sandbox.push(await perRequest(sandboxServer, 1500));
}
const median = (v) => [...v].sort((a, b) => a - b)[1];
console.log(JSON.stringify({ sandboxMs: median(rounds.sandbox), bareMs: median(rounds.bare), bytes: body.length }));
sandbox.close();
