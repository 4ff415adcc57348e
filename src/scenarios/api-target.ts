import { realNow } from '../clock/clock.js';
import type { ConnectionStatus } from '../model/connection.js';
import type { CrmObjectType, CrmRecord } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';
import type { SandboxRequest } from '../model/request.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import { runInTurns } from '../shared/pieces.js';
import type { ChaosSettings } from '../webhooks/chaos.js';
import type { Delivery } from '../webhooks/delivery.js';
import { type PassthroughAnswer, type PassthroughCall, type RunConnection, type ScenarioSandbox, type ScenarioTarget, sleep } from './target.js';

/** One call of the service's API or the control API: status and parsed body. */
// biome-ignore lint/suspicious/noExplicitAny: an answer's body is JSON the steps read by path, checked where used
type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** How sandbox time passes for a target. */
interface Time {
  /** Time passes in real time (waits are waited), rather than jumping. */
  real: boolean;
  now(): number;
  pass(ms: number): Promise<void>;
  settle(): Promise<void>;
  passUntil(done: () => Promise<boolean>, maxMs: number): Promise<boolean>;
}

/**
 * A scenario target that acts only through the HTTP API (the service's endpoints and the
 * control API), so a scenario does exactly what a user's requests would: in process through
 * `sandbox.handle()`, or against a running dev server with `fetch`.
 */
class ApiTarget implements ScenarioTarget {
  get realTime(): boolean {
    return this.time.real;
  }

  constructor(
    readonly kind: 'in-process' | 'server',
    private readonly call: Call,
    private readonly time: Time,
    /** Reads the delivery log without serialising it (in process, where a 10,000-event log is read several times). */
    private readonly log?: {
      list(connectionId: string): Delivery[];
      listInTurns(connectionId: string): Promise<Delivery[]>;
      eventJson(eventId: string): string | undefined;
      unfinished(connectionId: string): string[];
      get(eventId: string): Delivery | undefined;
    },
  ) {}

  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON answer, read by the caller as the interface documents it
  private async ok(method: string, path: string, body?: unknown): Promise<any> {
    const answer = await this.call(method, path, body);
    if (answer.status >= 400) {
      const error = answer.body ?? {};
      throw new ApiError(
        answer.status,
        error.errorCode ?? ErrorCode.INTERNAL_ERROR,
        `${method} ${path} answered ${answer.status}: ${error.message ?? 'no message'}`,
        error.metadata,
      );
    }
    return answer.body;
  }

  async link(request: {
    integrationId?: IntegrationId | undefined;
    nativeOrgId?: string | undefined;
    accessToken?: string | undefined;
  }): Promise<RunConnection> {
    const { linkToken } = await this.ok('POST', '/link/token');
    const { publicToken } = await this.ok('POST', '/sandbox/public-token', { linkToken, ...request });
    const exchanged = await this.ok('POST', '/link/exchange', { publicToken });
    return {
      connectionId: exchanged.connectionId,
      accessToken: exchanged.accessToken,
      integrationId: exchanged.integrationId,
      nativeOrgId: exchanged.nativeOrgId,
      webhookUrl: null,
    };
  }

  async adopt(connectionId: string): Promise<RunConnection> {
    const { connection } = await this.ok('GET', `/sandbox/connections/${encodeURIComponent(connectionId)}`);
    return {
      connectionId: connection.connectionId,
      accessToken: connection.accessToken,
      integrationId: connection.integrationId,
      nativeOrgId: connection.nativeOrgId,
      webhookUrl: connection.webhook?.webhookUrl ?? null,
    };
  }

  async createWebhook(connection: RunConnection, url: string): Promise<void> {
    const { webhook } = await this.ok('POST', '/connection/webhook', { accessToken: connection.accessToken, webhook: { webhookUrl: url } });
    connection.webhookUrl = webhook.webhookUrl;
  }

  async deleteWebhook(connection: RunConnection): Promise<void> {
    const { connection: detail } = await this.ok('GET', `/sandbox/connections/${connection.connectionId}`);
    if (!detail.webhook) throw new ApiError(409, ErrorCode.WEBHOOK_NOT_FOUND, 'the connection has no webhook to delete');
    await this.ok('DELETE', '/connection/webhook', { accessToken: connection.accessToken, webhookId: detail.webhook.webhookId });
    connection.webhookUrl = null;
  }

  async setStatus(connection: RunConnection, status: ConnectionStatus): Promise<void> {
    await this.ok('POST', `/sandbox/connections/${connection.connectionId}/status`, { status });
  }

  async create(connection: RunConnection, type: CrmObjectType, fields: Record<string, unknown>): Promise<CrmRecord> {
    return (await this.ok('POST', `/sandbox/connections/${connection.connectionId}/records/${type}`, fields)).record;
  }

  async update(connection: RunConnection, type: CrmObjectType, id: string, fields: Record<string, unknown>): Promise<CrmRecord> {
    return (await this.ok('PATCH', `/sandbox/connections/${connection.connectionId}/records/${type}/${encodeURIComponent(id)}`, fields)).record;
  }

  async remove(connection: RunConnection, type: CrmObjectType, id: string): Promise<void> {
    await this.ok('DELETE', `/sandbox/connections/${connection.connectionId}/records/${type}/${encodeURIComponent(id)}`);
  }

  async passthrough(connection: RunConnection, call: PassthroughCall): Promise<PassthroughAnswer> {
    return this.ok('POST', '/crm/passthrough', { accessToken: connection.accessToken, ...call });
  }

  async setChaos(connection: RunConnection, settings: ChaosSettings): Promise<void> {
    await this.ok('PUT', `/sandbox/connections/${connection.connectionId}/chaos`, settings);
  }

  async deliveries(connectionId: string, options: { inTurns?: boolean } = {}): Promise<Delivery[]> {
    if (this.log) return options.inTurns ? this.log.listInTurns(connectionId) : this.log.list(connectionId);
    return (await this.ok('GET', `/sandbox/connections/${connectionId}/deliveries`)).deliveries;
  }

  async unfinished(connectionId: string): Promise<string[]> {
    if (this.log) return this.log.unfinished(connectionId);
    // Asked by state, not the whole log (polled while a run waits); the queue's head is the one in flight or retrying.
    const ids: string[] = [];
    for (const state of ['delivering', 'retrying', 'pending']) {
      const { deliveries } = await this.ok('GET', `/sandbox/connections/${connectionId}/deliveries?state=${state}`);
      for (const delivery of deliveries as Delivery[]) ids.push(delivery.eventId);
    }
    return ids;
  }

  eventJson(eventId: string): string | undefined {
    return this.log?.eventJson(eventId);
  }

  async delivery(eventId: string): Promise<Delivery | undefined> {
    if (this.log) return this.log.get(eventId);
    const answer = await this.call('GET', `/sandbox/deliveries/${encodeURIComponent(eventId)}`);
    return answer.status === 200 ? answer.body.delivery : undefined;
  }

  now(): number {
    return this.time.now();
  }

  pass(ms: number): Promise<void> {
    return this.time.pass(ms);
  }

  settle(): Promise<void> {
    return this.time.settle();
  }

  passUntil(done: () => Promise<boolean>, maxMs: number): Promise<boolean> {
    return this.time.passUntil(done, maxMs);
  }
}

/**
 * A target on a sandbox in this process. On a virtual clock, `speed` is how many times faster
 * than real time it runs (`Infinity`: instant, time jumps); on a real clock time just passes.
 */
export function sandboxTarget(
  sandbox: ScenarioSandbox,
  options: { apiKey?: string | undefined; speed?: number; signal?: AbortSignal | undefined } = {},
): ScenarioTarget {
  const apiKey = options.apiKey ?? sandbox.options.apiKeys[0]!;
  const call: Call = async (method, path, body) => {
    const queryAt = path.indexOf('?');
    const request: SandboxRequest = {
      method,
      path: queryAt === -1 ? path : path.slice(0, queryAt),
      query: queryAt === -1 ? '' : path.slice(queryAt + 1),
      headers: { 'service-api-token': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    };
    const response = await sandbox.handle(request);
    return { status: response.status, body: JSON.parse(response.body) };
  };
  const clock = sandbox.parts.clock;
  const { signal } = options;
  const time =
    clock.kind === 'virtual'
      ? virtualTime(sandbox, options.speed ?? Infinity, signal)
      : realTime(
          () => clock.now(),
          () => sandbox.settle(),
          signal,
        );
  return new ApiTarget('in-process', call, time, {
    list: (connectionId) => sandbox.parts.dispatcher.list(connectionId),
    listInTurns: (connectionId) => runInTurns(sandbox.parts.dispatcher.listInPieces(connectionId)),
    eventJson: (eventId) => sandbox.parts.dispatcher.eventJson(eventId),
    // The parts are read at each call: a reset or restore replaces them.
    unfinished: (connectionId) => sandbox.parts.dispatcher.unfinished(connectionId),
    get: (eventId) => sandbox.parts.dispatcher.get(eventId),
  });
}

/** A target on a running dev server (`--server URL`), whose clock is real. */
export function serverTarget(baseUrl: string, apiKey: string, signal?: AbortSignal): ScenarioTarget {
  const base = baseUrl.replace(/\/+$/, '');
  const call: Call = async (method, path, body) => {
    let response: Response;
    try {
      response = await fetch(base + path, {
        method,
        headers: { 'service-api-token': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new ApiError(503, ErrorCode.INTERNAL_ERROR, `cannot reach the sandbox at ${base}: ${cause}`);
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = { message: `not a sandbox answer: ${text.slice(0, 80)}` };
    }
    return { status: response.status, body: parsed };
  };
  // The server's clock is its own: the run can only wait, and reads time as the server's log shows it.
  return new ApiTarget(
    'server',
    call,
    realTime(realNow, async () => undefined, signal),
  );
}

/** Time on a virtual clock, jumping (instant) or paced against real time by `speed`. */
function virtualTime(sandbox: ScenarioSandbox, speed: number, signal: AbortSignal | undefined): Time {
  const clock = sandbox.parts.clock;
  const paceTo = async (target: number) => {
    if (speed === Infinity) return sandbox.parts.clock.advance(Math.max(0, target - clock.now()));
    for (;;) {
      const now = clock.now();
      const next = Math.min(clock.nextDue() ?? target, target);
      if (next > now) await sleep((next - now) / speed, signal);
      if (signal?.aborted) return;
      await sandbox.parts.clock.advance(Math.max(0, next - now));
      if (next >= target) return;
    }
  };
  return {
    real: speed !== Infinity,
    now: () => clock.now(),
    pass: (ms) => paceTo(clock.now() + ms),
    settle: () => sandbox.settle(),
    async passUntil(done, maxMs) {
      const deadline = clock.now() + maxMs;
      await sandbox.settle();
      for (;;) {
        if (await done()) return true;
        const next = clock.nextDue();
        if (next === undefined || next > deadline || signal?.aborted) return false;
        await paceTo(next);
      }
    },
  };
}

/** Time that passes by itself (a real clock, a remote server): the run waits and polls. */
function realTime(now: () => number, settle: () => Promise<void>, signal: AbortSignal | undefined): Time {
  return {
    real: true,
    now,
    pass: async (ms) => {
      await sleep(ms, signal);
      await settle();
    },
    settle,
    async passUntil(done, maxMs) {
      const deadline = realNow() + maxMs;
      for (;;) {
        await settle();
        if (await done()) return true;
        if (realNow() >= deadline || signal?.aborted) return false;
        await sleep(Math.min(100, Math.max(1, deadline - realNow())), signal);
      }
    },
  };
}
