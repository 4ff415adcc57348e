import { SANDBOX_OPTION_NAMES, type SandboxOptions } from '../core/options.js';
import type { Sandbox } from '../core/sandbox.js';
import { type ConnectionStatus, connectionStatusSchema, type ExchangeResult } from '../model/connection.js';
import type { IntegrationId } from '../model/integrations.js';
import { createSandbox } from '../node/sandbox.js';
import type { RunScenarioOptions } from '../scenarios/index.js';
import type { ScenarioReport } from '../scenarios/report.js';
import type { ScenarioDefinition } from '../scenarios/schema.js';
import { type Duration, parseDuration } from '../shared/duration.js';
import { SandboxConfigError } from '../shared/errors.js';
import { checkOptionNames } from '../shared/option-names.js';
import { parseOrThrow } from '../shared/validation.js';
import { arrivedList, describeMatch, type EventMatch, matches } from './event-match.js';
import { type CapturedEvent, EventReceiver, listenReceiver } from './receiver.js';
import { UnifiedClient } from './unified.js';

/** createTestSandbox()'s options are a start-up mistake, as createSandbox()'s are. */
const configError = (_field: string, message: string) => new SandboxConfigError(message);

/** Where the MSW handlers answer when no `baseUrl` is given (the dev server's default address). */
export const DEFAULT_TEST_BASE_URL = 'http://127.0.0.1:4010';
/** The webhook URL of the test receiver under MSW: never on the network, MSW answers it. */
export const MSW_RECEIVER_URL = 'http://receiver.crm-sandbox.test/webhooks';

/**
 * The part of MSW's `setupServer()` a test uses for handlers of its own, said here so the types
 * need no `msw` when the transport is `'server'`.
 *
 * @example crm.server?.use(http.get('https://api.example.test/x', () => HttpResponse.json({})))
 */
export interface MswServer {
  use(...handlers: unknown[]): void;
  resetHandlers(...handlers: unknown[]): void;
}

export interface TestSandboxOptions extends SandboxOptions {
  /**
   * `'msw'` (default): MSW's `setupServer` answers `baseUrl` in this process (needs `msw`).
   * `'server'`: a real dev server on 127.0.0.1 and a free port; `baseUrl` is its address.
   */
  transport?: 'msw' | 'server';
  /** The base URL your code calls, under MSW. Default {@link DEFAULT_TEST_BASE_URL}. */
  baseUrl?: string;
}

export interface LinkConnectionOptions {
  integrationId?: IntegrationId;
  /** Status to bring the connection to (forced, as `POST /sandbox/connections/{id}/status` does). Default `NEW_CONNECTION`. */
  status?: ConnectionStatus;
  /** Create its webhook to the test receiver. Default true. */
  webhook?: boolean;
  /** API token owning it. Default the first of `apiKeys`. */
  apiKey?: string;
}

export interface WaitOptions {
  /** Virtual clock: move time forward by up to this much while waiting (say `'1h'` to wait through retries). Default: no move. */
  advance?: Duration;
  /** Real clock: how long to wait, in real ms. Default 5000. */
  timeoutMs?: number;
}

/**
 * A sandbox made for a test suite: a virtual clock, MSW handlers (or a dev server on a free
 * port), a webhook receiver that keeps every delivery whose signature checks out, and helpers
 * to link connections and wait for events. Runner-neutral: call `start()` before the tests,
 * `reset()` between them and `close()` after (or use `crm-sandbox/testing/vitest`).
 *
 * @example
 * const crm = createTestSandbox();
 * await crm.start();
 * const { connectionId } = await crm.linkConnection({ integrationId: 'salesforce', status: 'READY' });
 * await crm.waitForEvent({ type: 'STATUS_CHANGE', status: 'READY', connectionId });
 * await crm.close();
 */
export class TestSandbox {
  readonly sandbox: Sandbox;
  readonly receiver: EventReceiver;
  private readonly transport: 'msw' | 'server';
  private url: string;
  private receiverUrl = MSW_RECEIVER_URL;
  private stopTransport: (() => Promise<void>) | undefined;
  private mswServer: MswServer | undefined;

  constructor(given?: TestSandboxOptions) {
    const options = checkOptionNames(given, [...SANDBOX_OPTION_NAMES, 'transport', 'baseUrl'], 'createTestSandbox()', configError);
    const { transport = 'msw', baseUrl = DEFAULT_TEST_BASE_URL, ...sandboxOptions } = options;
    if (transport !== 'msw' && transport !== 'server') throw new SandboxConfigError(`transport must be 'msw' or 'server', got ${JSON.stringify(transport)}`);
    if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]/.test(baseUrl))
      throw new SandboxConfigError(`baseUrl must be an absolute http or https URL, got ${JSON.stringify(baseUrl)}`);
    this.transport = transport;
    this.url = baseUrl.replace(/\/+$/, '');
    this.sandbox = createSandbox({ clock: 'virtual', ...sandboxOptions });
    this.receiver = new EventReceiver((connectionId) => this.sandbox.parts.registry.find(connectionId)?.accessToken);
  }

  /** The base URL your code should call. */
  get baseUrl(): string {
    return this.url;
  }

  /** The API token the helpers use: the first of `apiKeys`. */
  get apiKey(): string {
    return this.sandbox.options.apiKeys[0]!;
  }

  /** Headers for a JSON call to the service: `service-api-token` and `content-type`. */
  get headers(): Record<string, string> {
    return { 'service-api-token': this.apiKey, 'content-type': 'application/json' };
  }

  /** The webhook URL of the test receiver (give it to your own webhook set-up code). */
  get webhookUrl(): string {
    return this.receiverUrl;
  }

  /** The events received so far, in arrival order, signatures checked. */
  get events(): readonly CapturedEvent[] {
    return this.receiver.events;
  }

  /** MSW's server (transport `'msw'`; undefined with `'server'`), for your own `crm.server?.use(...)` handlers. */
  get server(): MswServer | undefined {
    return this.mswServer;
  }

  /** Starts MSW (or the dev server) and the receiver. */
  async start(): Promise<this> {
    if (this.stopTransport) return this;
    if (this.transport === 'server') {
      const { startDevServer } = await import('../node/dev-server.js');
      const server = await startDevServer(this.sandbox, { port: 0, host: '127.0.0.1' });
      const receiver = await listenReceiver(this.receiver);
      this.url = server.url;
      this.receiverUrl = receiver.url;
      this.stopTransport = async () => {
        await receiver.close();
        await server.close();
      };
      return this;
    }
    const [{ setupServer }, { http }, { createHandlers, onUnhandled }] = await Promise.all([import('msw/node'), import('msw'), import('../adapters/msw.js')]);
    const receive = http.post(MSW_RECEIVER_URL, async ({ request }) => {
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return new Response(null, { status: this.receiver.accept(headers, await request.text()) });
    });
    const server = setupServer(...createHandlers(this.sandbox, { baseUrl: this.url }), receive);
    server.listen(onUnhandled('bypass'));
    this.mswServer = server;
    this.stopTransport = async () => {
      server.close();
      this.sandbox.close();
    };
    return this;
  }

  /**
   * A connection in one call: link and exchange, its webhook to the test receiver, brought to
   * `status`, and what that emitted delivered. Resolves with the exchange result.
   *
   * @example const { connectionId, accessToken } = await crm.linkConnection({ integrationId: 'hubspot', status: 'READY' });
   */
  async linkConnection(given?: LinkConnectionOptions): Promise<ExchangeResult> {
    const options = checkOptionNames(given, ['integrationId', 'status', 'webhook', 'apiKey'], 'linkConnection()');
    if (options.status !== undefined) parseOrThrow(connectionStatusSchema(), options.status, 'status');
    const apiKey = options.apiKey ?? this.apiKey;
    const result = this.sandbox.connect({ apiKey, ...(options.integrationId ? { integrationId: options.integrationId } : {}) });
    if (options.webhook !== false) {
      const response = await this.sandbox.handle({
        method: 'POST',
        path: '/connection/webhook',
        query: '',
        headers: { 'service-api-token': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ accessToken: result.accessToken, webhook: { webhookUrl: this.receiverUrl } }),
      });
      if (response.status !== 200) throw new Error(`linkConnection: creating the webhook failed: ${response.status} ${response.body}`);
    }
    if (options.status !== undefined && options.status !== 'NEW_CONNECTION') this.sandbox.setStatus(result.connectionId, options.status);
    await this.sandbox.settle();
    return result;
  }

  /**
   * The first received event that matches, waiting for it: on a virtual clock it runs what is
   * due (and moves time by up to `advance`); on a real clock it waits up to `timeoutMs`. Fails
   * with the list of what did arrive.
   */
  async waitForEvent(match: EventMatch, given?: WaitOptions): Promise<CapturedEvent> {
    const options = checkOptionNames(given, ['advance', 'timeoutMs'], 'waitForEvent()');
    if (options.advance !== undefined) parseDuration(options.advance, 'advance');
    const find = () => this.receiver.events.find((captured) => matches(captured, match));
    await this.sandbox.settle();
    let found = find();
    if (!found && this.sandbox.options.clock === 'virtual' && options.advance !== undefined) {
      // Step through the window a due task at a time, so the wait ends as soon as the event arrives.
      const end = this.sandbox.now().getTime() + parseDuration(options.advance, 'advance');
      while (!found && this.sandbox.now().getTime() < end) {
        const step = Math.min(end - this.sandbox.now().getTime(), Math.max(1000, Math.ceil(parseDuration(options.advance, 'advance') / 100)));
        await this.sandbox.advance(`${step}ms`);
        found = find();
      }
    } else if (!found && this.sandbox.options.clock === 'real') {
      const deadline = performance.now() + (options.timeoutMs ?? 5000);
      while (!found && performance.now() < deadline) {
        await this.receiver.nextArrival(Math.max(1, deadline - performance.now()));
        found = find();
      }
    }
    if (!found) throw new Error(`waitForEvent: no event matched ${describeMatch(match)}; ${arrivedList(this.receiver.events)}`);
    return found;
  }

  /**
   * Asserts that events matching `expected` arrived, in this order (others may come between).
   * Runs what is due first. Fails with what was missing and the list of what did arrive.
   *
   * @example await crm.expectEvents([{ status: 'NEW_CONNECTION' }, { objectType: 'Contact', eventType: 'CREATE' }]);
   */
  async expectEvents(expected: readonly EventMatch[], given?: { connectionId?: string }): Promise<CapturedEvent[]> {
    const options = checkOptionNames(given, ['connectionId'], 'expectEvents()');
    await this.sandbox.settle();
    const events = this.receiver.events.filter((captured) => options.connectionId === undefined || captured.connectionId === options.connectionId);
    const found: CapturedEvent[] = [];
    let from = 0;
    for (const [index, match] of expected.entries()) {
      const at = events.findIndex((captured, i) => i >= from && matches(captured, match));
      if (at === -1) {
        throw new Error(
          `expectEvents: expected event ${index + 1} of ${expected.length}, ${describeMatch(match)}, ` +
            `${found.length ? `after ${found.length} matched, ` : ''}but it did not arrive; ${arrivedList(events)}` +
            (this.receiver.rejected.length
              ? `\n${this.receiver.rejected.length} deliveries were rejected: ${this.receiver.rejected.map((r) => r.reason).join('; ')}`
              : ''),
        );
      }
      found.push(events[at]!);
      from = at + 1;
    }
    return found;
  }

  /**
   * The connection's unified CRM records (`GET /crm/contacts`, `POST /crm/contact`, …), through the
   * sandbox's own routes: each call answers what the route answers, and a non-2xx is thrown as an
   * ApiError with its status and body (see {@link UnifiedClient}).
   *
   * @example
   * const { connectionId } = await crm.linkConnection({ integrationId: 'salesforce', status: 'READY' });
   * const { id } = await crm.unified(connectionId).create('Deal', { name: 'Renewal', closeDate: '2025-03-01' });
   * const { deals, nextPageCursor } = await crm.unified(connectionId).search('Deal', { name: { equals: 'Renewal' } });
   */
  unified(connectionId: string): UnifiedClient {
    return new UnifiedClient(this.sandbox, connectionId);
  }

  /**
   * Plays a scenario (a built-in's name, a file, or a definition) with its events going to the
   * test receiver, and resolves with the report (see docs/scenarios.md).
   *
   * @example
   * const report = await crm.runScenario('deal-won');
   * expect(report.failures).toEqual([]);
   * await crm.expectEvents([{ objectType: 'Deal', eventType: 'UPDATE', where: ({ event }) => JSON.stringify(event).includes('"isWon":true') }]);
   */
  runScenario(scenario: string | ScenarioDefinition, options: RunScenarioOptions = {}): Promise<ScenarioReport> {
    return this.sandbox.runScenario(scenario, { webhookUrl: this.receiverUrl, ...options });
  }

  /**
   * Back to a fresh sandbox between tests: state (ids as in a fresh one, the clock at its
   * start), received events, the request journal, faults (the options' standing ones stay and
   * draw again from their start; those set since, the server's and each API token's, are
   * cleared), and MSW handlers added with `use`.
   */
  reset(): void {
    this.sandbox.reset();
    this.sandbox.setFaults([]);
    for (const apiKey of this.sandbox.options.apiKeys) this.sandbox.setFaults([], { apiKey });
    this.receiver.clear();
    this.mswServer?.resetHandlers();
  }

  /** Stops MSW (or the dev server), the receiver and the sandbox. */
  async close(): Promise<void> {
    const stop = this.stopTransport;
    this.stopTransport = undefined;
    if (stop) await stop();
    else this.sandbox.close();
  }
}

/**
 * A {@link TestSandbox} (not started yet: call `start()`).
 *
 * @example const crm = await createTestSandbox({ seed: 7 }).start();
 */
export function createTestSandbox(options: TestSandboxOptions = {}): TestSandbox {
  return new TestSandbox(options);
}
