import { afterEach, describe, expect, it } from 'vitest';
import { ServerClient } from '../src/cli/server-client.js';
import { fireAndFollow, TRIGGERS } from '../src/cli/trigger.js';
import { type Cli, callApi, eventually, killAll, runCli, serveCli } from './helpers/cli.js';
import { Receiver } from './helpers/receiver.js';
import { freePort } from './helpers/scratch-project.js';

/**
 * `crm-sandbox listen` and `crm-sandbox trigger` against a spawned `serve` and a real receiver, as
 * a developer runs them in three terminals; and `serve`'s own line per delivery attempt.
 */
const KEY = 'sandbox-api-key';
const spawned: Cli[] = [];
const receivers: Receiver[] = [];

afterEach(async () => {
  killAll(spawned);
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

async function receiver(answer: () => number): Promise<Receiver> {
  const started = await new Receiver().start();
  started.behaviour = answer;
  receivers.push(started);
  return started;
}

/** Runs a command to its end. */
async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCli(args, spawned);
  const code = await run.exited;
  return { code, stdout: run.output(), stderr: run.errors() };
}

/** A READY Salesforce connection of the server, linked as an app links it. */
async function link(url: string): Promise<{ connectionId: string; accessToken: string }> {
  const { publicToken } = (await callApi(url, KEY, 'POST', '/sandbox/public-token', { integrationId: 'salesforce' })).body;
  const connection = (await callApi(url, KEY, 'POST', '/link/exchange', { publicToken })).body;
  await callApi(url, KEY, 'POST', `/sandbox/connections/${connection.connectionId}/status`, { status: 'READY' });
  return connection;
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));

describe('listen, trigger and serve, in three terminals', () => {
  it('listen --forward-to points the webhook at the receiver and prints each attempt; trigger fires one event and retries what holds it back; serve prints each attempt too', async () => {
    let answer = 401;
    const hooks = await receiver(() => answer);
    // Retries an hour apart: every attempt below comes from a command, none from the schedule.
    const server = await serveCli(['--initial-sync-delay', '100ms', '--ready-delay', '200ms', '--retry-schedule', '1h,1h,1h'], spawned);
    const args = ['--server', server.url];
    const listen = runCli(['listen', ...args, '--forward-to', hooks.url, '--json'], spawned);
    await eventually(() => listen.errors().includes('; Ctrl+C stops'));

    // A new connection: listen gives it the webhook (it watches for new ones), and its first event is refused.
    const linked = await cli(['trigger', 'connection.new', ...args, '--wait', '3s']);
    expect(linked.stderr).toMatch(/^linked connection [0-9a-f]{32} \(salesforce\), accessToken access_[0-9a-f]{40}\n/);
    expect(linked.stderr).toMatch(/fired STATUS_CHANGE NEW_CONNECTION [0-9a-f]{32} on connection [0-9a-f]{32} \(salesforce\)\n/);
    const connectionId = /linked connection ([0-9a-f]{32})/.exec(linked.stderr)![1]!;
    await eventually(() => listen.errors().includes(`forwarding connection ${connectionId} (salesforce) to ${hooks.url}`));
    await eventually(() => jsonLines(listen.output()).length >= 1);
    expect(jsonLines(listen.output())[0]).toMatchObject({
      connectionId,
      event: { type: 'STATUS_CHANGE', status: 'NEW_CONNECTION' },
      attempt: { attempt: 1, status: 401, trigger: 'schedule', webhookUrl: hooks.url },
      state: 'retrying',
      maxAttempts: 4,
    });

    // A contact: its event waits behind the refused one, which trigger retries now; refused again, it says so (exit 1).
    const refused = await cli(['trigger', 'contact.created', ...args, '--wait', '1s']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/fired OBJECT_CHANGE Contact CREATE [0-9a-f]{32} on connection [0-9a-f]{32} \(salesforce\): record v\.contact\./);
    expect(refused.stderr).toMatch(/\nwaits behind ([0-9a-f]{32}), which failed once \(last answer 401\)\nretried \1 now: 401\n/);
    expect(refused.stderr).toMatch(
      /\nnot accepted within --wait 1000ms: [0-9a-f]{32} is pending behind [0-9a-f]{32} \(fix the receiver, then trigger again, or the inspector's Retry now\)\n$/,
    );

    // The receiver fixed: the next trigger's retry is accepted, and everything held goes out in order.
    answer = 204;
    const accepted = await cli(['trigger', 'deal.updated', ...args, '--json']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toMatch(/delivered to http:\/\/127\.0\.0\.1:\d+\/webhooks: 204 in \d+ms \(attempt 1\)\n$/);
    const fired = JSON.parse(accepted.stdout);
    expect(fired).toMatchObject({
      trigger: 'deal.updated',
      connectionId,
      delivery: { state: 'succeeded', event: { data: { objectType: 'Deal', eventType: 'UPDATE' } } },
    });
    // Written as a real record: the unified read agrees with the event.
    const { accessToken } = (await callApi(server.url, KEY, 'GET', `/sandbox/connections/${connectionId}`)).body.connection;
    const deal = (await callApi(server.url, KEY, 'GET', `/crm/deal?accessToken=${accessToken}&id=${fired.recordId}`)).body.deal;
    expect(deal.name).toMatch(/^Updated by crm-sandbox trigger at /);
    expect(fired.delivery.event.data.record.name).toBe(deal.name);

    const order = ['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY', 'Contact CREATE', 'Deal UPDATE'];
    const words = (event: { data: { status?: string; objectType?: string; eventType?: string } }) =>
      event.data.status ?? `${event.data.objectType} ${event.data.eventType}`;
    expect(
      hooks
        .events()
        .filter((_, index) => hooks.received[index]!.headers['x-service-connection-id'] === connectionId)
        .map(words),
    ).toEqual(['NEW_CONNECTION', 'NEW_CONNECTION', 'NEW_CONNECTION', ...order.slice(1)]);
    // listen printed every attempt, in the order made; serve, a line for each.
    await eventually(() => jsonLines(listen.output()).length >= 7);
    const printed = jsonLines(listen.output());
    expect(printed.map((line) => `${line.event.status ?? `${line.event.objectType} ${line.event.eventType}`} ${line.attempt.status}`)).toEqual([
      'NEW_CONNECTION 401',
      'NEW_CONNECTION 401',
      'NEW_CONNECTION 204',
      'INITIAL_SYNCED 204',
      'READY 204',
      'Contact CREATE 204',
      'Deal UPDATE 204',
    ]);
    expect(printed.map((line) => line.seq)).toEqual([...printed.keys()].map((index) => printed[0].seq + index));
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('webhook '));
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(
      new RegExp(
        `^webhook STATUS_CHANGE NEW_CONNECTION [0-9a-f]{8}… connection ${connectionId.slice(0, 8)}… → ${hooks.url} 401 in \\d+ms \\(attempt 1 of 4; next in (1h|59m\\d+s)\\)$`,
      ),
    );
    expect(lines[2]).toMatch(/ 204 in \d+ms \(attempt 3, by hand\)$/);
    expect(lines[6]).toMatch(
      /^webhook OBJECT_CHANGE Deal UPDATE [0-9a-f]{8}… connection [0-9a-f]{8}… → http:\/\/127\.0\.0\.1:\d+\/webhooks 204 in \d+ms \(attempt 1 of 4\)$/,
    );
  });

  it('trigger fires every object type created, updated and deleted, and the statuses; --list names them all', async () => {
    const hooks = await receiver(() => 204);
    const server = await serveCli(['--quiet', '--email-events'], spawned);
    const { connectionId, accessToken } = await link(server.url);
    await callApi(server.url, KEY, 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: hooks.url } });
    const list = await cli(['trigger', '--list']);
    const names = list.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[0]!);
    expect(names).toHaveLength(33);
    expect(names).toEqual(expect.arrayContaining(['contact.created', 'deal.updated', 'note.deleted', 'event-attendee.updated', 'connection.ready']));
    const types = [...new Set(names.filter((name) => !name.startsWith('connection.')).map((name) => name.split('.')[0]!))];
    expect(types).toHaveLength(10);
    // One after another (an update and a delete act on the type's first record; deleting an event deletes its attendees),
    // through the command's own code in this process: a process each would be 30 starts (test 1 spawns the command).
    const client = new ServerClient(server.url, KEY);
    for (const type of types) {
      for (const change of ['created', 'updated', 'deleted']) {
        const lines: string[] = [];
        const options = { connection: connectionId, integration: 'salesforce', wait: 10_000 };
        const { delivery } = await fireAndFollow(client, TRIGGERS.get(`${type}.${change}`)!.trigger, options, (line) => lines.push(line));
        expect(delivery?.state, `${type}.${change}: ${lines.join('\n')}`).toBe('succeeded');
        expect(lines.at(-1)).toMatch(/^delivered to .* 204 in \d+ms/);
      }
    }
    for (const status of ['initial-synced', 'ready']) {
      const fired = await cli(['trigger', `connection.${status}`, '--server', server.url]);
      expect(fired.code, fired.stderr).toBe(0);
      expect(fired.stderr).toContain(`fired STATUS_CHANGE ${status.toUpperCase().replace('-', '_')} `);
    }
    const events = hooks.events().map((event) => (event.type === 'STATUS_CHANGE' ? event.data.status : `${event.data.objectType} ${event.data.eventType}`));
    for (const type of ['Contact', 'EventAttendee', 'Email'])
      for (const change of ['CREATE', 'UPDATE', 'DELETE']) expect(events).toContain(`${type} ${change}`);
    expect(events.slice(-2)).toEqual(['INITIAL_SYNCED', 'READY']);
  }, 120_000);

  it('says what is wrong in one line, exit 2: an unknown trigger or connection (with the nearest), no server, a key the server refuses, no connection yet', async () => {
    const port = await freePort();
    const unknown = await cli(['trigger', 'contact.create']);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: 'crm-sandbox: unknown trigger contact.create; did you mean contact.created? See crm-sandbox trigger --list\n',
    });
    const nothing = await cli(['trigger', 'contact.created', '--server', `http://127.0.0.1:${port}`]);
    expect(nothing).toMatchObject({
      code: 2,
      stderr: `crm-sandbox: no sandbox answers at http://127.0.0.1:${port} (ECONNREFUSED): start one (crm-sandbox serve), or give its address with --server\n`,
    });
    const server = await serveCli(['--quiet'], spawned);
    const none = await cli(['trigger', 'contact.created', '--server', server.url]);
    expect(none.stderr).toBe(
      `crm-sandbox: API key sandbox-api-key has no connection on ${server.url} yet: link one (crm-sandbox trigger connection.new, or the README's curl session)\n`,
    );
    const wrongKey = await cli(['listen', '--server', server.url, '--api-key', 'nope']);
    expect(wrongKey).toMatchObject({
      code: 2,
      stderr: `crm-sandbox: the server at ${server.url} does not take the API key nope: give one of its keys with --api-key (its first lines name them)\n`,
    });
    const { connectionId } = await link(server.url);
    // The truncated id the inspector and the lines show is enough to be pointed at the whole one.
    const short = await cli(['listen', '--server', server.url, '--connection', connectionId.slice(0, 8)]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain(
      `--connection ${connectionId.slice(0, 8)} is no connection of API key sandbox-api-key on ${server.url}; did you mean ${connectionId}?`,
    );
    const noWhat = await cli(['trigger']);
    expect(noWhat.stderr).toBe('crm-sandbox: trigger needs what to fire: contact.created, deal.updated, connection.ready… (crm-sandbox trigger --list)\n');
  });

  it('listen goes on across a restart of the server, saying it lost it and that it answers again; serve --quiet prints no delivery line', async () => {
    const hooks = await receiver(() => 204);
    const port = await freePort();
    const serveOn = async () => {
      const cli = runCli(['serve', '--port', String(port), '--quiet'], spawned);
      await eventually(() => cli.output().includes('Try: curl'));
      return Object.assign(cli, { url: `http://127.0.0.1:${port}` });
    };
    const first = await serveOn();
    const listen = runCli(['listen', '--server', first.url], spawned);
    await eventually(() => listen.errors().includes('Ctrl+C stops'));
    first.child.kill('SIGTERM');
    await first.exited;
    // Its read in flight is cut (the connection closed or reset), or refused when it asks again.
    await eventually(() => new RegExp(`lost the server at ${first.url} \\([^)]+\\); trying again every second`).test(listen.errors()));
    const second = await serveOn();
    await eventually(() => listen.errors().includes(`the server at ${second.url} answers again`));
    const { accessToken } = await link(second.url);
    await callApi(second.url, KEY, 'POST', '/connection/webhook', { accessToken, webhook: { webhookUrl: hooks.url } });
    await eventually(() => /STATUS_CHANGE NEW_CONNECTION [0-9a-f]{8}… connection [0-9a-f]{8}… → 204 in \d+ms \(attempt 1 of 8\)/.test(listen.output()));
    expect(listen.output()).toMatch(/^\d\d:\d\d:\d\d {2}STATUS_CHANGE NEW_CONNECTION /m);
    expect(second.output()).not.toContain('webhook ');
  });
});
