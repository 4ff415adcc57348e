import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { callApi, eventually } from '../helpers/cli.js';
import { fencedBlocks } from '../helpers/markdown.js';
import { freePort } from '../helpers/scratch-project.js';
import { SpecReceiver } from '../helpers/spec-receiver.js';
import { IMAGE, inspect, NODE_BASE, podman, podmanOk } from './podman.js';

/**
 * The image built from the repository's Dockerfile (by .ci/container, on a base made here), run
 * with podman and checked from the host as docs/container.md ("Run it in a container") says to run it:
 * published on a loopback port, a named volume on /data, `serve`'s flags as environment variables.
 *
 * The webhook receivers run on the host, on 127.0.0.1: the container reaches the host's loopback
 * through slirp4netns (`allow_host_loopback`, the host is 10.0.2.2 there), named
 * host.docker.internal as Docker users name it (`--add-host host.docker.internal:host-gateway`).
 */
const KEY = 'sandbox-api-key';
const RUN_ID = `${process.pid}`;
const VOLUME = `crm-sandbox-check-${RUN_ID}`;
const NAMES: string[] = [];

/** Starts the image detached, as docs/container.md runs it; resolves with the host URL once it answers /sandbox/health. */
async function startContainer(name: string, port: number): Promise<string> {
  NAMES.push(name);
  await podmanOk(
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'slirp4netns:allow_host_loopback=true',
    '--add-host',
    'host.docker.internal:10.0.2.2',
    '-p',
    `127.0.0.1:${port}:4010`,
    '-v',
    `${VOLUME}:/data`,
    '-e',
    'CRM_SANDBOX_INITIAL_SYNC_DELAY=500ms',
    '-e',
    'CRM_SANDBOX_READY_DELAY=1s',
    IMAGE,
  );
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`${url}/sandbox/health`).catch(() => undefined))?.status === 200);
  return url;
}

const signatureOf = (accessToken: string, body: string, timestamp: string) =>
  createHash('sha256')
    .update(accessToken + body + timestamp)
    .digest('hex');

describe('the image', () => {
  it('adds at most 40 MB to its base, and declares its port, its /data volume, a HEALTHCHECK (kept by --format docker) and a non-root user', async () => {
    const image = await inspect('image', IMAGE);
    const base = await inspect('image', NODE_BASE);
    const addedMB = (image.Size - base.Size) / 1e6;
    expect(addedMB, `the image adds ${addedMB.toFixed(1)} MB`).toBeLessThanOrEqual(40);
    expect(addedMB).toBeGreaterThan(5); // the package and its dependencies are in there
    expect(Object.keys(image.Config.ExposedPorts)).toEqual(['4010/tcp']);
    expect(Object.keys(image.Config.Volumes)).toEqual(['/data']);
    expect(image.Config.User).toBe('node');
    // podman shows the HEALTHCHECK beside Config (an OCI image config has no place for it).
    expect(image.Healthcheck.Test.slice(0, 2)).toEqual(['CMD', 'node']);
    expect(image.Healthcheck.Test.join(' ')).toContain('/sandbox/health');
    expect(image.Config.Entrypoint).toEqual(['node', '/app/bin/crm-sandbox.js']);
    expect(image.Config.Cmd).toEqual(['serve']);
  });

  it('holds the package as npm packs it, and its production dependencies only', async () => {
    const listed = await podmanOk('run', '--rm', '--no-healthcheck', '--entrypoint', 'sh', IMAGE, '-c', 'ls /app; echo ---; ls /app/node_modules');
    const [app, modules] = listed.split('---').map((part) => part.trim().split('\n'));
    expect(app).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'fixtures', 'node_modules', 'package.json', 'scenarios']);
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const topLevel = (name: string) => name.split('/')[0]!;
    for (const name of Object.keys(manifest.dependencies)) expect(modules, name).toContain(topLevel(name));
    for (const name of Object.keys(manifest.devDependencies)) {
      if (name in manifest.dependencies || topLevel(name) === '@types') continue;
      expect(modules, `${name} is a dev dependency`).not.toContain(name);
    }
  });

  it("carries Node's compile cache of serve's modules, made for the user the server runs as, which a container's Node accepts", async () => {
    const ran = await podman('run', '--rm', '--no-healthcheck', '-e', 'NODE_DEBUG_NATIVE=COMPILE_CACHE', IMAGE, '--version');
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('cache for file:///app/dist/cli-bundle/main.js was accepted');
    expect(ran.stderr).not.toMatch(/Cannot create cache directory|was rejected/);
  });

  it("runs the command given after the image name instead of serve, which serve's variables in the image do not trip", async () => {
    const ran = await podman('run', '--rm', '--no-healthcheck', IMAGE, 'scenario', 'list');
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^receiver-check\s/m);
  });

  it('refuses a bad value in a variable with exit status 2, naming the variable', async () => {
    const ran = await podman('run', '--rm', '--no-healthcheck', '-e', 'CRM_SANDBOX_PORT=abc', IMAGE);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('CRM_SANDBOX_PORT must be an integer from 0 to 65535, got "abc"');
  });
});

describe("docs/deploy.md's Kubernetes manifest, against the image", () => {
  const text = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
  const manifest = fencedBlocks('docs/deploy.md', text).find((block) => block.body.includes('kind: StatefulSet'))!;
  const [service, statefulSet] = parseAllDocuments(manifest.body).map((document) => document.toJS()) as any[];

  it("probes the health route on the image's port with a Host the server answers, mounts the volume on /data, runs as the image's user, one replica", async () => {
    const image = await inspect('image', IMAGE);
    const pod = statefulSet.spec.template.spec;
    const [container] = pod.containers;
    expect(statefulSet.spec.replicas).toBe(1);
    expect(container.ports).toEqual([{ name: 'http', containerPort: Number.parseInt(Object.keys(image.Config.ExposedPorts)[0]!, 10) }]);
    expect(service.spec.ports[0].targetPort).toBe('http');
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      expect(container[probe].httpGet, probe).toEqual({ path: '/sandbox/health', port: 'http', httpHeaders: [{ name: 'Host', value: 'localhost' }] });
    }
    expect(container.volumeMounts).toEqual([{ name: 'data', mountPath: Object.keys(image.Config.Volumes)[0] }]);
    expect(statefulSet.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
    const uid = await podmanOk('run', '--rm', '--no-healthcheck', '--entrypoint', 'id', IMAGE, '-u');
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: Number(uid), fsGroup: Number(uid) });
    const allowed = container.env.find((variable: { name: string }) => variable.name === 'CRM_SANDBOX_ALLOWED_HOST').value.split(',');
    expect(allowed).toContain(service.metadata.name);
  });
});

describe('a container of the image, driven from the host', () => {
  const receiver = new SpecReceiver();
  const scenarioReceiver = new SpecReceiver();
  let url = '';
  let name = '';
  let connection = { connectionId: '', accessToken: '' };
  const json = (path: string, method = 'GET', body?: unknown) => callApi(url, KEY, method, path, body);

  beforeAll(async () => {
    await receiver.start();
    await scenarioReceiver.start();
    await podmanOk('volume', 'create', VOLUME);
    name = `crm-sandbox-check-${RUN_ID}-a`;
    url = await startContainer(name, await freePort());
  }, 120_000);

  afterAll(async () => {
    for (const container of NAMES) await podman('rm', '-f', '-t', '0', container);
    await podman('volume', 'rm', '-f', VOLUME);
    await receiver.stop();
    await scenarioReceiver.stop();
  });

  it('answers /sandbox/health on the published port, and its HEALTHCHECK passes', async () => {
    expect(await fetch(`${url}/sandbox/health`).then((response) => response.json())).toEqual({ status: 'ok' });
    const health = await podman('healthcheck', 'run', name);
    expect(health.code, health.stdout + health.stderr).toBe(0);
    expect((await inspect('container', name)).State.Health.Status).toBe('healthy');
  });

  it('runs the server as PID 1, as the node user (uid 1000), not root', async () => {
    const pid = (await inspect('container', name)).State.Pid as number;
    // The server process as the host sees it: rootful podman maps no user, so this is the real uid.
    const uids = /^Uid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!.split(/\s+/);
    expect(uids).toEqual(['1000', '1000', '1000', '1000']);
    const commandLine = await podmanOk('exec', name, 'cat', '/proc/1/cmdline');
    expect(commandLine.split('\0').filter(Boolean)).toEqual(['node', '/app/bin/crm-sandbox.js', 'serve']);
  });

  it('links an account: link token, public token, exchange', async () => {
    const link = await json('/link/token', 'POST');
    expect(link.status).toBe(200);
    expect(link.body.linkToken).toMatch(/^link_/);
    const publicToken = await json('/sandbox/public-token', 'POST', { integrationId: 'salesforce', linkToken: link.body.linkToken });
    expect(publicToken.status).toBe(200);
    const exchanged = await json('/link/exchange', 'POST', { publicToken: publicToken.body.publicToken });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({
      integrationId: 'salesforce',
      connectionId: expect.stringMatching(/^[0-9a-f]{32}$/),
      accessToken: expect.stringMatching(/^access_/),
    });
    connection = exchanged.body;
  });

  it('delivers signed webhooks to a receiver on the host, each signature as the spec computes it', async () => {
    receiver.accessToken = connection.accessToken;
    const webhookUrl = `http://host.docker.internal:${receiver.port}/webhooks`;
    const created = await json('/connection/webhook', 'POST', { accessToken: connection.accessToken, webhook: { webhookUrl } });
    expect(created.status).toBe(200);
    await eventually(() => receiver.processed.some((event) => event.json.data.status === 'READY'));
    expect(receiver.processed.map((event) => event.json.data.status)).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);
    for (const { headers, body } of receiver.received) {
      expect(headers['x-service-connection-id']).toBe(connection.connectionId);
      expect(headers['x-service-signature']).toBe(signatureOf(connection.accessToken, body, headers['x-service-timestamp'] as string));
    }
    // The receiver has the last event before the sandbox has read its answer: wait for the log to record it.
    const states = async () =>
      (await json(`/sandbox/connections/${connection.connectionId}/deliveries`)).body.deliveries.map((delivery: { state: string }) => delivery.state);
    await eventually(async () => (await states()).every((state: string) => state !== 'delivering'));
    expect(await states()).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('serves a page of users, and the next one from its cursor', async () => {
    const first = await json(`/engagement/users?accessToken=${connection.accessToken}&limit=5`);
    expect(first.status).toBe(200);
    expect(first.body.users).toHaveLength(5);
    const second = await json(`/engagement/users?accessToken=${connection.accessToken}&limit=5&cursor=${first.body.nextPageCursor}`);
    expect(second.status).toBe(200);
    const ids = [...first.body.users, ...second.body.users].map((user: { id: string }) => user.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("runs the CLI inside the container (podman exec) beside serve's variables: scenario list, a scenario run to the host's receiver, openapi", async () => {
    const list = await podman('exec', name, 'crm-sandbox', 'scenario', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^deal-won\s/m);
    const accessToken = `access_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
    scenarioReceiver.accessToken = accessToken;
    const ran = await podman(
      'exec',
      name,
      'crm-sandbox',
      'scenario',
      'run',
      'deal-won',
      '--webhook-url',
      `http://host.docker.internal:${scenarioReceiver.port}/webhooks`,
      '--access-token',
      accessToken,
      '--json',
    );
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout);
    expect(report.failures).toEqual([]);
    expect(report.events.length).toBeGreaterThan(5);
    expect(scenarioReceiver.processed.map((event) => event.json.eventId)).toEqual(report.events.map((event: { eventId: string }) => event.eventId));
    const openapi = await podman('exec', name, 'crm-sandbox', 'openapi', '--compact');
    expect(openapi.code, openapi.stderr).toBe(0);
    expect(JSON.parse(openapi.stdout).openapi).toMatch(/^3\.1/);
  });

  it('stops cleanly on SIGTERM, saving its state file; a new container on the same volume carries on from it', async () => {
    // A change just before the stop: the state file is saved at most every 250 ms, and once more at shutdown.
    const created = await json(`/sandbox/connections/${connection.connectionId}/records/Contact`, 'POST', { firstName: 'Kept', lastName: 'Across' });
    expect(created.status).toBe(201);
    // podman stop sends SIGTERM and, after --time seconds, SIGKILL: exit status 0 (not 137) means the server stopped itself in time.
    await podmanOk('stop', '--time', '5', name);
    const stopped = await inspect('container', name);
    expect(stopped.State.ExitCode).toBe(0);
    const logs = await podman('logs', name);
    expect(logs.stdout).toContain('SIGTERM: stopping');
    expect(logs.stdout).toContain('state file /data/state.json (new), saved on change');

    const next = `crm-sandbox-check-${RUN_ID}-b`;
    url = await startContainer(next, await freePort());
    // Health answers while the state file loads (decision 0050); the banner, with the state file's line, follows the load.
    await eventually(async () => (await podman('logs', next)).stdout.includes('crm-sandbox listening on'));
    expect((await podman('logs', next)).stdout).toContain('state file /data/state.json (loaded), saved on change');
    const kept = await json(`/sandbox/connections/${connection.connectionId}/records/Contact/${created.body.record.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body.record).toMatchObject({ firstName: 'Kept', lastName: 'Across' });
    const users = await json(`/engagement/users?accessToken=${connection.accessToken}&limit=1`);
    expect(users.status).toBe(200);
    expect(await podmanOk('exec', next, 'stat', '-c', '%U', '/data/state.json')).toBe('node');
  });
});
