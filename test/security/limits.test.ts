import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHandlers, onUnhandled } from '../../src/adapters/msw.js';
import { createSandbox } from '../../src/index.js';
import { type Cli, callApi, killAll, runCli, serveCli } from '../helpers/cli.js';
import { Receiver } from '../helpers/receiver.js';

// Bounded work (issue 19, item 3): caps per tenant, runs that yield, and a depth limit on JSON
// input, through the dev server as `crm-sandbox serve` runs it (real sockets) and the CLI.

const running: Cli[] = [];
const receivers: Receiver[] = [];
const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-limits-'));

afterEach(async () => {
  killAll(running);
  for (const receiver of receivers.splice(0)) await receiver.stop();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const serve = (args: string[] = [], env: Record<string, string> = {}) => serveCli(args, running, env);
const api = callApi;

/** Links a connection for the API token (link token, public token, exchange): the exchange's answer. */
async function link(url: string, key: string, request: Record<string, unknown> = {}) {
  const { linkToken } = (await api(url, key, 'POST', '/link/token')).body;
  const { publicToken } = (await api(url, key, 'POST', '/sandbox/public-token', { linkToken, integrationId: 'hubspot', ...request })).body;
  return api(url, key, 'POST', '/link/exchange', { publicToken });
}

/** JSON text of arrays nested `depth` levels deep. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A raw JSON body to a running server. */
async function sendRaw(url: string, method: string, path: string, body: string) {
  const response = await fetch(url + path, { method, headers: { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' }, body });
  return { status: response.status, body: (await response.json()) as { message: string; errorCode: string; metadata?: Record<string, unknown> } };
}

describe('caps per tenant', () => {
  it('connections per API token: the original 400, with the cap and its flag in metadata; other tenants still link', async () => {
    const { url } = await serve(['--api-key', 'a,b', '--connection-limit', '2']);
    expect((await link(url, 'a')).status).toBe(200);
    expect((await link(url, 'a')).status).toBe(200);
    const third = await link(url, 'a');
    expect(third).toMatchObject({
      status: 400,
      body: {
        errorCode: 'CONNECTION_LIMIT_REACHED',
        message: 'Maximum number of connections reached for development account',
        metadata: { limit: 2, option: 'connectionLimit', flag: '--connection-limit' },
      },
    });
    expect((await link(url, 'b')).status).toBe(200);
    // Set from the environment as well; `none` takes the cap off.
    const fromEnv = await serve([], { CRM_SANDBOX_CONNECTION_LIMIT: '1' });
    expect((await link(fromEnv.url, 'sandbox-api-key')).status).toBe(200);
    expect((await link(fromEnv.url, 'sandbox-api-key')).body.metadata.limit).toBe(1);
    const off = await serve(['--connection-limit', 'none']);
    for (let i = 0; i < 3; i++) expect((await link(off.url, 'sandbox-api-key')).status).toBe(200);
  });

  it('records per connection: the control API, the passthrough and scenarios answer 400 RECORD_LIMIT_REACHED; a batch writes all or none', async () => {
    // What a hubspot connection holds once seeded, counted in this process with the same seed and data set.
    const local = createSandbox({ clock: 'virtual' });
    const seeded = local.parts.registry.dataOf(local.parts.registry.find(local.connect({ integrationId: 'hubspot' }).connectionId)!).recordCount;
    local.close();
    const { url } = await serve(['--record-limit', String(seeded + 2)]);
    const { connectionId, accessToken } = (await link(url, 'sandbox-api-key')).body;
    const records = `/sandbox/connections/${connectionId}/records/Contact`;
    const first = await api(url, 'sandbox-api-key', 'POST', records, { firstName: 'One' });
    expect(first.status).toBe(201);
    expect((await api(url, 'sandbox-api-key', 'POST', records, { firstName: 'Two' })).status).toBe(201);
    const refused = await api(url, 'sandbox-api-key', 'POST', records, { firstName: 'Three' });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        errorCode: 'RECORD_LIMIT_REACHED',
        message: `connection ${connectionId} holds ${seeded + 2} records, and may hold at most ${seeded + 2} (the sandbox's record cap: recordLimit, --record-limit); delete records or raise the cap`,
        metadata: { limit: seeded + 2, held: seeded + 2, option: 'recordLimit', flag: '--record-limit' },
      },
    });
    // Through the passthrough it is the sandbox's error, not one the simulated system would give.
    const native = { accessToken, method: 'POST', path: 'crm/v3/objects/contacts', body: { properties: { firstname: 'Ada' } } };
    expect(await api(url, 'sandbox-api-key', 'POST', '/crm/passthrough', native)).toMatchObject({ status: 400, body: { errorCode: 'RECORD_LIMIT_REACHED' } });
    // One slot free: a batch of two is refused whole, then one native create fits.
    expect((await api(url, 'sandbox-api-key', 'DELETE', `${records}/${first.body.record.id}`)).status).toBe(200);
    const batch = {
      accessToken,
      method: 'POST',
      path: 'crm/v3/objects/contacts/batch/create',
      body: { inputs: [{ properties: { firstname: 'B1' } }, { properties: { firstname: 'B2' } }] },
    };
    expect(await api(url, 'sandbox-api-key', 'POST', '/crm/passthrough', batch)).toMatchObject({
      status: 400,
      body: { errorCode: 'RECORD_LIMIT_REACHED', metadata: { held: seeded + 1 } },
    });
    expect(await api(url, 'sandbox-api-key', 'POST', '/crm/passthrough', native)).toMatchObject({ status: 200, body: { statusCode: 201 } });
    // A scenario's create meets the same cap: the run reports the step.
    const run = await api(url, 'sandbox-api-key', 'POST', '/sandbox/scenarios/run', { connectionId, definition: { steps: [{ create: { type: 'Contact' } }] } });
    expect(run.status).toBe(200);
    expect(run.body.ok).toBe(false);
    expect(run.body.failures[0]).toMatch(/^steps\[0\] \(create\): POST \/sandbox\/connections\/\w+\/records\/Contact answered 400: .*--record-limit/);
  });

  it('pending deliveries per connection: the oldest waiting events are dropped, failed with the reason; the writes succeed', async () => {
    const { url } = await serve(['--pending-delivery-limit', '3', '--initial-sync-delay', '1h', '--ready-delay', '1h']);
    const { connectionId, accessToken } = (await link(url, 'sandbox-api-key')).body;
    const records = `/sandbox/connections/${connectionId}/records/Contact`;
    const [contact] = (await api(url, 'sandbox-api-key', 'GET', `${records}?limit=1`)).body.records;
    for (let i = 0; i < 5; i++) expect((await api(url, 'sandbox-api-key', 'PATCH', `${records}/${contact.id}`, { firstName: `Name ${i}` })).status).toBe(200);
    const { deliveries } = (await api(url, 'sandbox-api-key', 'GET', `/sandbox/connections/${connectionId}/deliveries`)).body;
    // The exchange's NEW_CONNECTION and the five updates: three kept.
    expect(deliveries.map((delivery: { state: string }) => delivery.state)).toEqual(['failed', 'failed', 'failed', 'pending', 'pending', 'pending']);
    expect(deliveries[0].failureReason).toBe(
      "dropped: the connection had more than 3 deliveries waiting (the sandbox's cap: pendingDeliveryLimit, --pending-delivery-limit)",
    );
    // A webhook now gets the three kept, in order.
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    expect((await api(url, 'sandbox-api-key', 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: receiver.url } })).status).toBe(200);
    for (let tries = 0; tries < 200 && receiver.received.length < 3; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(receiver.events().map((event) => event.eventId)).toEqual(deliveries.slice(3).map((delivery: { eventId: string }) => delivery.eventId));
  });

  it('scenario runs through the control API: creates over the cap are a 400 naming the step and the flag; the CLI is not capped', async () => {
    const { url } = await serve(['--scenario-repeat-limit', '5']);
    const run = (body: Record<string, unknown>, path = '/sandbox/scenarios/run') => api(url, 'sandbox-api-key', 'POST', path, body);
    const over = await run({ definition: { steps: [{ create: { type: 'Contact', repeat: 6 } }] } });
    expect(over).toMatchObject({
      status: 400,
      body: {
        errorCode: 'INVALID_FIELD_VALUE',
        message:
          "definition.steps[0].create.repeat: this run would create 6 records by this step, and a scenario run through the control API creates at most 5 (the sandbox's cap: scenarioRepeatLimit, --scenario-repeat-limit); play it with the CLI (crm-sandbox scenario run, which --server can point at this server) or raise the cap",
        metadata: { field: 'definition.steps[0].create.repeat', limit: 5, option: 'scenarioRepeatLimit', flag: '--scenario-repeat-limit' },
      },
    });
    // The creates of every step count.
    const split = await run({
      definition: { steps: [{ create: { type: 'Contact', repeat: 3 } }, { advance: '1s' }, { create: { type: 'Deal', repeat: 3 } }] },
    });
    expect(split.body.metadata.field).toBe('definition.steps[2].create.repeat');
    expect((await run({ webhookUrl: 'http://127.0.0.1:9/hooks' }, '/sandbox/scenarios/bulk-import/run')).body.metadata.field).toBe('steps[1].create.repeat');
    expect((await run({ definition: { connection: { webhook: false }, steps: [{ create: { type: 'Contact', repeat: 5 } }] } })).body.ok).toBe(true);
    // The default cap is 10,000: refused before anything runs.
    const defaults = await serve();
    const bigger = await api(defaults.url, 'sandbox-api-key', 'POST', '/sandbox/scenarios/run', {
      definition: { steps: [{ create: { type: 'Contact', repeat: 10_001 } }] },
    });
    expect(bigger.body.metadata).toMatchObject({ limit: 10_000, flag: '--scenario-repeat-limit' });
    // The CLI plays it in a sandbox of its own: no cap there.
    const file = join(dir, 'big.yaml');
    writeFileSync(file, 'connection: { webhook: false }\nsteps:\n  - create: { type: Contact, repeat: 10001 }\n');
    const cli = runCli(['scenario', 'run', file, '--webhook-url', 'http://127.0.0.1:9/hooks'], running);
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toMatch(/events +10002 emitted/);
  });

  it("scenario runs through the control API: their creates' fields are capped in bytes, as written (a 400) and as references resolve (the run fails there)", async () => {
    const { url } = await serve(['--scenario-field-bytes-limit', '1000']);
    const run = (definition: Record<string, unknown>) => api(url, 'sandbox-api-key', 'POST', '/sandbox/scenarios/run', { definition });
    // {"firstName":"x…"}: 116 bytes, ten times.
    const over = await run({ connection: { webhook: false }, steps: [{ create: { type: 'Contact', repeat: 10, fields: { firstName: 'x'.repeat(100) } } }] });
    expect(over).toMatchObject({
      status: 400,
      body: {
        errorCode: 'INVALID_FIELD_VALUE',
        message:
          "definition.steps[0].create.fields: its records' fields come to more than 1000 bytes (as JSON), the most a scenario run through the control API writes (the sandbox's cap: scenarioFieldBytesLimit, --scenario-field-bytes-limit); play it with the CLI (crm-sandbox scenario run, which --server can point at this server) or raise the cap",
        metadata: { field: 'definition.steps[0].create.fields', limit: 1000, option: 'scenarioFieldBytesLimit', flag: '--scenario-field-bytes-limit' },
      },
    });
    const contacts = async () => (await api(url, 'sandbox-api-key', 'GET', '/sandbox/connections')).body;
    expect((await contacts()).connections).toEqual([]);
    // As written the second step is small; each of its records copies the first one's 400-character name.
    const grown = await run({
      connection: { webhook: false },
      steps: [
        { create: { type: 'Contact', as: 'first', fields: { firstName: 'y'.repeat(400) } } },
        { create: { type: 'Contact', repeat: 3, fields: { firstName: '$first.firstName' } } },
      ],
    });
    expect(grown.status).toBe(200);
    expect(grown.body.ok).toBe(false);
    expect(grown.body.failures).toEqual([
      `steps[1] (create): its records' fields come to more than 1000 bytes (as JSON), ${over.body.message.split('(as JSON), ')[1]}`,
    ]);
    // The first record and the second step's first copy (416 + 416 bytes) were made; the one that went over was not.
    const names: string[] = [];
    for (let cursor: string | undefined, page = 0; page === 0 || cursor; page++) {
      const query = `limit=100${cursor ? `&cursor=${cursor}` : ''}`;
      const listed = await api(url, 'sandbox-api-key', 'GET', `/sandbox/connections/${grown.body.connection.connectionId}/records/Contact?${query}`);
      names.push(...listed.body.records.map((record: { firstName?: string }) => record.firstName));
      cursor = listed.body.nextPageCursor ?? undefined;
    }
    expect(names.filter((name) => name === 'y'.repeat(400))).toHaveLength(2);
    // Within the cap it runs.
    expect(
      (await run({ connection: { webhook: false }, steps: [{ create: { type: 'Contact', repeat: 5, fields: { firstName: 'z'.repeat(100) } } }] })).body.ok,
    ).toBe(true);
  });

  it('refuses a bad cap with exit 2, naming the flag or its variable', async () => {
    const flag = runCli(['serve', '--port', '0', '--record-limit', '0'], running);
    expect(await flag.exited).toBe(2);
    expect(flag.errors()).toBe('crm-sandbox: --record-limit must be an integer of 1 or more, or none, got "0"\n');
    const variable = runCli(['serve', '--port', '0'], running, { CRM_SANDBOX_PENDING_DELIVERY_LIMIT: 'lots' });
    expect(await variable.exited).toBe(2);
    expect(variable.errors()).toBe('crm-sandbox: CRM_SANDBOX_PENDING_DELIVERY_LIMIT must be an integer of 1 or more, or none, got "lots"\n');
  });
});

describe('a long scenario run', () => {
  it("lets other requests through while it runs: health and another tenant's reads are answered between its creates", async () => {
    const { url } = await serve(['--api-key', 'a,b']);
    const other = (await link(url, 'b')).body;
    const accessToken = `access_${'5'.repeat(40)}`;
    let finished = false;
    const run = api(url, 'a', 'POST', '/sandbox/scenarios/run', {
      link: { accessToken },
      definition: { connection: { webhook: false }, steps: [{ create: { type: 'Contact', repeat: 10_000, fields: { lastName: 'Run' } } }] },
    }).finally(() => (finished = true));
    // How many of the run's contacts exist, by a native search on its connection (a 401 until the run has linked it).
    const created = async () => {
      const search = {
        accessToken,
        method: 'POST',
        path: 'crm/v3/objects/contacts/search',
        body: { filterGroups: [{ filters: [{ propertyName: 'lastname', operator: 'EQ', value: 'Run' }] }], limit: 1 },
      };
      const answer = await api(url, 'a', 'POST', '/crm/passthrough', search);
      return answer.status === 200 ? (answer.body.body.total as number) : 0;
    };
    const seen = new Set<number>();
    let answeredDuring = 0;
    while (!finished) {
      const health = await api(url, 'b', 'GET', '/sandbox/health');
      const read = await api(url, 'b', 'GET', `/sandbox/connections/${other.connectionId}/records/Contact?limit=5`);
      const count = await created();
      if (finished) break;
      expect([health.status, read.status]).toEqual([200, 200]);
      answeredDuring++;
      seen.add(count);
    }
    const report = await run;
    expect(report.status).toBe(200);
    expect(report.body.ok).toBe(true);
    expect(await created()).toBe(10_000);
    // Answered before the run was, at points between its creates: not queued behind all of them.
    expect(answeredDuring).toBeGreaterThan(0);
    expect([...seen].filter((count) => count > 0 && count < 10_000).length).toBeGreaterThanOrEqual(3);
  });
});

describe('JSON nested too deep', () => {
  const refusal = (limit: number) => ({
    status: 400,
    body: {
      errorCode: 'INVALID_JSON',
      message: `request body is nested more than ${limit} levels deep (objects and arrays inside each other)`,
      metadata: { limit },
    },
  });

  it('is a 400 INVALID_JSON naming the depth on every route, never a 500, and the server goes on', async () => {
    const { url } = await serve();
    const { accessToken, connectionId } = (await link(url, 'sandbox-api-key')).body;
    const deep = nested(20_000);
    expect(
      await sendRaw(
        url,
        'POST',
        '/crm/passthrough',
        `{"accessToken":"${accessToken}","method":"POST","path":"crm/v3/objects/contacts","body":{"properties":${deep}}}`,
      ),
    ).toEqual(refusal(128));
    expect(await sendRaw(url, 'POST', '/sandbox/scenarios/run', `{"definition":{"steps":[{"create":{"type":"Contact","fields":{"x":${deep}}}}]}}`)).toEqual(
      refusal(128),
    );
    expect(await sendRaw(url, 'POST', `/sandbox/connections/${connectionId}/records/Contact`, `{"firstName":${deep}}`)).toEqual(refusal(128));
    expect(await sendRaw(url, 'PUT', '/sandbox/snapshot', `{"format":"crm-sandbox-state","x":${deep}}`)).toEqual(refusal(256));
    // At the limit: read, and answered by the route (here the system's own refusal of the value), not a 500.
    const atLimit = await sendRaw(
      url,
      'POST',
      '/crm/passthrough',
      `{"accessToken":"${accessToken}","method":"POST","path":"crm/v3/objects/contacts","body":{"properties":{"firstname":${nested(125)}}}}`,
    );
    expect(atLimit.status).toBe(200);
    expect((await api(url, 'sandbox-api-key', 'GET', '/sandbox/health')).body).toEqual({ status: 'ok' });
  });

  it('is the same 400 through the MSW handlers', async () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    const server = setupServer(...createHandlers(sandbox, { baseUrl: 'https://api.service.test' }));
    server.listen(onUnhandled('error'));
    try {
      const response = await fetch('https://api.service.test/crm/passthrough', {
        method: 'POST',
        headers: { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' },
        body: `{"body":${nested(20_000)}}`,
      });
      expect({ status: response.status, body: await response.json() }).toEqual(refusal(128));
    } finally {
      server.close();
      sandbox.close();
    }
  });

  it('stops serve on a state file nested too deep, and refuses such scenario files (YAML and JSON), exit 2 naming the depth', async () => {
    const state = join(dir, 'deep-state.json');
    writeFileSync(state, `{"format":"crm-sandbox-state","x":${nested(20_000)}}`);
    const refused = runCli(['serve', '--port', '0', '--state-file', state], running);
    expect(await refused.exited).toBe(2);
    expect(refused.errors()).toBe(
      `crm-sandbox: --state-file ${state}: its JSON is nested more than 256 levels deep (objects and arrays inside each other); the file was left as it is\n`,
    );
    const files = {
      'deep.json': `{"steps":[{"create":{"type":"Contact","fields":{"x":${nested(20_000)}}}}]}`,
      'deep.yaml': `steps:\n  - create: { type: Contact, fields: { x: ${nested(20_000)} } }\n`,
    };
    for (const [name, text] of Object.entries(files)) {
      const file = join(dir, name);
      writeFileSync(file, text);
      for (const command of [
        ['validate', file],
        ['run', file, '--webhook-url', 'http://127.0.0.1:9/hooks'],
      ]) {
        const cli = runCli(['scenario', ...command], running);
        expect(await cli.exited, `${name} ${command[0]}`).toBe(2);
        expect(cli.errors()).toBe(`crm-sandbox: scenario ${file}: the definition is nested more than 128 levels deep (objects and arrays inside each other)\n`);
      }
    }
  });
});
