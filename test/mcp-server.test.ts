import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cli, eventually, killAll, runCli, serveCli } from './helpers/cli.js';
import { errorOf, httpCall, type McpSession, startMcp, type ToolCall } from './helpers/mcp-client.js';
import { Receiver } from './helpers/receiver.js';
import { freePort } from './helpers/scratch-project.js';

/**
 * `crm-sandbox mcp --server URL --api-key K`: the same tools driving a dev server the test
 * started (`crm-sandbox serve`), as one tenant of it. Answers are compared with what the server
 * answers that tenant over HTTP.
 */

const spawned: Cli[] = [];
const sessions: McpSession[] = [];
let url = '';
let app: Receiver;

async function mcp(args: string[], env: Record<string, string> = {}): Promise<McpSession> {
  const session = await startMcp(args, env);
  sessions.push(session);
  return session;
}
const http = (method: string, path: string, body?: unknown, key = 'team-a') => httpCall(url, key, method, path, body);
const ok = (call: ToolCall) => {
  expect(call.isError, call.text).toBe(false);
  return call.json;
};

beforeAll(async () => {
  app = await new Receiver().start();
  ({ url } = await serveCli(
    ['--api-key', 'team-a,team-b', '--admin-key', 'the-admin', '--initial-sync-delay', '100ms', '--ready-delay', '200ms', '--quiet'],
    spawned,
  ));
});
afterAll(async () => {
  for (const session of sessions.splice(0)) await session.close();
  killAll(spawned);
  await app.stop();
});

describe('crm-sandbox mcp --server', () => {
  it("acts as one tenant of a dev server: its answers are the server's", async () => {
    const session = await mcp(['--server', url, '--api-key', 'team-a']);
    await eventually(() => session.stderr().includes(`driving the dev server at ${url} as API key team-a`));
    expect(ok(await session.call('sandbox_info'))).toEqual({ mode: 'server', url, apiKey: 'team-a', clock: 'real' });

    const linked = ok(await session.call('link_connection', { integrationId: 'salesforce', webhookUrl: app.url }));
    const { connectionId } = linked;
    const { connection } = (await http('GET', `/sandbox/connections/${connectionId}`)).json;
    expect(connection).toMatchObject({ connectionId, accessToken: linked.accessToken, integrationId: 'salesforce', webhook: linked.webhook });
    // Another tenant's connection is as unknown to the tools as to that tenant over HTTP.
    expect((await http('GET', '/sandbox/connections', undefined, 'team-b')).json.connections).toEqual([]);

    const { record } = ok(await session.call('create_record', { connectionId, type: 'Deal', fields: { name: 'Acme', amount: 1000 } }));
    expect((await session.call('get_record', { connectionId, type: 'Deal', id: record.id })).text).toBe(
      (await http('GET', `/sandbox/connections/${connectionId}/records/Deal/${record.id}`)).text,
    );

    // The server's real clock: the lifecycle moves by itself, deliveries happen on its time.
    await eventually(async () => ok(await session.call('get_connection', { connectionId })).connection.status === 'READY');
    // READY is the last status move: the connection no longer changes by itself.
    expect((await session.call('list_connections')).text).toBe((await http('GET', '/sandbox/connections')).text);
    await eventually(async () =>
      ok(await session.call('list_deliveries', { connectionId })).deliveries.every((delivery: { state: string }) => delivery.state === 'succeeded'),
    );
    const deliveries = `/sandbox/connections/${connectionId}/deliveries`;
    const listed = await session.call('list_deliveries', { connectionId });
    expect(listed.text).toBe((await http('GET', deliveries)).text);
    const types = listed.json.deliveries.map((delivery: { event: { type: string } }) => delivery.event.type);
    expect(types.sort()).toEqual(['OBJECT_CHANGE', 'STATUS_CHANGE', 'STATUS_CHANGE', 'STATUS_CHANGE']);
    const { eventId } = listed.json.deliveries.find((delivery: { event: { type: string } }) => delivery.event.type === 'OBJECT_CHANGE');
    expect((await session.call('get_delivery', { eventId })).text).toBe((await http('GET', `/sandbox/deliveries/${eventId}`)).text);
    expect(ok(await session.call('redeliver', { eventId })).delivery.attempts).toHaveLength(2);

    // The unified API as the app calls it, over HTTP: a write names the fields it did not write, from the server's header.
    const { id } = ok(await session.call('create_unified_record', { connectionId, type: 'Account', fields: { name: 'Initech', colour: 'red' } }));
    expect(ok(await session.call('update_unified_record', { connectionId, type: 'Account', id, fields: { industry: 'Software', size: 3 } }))).toEqual({
      id,
      ignored: expect.stringContaining('size'),
    });
    expect((await session.call('get_unified_record', { connectionId, type: 'Account', id })).text).toBe(
      (await http('GET', `/crm/account?accessToken=${linked.accessToken}&id=${id}`)).text,
    );
    const search = { accessToken: linked.accessToken, filters: { name: { equals: 'Initech' } } };
    expect((await session.call('list_unified_records', { connectionId, type: 'Account', filters: search.filters })).text).toBe(
      (await http('POST', '/crm/accounts/search', search)).text,
    );

    const run = ok(await session.call('run_scenario', { name: 'crm-activity', connectionId, events: 'failed' }));
    expect(run).toMatchObject({ ok: true, failures: [], events: [], connection: { connectionId } });

    const rules = [{ route: '/engagement', latency: '1ms' }];
    expect(ok(await session.call('set_faults', { rules }))).toEqual((await http('GET', '/sandbox/faults')).json);
    // A snapshot says when it was taken (the server's real clock); the rest is the same state.
    const { time: _taken, ...viaTool } = ok(await session.call('snapshot'));
    const { time: _read, ...viaHttp } = (await http('GET', '/sandbox/snapshot')).json;
    expect(viaTool).toEqual(viaHttp);
    expect((await session.call('list_requests', { path: '/sandbox/connections', limit: 2 })).text).toBe(
      (await http('GET', '/sandbox/requests?path=%2Fsandbox%2Fconnections&limit=2')).text,
    );
  });

  it('answers errors as tool errors with the server status, message and errorCode', async () => {
    const session = await mcp(['--server', url, '--api-key', 'team-b']);
    const { connectionId } = ok(await session.call('link_connection', { integrationId: 'hubspot' }));
    const refused = await session.call('advance_clock', { by: '1h' });
    expect(refused).toMatchObject({ isError: true, json: { errorCode: 'VIRTUAL_CLOCK_REQUIRED' } });
    expect(refused.json.message).toContain('--server');

    const foreign = (await http('GET', '/sandbox/connections')).json.connections[0].connectionId as string;
    const hidden = await session.call('get_connection', { connectionId: foreign });
    expect(hidden).toMatchObject({ isError: true, json: errorOf(await http('GET', `/sandbox/connections/${foreign}`, undefined, 'team-b')) });
    expect(hidden.json).toMatchObject({ status: 404, errorCode: 'OBJECT_NOT_FOUND' });

    const bad = await session.call('set_chaos', { connectionId, chaos: { duplicate: 2 } });
    expect(bad).toMatchObject({ isError: true, json: { status: 400, errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'chaos.duplicate' } } });

    // A full reset needs the server's admin key.
    const noAdmin = await session.call('reset', { all: true });
    expect(noAdmin.json).toEqual(errorOf(await http('POST', '/sandbox/reset?all=true', undefined, 'team-b')));
    expect(noAdmin.json).toMatchObject({ status: 403, errorCode: 'ADMIN_KEY_REQUIRED' });
    const admin = await mcp(['--server', url, '--api-key', 'team-b', '--admin-key', 'the-admin']);
    expect(ok(await admin.call('reset', { all: true }))).toEqual({ reset: 'all' });
    expect((await http('GET', '/sandbox/connections')).json.connections).toEqual([]);
  });

  it('a server out of reach is a tool error, and the MCP server goes on', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    const session = await mcp(['--server', closed, '--api-key', 'team-a']);
    for (let i = 0; i < 2; i++) {
      const call = await session.call('list_connections');
      expect(call.isError).toBe(true);
      expect(call.json).toEqual({
        errorCode: 'SERVER_UNREACHABLE',
        message: `cannot reach the dev server at ${closed}: ECONNREFUSED; is crm-sandbox serve running there?`,
      });
    }
    expect(session.errors).toEqual([]);
  });

  it("refuses an in-process sandbox's option typed with --server (exit 2), but not one from the environment", async () => {
    const typed = runCli(['mcp', '--server', url, '--seed', '7'], spawned);
    expect(await typed.exited).toBe(2);
    expect(typed.errors()).toContain('--seed configures an in-process sandbox: with --server, pass it to the server');
    expect(typed.output()).toBe('');
    // A container's CRM_SANDBOX_* variables configure its serve; mcp --server leaves them alone.
    const session = await mcp(['--server', url, '--api-key', 'team-a'], { CRM_SANDBOX_SEED: '7', CRM_SANDBOX_PORT: '4010', CRM_SANDBOX_CLOCK: 'virtual' });
    expect(ok(await session.call('sandbox_info'))).toMatchObject({ mode: 'server', url });
  });
});

describe('crm-sandbox mcp --port beside a running server', () => {
  it('attaches to the sandbox already answering on the port, as --server does, and says so', async () => {
    const port = Number(new URL(url).port);
    const session = await mcp(['--port', String(port), '--api-key', 'team-a', '--seed', '9']);
    await eventually(() => session.stderr().includes(`a sandbox already answers on ${url}: attaching to it, as --server ${url} does`));
    expect(session.stderr()).toContain('(the tools act as API key team-a; its own options hold, not --seed)');
    expect(ok(await session.call('sandbox_info'))).toEqual({ mode: 'server', url, apiKey: 'team-a', clock: 'real' });
    // What the tools do is the server's state, which the app reads over HTTP.
    const { connectionId } = ok(await session.call('link_connection', { integrationId: 'hubspot' }));
    expect((await http('GET', `/sandbox/connections/${connectionId}`)).status).toBe(200);
    expect(session.errors).toEqual([]);
  });

  it('with another program on the port, still answers initialize, saying why in its instructions, in each tool and in one line on stderr', async () => {
    // Another program: a web server that answers 404 to anything.
    const other = createServer((_req, res) => res.writeHead(404).end('not here'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as AddressInfo;
    try {
      const session = await mcp(['--port', String(port)]);
      const problem = `port ${port} is taken by another program, not a crm-sandbox: stop it, give mcp another --port, or --server URL to drive a running sandbox`;
      expect(session.client.getInstructions()).toMatch(new RegExp(`^${problem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
      const call = await session.call('list_connections');
      expect(call).toMatchObject({ isError: true, json: { errorCode: 'SANDBOX_UNAVAILABLE', message: problem } });
      await eventually(() => session.stderr().includes(`crm-sandbox mcp: ${problem}\n`));
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
