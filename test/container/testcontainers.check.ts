import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The built entry, as a user imports it (the package by its own name).
import { CrmSandboxContainer, type StartedCrmSandboxContainer } from 'crm-sandbox/testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, eventually } from '../helpers/cli.js';
import { Background } from '../helpers/scratch-project.js';
import { SpecReceiver } from '../helpers/spec-receiver.js';
import { IMAGE, podman } from './podman.js';

/**
 * crm-sandbox/testcontainers (docs/testing.md, "In a container: Testcontainers") starting and
 * stopping the image .ci/container built, through podman's Docker-compatible socket (`podman
 * system service`, named by DOCKER_HOST) as Testcontainers would talk to Docker. Ryuk, its
 * reaper, is an image from a registry these machines cannot reach: TESTCONTAINERS_RYUK_DISABLED,
 * and every container is stopped here. Every request stays on loopback (TESTCONTAINERS_HOST_OVERRIDE).
 *
 * Webhooks go to a receiver on the host's loopback: the container runs on slirp4netns with
 * allow_host_loopback, where the host is 10.0.2.2 (named host.docker.internal), as
 * test/container/image.check.ts runs the image.
 */
const TOKEN = `access_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-testcontainers-'));
const socket = join(dir, 'podman.sock');
let service: Background | undefined;
const started: StartedCrmSandboxContainer[] = [];
const receivers: SpecReceiver[] = [];

/** GET /_ping over the socket: podman's service answers OK once it listens. */
const ping = () =>
  new Promise<boolean>((resolve) => {
    const req = request({ socketPath: socket, path: '/_ping' }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });

beforeAll(async () => {
  service = new Background(`exec podman system service --time=0 unix://${socket}`, dir, process.env);
  await eventually(ping, 200, 100);
  // Read by Testcontainers when it first makes its client (in the first start() below). These machines have a
  // /.dockerenv, so Testcontainers would take the bridge's gateway for the host: the published ports are on loopback.
  process.env.DOCKER_HOST = `unix://${socket}`;
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  process.env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1';
}, 60_000);

afterAll(async () => {
  for (const container of started) await container.stop().catch(() => undefined);
  for (const receiver of receivers) await receiver.stop();
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** A receiver on the host's loopback, with the accessToken the scenarios give their connections. */
async function receiver(): Promise<SpecReceiver> {
  const made = new SpecReceiver([], { toleranceSeconds: 300 });
  made.accessToken = TOKEN;
  receivers.push(made);
  return made.start();
}

/** The container as the check runs it: its network reaches the host's loopback as host.docker.internal. */
const sandbox = () =>
  new CrmSandboxContainer(IMAGE)
    .withNetworkMode('slirp4netns:allow_host_loopback=true')
    .withExtraHosts([{ host: 'host.docker.internal', ipAddress: '10.0.2.2' }]);

describe('crm-sandbox/testcontainers through podman', () => {
  it('starts the image with a key, a seed and no state file, waits for health, links a connection and reads it; stop removes it', async () => {
    const crm = await sandbox().withApiKey('tc-key').withSeed(7).withStateFile(null).withEnvironment({ CRM_SANDBOX_INITIAL_SYNC_DELAY: '500ms' }).start();
    started.push(crm);
    expect(crm.getBaseUrl()).toMatch(/^http:\/\/(localhost|127\.0\.0\.1):\d+$/);
    expect(crm.getApiKey()).toBe('tc-key');
    expect((await fetch(`${crm.getBaseUrl()}/sandbox/health`)).status).toBe(200);

    const connection = await crm.linkConnection({ integrationId: 'pipedrive', accessToken: TOKEN, status: 'READY' });
    expect(connection).toMatchObject({ integrationId: 'pipedrive', accessToken: TOKEN, connectionId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const users = await callApi(crm.getBaseUrl(), 'tc-key', 'GET', `/engagement/users?accessToken=${TOKEN}&limit=2`);
    expect(users.status).toBe(200);
    expect(users.body.users).toHaveLength(2);
    // The key it was given, and only that one.
    expect((await callApi(crm.getBaseUrl(), 'sandbox-api-key', 'GET', '/connection/connections')).status).toBe(401);

    // The seed and the state file reached serve: the same seed gives the same data set.
    const inspected = await podman('inspect', crm.getId(), '--format', '{{json .Config.Env}}');
    expect(JSON.parse(inspected.stdout)).toEqual(expect.arrayContaining(['CRM_SANDBOX_SEED=7', 'CRM_SANDBOX_STATE_FILE=', 'CRM_SANDBOX_API_KEY=tc-key']));

    const id = crm.getId();
    await crm.stop();
    started.pop();
    expect((await podman('container', 'exists', id)).code).toBe(1);
  });

  it('plays withScenario before start() resolves: a built-in, and a file, to a receiver on the host', async () => {
    const target = await receiver();
    const url = target.url.replace('127.0.0.1', 'host.docker.internal');
    // The file's connection gets a token of its own (a token belongs to one connection), and a receiver that verifies with it.
    const other = await receiver();
    other.accessToken = TOKEN.replace(/0/g, 'a');
    const otherUrl = other.url.replace('127.0.0.1', 'host.docker.internal');
    const file = join(dir, 'story.yaml');
    writeFileSync(
      file,
      [
        'description: one contact',
        'steps:',
        '  - status: READY',
        '  - create: { type: Contact, fields: { firstName: Ada, lastName: Lovelace } }',
        '  - expect:',
        '      events:',
        '        - { type: STATUS_CHANGE, status: NEW_CONNECTION }',
        '        - { type: STATUS_CHANGE, status: READY }',
        '        - { objectType: Contact, eventType: CREATE, record: { lastName: Lovelace } }',
        '',
      ].join('\n'),
    );
    const crm = await sandbox()
      .withScenario('receiver-check', { webhookUrl: url, accessToken: TOKEN })
      .withScenario(file, { webhookUrl: otherUrl, accessToken: other.accessToken })
      .start();
    started.push(crm);
    // receiver-check's probes, then the file's events, each verified with the token the runs gave their connections.
    expect(target.received.length).toBeGreaterThanOrEqual(7); // the seven probes it sends
    expect(other.processed.some((request) => request.json.data?.record?.lastName === 'Lovelace')).toBe(true);
    // A later run, through the started container: its report, passed or not.
    const third = await receiver();
    third.accessToken = TOKEN.replace(/0/g, 'b');
    const report = await crm.runScenario('connection-lifecycle', {
      webhookUrl: third.url.replace('127.0.0.1', 'host.docker.internal'),
      accessToken: third.accessToken,
    });
    expect(report).toMatchObject({ scenario: 'connection-lifecycle', ok: true, failures: [] });
  });

  it('fails start() with the run’s failures when a scenario given to withScenario does not pass, and leaves no container behind', async () => {
    const before = (await podman('ps', '-aq')).stdout;
    const down = 'http://host.docker.internal:9/webhooks';
    await expect(sandbox().withScenario('receiver-check', { webhookUrl: down }).start()).rejects.toThrow(
      /^withScenario\("receiver-check"\) did not pass: steps\[0\] \(receiverCheck\): no probe was answered: /,
    );
    expect((await podman('ps', '-aq')).stdout).toBe(before);
  });

  it('fails start() at once with the server’s own words when it refuses its settings, not after the timeout', async () => {
    // "exited during": the wait saw the container stop, where a timeout would say "not accessible after 60000ms".
    await expect(sandbox().withEnvironment({ CRM_SANDBOX_READY_DELAY: '10' }).start()).rejects.toThrow(
      /Container exited during HTTP healthCheck, last \d+ logs: crm-sandbox: CRM_SANDBOX_READY_DELAY needs a unit/,
    );
  });
});
