import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { callApi, eventually } from '../helpers/cli.js';
import { fencedBlocks } from '../helpers/markdown.js';
import { Background, explain, freePort } from '../helpers/scratch-project.js';
import { inspect, NODE_BASE, PYTHON_BASE, podman, podmanOk, run } from './podman.js';

/**
 * examples/compose/compose.yaml, brought up as docs/container.md ("Run it in a container") says
 * (`docker compose -f examples/compose/compose.yaml up --build`), and checked from the host and
 * from inside: the Python app links an account, verifies and de-duplicates its events, passes
 * receiver-check, and started only once the sandbox was healthy.
 *
 * What differs here, and why:
 * - Compose is Debian's docker-compose (v1: `docker-compose`, the same file format) talking to
 *   podman's Docker-compatible API (`podman system service`), with `-d` and a project name.
 *   Debian's podman-compose 1.0.3 ignores `depends_on` conditions, so it could not check the gate.
 * - podman schedules a HEALTHCHECK with systemd timers, and these machines have no systemd: the
 *   test runs `podman healthcheck run` every second for the project's containers still
 *   starting, as the timer would.
 * - No image registry is reachable: the images the Dockerfile and the compose file name
 *   (node:…-bookworm-slim, python:3.12-slim) are the stand-ins .ci/container made, tagged with
 *   those names for the run and untagged after.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMPOSE_FILE = join(ROOT, 'examples/compose/compose.yaml');
const PROJECT = `crm-sandbox-compose-${process.pid}`;
const KEY = 'sandbox-api-key';

/** The image names the Dockerfile (its NODE_IMAGE default) and the compose file (the app's) pull. */
const nodeImage = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))![1]!;
const compose = parseYaml(readFileSync(COMPOSE_FILE, 'utf8')) as {
  services: Record<string, { image: string; environment: Record<string, string>; depends_on?: Record<string, { condition: string }> }>;
};
const pythonImage = compose.services.app!.image;
/** The compose commands of docs/container.md (its block marked as run here), each as the arguments after `docker compose`. */
const [readmeUp, readmeDown] = fencedBlocks('docs/container.md', readFileSync(join(ROOT, 'docs/container.md'), 'utf8'))
  .find((block) => block.marker?.kind === 'tested-by' && block.marker.argument === 'test/container/compose.check.ts')!
  .body.split('\n')
  .map((line) => line.replace(/#.*$/, '').trim())
  .filter(Boolean)
  .map((line) => {
    if (!line.startsWith('docker compose ')) throw new Error(`docs/container.md: not a docker compose command: ${line}`);
    return line.slice('docker compose '.length).split(/\s+/);
  }) as [string[], string[]];
/** What podman (like Docker) makes of a short name: docker.io/library/NAME. */
const qualified = (image: string) => `docker.io/library/${image}`;

describe('examples/compose: the sandbox and a Python app, with docker compose', () => {
  const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-compose-'));
  const env = { ...process.env, DOCKER_HOST: `unix://${dir}/podman.sock`, SANDBOX_PORT: '', APP_PORT: '' };
  let service: Background | undefined;
  let ticker: NodeJS.Timeout | undefined;
  let sandboxUrl = '';
  let appUrl = '';
  /** docker-compose v1 for `docker compose`, from the repository's root as docs/container.md says, under a project name of the test's. */
  const readmeCompose = (args: string[]) => run('docker-compose', ['-p', PROJECT, ...args], env, ROOT);
  const dockerCompose = (...args: string[]) => readmeCompose(['-f', COMPOSE_FILE, ...args]);
  const containerOf = async (name: string) => (await dockerCompose('ps', '-q', name)).stdout.trim();
  const appStatus = async () => (await fetch(`${appUrl}/status`)).json();

  beforeAll(async () => {
    await podmanOk('tag', NODE_BASE, qualified(nodeImage));
    await podmanOk('tag', PYTHON_BASE, qualified(pythonImage));
    service = new Background(`exec podman system service --time=0 ${env.DOCKER_HOST}`, dir, process.env);
    await eventually(async () => (await run('docker', ['version'], env)).code === 0);
    ticker = setInterval(() => void runHealthchecks(), 1000);
    env.SANDBOX_PORT = String(await freePort());
    env.APP_PORT = String(await freePort());
    // The page's `up --build`, detached (-d) so that the test goes on while it runs.
    expect(readmeUp).toEqual(['-f', 'examples/compose/compose.yaml', 'up', '--build']);
    const up = await readmeCompose([...readmeUp, '-d']);
    if (up.code !== 0) throw new Error(explain(up, `docker-compose ${readmeUp.join(' ')} -d`));
    sandboxUrl = `http://127.0.0.1:${env.SANDBOX_PORT}`;
    appUrl = `http://127.0.0.1:${env.APP_PORT}`;
  }, 600_000);

  afterAll(async () => {
    clearInterval(ticker);
    const down = await readmeCompose(readmeDown);
    await service?.stop();
    await podman('untag', NODE_BASE, qualified(nodeImage));
    await podman('untag', PYTHON_BASE, qualified(pythonImage));
    rmSync(dir, { recursive: true, force: true });
    expect(readmeDown).toEqual(['-f', 'examples/compose/compose.yaml', 'down', '-v']);
    expect(down.code, explain(down, `docker-compose ${readmeDown.join(' ')}`)).toBe(0);
  }, 120_000);

  /** The project's containers whose health is still `starting`: one run of each one's HEALTHCHECK. */
  async function runHealthchecks(): Promise<void> {
    const starting = await podman('ps', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--filter', 'health=starting', '--format', '{{.Names}}');
    for (const name of starting.stdout.split('\n').filter(Boolean)) await podman('healthcheck', 'run', name);
  }

  it('the file gates the app on the sandbox being healthy, and tells the sandbox its compose name', () => {
    expect(compose.services.app!.depends_on).toEqual({ 'crm-sandbox': { condition: 'service_healthy' } });
    expect(compose.services.app!.environment.SANDBOX_URL).toBe('http://crm-sandbox:4010');
    expect(compose.services['crm-sandbox']!.environment.CRM_SANDBOX_ALLOWED_HOST).toBe('crm-sandbox');
  });

  it('started the app only once the sandbox had passed its HEALTHCHECK', async () => {
    const sandbox = await inspect('container', await containerOf('crm-sandbox'));
    const app = await inspect('container', await containerOf('app'));
    expect(sandbox.State.Health.Status).toBe('healthy');
    const firstPass = (sandbox.State.Health.Log as Array<{ End: string; ExitCode: number }>).find((check) => check.ExitCode === 0)!;
    expect(Date.parse(app.State.StartedAt)).toBeGreaterThanOrEqual(Date.parse(firstPass.End));
    expect((await fetch(`${sandboxUrl}/sandbox/health`)).status).toBe(200);
  });

  it('the Python app linked an account through http://crm-sandbox:4010, verified its events and read a page of users', async () => {
    await eventually(async () => (await appStatus()).users.length > 0, 200, 100);
    const status = await appStatus();
    expect(status.connectionId).toMatch(/^[0-9a-f]{32}$/);
    expect(status.users).toHaveLength(5);
    await eventually(async () => (await appStatus()).events.length >= 3, 200, 100);
    const { events, rejected } = await appStatus();
    expect(events.map((event: { data: { status: string } }) => event.data.status)).toEqual(['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY']);
    expect(rejected).toBe(0);
    const { body } = await callApi(sandboxUrl, KEY, 'GET', `/sandbox/connections/${status.connectionId}/webhook`);
    expect(body.webhook.webhookUrl).toBe('http://app:8000/webhooks');
  });

  it('the app processes each event once when deliveries are duplicated (chaos: duplicate 1)', async () => {
    const { connectionId } = await appStatus();
    const chaos = await callApi(sandboxUrl, KEY, 'PUT', `/sandbox/connections/${connectionId}/chaos`, { duplicate: 1 });
    expect(chaos.status).toBe(200);
    for (const firstName of ['Ada', 'Grace', 'Edsger']) {
      expect((await callApi(sandboxUrl, KEY, 'POST', `/sandbox/connections/${connectionId}/records/Contact`, { firstName })).status).toBe(201);
    }
    const creates = async () =>
      ((await appStatus()).events as Array<{ type: string; data: { objectType?: string; eventType?: string } }>).filter(
        (event) => event.data.eventType === 'CREATE',
      );
    await eventually(async () => (await creates()).length === 3 && (await appStatus()).duplicates >= 3, 200, 100);
    const { events, duplicates, rejected } = await appStatus();
    expect(new Set(events.map((event: { eventId: string }) => event.eventId)).size).toBe(events.length);
    expect(duplicates).toBeGreaterThanOrEqual(3);
    expect(rejected).toBe(0);
    const { body } = await callApi(sandboxUrl, KEY, 'GET', `/sandbox/connections/${connectionId}/deliveries`);
    const chaosAttempts = body.deliveries
      .flatMap((delivery: { attempts: Array<{ trigger: string }> }) => delivery.attempts)
      .filter((attempt: { trigger: string }) => attempt.trigger === 'chaos');
    expect(chaosAttempts.length).toBeGreaterThanOrEqual(3);
    expect((await callApi(sandboxUrl, KEY, 'PUT', `/sandbox/connections/${connectionId}/chaos`, {})).status).toBe(200);
  });

  it('passes receiver-check, run with the CLI in the sandbox container against the app on the compose network', async () => {
    const { connectionId } = await appStatus();
    const check = await dockerCompose(
      'exec',
      '-T',
      'crm-sandbox',
      'crm-sandbox',
      'scenario',
      'run',
      'receiver-check',
      '--server',
      'http://127.0.0.1:4010',
      '--connection-id',
      connectionId,
    );
    expect(check.code, explain(check, 'receiver-check')).toBe(0);
    expect(check.stdout).toMatch(/^PASS receiver-check/m);
    expect(check.stdout).toMatch(/webhook\s+http:\/\/app:8000\/webhooks/);
  });
});
