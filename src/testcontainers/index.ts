/**
 * crm-sandbox/testcontainers: the sandbox's image as a Testcontainers module, for a test suite in
 * Node that starts it in a container (docs/testing.md#in-a-container-testcontainers). Its one
 * dependency is `testcontainers` (11 or later, an optional peer of the package); nothing else in
 * the package imports this module. The image is the one built from the repository's Dockerfile.
 *
 * @example
 * import { CrmSandboxContainer } from 'crm-sandbox/testcontainers';
 * const crm = await new CrmSandboxContainer('ghcr.io/your-org/crm-sandbox:0.1.0').withApiKey('test-key').withSeed(7).start();
 * const { accessToken } = await crm.linkConnection({ integrationId: 'hubspot', status: 'READY' });
 * await fetch(`${crm.getBaseUrl()}/crm/contacts?accessToken=${accessToken}`, { headers: { 'service-api-token': crm.getApiKey() } });
 * await crm.stop();
 */
import { existsSync, readFileSync } from 'node:fs';
import { AbstractStartedContainer, type Environment, GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers';
import type { ConnectionStatus } from '../model/connection.js';
import type { IntegrationId } from '../model/integrations.js';

/** The port the image's server listens on (CRM_SANDBOX_PORT in its Dockerfile). */
export const CRM_SANDBOX_PORT = 4010;
/** The API key the server accepts unless told otherwise. */
const DEFAULT_API_KEY = 'sandbox-api-key';
/** Host names the server answers without being told (it refuses others with a 421: docs/security.md). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** What a scenario run at start (withScenario) or later (runScenario) is given: as the control API's POST /sandbox/scenarios/…/run takes it. */
export interface ScenarioRunOptions {
  /** Where its events go: your receiver, as the container reaches it (`http://host.testcontainers.internal:3000/webhooks` for one on the host). */
  webhookUrl?: string;
  /** The accessToken the connection it links gets (`access_` + 40 hex), so your receiver can know it ahead. */
  accessToken?: string;
  integrationId?: IntegrationId;
  /** Play on a connection that exists instead of linking one. */
  connectionId?: string;
  seed?: number;
  /** How long the end of the run waits for deliveries (`60s` unless given). */
  maxWait?: string;
}

/** What linkConnection gives: the exchange's answer (connectionId, accessToken, integrationId, nativeOrgId, …). */
export interface LinkedConnection {
  connectionId: string;
  accessToken: string;
  integrationId: IntegrationId;
  nativeOrgId: string;
  [field: string]: unknown;
}

export interface LinkConnectionOptions {
  /** hubspot unless given. */
  integrationId?: IntegrationId;
  /** The accessToken the exchange gives (`access_` + 40 hex), instead of a random one. */
  accessToken?: string;
  /** Move the connection there at once (`READY`: reads answer without waiting for the first sync). */
  status?: ConnectionStatus;
  /** Its webhook, as the container reaches your receiver. */
  webhookUrl?: string;
}

/** The scenario report (see docs/scenarios.md): `ok`, `failures`, every event and check. */
export interface ScenarioReport {
  scenario: string;
  ok: boolean;
  failures: string[];
  [field: string]: unknown;
}

/**
 * The sandbox's image, started by Testcontainers: waits until `GET /sandbox/health` answers 200,
 * then runs the scenarios given with withScenario. Every `serve` flag is also a `CRM_SANDBOX_*`
 * variable: withEnvironment sets any (`CRM_SANDBOX_READY_DELAY: '1s'`).
 */
export class CrmSandboxContainer extends GenericContainer {
  private apiKey = DEFAULT_API_KEY;
  private readonly scenarios: Array<{ scenario: string; options: ScenarioRunOptions }> = [];

  /** `image`: the image built from the repository's Dockerfile (there is no public one). */
  constructor(image: string) {
    super(image);
    this.withExposedPorts(CRM_SANDBOX_PORT)
      // A server that refuses its settings exits at once: start() then fails with its last lines, not after the timeout.
      .withWaitStrategy(Wait.forHttp('/sandbox/health', CRM_SANDBOX_PORT, { abortOnContainerExit: true }).forStatusCode(200))
      .withStartupTimeout(60_000);
  }

  /** The service-api-token the server accepts (CRM_SANDBOX_API_KEY; several: `k1,k2`, the first is getApiKey's). */
  withApiKey(apiKey: string): this {
    return this.withEnvironment({ CRM_SANDBOX_API_KEY: apiKey });
  }

  /** The seed of every id and generated record (CRM_SANDBOX_SEED). */
  withSeed(seed: number): this {
    if (!Number.isInteger(seed) || seed < 0) throw new TypeError(`withSeed: a seed is an integer of 0 or more, got ${seed}`);
    return this.withEnvironment({ CRM_SANDBOX_SEED: String(seed) });
  }

  /**
   * Where the server keeps its state, inside the container (CRM_SANDBOX_STATE_FILE; the image
   * keeps it in /data/state.json). `null` keeps it in memory only, as a test usually wants.
   */
  withStateFile(path: string | null): this {
    return this.withEnvironment({ CRM_SANDBOX_STATE_FILE: path ?? '' });
  }

  /**
   * A scenario to play once the server is healthy, before start() resolves: a built-in by name
   * (`deal-won`), or a scenario file (YAML or JSON) on this machine, sent as its definition.
   * start() fails with the run's failures when it does not pass.
   */
  withScenario(scenario: string, options: ScenarioRunOptions = {}): this {
    this.scenarios.push({ scenario, options });
    return this;
  }

  /** Sets the container's environment; a CRM_SANDBOX_API_KEY given here is getApiKey's too. */
  override withEnvironment(environment: Environment): this {
    const key = environment.CRM_SANDBOX_API_KEY;
    if (key !== undefined) this.apiKey = key.split(',')[0]!.trim();
    return super.withEnvironment(environment);
  }

  /** The names the container is reached by besides loopback (a remote Docker host, network aliases) are allowed hosts: the server answers them. */
  protected override async beforeContainerCreated(): Promise<void> {
    if (this.environment.CRM_SANDBOX_ALLOWED_HOST !== undefined) return;
    const client = await getContainerRuntimeClient();
    const names = [client.info.containerRuntime.host, ...this.networkAliases].filter((name) => !LOOPBACK.has(name));
    if (names.length > 0) super.withEnvironment({ CRM_SANDBOX_ALLOWED_HOST: [...new Set(names)].join(',') });
  }

  override async start(): Promise<StartedCrmSandboxContainer> {
    const started = new StartedCrmSandboxContainer(await super.start(), this.apiKey);
    try {
      for (const { scenario, options } of this.scenarios) {
        const report = await started.runScenario(scenario, options);
        if (!report.ok) throw new Error(`withScenario(${JSON.stringify(scenario)}) did not pass: ${report.failures.join('; ')}`);
      }
    } catch (error) {
      await started.stop();
      throw error;
    }
    return started;
  }
}

/** A running sandbox container: its URL and API key, and the calls a test makes first. */
export class StartedCrmSandboxContainer extends AbstractStartedContainer {
  constructor(
    startedTestContainer: StartedTestContainer,
    private readonly apiKey: string,
  ) {
    super(startedTestContainer);
  }

  /** `http://<host>:<mapped port>`: where the service's endpoints and the control API answer. */
  getBaseUrl(): string {
    const host = this.getHost();
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.getMappedPort(CRM_SANDBOX_PORT)}`;
  }

  /** The service-api-token to send (the `service-api-token` header). */
  getApiKey(): string {
    return this.apiKey;
  }

  /**
   * Links a connection as a user's browser would (a public token, then POST /link/exchange) and
   * answers the exchange's tokens; `status` moves it at once, `webhookUrl` gives it a webhook.
   */
  async linkConnection(options: LinkConnectionOptions = {}): Promise<LinkedConnection> {
    const { publicToken } = await this.call<{ publicToken: string }>('POST', '/sandbox/public-token', {
      integrationId: options.integrationId ?? 'hubspot',
      ...(options.accessToken === undefined ? {} : { accessToken: options.accessToken }),
    });
    const connection = await this.call<LinkedConnection>('POST', '/link/exchange', { publicToken });
    if (options.webhookUrl !== undefined) {
      await this.call('POST', '/connection/webhook', { accessToken: connection.accessToken, webhook: { webhookUrl: options.webhookUrl } });
    }
    if (options.status !== undefined) await this.call('POST', `/sandbox/connections/${connection.connectionId}/status`, { status: options.status });
    return connection;
  }

  /** Plays a scenario (a built-in by name, or a YAML or JSON file on this machine) and answers its report, passed or not. */
  async runScenario(scenario: string, options: ScenarioRunOptions = {}): Promise<ScenarioReport> {
    const { accessToken, integrationId, ...rest } = options;
    const link = accessToken !== undefined || integrationId !== undefined ? { link: { accessToken, integrationId } } : {};
    const body = { ...rest, ...link };
    if (!isFile(scenario)) return this.call<ScenarioReport>('POST', `/sandbox/scenarios/${encodeURIComponent(scenario)}/run`, body);
    const { parse } = await import('yaml');
    return this.call<ScenarioReport>('POST', '/sandbox/scenarios/run', { ...body, definition: parse(readFileSync(scenario, 'utf8')) });
  }

  /** One JSON call to the sandbox with the API key; an error status throws with the API's error body. */
  private async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.getBaseUrl()}${path}`, {
      method,
      headers: { 'service-api-token': this.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }
}

/** A scenario file on this machine, not a built-in's name. */
function isFile(scenario: string): boolean {
  return /\.(ya?ml|json)$/i.test(scenario) && existsSync(scenario);
}
