import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioJsonSchema } from '../src/scenarios/schema.js';
import { type Cli, eventually, killAll, runCli } from './helpers/cli.js';
import { errorOf, httpCall, type McpSession, startMcp, type ToolCall } from './helpers/mcp-client.js';
import { Receiver } from './helpers/receiver.js';

/**
 * `crm-sandbox mcp` as an MCP client runs it: the built CLI spawned over stdio, driven with the
 * SDK's own client. Every tool answers what the HTTP API answers for the same state: with
 * `--port` the test calls the very sandbox the tools act on over HTTP, and for a write puts the
 * whole state back (`PUT /sandbox/snapshot?all=true`) and makes the same change over HTTP.
 */

const KEY = 'sandbox-api-key';
const ADMIN = 'mcp-test-admin';

/** The arguments the issue names for each tool (`?`: optional). */
const ARGUMENTS: Record<string, string[]> = {
  link_connection: ['integrationId', 'nativeOrgId?', 'webhookUrl?', 'accessToken?'],
  list_connections: [],
  list_scenarios: [],
  get_connection: ['connectionId'],
  set_status: ['connectionId', 'status'],
  create_record: ['connectionId', 'type', 'fields?'],
  update_record: ['connectionId', 'type', 'id', 'fields'],
  delete_record: ['connectionId', 'type', 'id'],
  list_records: ['connectionId', 'type', 'limit?', 'cursor?'],
  list_unified_records: ['connectionId', 'type', 'filters?', 'limit?', 'cursor?', 'allFields?'],
  get_unified_record: ['connectionId', 'type', 'id?', 'email?', 'allFields?'],
  create_unified_record: ['connectionId', 'type', 'fields'],
  update_unified_record: ['connectionId', 'type', 'id', 'fields'],
  list_engagement_contacts: ['connectionId', 'limit?', 'cursor?', 'allFields?'],
  search_engagement_contacts: ['connectionId', 'filters', 'limit?', 'cursor?'],
  get_engagement_contact: ['connectionId', 'id', 'allFields?'],
  create_engagement_contact: ['connectionId', 'fields'],
  update_engagement_contact: ['connectionId', 'id', 'fields'],
  list_engagement_sequences: ['connectionId', 'limit?', 'cursor?', 'allFields?'],
  start_engagement_sequence: ['connectionId', 'sequenceId', 'contactId', 'mailboxId'],
  list_engagement_mailboxes: ['connectionId', 'limit?', 'cursor?', 'allFields?'],
  passthrough: ['connectionId', 'method', 'path', 'query?', 'body?'],
  set_webhook: ['connectionId', 'webhookUrl'],
  list_deliveries: ['connectionId?', 'state?'],
  get_delivery: ['eventId'],
  redeliver: ['eventId'],
  advance_clock: ['by'],
  run_scenario: ['name?', 'definition?', 'webhookUrl?', 'connectionId?', 'seed?'],
  validate_scenario: ['definition'],
  receiver_check: ['webhookUrl', 'accessToken?'],
  list_requests: ['limit?', 'path?'],
  set_faults: ['rules'],
  set_chaos: ['connectionId', 'chaos'],
  snapshot: [],
  restore: ['snapshot?'],
  reset: ['all?'],
};

const sessions: McpSession[] = [];
const receivers: Receiver[] = [];
async function mcp(args: string[]): Promise<McpSession> {
  const session = await startMcp(args);
  sessions.push(session);
  return session;
}
async function receiver(): Promise<Receiver> {
  const started = await new Receiver().start();
  receivers.push(started);
  return started;
}
afterAll(async () => {
  for (const session of sessions.splice(0)) await session.close();
  for (const started of receivers.splice(0)) await started.stop();
});

const ok = (call: ToolCall) => {
  expect(call.isError, call.text).toBe(false);
  return call.json;
};

describe('crm-sandbox mcp over stdio', () => {
  let session: McpSession;
  beforeAll(async () => {
    session = await mcp(['--retry-schedule', '1s,2s']);
  });

  it('lists every tool with a JSON Schema of its arguments, and its resources', async () => {
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const [name, args] of Object.entries(ARGUMENTS)) {
      const tool = byName.get(name);
      expect(tool, name).toBeDefined();
      expect(tool!.description!.length, name).toBeGreaterThan(40);
      expect(tool!.inputSchema.type).toBe('object');
      const properties = Object.keys(tool!.inputSchema.properties ?? {});
      expect(properties, name).toEqual(expect.arrayContaining(args.map((arg) => arg.replace('?', ''))));
      expect(tool!.inputSchema.required ?? [], name).toEqual(args.filter((arg) => !arg.endsWith('?')));
    }
    expect(byName.get('set_status')!.inputSchema.properties!.status).toMatchObject({ enum: ['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY'] });
    expect(byName.get('list_connections')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('reset')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });

    const { resources } = await session.client.listResources();
    const uris = resources.map((resource) => resource.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'crm-sandbox://openapi.json',
        'crm-sandbox://unified-objects.json',
        'crm-sandbox://scenario.schema.json',
        'crm-sandbox://scenarios/deal-won.yaml',
      ]),
    );
    // One tool per operation on the unified objects, the object an argument; users are read only.
    expect(byName.get('list_unified_records')!.inputSchema.properties!.type).toMatchObject({ enum: expect.arrayContaining(['User', 'Contact', 'Email']) });
    expect((byName.get('create_unified_record')!.inputSchema.properties!.type as { enum: string[] }).enum).not.toContain('User');
    expect(byName.get('list_unified_records')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.length).toBeLessThan(40);
    const objects = JSON.parse(((await session.client.readResource({ uri: 'crm-sandbox://unified-objects.json' })).contents[0] as { text: string }).text);
    const contact = objects.objects.find((object: { type: string }) => object.type === 'Contact');
    expect(contact).toMatchObject({
      list: 'GET /crm/contacts',
      search: 'POST /crm/contacts/search',
      answerKeys: { record: 'contact', page: 'contacts' },
      lookups: ['email'],
    });
    expect(contact.fields).toContainEqual({ key: 'lastName', kind: 'string', create: true, update: true, requiredOnCreate: true });
    expect(contact.filters).toContainEqual({ key: 'email', kind: 'string', operators: ['equals', 'contains', 'startsWith', 'endsWith', 'not', 'in', 'notIn'] });
    const openApi = await session.client.readResource({ uri: 'crm-sandbox://openapi.json' });
    expect(JSON.parse((openApi.contents[0] as { text: string }).text).openapi).toMatch(/^3\.1/);
    const schema = await session.client.readResource({ uri: 'crm-sandbox://scenario.schema.json' });
    expect(JSON.parse((schema.contents[0] as { text: string }).text)).toEqual(scenarioJsonSchema());
    const scenarios = ok(await session.call('list_scenarios')).scenarios as Array<{ name: string }>;
    expect(uris.filter((uri) => uri.startsWith('crm-sandbox://scenarios/')).sort()).toEqual(
      scenarios.map(({ name }) => `crm-sandbox://scenarios/${name}.yaml`).sort(),
    );
    const dealWon = await session.client.readResource({ uri: 'crm-sandbox://scenarios/deal-won.yaml' });
    expect((dealWon.contents[0] as { text: string }).text).toMatch(/^description: /m);
    await expect(session.client.readResource({ uri: 'crm-sandbox://nothing' })).rejects.toThrow(/no resource "crm-sandbox:\/\/nothing"/);
  });

  it('links, creates, runs a scenario against a receiver on 127.0.0.1; the failed delivery is read and redelivered', async () => {
    const app = await receiver();
    let fixed = false;
    app.behaviour = (request) => (!fixed && request.json.data?.objectType === 'Deal' && request.json.data?.eventType === 'CREATE' ? 500 : 204);

    const link = ok(await session.call('link_connection', { integrationId: 'salesforce', webhookUrl: app.url }));
    expect(link).toMatchObject({ integrationId: 'salesforce', accessToken: expect.stringMatching(/^access_[0-9a-f]{40}$/), webhook: { webhookUrl: app.url } });
    const { connectionId } = link;
    expect(ok(await session.call('advance_clock', { by: '10s' }))).toEqual({ now: '2025-01-01T00:00:10.000Z' });
    const { record } = ok(await session.call('create_record', { connectionId, type: 'Contact', fields: { firstName: 'Ada' } }));
    expect(record.firstName).toBe('Ada');
    // Each write answers once the deliveries it started have made their attempt.
    expect(app.events().map((event) => event.data.status ?? `${event.data.objectType} ${event.data.eventType}`)).toEqual([
      'NEW_CONNECTION',
      'INITIAL_SYNCED',
      'READY',
      'Contact CREATE',
    ]);

    const run = await session.call('run_scenario', {
      definition: {
        description: 'a deal, then its stage',
        steps: [{ create: { type: 'Deal', as: 'deal', fields: { name: 'Acme renewal' } } }, { update: { record: 'deal', fields: { stage: 'Closed Won' } } }],
      },
      connectionId,
    });
    expect(run.isError).toBe(false);
    expect(run.structuredContent).toBeUndefined(); // a report is big: it comes once, as text
    expect(run.json.ok).toBe(false);
    expect(run.json.failures.join('\n')).toMatch(/never accepted Deal CREATE.*no 2xx answer after 3 attempts/);

    const { deliveries } = ok(await session.call('list_deliveries', { connectionId, state: 'failed' }));
    expect(deliveries).toHaveLength(1);
    const [failed] = deliveries;
    expect(failed.event.data).toMatchObject({ objectType: 'Deal', eventType: 'CREATE' });
    const { delivery } = ok(await session.call('get_delivery', { eventId: failed.eventId }));
    expect(delivery.failureReason).toBe('no 2xx answer after 3 attempts');
    expect(delivery.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([500, 500, 500]);
    expect(JSON.parse(delivery.body).eventId).toBe(failed.eventId);
    expect(delivery.attempts[0].headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);

    fixed = true;
    const redelivered = ok(await session.call('redeliver', { eventId: failed.eventId })).delivery;
    expect(redelivered.state).toBe('succeeded');
    expect(redelivered.attempts.at(-1)).toMatchObject({ status: 204, trigger: 'redeliver' });
    expect(app.events().filter((event) => event.eventId === failed.eventId)).toHaveLength(4);

    // A built-in by name, on a connection of its own.
    const lifecycle = ok(await session.call('run_scenario', { name: 'connection-lifecycle', webhookUrl: app.url }));
    expect(lifecycle).toMatchObject({ scenario: 'connection-lifecycle', ok: true, failures: [] });
  });

  it('answers bad arguments as tool errors carrying the message and errorCode the API answers', async () => {
    const { connectionId } = ok(await session.call('link_connection', { integrationId: 'hubspot' }));
    const bad = async (name: string, args: Record<string, unknown>) => {
      const call = await session.call(name, args);
      expect(call.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(call.structuredContent).toEqual(call.json);
      return call.json;
    };
    expect(await bad('link_connection', { integrationId: 'sap' })).toMatchObject({
      status: 400,
      errorCode: 'INVALID_FIELD_VALUE',
      metadata: { field: 'integrationId' },
      message: expect.stringMatching(/^integrationId must be one of/),
    });
    expect(await bad('create_record', { type: 'Contact' })).toMatchObject({
      status: 400,
      message: 'connectionId is required',
      metadata: { field: 'connectionId' },
    });
    expect(await bad('get_connection', { connectionId, extra: 1 })).toMatchObject({
      status: 400,
      message: 'extra is not a known field',
      metadata: { field: 'extra' },
    });
    expect(await bad('set_webhook', { connectionId, webhookUrl: 'ftp://x' })).toMatchObject({ status: 400, metadata: { field: 'webhookUrl' } });
    expect(await bad('list_deliveries', { state: 'lost' })).toMatchObject({ status: 400, metadata: { field: 'state' } });
    expect(await bad('advance_clock', { by: '10' })).toMatchObject({
      status: 400,
      errorCode: 'INVALID_FIELD_VALUE',
      message: 'by needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"',
    });
    expect(await bad('run_scenario', {})).toMatchObject({ status: 400, message: 'give name (a built-in) or definition, one of them' });
    expect(await bad('restore', { name: 'never-kept' })).toMatchObject({ status: 400, metadata: { field: 'name' } });
    expect(await bad('get_connection', { connectionId: '../../sandbox/health' })).toMatchObject({ status: 404, errorCode: 'OBJECT_NOT_FOUND' });
    // The server is still there.
    expect(ok(await session.call('get_connection', { connectionId })).connection.connectionId).toBe(connectionId);
    await expect(session.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/unknown tool "no_such_tool"/);
    expect(session.errors).toEqual([]);
  });

  it('keeps stdout for the protocol, logs on stderr, and exits when the client closes stdin', async () => {
    const own = await mcp([]);
    // stderr and stdout are two pipes: the banner may arrive after the answer to initialize.
    await eventually(() => /crm-sandbox mcp: in-process sandbox, seed 1, virtual clock .*API key sandbox-api-key/.test(own.stderr()));
    expect(ok(await own.call('sandbox_info'))).toEqual({ mode: 'in-process', url: null, apiKey: KEY, clock: 'virtual', now: '2025-01-01T00:00:00.000Z' });
    await own.close();
    await eventually(() => own.stderr().includes('stopping: stdin closed')); // by itself, not by the client's SIGTERM
    expect(own.errors).toEqual([]);
  });
});

describe('each tool answers what the HTTP API answers for the same state (--port)', () => {
  let session: McpSession;
  let url = '';
  let app: Receiver;
  const http = (method: string, path: string, body?: unknown, key = KEY) => httpCall(url, key, method, path, body);
  /** The whole state, as the admin reads it. */
  const whole = async () => (await http('GET', '/sandbox/snapshot?all=true', undefined, ADMIN)).json;
  /** No delivery in flight: what a snapshot holds is settled. */
  const quiet = () =>
    eventually(async () => {
      const { connections } = (await http('GET', '/sandbox/connections')).json;
      for (const { connectionId } of connections) {
        if ((await http('GET', `/sandbox/connections/${connectionId}/deliveries?state=delivering`)).json.deliveries.length > 0) return false;
      }
      return true;
    });
  /**
   * A write: the tool's answer, then the state put back and the same change made over HTTP; the
   * two answers must be equal (`normalize` drops what real time makes differ). The state is then
   * the HTTP change's.
   */
  async function sameAsHttp(
    tool: string,
    args: Record<string, unknown>,
    overHttp: () => Promise<{ status: number; text: string }>,
    normalize = (value: unknown) => value,
  ) {
    await quiet();
    const before = await whole();
    const viaTool = ok(await session.call(tool, args));
    expect((await http('PUT', '/sandbox/snapshot?all=true', before, ADMIN)).status).toBe(200);
    const viaHttp = await overHttp();
    expect(viaHttp.status, viaHttp.text).toBeLessThan(300);
    expect(normalize(viaTool)).toEqual(normalize(JSON.parse(viaHttp.text)));
    await quiet();
    return viaTool;
  }
  /** A read: the tool's text is the API's, byte for byte. */
  async function sameText(tool: string, args: Record<string, unknown>, path: string) {
    const call = await session.call(tool, args);
    expect(call.isError, call.text).toBe(false);
    expect(call.text).toBe((await http('GET', path)).text);
    return call.json;
  }
  /** A bad call: the tool error is the API's error answer for the same request. */
  async function sameError(tool: string, args: Record<string, unknown>, method: string, path: string, body?: unknown) {
    const call = await session.call(tool, args);
    expect(call.isError, call.text).toBe(true);
    const answer = await http(method, path, body);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(call.json).toEqual(errorOf(answer));
  }
  /** What real time makes differ between two runs of the same attempts. */
  const withoutRealTime = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value), (key, item) =>
      ['durationMs', 'timestamp', 'signature', 'x-service-timestamp', 'x-service-signature'].includes(key) ? undefined : item,
    );

  beforeAll(async () => {
    app = await receiver();
    session = await mcp(['--port', '0', '--clock', 'virtual', '--quiet', '--admin-key', ADMIN, '--seeded-tokens']);
    url = ok(await session.call('sandbox_info')).url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await eventually(() => session.stderr().includes(`served on ${url} too`));
  });

  it('connections, webhooks and statuses', async () => {
    const linked = await sameAsHttp('link_connection', { integrationId: 'pipedrive', nativeOrgId: 'org-1', webhookUrl: app.url }, async () => {
      const { linkToken } = (await http('POST', '/link/token')).json;
      const { publicToken } = (await http('POST', '/sandbox/public-token', { integrationId: 'pipedrive', linkToken, nativeOrgId: 'org-1' })).json;
      const exchange = await http('POST', '/link/exchange', { publicToken });
      const webhook = await http('POST', '/connection/webhook', { accessToken: exchange.json.accessToken, webhook: { webhookUrl: app.url } });
      return { status: 200, text: JSON.stringify({ ...exchange.json, webhook: webhook.json.webhook }) };
    });
    const { connectionId } = linked;
    await sameText('list_connections', {}, '/sandbox/connections');
    const { connection } = await sameText('get_connection', { connectionId }, `/sandbox/connections/${connectionId}`);
    expect(connection).toMatchObject({ accessToken: linked.accessToken, nativeOrgId: 'org-1', webhook: linked.webhook });
    await sameAsHttp('set_status', { connectionId, status: 'READY' }, () => http('POST', `/sandbox/connections/${connectionId}/status`, { status: 'READY' }));
    const other = `${app.url}/other`;
    await sameAsHttp('set_webhook', { connectionId, webhookUrl: other }, async () => {
      await http('DELETE', '/connection/webhook', { accessToken: linked.accessToken, webhookId: linked.webhook.webhookId });
      return http('POST', '/connection/webhook', { accessToken: linked.accessToken, webhook: { webhookUrl: other } });
    });
    expect(ok(await session.call('set_webhook', { connectionId, webhookUrl: app.url })).webhook.webhookUrl).toBe(app.url);
    await sameText('get_connection', { connectionId }, `/sandbox/connections/${connectionId}`);
    await sameError('get_connection', { connectionId: 'f'.repeat(32) }, 'GET', `/sandbox/connections/${'f'.repeat(32)}`);
    await sameError('set_status', { connectionId: 'f'.repeat(32), status: 'READY' }, 'POST', `/sandbox/connections/${'f'.repeat(32)}/status`, {
      status: 'READY',
    });
  });

  it('records, the passthrough and the request journal', async () => {
    const { connectionId } = ok(await session.call('link_connection', { integrationId: 'hubspot', webhookUrl: app.url }));
    const records = `/sandbox/connections/${connectionId}/records`;
    const { record } = await sameAsHttp('create_record', { connectionId, type: 'Contact', fields: { firstName: 'Ada' } }, () =>
      http('POST', `${records}/Contact`, { firstName: 'Ada' }),
    );
    await sameText('get_record', { connectionId, type: 'Contact', id: record.id }, `${records}/Contact/${record.id}`);
    await sameAsHttp('update_record', { connectionId, type: 'Contact', id: record.id, fields: { jobTitle: 'CTO' } }, () =>
      http('PATCH', `${records}/Contact/${record.id}`, { jobTitle: 'CTO' }),
    );
    const page = await sameText('list_records', { connectionId, type: 'Contact', limit: 2 }, `${records}/Contact?limit=2`);
    await sameText(
      'list_records',
      { connectionId, type: 'Contact', limit: 2, cursor: page.nextPageCursor },
      `${records}/Contact?limit=2&cursor=${encodeURIComponent(page.nextPageCursor)}`,
    );
    await sameAsHttp('delete_record', { connectionId, type: 'Contact', id: record.id }, () => http('DELETE', `${records}/Contact/${record.id}`));
    await sameError('get_record', { connectionId, type: 'Contact', id: record.id }, 'GET', `${records}/Contact/${record.id}`);
    await sameError('create_record', { connectionId, type: 'Deal', fields: { amount: 'lots' } }, 'POST', `${records}/Deal`, { amount: 'lots' });
    await sameError('update_record', { connectionId, type: 'Deal', id: 'nope', fields: {} }, 'PATCH', `${records}/Deal/nope`, {});
    await sameError('list_records', { connectionId, type: 'Deal', limit: 500 }, 'GET', `${records}/Deal?limit=500`);

    const { accessToken } = ok(await session.call('get_connection', { connectionId })).connection;
    const call = { method: 'GET', path: 'crm/v3/objects/contacts', query: { limit: 2 } };
    await sameAsHttp('passthrough', { connectionId, ...call }, () => http('POST', '/crm/passthrough', { accessToken, ...call }));
    await sameError('passthrough', { connectionId, method: 'GET', path: '../x' }, 'POST', '/crm/passthrough', { accessToken, method: 'GET', path: '../x' });

    await sameText('list_requests', { limit: 3, path: '/crm' }, '/sandbox/requests?limit=3&path=%2Fcrm');
    const journal = await sameText('list_requests', {}, '/sandbox/requests');
    expect(journal.requests.map((entry: { path: string }) => entry.path)).toContain('/crm/passthrough');
    await sameError('list_requests', { status: 99 }, 'GET', '/sandbox/requests?status=99');
  });

  it('unified records: lists, searches, gets, creates and updates as the app under test does', async () => {
    const { connectionId, accessToken } = ok(await session.call('link_connection', { integrationId: 'salesforce', webhookUrl: app.url }));
    // While the connection syncs, the unified reads answer 409 as the API does.
    await sameError('list_unified_records', { connectionId, type: 'Deal' }, 'GET', `/crm/deals?accessToken=${accessToken}`);
    ok(await session.call('set_status', { connectionId, status: 'READY' }));
    const page = await sameText('list_unified_records', { connectionId, type: 'Contact', limit: 2 }, `/crm/contacts?accessToken=${accessToken}&limit=2`);
    expect(page.contacts).toHaveLength(2);
    await sameText(
      'list_unified_records',
      { connectionId, type: 'Contact', limit: 2, cursor: page.nextPageCursor, allFields: true },
      `/crm/contacts?accessToken=${accessToken}&limit=2&cursor=${encodeURIComponent(page.nextPageCursor)}&allFields=true`,
    );
    const filters = { stage: { in: ['Proposal', 'Negotiation'] } };
    const searched = await session.call('list_unified_records', { connectionId, type: 'Deal', filters, limit: 3 });
    expect(searched.text).toBe((await http('POST', '/crm/deals/search', { accessToken, filters, limit: 3 })).text);
    await sameError('list_unified_records', { connectionId, type: 'Deal', filters: { stage: { like: 'x' } } }, 'POST', '/crm/deals/search', {
      accessToken,
      filters: { stage: { like: 'x' } },
    });

    const created = await sameAsHttp(
      'create_unified_record',
      { connectionId, type: 'Contact', fields: { lastName: 'Quintillion', email: 'q@example.com' } },
      () => http('POST', '/crm/contact', { accessToken, contact: { lastName: 'Quintillion', email: 'q@example.com' } }),
    );
    const { id } = created;
    expect(created).toEqual({ id: expect.any(String) });
    const { contact } = await sameText('get_unified_record', { connectionId, type: 'Contact', id }, `/crm/contact?accessToken=${accessToken}&id=${id}`);
    expect(contact).toMatchObject({ id, lastName: 'Quintillion', email: 'q@example.com' });
    await sameText(
      'get_unified_record',
      { connectionId, type: 'Contact', email: 'q@example.com' },
      `/crm/contact?accessToken=${accessToken}&email=q%40example.com`,
    );
    await sameAsHttp('update_unified_record', { connectionId, type: 'Contact', id, fields: { jobTitle: 'CTO' } }, () =>
      http('PATCH', '/crm/contact', { accessToken, id, contact: { jobTitle: 'CTO' } }),
    );
    expect(ok(await session.call('get_unified_record', { connectionId, type: 'Contact', id })).contact.jobTitle).toBe('CTO');
    // A field the write does not take is not written: the tool says so, as the API's header does.
    const ignored = ok(await session.call('update_unified_record', { connectionId, type: 'Contact', id, fields: { jobTitle: 'CEO', shoeSize: 44 } }));
    expect(ignored).toEqual({ id, ignored: expect.stringContaining('shoeSize') });
    await sameError('create_unified_record', { connectionId, type: 'Contact', fields: { firstName: 'Nameless' } }, 'POST', '/crm/contact', {
      accessToken,
      contact: { firstName: 'Nameless' },
    });
    await sameError('get_unified_record', { connectionId, type: 'Deal', id: 'nope' }, 'GET', `/crm/deal?accessToken=${accessToken}&id=nope`);
    expect((await session.call('get_unified_record', { connectionId, type: 'Deal', email: 'q@example.com' })).json).toMatchObject({
      status: 400,
      metadata: { field: 'email' },
    });
    expect((await session.call('create_unified_record', { connectionId, type: 'User', fields: {} })).json).toMatchObject({
      status: 400,
      metadata: { field: 'type' },
    });
  });

  it('engagement contacts, sequences and a sequence start, as the unified engagement routes answer them', async () => {
    const { connectionId } = ok(await session.call('link_connection', { integrationId: 'outreach' }));
    ok(await session.call('advance_clock', { by: '10s' }));
    const { accessToken } = ok(await session.call('get_connection', { connectionId })).connection;
    const query = (params: Record<string, string>) => new URLSearchParams({ accessToken, ...params }).toString();
    const contact = { firstName: 'Ada', lastName: 'Lovelace', emails: [{ address: 'ada@engines.example' }] };
    const { id } = await sameAsHttp('create_engagement_contact', { connectionId, fields: contact }, () =>
      http('POST', '/engagement/contact', { accessToken, contact }),
    );
    await sameAsHttp('update_engagement_contact', { connectionId, id, fields: { jobTitle: 'Analyst' } }, () =>
      http('PATCH', '/engagement/contact', { accessToken, id, contact: { jobTitle: 'Analyst' } }),
    );
    const read = await sameText('get_engagement_contact', { connectionId, id }, `/engagement/contact?${query({ id })}`);
    expect(read.contact).toMatchObject({ jobTitle: 'Analyst', emails: [{ address: 'ada@engines.example' }] });
    await sameText('list_engagement_contacts', { connectionId, limit: 2 }, `/engagement/contacts?${query({ limit: '2' })}`);
    const filters = { emails: { address: { equals: 'ada@engines.example' } } };
    const found = ok(await session.call('search_engagement_contacts', { connectionId, filters }));
    expect(found).toEqual((await http('POST', '/engagement/contacts/search', { accessToken, filters })).json);
    expect(found.contacts.map((item: { id: string }) => item.id)).toEqual([id]);
    const { sequences } = await sameText('list_engagement_sequences', { connectionId }, `/engagement/sequences?${query({})}`);
    const { mailboxes } = await sameText('list_engagement_mailboxes', { connectionId, limit: 1 }, `/engagement/mailboxes?${query({ limit: '1' })}`);
    const start = { sequenceId: sequences[0].id, contactId: id, mailboxId: mailboxes[0].id };
    const started = await sameAsHttp('start_engagement_sequence', { connectionId, ...start }, () =>
      http('POST', '/engagement/sequence/start', { accessToken, id: start.sequenceId, fields: { contactId: id, mailboxId: start.mailboxId } }),
    );
    expect(started.id).toMatch(/^[0-9a-f]{32}$/);
    await sameError('start_engagement_sequence', { connectionId, ...start }, 'POST', '/engagement/sequence/start', {
      accessToken,
      id: start.sequenceId,
      fields: { contactId: id, mailboxId: start.mailboxId },
    });
    await sameError('get_engagement_contact', { connectionId, id: 'f'.repeat(32) }, 'GET', `/engagement/contact?${query({ id: 'f'.repeat(32) })}`);
  });

  it('deliveries, redelivery, faults, chaos and the clock', async () => {
    let down = true;
    app.behaviour = (request) => (down && request.json.data?.objectType === 'Account' ? 503 : 204);
    const { connectionId } = ok(await session.call('link_connection', { integrationId: 'zoho', webhookUrl: app.url }));
    ok(await session.call('create_record', { connectionId, type: 'Account', fields: { name: 'Acme' } }));
    const deliveries = `/sandbox/connections/${connectionId}/deliveries`;
    const { deliveries: retrying } = await sameText('list_deliveries', { connectionId, state: 'retrying' }, `${deliveries}?state=retrying`);
    expect(retrying).toHaveLength(1);
    await sameText('list_deliveries', { connectionId }, deliveries);
    const all = ok(await session.call('list_deliveries', {}));
    const { connections } = (await http('GET', '/sandbox/connections')).json;
    const each = await Promise.all(
      connections.map(async ({ connectionId: id }: { connectionId: string }) => (await http('GET', `/sandbox/connections/${id}/deliveries`)).json.deliveries),
    );
    expect(all.deliveries).toEqual(each.flat());
    expect(ok(await session.call('list_deliveries', { limit: 2 })).deliveries).toEqual(each.flat().slice(-2));
    const { eventId } = retrying[0];
    await sameText('get_delivery', { eventId }, `/sandbox/deliveries/${eventId}`);
    await sameError('get_delivery', { eventId: 'f'.repeat(32) }, 'GET', `/sandbox/deliveries/${'f'.repeat(32)}`);
    down = false;
    const { delivery } = await sameAsHttp('redeliver', { eventId }, () => http('POST', `/sandbox/deliveries/${eventId}/redeliver`), withoutRealTime);
    expect(delivery.state).toBe('succeeded');
    await sameError('redeliver', { eventId: 'f'.repeat(32) }, 'POST', `/sandbox/deliveries/${'f'.repeat(32)}/redeliver`);

    const rules = [{ route: '/engagement', errorRate: 0.5, errorStatus: 502 }];
    await sameAsHttp('set_faults', { rules }, () => http('PUT', '/sandbox/faults', { rules }));
    await sameError('set_faults', { rules: [{ errorRate: 2 }] }, 'PUT', '/sandbox/faults', { rules: [{ errorRate: 2 }] });
    await sameAsHttp('set_faults', { rules: [] }, () => http('PUT', '/sandbox/faults', { rules: [] }));
    const chaos = { duplicate: 0.5, delay: '100ms-2s' };
    await sameAsHttp('set_chaos', { connectionId, chaos }, () => http('PUT', `/sandbox/connections/${connectionId}/chaos`, chaos));
    await sameError('set_chaos', { connectionId, chaos: { delay: 'soon' } }, 'PUT', `/sandbox/connections/${connectionId}/chaos`, { delay: 'soon' });
    await sameAsHttp('set_chaos', { connectionId, chaos: {} }, () => http('PUT', `/sandbox/connections/${connectionId}/chaos`, {}));

    const { now } = ok(await session.call('advance_clock', { by: '1h' }));
    expect(ok(await session.call('sandbox_info')).now).toBe(now);
    expect((await http('POST', `/sandbox/connections/${connectionId}/records/Note`, {})).json.record.createdTime).toBe(now);
  });

  it('scenarios and the receiver check', async () => {
    app.behaviour = () => 204;
    await sameText('list_scenarios', {}, '/sandbox/scenarios');
    const definition = {
      description: 'two accounts',
      steps: [{ create: { type: 'Account', as: 'a' } }, { update: { record: 'a', fields: { name: 'Acme 2' } } }],
    };
    const body = { definition, webhookUrl: app.url, seed: 3 };
    const report = await sameAsHttp('run_scenario', body, () => http('POST', '/sandbox/scenarios/run', body), withoutRealTime);
    expect(report).toMatchObject({ ok: true, failures: [] });
    await sameAsHttp(
      'run_scenario',
      { name: 'deal-won', webhookUrl: app.url },
      () => http('POST', '/sandbox/scenarios/deal-won/run', { webhookUrl: app.url }),
      withoutRealTime,
    );
    const trimmed = ok(await session.call('run_scenario', { name: 'connection-lifecycle', webhookUrl: app.url, events: 'none' }));
    expect(trimmed).toMatchObject({ ok: true, events: [] });
    await sameError('run_scenario', { name: 'no-such-scenario' }, 'POST', '/sandbox/scenarios/no-such-scenario/run', {});

    const broken = { steps: [{ create: { type: 'Deal', fields: { amount: 'lots' } } }, { update: { record: 'nobody', fields: {} } }] };
    expect(ok(await session.call('validate_scenario', { definition }))).toEqual({ valid: true, name: 'scenario', description: 'two accounts', steps: 2 });
    await sameError('validate_scenario', { definition: broken }, 'POST', '/sandbox/scenarios/run', { definition: broken });

    const accessToken = `access_${'0a'.repeat(20)}`;
    const check = await sameAsHttp(
      'receiver_check',
      { webhookUrl: app.url, accessToken },
      () => http('POST', '/sandbox/scenarios/receiver-check/run', { webhookUrl: app.url, link: { accessToken } }),
      (value) => {
        // How long the receiver took is its own (the answers-in-time probe's got and check say it): the rest is compared.
        const { probes, checks, ...rest } = withoutRealTime(value) as {
          probes: Array<{ probe: string; ok: boolean }>;
          checks: Array<{ kind: string; ok: boolean }>;
        };
        return { ...rest, probes: probes.map(({ probe, ok }) => `${probe} ${ok}`), checks: checks.map(({ kind, ok }) => `${kind} ${ok}`) };
      },
    );
    expect(check.probes.map((probe: { probe: string; ok: boolean }) => `${probe.probe} ${probe.ok}`)).toContain('valid-signature true');
    expect(check.probes.find((probe: { probe: string }) => probe.probe === 'forged-signature').ok).toBe(false); // it accepts forgeries
    const short = await session.call('receiver_check', { webhookUrl: app.url, accessToken: 'access_short' });
    expect(short.json).toMatchObject({
      status: 400,
      errorCode: 'INVALID_FIELD_VALUE',
      metadata: { field: 'accessToken' },
      message: 'accessToken must be access_ followed by 40 lowercase hex characters',
    });
  });

  it('snapshot, restore and reset', async () => {
    const taken = await sameText('snapshot', {}, '/sandbox/snapshot');
    const { connectionId } = ok(await session.call('link_connection', { integrationId: 'apollo' }));
    await sameAsHttp('restore', { snapshot: taken }, () => http('PUT', '/sandbox/snapshot', taken));
    expect((await http('GET', `/sandbox/connections/${connectionId}`)).status).toBe(404);
    expect(ok(await session.call('snapshot', { name: 'start' }))).toEqual({ saved: 'start', connections: taken.connections.length });
    ok(await session.call('link_connection', { integrationId: 'apollo' }));
    expect(ok(await session.call('restore', { name: 'start' })).restored.connections).toBe(taken.connections.length);
    const bad = { ...taken, version: 99 };
    await sameError('restore', { snapshot: bad }, 'PUT', '/sandbox/snapshot', bad);
    await sameAsHttp('reset', {}, () => http('POST', '/sandbox/reset'));
    expect((await http('GET', '/sandbox/connections')).json.connections).toEqual([]);
    await sameAsHttp('reset', { all: true }, () => http('POST', '/sandbox/reset?all=true', undefined, ADMIN));
    expect(ok(await session.call('sandbox_info')).now).toBe('2025-01-01T00:00:00.000Z');
  });
});

describe('crm-sandbox mcp options', () => {
  it('refuses a bad value naming the flag (exit 2), before any protocol', async () => {
    const spawned: Cli[] = [];
    try {
      const clock = runCli(['mcp', '--clock', 'sometimes'], spawned);
      expect(await clock.exited).toBe(2);
      expect(clock.errors()).toContain('--clock must be one of virtual, real; got "sometimes"');
      expect(clock.output()).toBe('');
      const port = runCli(['mcp', '--port', 'abc'], spawned);
      expect(await port.exited).toBe(2);
      expect(port.errors()).toContain('--port must be an integer from 0 to 65535, got "abc"');
    } finally {
      killAll(spawned);
    }
  });

  it('with --port the clock is real unless --clock virtual; advance_clock says so', async () => {
    const session = await mcp(['--port', '0', '--quiet']);
    const info = ok(await session.call('sandbox_info'));
    expect(info).toMatchObject({ mode: 'in-process', clock: 'real', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    const refused = await session.call('advance_clock', { by: '10s' });
    expect(refused.isError).toBe(true);
    expect(refused.json).toMatchObject({ errorCode: 'VIRTUAL_CLOCK_REQUIRED', message: expect.stringContaining('real') });
    // The app's HTTP and the agent see one state.
    const { connectionId } = ok(await session.call('link_connection', { integrationId: 'outreach' }));
    expect(
      (await httpCall(info.url, KEY, 'GET', '/connection/connections')).json.connections.map((item: { connectionId: string }) => item.connectionId),
    ).toEqual([connectionId]);
  });
});
