import type { ClientCheck, ClientCheckOptions, PreparedRequest } from '../client-check/client-check.js';
import type { DownstreamFault, DownstreamFaultInput } from '../downstream/faults.js';
import type { ConnectionStatus, ConnectionSummary, ExchangeResult, Webhook } from '../model/connection.js';
import type { CrmObjectType, UnifiedRecord } from '../model/crm.js';
import type { ServiceEvent } from '../model/events.js';
import { DEFAULT_INTEGRATION, type IntegrationId } from '../model/integrations.js';
import type { Platform } from '../model/platform.js';
import type { RunScenarioOptions } from '../scenarios/index.js';
import type { ScenarioReport } from '../scenarios/report.js';
import type { ScenarioDefinition } from '../scenarios/schema.js';
import { constantTimeEqual } from '../shared/constant-time.js';
import { type Duration, parseDuration } from '../shared/duration.js';
import { ApiError, ErrorCode, SandboxConfigError } from '../shared/errors.js';
import { checkOptionNames } from '../shared/option-names.js';
import { type PathMatch, PathMatcher } from '../shared/path-matcher.js';
import { runInTurns, runToEnd } from '../shared/pieces.js';
import type { Reservation } from '../shared/reservation.js';
import { parseOrThrow } from '../shared/validation.js';
import type { ChaosSettings } from '../webhooks/chaos.js';
import type { Delivery, DeliveryAttempt } from '../webhooks/delivery.js';
import type { SavePoint } from '../webhooks/dispatcher.js';
import { clientCheckCode } from './client-check-slot.js';
import { ConnectionDesk } from './connection-desk.js';
import type { ConnectionState } from './connections.js';
import { DeliveryDesk } from './delivery-desk.js';
import type { EventListener } from './event-sink.js';
import { FaultDesk } from './fault-desk.js';
import { FAULT_HEADERS, type FaultDecision, FaultInjector, type FaultRule } from './faults.js';
import { toFetchResponse, toSandboxRequest } from './fetch.js';
import { bodyLimit, isOverBytes, payloadTooLarge, type Reply, respond, respondError, type SandboxRequest, type SandboxResponse } from './http.js';
import { type JournalEntry, type JournalFilter, RequestJournal } from './journal.js';
import { JournalDesk } from './journal-desk.js';
import { knownConnection } from './known-connection.js';
import { openApiJson } from './openapi/load-document.js';
import { type ResolvedOptions, resolveOptions, type SandboxOptions } from './options.js';
import { RecordDesk } from './record-desk.js';
import { nullRuleOf, RequestContext, type RequestNote } from './routes/context.js';
import { ROUTES, type Route, type RouteDeps } from './routes/index.js';
import { publicTokenBody } from './routes/link.js';
import { MAX_LIMIT } from './routes/pagination.js';
import { addWebhook, removeWebhook } from './routes/webhook.js';
import { buildParts, type Persistence, type SandboxParts } from './sandbox-parts.js';
import { loadScenarioEngine } from './scenario-engine.js';
import {
  loadSnapshotInPieces,
  loadTenantPart,
  parseSnapshotInPieces,
  type SandboxSnapshot,
  type ServerSnapshot,
  type TenantSnapshot,
  takeSnapshot,
  takeTenantSnapshot,
  tenantPartInPieces,
} from './snapshot.js';
import { acceptedTenant } from './tenants.js';

/**
 * The routes by path, shared by every sandbox. The core's paths: a trailing slash is a segment
 * of its own, and a parameter with a malformed %-escape matches nothing (a 404).
 */
const ROUTER = new PathMatcher(
  ROUTES.map((route) => ({ methods: [route.method], pattern: route.pattern, value: route })),
  { malformedEscapes: 'no-match' },
);

/** A request's route, found. */
type FoundRoute = Extract<PathMatch<Route>, { kind: 'found' }>;

/** What {@link Sandbox.authenticate} answers for the admin key: no string, so no API key is ever taken for it. */
const ADMIN: unique symbol = Symbol('admin');

export type { EventListener };
/** Hears each delivery attempt once it is recorded: the attempt, and the delivery as it stands then (its state after the attempt). */
export type DeliveryAttemptListener = (attempt: DeliveryAttempt, delivery: Delivery) => void;

/**
 * One sandbox: the state, the rules and the routes of the service, with no transport. The MSW
 * handlers and the dev server both call {@link Sandbox.handle}; tests may also drive it directly.
 * Make one with `createSandbox()` of the entry you import (`crm-sandbox` in Node,
 * `crm-sandbox/browser` in browsers): each passes its own {@link Platform}.
 *
 * @example
 * const sandbox = createSandbox({ seed: 7, clock: 'virtual' });
 * const { connectionId } = sandbox.connect({ integrationId: 'salesforce' });
 * await sandbox.advance('10s'); // NEW_CONNECTION → INITIAL_SYNCED → READY
 */
export class Sandbox {
  readonly options: ResolvedOptions;
  /**
   * @internal What the runtime provides, given by the entry that made the sandbox: the webhook
   * transport, fixture and scenario files, faker's loader and cryptographic randomness.
   */
  readonly platform: Platform;
  /** @internal The sandbox's parts, for the routes. Replaced as a whole by a reset or a restore. */
  parts: SandboxParts;
  /** What the routes use of this sandbox, its current parts (a reset swaps them) and operations. */
  private readonly deps: RouteDeps;
  /** The operations on the parts the routes and this sandbox's methods share, each on the current parts. */
  private readonly desks: { connections: ConnectionDesk; records: RecordDesk; deliveries: DeliveryDesk; faults: FaultDesk; journal: JournalDesk };
  private readonly listeners = new Set<EventListener>();
  private readonly attemptListeners = new Set<DeliveryAttemptListener>();
  private readonly journal: RequestJournal;
  private revision = 0;
  private readonly faults: FaultInjector;
  private checker: ClientCheck | undefined;
  /** The parts each save point was taken of. */
  private readonly savePoints = new WeakMap<SavePoint, SandboxParts>();
  /** Set while a store saves the state ({@link persist}): every set of parts is built with it. */
  private persistence: Persistence | undefined;

  /**
   * A sandbox on `platform`. Entries call this; your code calls `createSandbox(options)` of
   * `crm-sandbox` or `crm-sandbox/browser`, which pass theirs.
   */
  constructor(options: SandboxOptions, platform: Platform) {
    if (typeof platform?.createTransport !== 'function') {
      throw new TypeError("new Sandbox() needs the runtime's platform: call createSandbox(options) from 'crm-sandbox' (Node) or 'crm-sandbox/browser'");
    }
    this.platform = platform;
    this.options = resolveOptions(options, platform);
    this.journal = new RequestJournal(options.journal ?? {}, this.options.apiKeys);
    this.faults = new FaultInjector(this.options.seed, this.options.apiKeys);
    if (options.faults !== undefined) {
      try {
        this.faults.setStanding(options.faults);
      } catch (error) {
        if (error instanceof ApiError) throw new SandboxConfigError(`faults: ${error.message}`);
        throw error;
      }
    }
    this.parts = this.freshParts(this.options.startTime);
    const parts = () => this.parts;
    this.desks = {
      connections: new ConnectionDesk(parts, this.options.apiKeys),
      records: new RecordDesk(parts),
      deliveries: new DeliveryDesk(parts),
      faults: new FaultDesk(this.faults, parts),
      journal: new JournalDesk(this.journal, this.options.apiKeys),
    };
    this.deps = this.routeDeps();
  }

  private freshParts(startTime: number): SandboxParts {
    return buildParts(
      this.options,
      this.platform,
      startTime,
      this.listeners,
      () => this.revision++,
      this.persistence,
      (attempt, delivery) => {
        if (this.attemptListeners.size === 0) return;
        const view = delivery();
        for (const listener of this.attemptListeners) listener(attempt, view);
      },
    );
  }

  /** Every route (method and path pattern), the service's first, then the control API's. */
  get routes(): ReadonlyArray<{ method: string; pattern: string }> {
    return ROUTES.map(({ method, pattern }) => ({ method, pattern }));
  }

  private routeDeps(): RouteDeps {
    const parts = () => this.parts;
    const sandbox = this;
    return {
      get registry() {
        return parts().registry;
      },
      get clock() {
        return parts().clock;
      },
      get dispatcher() {
        return parts().dispatcher;
      },
      get pages() {
        return parts().pages;
      },
      get passthroughAnswers() {
        return parts().passthroughAnswers;
      },
      ...this.desks,
      // Reset, snapshot and restore swap the parts themselves: only the sandbox can.
      state: this,
      scenarios: {
        target: this,
        platform: this.platform,
        repeatLimit: this.options.scenarioRepeatLimit,
        fieldBytesLimit: this.options.scenarioFieldBytesLimit,
      },
      openApiJson,
      get clientCheck() {
        return sandbox.checker;
      },
    };
  }

  /**
   * Answers one request, given as the core's plain record `{ method, path, query, headers, body }`
   * (what the adapters build; no Fetch `Request`: {@link Sandbox.fetch} takes those). Never throws
   * for a request: every failure is an error body with its status. Only a value that is not such
   * a record is a TypeError.
   *
   * @example
   * const response = await sandbox.handle({ method: 'POST', path: '/link/token', query: '', headers: { 'service-api-token': 'sandbox-api-key' } });
   * JSON.parse(response.body).linkToken; // 'link_…'
   */
  async handle(request: SandboxRequest): Promise<SandboxResponse> {
    if (typeof request?.path !== 'string') throw notARequestRecord(request);
    // Repeated slashes are one, as the service took them: a client whose base URL ends in / calls //engagement/mailboxes (decision 0026).
    if (request.path.includes('//')) request = { ...request, path: request.path.replace(/\/{2,}/g, '/') };
    this.revision++;
    const method = request.method.toUpperCase();
    const clock = this.parts.clock;
    const at = clock.now();
    const note: RequestNote = { connectionId: undefined };
    const apiKey = request.headers['service-api-token'] ?? '';
    let fault: FaultDecision | undefined;
    let response: SandboxResponse | undefined;
    // Client-check, when on, watches the tenants' requests to the service: undefined for the rest.
    const observed = this.checker?.observe(request, method, apiKey, at);
    let prepared: PreparedRequest | undefined;
    // Routing, the body limit and authentication first: a request that fails them meets no fault, no latency and no work.
    const admitted = this.admit(method, request);
    if (!('value' in admitted)) {
      response = admitted;
    } else {
      const route = admitted.value;
      // Most requests meet no fault: skip the fault code (and its closure) unless a rule or an override header is there.
      // Public routes (health, the OpenAPI document, the link widget's) and the control API never meet faults.
      const faulty = this.faults.active || request.headers[FAULT_HEADERS.forceStatus] !== undefined || request.headers[FAULT_HEADERS.latency] !== undefined;
      if (faulty && !route.public && !request.path.startsWith('/sandbox/')) {
        try {
          fault = this.faults.decide(request, apiKey, at, () => this.connectionNamed(request, apiKey));
        } catch (error) {
          response = respondError(error as ApiError);
        }
        // On a virtual clock latency is only reported (journal), never waited: a test must not hang on it.
        if (fault && fault.latencyMs > 0 && clock.kind === 'real') await new Promise<void>((resolve) => clock.setTimer(fault!.latencyMs, () => resolve()));
      }
      const caller = route.public ? '' : route.admin === true && this.isAdminKey(apiKey) ? ADMIN : apiKey;
      prepared = observed && !response && !fault?.error ? observed.prepare() : undefined;
      response ??= fault?.error
        ? respondError(fault.error)
        : prepared?.error
          ? respondError(prepared.error)
          : await this.answer(admitted, caller, prepared?.request ?? request, note);
    }
    if (!request.path.startsWith('/sandbox/requests')) {
      const virtualLatency = clock.kind === 'virtual' ? (fault?.latencyMs ?? 0) : 0;
      this.journal.record({
        apiKey,
        at,
        method,
        path: request.path,
        query: request.query,
        status: response.status,
        durationMs: clock.now() - at + virtualLatency,
        connectionId: note.connectionId,
        body: request.body,
        fault: fault?.label ?? prepared?.label,
      });
    }
    observed?.answered(response, note.connectionId, clock.now());
    // HEAD is GET without the body, wherever GET is served.
    return method === 'HEAD' ? { status: response.status, headers: response.headers, body: '' } : response;
  }

  /**
   * Answers a Fetch `Request` as the service would, like a Hono app's `fetch`: the URL's path is
   * the service's path (`/engagement/users`) whatever its origin, and a string starting with `/`
   * needs no origin. It is {@link Sandbox.handle} behind the same translation as the MSW handlers.
   *
   * @example
   * const response = await sandbox.fetch('/link/token', { method: 'POST', headers: { 'service-api-token': 'sandbox-api-key' } });
   * const { linkToken } = await response.json();
   * await sandbox.fetch(new Request('http://sandbox.test/sandbox/health')); // 200 { status: 'ok' }
   */
  async fetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(typeof input === 'string' && input.startsWith('/') ? new URL(input, 'http://localhost') : input, init);
    return toFetchResponse(await this.handle(await toSandboxRequest(request)));
  }

  /**
   * What is checked before a request meets faults or work, in this order: its route (404, 405),
   * its body's size (413), its caller (401; public routes take no API token). The route found,
   * or the error answer.
   */
  private admit(method: string, request: SandboxRequest): FoundRoute | SandboxResponse {
    try {
      const match = ROUTER.match(method === 'HEAD' ? 'GET' : method, request.path);
      if (match.kind === 'not-found') {
        throw new ApiError(404, ErrorCode.ROUTE_NOT_FOUND, `no route for ${request.method} ${request.path}`);
      }
      if (match.kind === 'method-not-allowed') {
        const allowed = match.allowed.includes('GET') ? [...match.allowed, 'HEAD'] : match.allowed;
        throw new ApiError(
          405,
          ErrorCode.METHOD_NOT_ALLOWED,
          `${request.method} is not allowed on ${request.path}; use ${allowed.join(', ')}`,
          { allowed },
          { allow: allowed.join(', ') },
        );
      }
      const limit = bodyLimit(method, request.path);
      if (request.body !== undefined && isOverBytes(request.body, limit)) throw payloadTooLarge(limit);
      if (!match.value.public) this.authenticate(request, match.value.admin === true);
      return match;
    } catch (error) {
      return this.failure(error);
    }
  }

  /**
   * Runs an admitted request's route for its caller: '' on a public route, {@link ADMIN} for the
   * admin key (only routes marked `admin` take it), else the caller's API key.
   */
  private answer(match: FoundRoute, apiKey: string | typeof ADMIN, request: SandboxRequest, note: RequestNote): SandboxResponse | Promise<SandboxResponse> {
    try {
      note.connectionId = match.params.connectionId;
      const ctx = new RequestContext(
        this.deps,
        this.options.adminKey !== undefined,
        request,
        match.params,
        apiKey === ADMIN ? '' : apiKey,
        apiKey === ADMIN,
        note,
        nullRuleOf(match.value as Route<never>),
      );
      const reply = match.value.handler(ctx, this.deps);
      // A route that answers at once (a kept page) is answered without a promise of its own.
      if (!(reply instanceof Promise)) return respond(reply);
      return reply.then(
        (value) => this.responded(value),
        (error: unknown) => this.failure(error),
      );
    } catch (error) {
      return this.failure(error);
    }
  }

  /** A route's reply as an answer; a reply that cannot be serialised is a failure like any other. */
  private responded(reply: Reply): SandboxResponse {
    try {
      return respond(reply);
    } catch (error) {
      return this.failure(error);
    }
  }

  /** The error body of what a request threw: its own for an ApiError, else a 500 (and the error reported: a bug). */
  private failure(error: unknown): SandboxResponse {
    if (error instanceof ApiError) return respondError(error);
    this.options.onError(error);
    return respondError(ApiError.internal());
  }

  /** The connection a request names (accessToken or connectionId, in the query or the JSON body), for connection-scoped faults. */
  private connectionNamed(request: SandboxRequest, apiKey: string): string | undefined {
    const query = new URLSearchParams(request.query);
    let accessToken = query.get('accessToken') ?? undefined;
    let connectionId = query.get('connectionId') ?? undefined;
    if (accessToken === undefined && connectionId === undefined && request.body) {
      try {
        const body = JSON.parse(request.body) as { accessToken?: unknown; connectionId?: unknown };
        if (typeof body.accessToken === 'string') accessToken = body.accessToken;
        if (typeof body.connectionId === 'string') connectionId = body.connectionId;
      } catch {
        return undefined;
      }
    }
    if (connectionId !== undefined) return connectionId;
    if (accessToken === undefined) return undefined;
    try {
      return this.parts.registry.byToken(apiKey, accessToken).connectionId;
    } catch {
      return undefined;
    }
  }

  // --- Journal and faults -------------------------------------------------------------------

  /**
   * The request journal of an API token (default: the first accepted one), oldest first:
   * method, path, query, status, duration, time, connection, body (cut at the body limit) and
   * the fault injected, if any. Bounded: the newest are kept.
   *
   * @example sandbox.requests({ method: 'POST', path: '/crm/passthrough', status: 200 })
   */
  requests(filter?: JournalFilter & { apiKey?: string }): JournalEntry[] {
    return this.desks.journal.requests(filter);
  }

  /**
   * Turns client-check on: from now on the tenants' requests to the service meet hard cases (a
   * 429 with Retry-After or a 503 now and then, pages of at most `pageSize` records, connections
   * deleted mid-run if asked; seeded) and each tenant's conduct is judged against the rules a
   * client of the service must follow. `GET /sandbox/client-check` answers a tenant's report.
   * The check judges the client, not the service's state: snapshots do not carry it (as they do
   * not carry the journal or the fault rules), and a reset or restore keeps its verdicts, only
   * forgetting the connections, tokens and cursors it replaced.
   *
   * @example
   * const check = sandbox.startClientCheck({ deleteConnectionAfter: '5s' });
   * // … your client runs against the sandbox …
   * const { ok, rules } = check.report('sandbox-api-key', { final: true });
   */
  startClientCheck(options: ClientCheckOptions = {}): ClientCheck {
    // Its code is not imported by the core (serve without --client-check never loads it): the package's entries provide it.
    const check = new (clientCheckCode().ClientCheck)(options, {
      seed: this.options.seed,
      apiKeys: this.options.apiKeys,
      maxLimit: MAX_LIMIT,
      now: () => this.parts.clock.now(),
      setTimer: (delayMs, task) => void this.parts.clock.setTimer(delayMs, task),
      exists: (connectionId) => this.parts.registry.find(connectionId) !== undefined,
      deleteConnection: (connectionId) => {
        const connection = this.parts.registry.find(connectionId);
        if (connection) this.removeConnection(connection);
        this.revision++;
      },
    });
    if (!this.checker) {
      this.onEvent((event, { connectionId }) => {
        if (event.type === 'STATUS_CHANGE') this.checker?.statusChanged(connectionId, event.data.status, this.parts.clock.now());
      });
    }
    this.checker = check;
    return check;
  }

  /** The client-check, when it is on ({@link Sandbox.startClientCheck}); nothing is observed otherwise. */
  get clientCheck(): ClientCheck | undefined {
    return this.checker;
  }

  /** Empties the request journal of an API token, or of everyone with no argument. */
  clearRequests(apiKey?: string): void {
    this.desks.journal.clearRequests(apiKey);
  }

  /**
   * Replaces the runtime fault rules of the service's endpoints (not the control API): latency,
   * errors at a rate, a rate limit per API token, each optionally scoped by route and connection.
   * Without `apiKey` they are the server's, for every API token (`PUT /sandbox/faults?all=true`
   * with the admin key); with it, that tenant's own, for its requests only (what `PUT
   * /sandbox/faults` with its key sets). The standing rules (`createSandbox({ faults })`, the
   * fault flags of `serve`) stay and apply too. Seeded: the same rules and calls give the same
   * faults. `setFaults([])` clears the rules. A bad rule throws a 400 `ApiError` naming the field.
   *
   * @example sandbox.setFaults({ route: '/engagement', latency: '50ms-400ms', errorRate: 0.05 });
   * @example sandbox.setFaults({ errorRate: 1 }, { apiKey: 'team-b' }); // team-b's requests only
   */
  setFaults(rules: FaultRule | readonly FaultRule[] | { rules: readonly FaultRule[] }, given?: { apiKey?: string }): FaultRule[] {
    return this.desks.faults.setFaults(rules, given);
  }

  /** The runtime fault rules: the server's (`setFaults()`), or with `apiKey` that tenant's (`PUT /sandbox/faults`). */
  faultRules(given?: { apiKey?: string }): FaultRule[] {
    return this.desks.faults.faultRules(given);
  }

  /** The standing fault rules: those the sandbox was made with (`createSandbox({ faults })`, the `serve` flags), which `setFaults()` leaves. */
  standingFaultRules(): FaultRule[] {
    return this.desks.faults.standingFaultRules();
  }

  /** A 401 unless the request carries one of the accepted API keys, or the admin key on a route that takes it (`admin`). */
  private authenticate(request: SandboxRequest, admin: boolean): void {
    const apiKey = request.headers['service-api-token'];
    if (apiKey === undefined || apiKey === '') {
      throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, 'missing service-api-token header');
    }
    // Every configured key is compared, each in constant time: how long it takes tells nothing of how close a guess was.
    let accepted = false;
    for (const key of this.options.apiKeys) accepted = constantTimeEqual(apiKey, key) || accepted;
    // The admin key is no tenant's: only the operations over every tenant take it.
    if (!accepted && !(admin && this.isAdminKey(apiKey))) throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, 'invalid service-api-token');
  }

  /** Whether a key is the admin key (compared in constant time); never when none is configured. */
  private isAdminKey(apiKey: string): boolean {
    return this.options.adminKey !== undefined && constantTimeEqual(apiKey, this.options.adminKey);
  }

  /** A key the API accepts as a tenant's, else a 401 as for an unknown service-api-token. */
  private tenant(apiKey: string): string {
    return acceptedTenant(this.options.apiKeys, apiKey);
  }

  // --- Time ---------------------------------------------------------------------------------

  /** The sandbox's current time. */
  now(): Date {
    return new Date(this.parts.clock.now());
  }

  /**
   * Virtual clock only: moves time forward by `duration` (ms or `'12h'`), running every status
   * move, delivery and retry that falls due, in order; resolves when they are done.
   */
  advance(duration: Duration): Promise<void> {
    return this.parts.clock.advance(parseDuration(duration, 'advance()'));
  }

  /** Runs everything due now and waits for deliveries in flight. */
  settle(): Promise<void> {
    return this.parts.clock.settle();
  }

  // --- Connections --------------------------------------------------------------------------

  /**
   * The whole link flow in one call (link token, public token, exchange), for tests.
   *
   * @example const { accessToken } = sandbox.connect({ integrationId: 'hubspot' });
   */
  connect(options?: { apiKey?: string; integrationId?: IntegrationId; nativeOrgId?: string; accessToken?: string }): ExchangeResult {
    // Checked as POST /sandbox/public-token checks its body, with the same messages.
    const { apiKey: key, ...link } = checkOptionNames(options, ['apiKey', 'integrationId', 'nativeOrgId', 'accessToken'], 'connect()');
    const apiKey = this.tenant(key ?? this.options.apiKeys[0]!);
    const { integrationId, nativeOrgId, accessToken } = parseOrThrow(publicTokenBody(), link);
    const { registry } = this.parts;
    const linkToken = registry.linkTokens.create(apiKey);
    const publicToken = registry.createPublicToken(apiKey, {
      integrationId: integrationId ?? DEFAULT_INTEGRATION,
      linkToken,
      ...(nativeOrgId ? { nativeOrgId } : {}),
      ...(accessToken ? { accessToken } : {}),
    });
    return this.exchange(apiKey, publicToken);
  }

  /** @internal Exchanges a public token and starts the connection's lifecycle. */
  exchange(apiKey: string, publicToken: string): ExchangeResult {
    return this.desks.connections.exchange(apiKey, publicToken);
  }

  /** The connections of an API token (default: the first accepted one). */
  connections(apiKey: string = this.options.apiKeys[0]!): ConnectionSummary[] {
    return this.desks.connections.connections(apiKey);
  }

  /** @internal Removes a connection with its webhook, pending events and timers. */
  removeConnection(connection: ConnectionState): void {
    this.desks.connections.removeConnection(connection);
  }

  /** Forces a status move; it is always reported as a STATUS_CHANGE event and stops the automatic moves. */
  setStatus(connectionId: string, status: ConnectionStatus): ConnectionSummary {
    return this.desks.connections.setStatus(connectionId, status);
  }

  /**
   * Creates the connection's webhook, as `POST /connection/webhook` does and with its checks (a
   * 400 `ApiError` naming `webhook.webhookUrl`, `WEBHOOK_ALREADY_EXISTS` for a second one). Events
   * that waited for a webhook go out to it, in order.
   *
   * @example
   * const { webhookId } = sandbox.createWebhook(connectionId, 'http://127.0.0.1:3000/webhooks');
   */
  createWebhook(connectionId: string, webhookUrl: string): Webhook {
    const webhook = addWebhook(this.parts, this.connection(connectionId), { webhookUrl });
    this.revision++;
    return { ...webhook };
  }

  /**
   * Deletes the connection's webhook, as `DELETE /connection/webhook` does (a 404 `ApiError`
   * unless `webhookId` is its webhook's): events still pending for it are marked failed, and
   * nothing more is sent to it.
   *
   * @example sandbox.deleteWebhook(connectionId, webhookId);
   */
  deleteWebhook(connectionId: string, webhookId: string): void {
    removeWebhook(this.parts, this.connection(connectionId), webhookId);
    this.revision++;
  }

  // --- Records ------------------------------------------------------------------------------

  /**
   * Creates a CRM record (fields left out are generated) and emits its CREATE event. Records come
   * back as the service answers them: empty fields and those the connection's CRM lacks are absent.
   */
  createRecord(connectionId: string, objectType: CrmObjectType, fields: Record<string, unknown> = {}): UnifiedRecord {
    return this.desks.records.createRecord(connectionId, objectType, fields);
  }

  /** Changes the fields given and emits an UPDATE event. */
  updateRecord(connectionId: string, objectType: CrmObjectType, id: string, fields: Record<string, unknown>): UnifiedRecord {
    return this.desks.records.updateRecord(connectionId, objectType, id, fields);
  }

  /** Deletes a record (and the attendees that depend on it) and emits DELETE events. */
  deleteRecord(connectionId: string, objectType: CrmObjectType, id: string): void {
    this.desks.records.deleteRecord(connectionId, objectType, id);
  }

  getRecord(connectionId: string, objectType: CrmObjectType, id: string): UnifiedRecord {
    return this.desks.records.getRecord(connectionId, objectType, id);
  }

  /** Every record of a type, oldest first. */
  listRecords(connectionId: string, objectType: CrmObjectType): UnifiedRecord[] {
    return this.desks.records.listRecords(connectionId, objectType);
  }

  private connection(connectionId: string): ConnectionState {
    return knownConnection(this.parts.registry, connectionId);
  }

  // --- Downstream faults --------------------------------------------------------------------

  /**
   * Replaces the connection's pending downstream faults: the next passthrough calls hit the
   * system's rate limit, fail with a 5xx, or take longer, each in the system's own shape.
   * Returns the faults now pending.
   *
   * @example sandbox.setDownstreamFaults(connectionId, [{ kind: 'rate-limit', count: 2 }, { kind: 'server-error', status: 503 }]);
   */
  setDownstreamFaults(connectionId: string, faults: DownstreamFaultInput[]): DownstreamFault[] {
    return this.desks.faults.setDownstreamFaults(connectionId, faults);
  }

  /** The connection's pending downstream faults, with the calls each still takes. */
  downstreamFaults(connectionId: string): DownstreamFault[] {
    return this.desks.faults.downstreamFaults(connectionId);
  }

  // --- Events and deliveries ----------------------------------------------------------------

  /** Events emitted (those still in the delivery log), oldest first; one connection's or all. */
  emittedEvents(connectionId?: string): ServiceEvent[] {
    return this.desks.deliveries.emittedEvents(connectionId);
  }

  /** The delivery log: each event with its state and attempts, oldest first. */
  deliveries(connectionId?: string): Delivery[] {
    return this.desks.deliveries.deliveries(connectionId);
  }

  /** Sends an event again as a new attempt; resolves with the delivery after that attempt. */
  redeliver(eventId: string): Promise<Delivery> {
    return this.desks.deliveries.redeliver(eventId);
  }

  /**
   * Retry now: the retry a connection's deliveries wait on (a failed event holds back the later
   * ones) is made at once; once the receiver accepts it, the events behind it follow. Resolves
   * with the deliveries retried, after their attempts; none when nothing waits on a retry.
   */
  retryDeliveries(connectionId: string): Promise<Delivery[]> {
    return this.desks.deliveries.retryDeliveries(connectionId);
  }

  /**
   * Sets a connection's delivery chaos: duplicates, extra delays, broken order, an outage (see
   * {@link ChaosSettings}); `{}` turns it off. Seeded: the same run makes the same chaos.
   *
   * @example sandbox.setChaos(connectionId, { duplicate: 0.5, delay: '100ms-2s' });
   */
  setChaos(connectionId: string, settings: ChaosSettings): ChaosSettings {
    return this.desks.deliveries.setChaos(connectionId, settings);
  }

  /** The delivery chaos a connection is under. */
  chaos(connectionId: string): ChaosSettings {
    return this.desks.deliveries.chaos(connectionId);
  }

  /** Listens to events as they are emitted; returns a function that stops listening. */
  onEvent(listener: EventListener): () => void {
    if (typeof listener !== 'function')
      throw ApiError.invalidField('listener', `onEvent() takes a function, got ${listener === null ? 'null' : typeof listener}`);
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Listens to delivery attempts as they are made (every attempt: retries, redeliveries, chaos's
   * duplicates); returns a function that stops listening. `crm-sandbox serve` prints a line for each.
   */
  onDeliveryAttempt(listener: DeliveryAttemptListener): () => void {
    if (typeof listener !== 'function')
      throw ApiError.invalidField('listener', `onDeliveryAttempt() takes a function, got ${listener === null ? 'null' : typeof listener}`);
    this.attemptListeners.add(listener);
    return () => this.attemptListeners.delete(listener);
  }

  // --- Scenarios ----------------------------------------------------------------------------

  /**
   * Plays a scenario (a built-in's name, a file path, or a definition) on this sandbox: links
   * its main connection (or uses `connectionId`), creates the webhook, plays the steps, waits
   * for every delivery, and resolves with the report. On a virtual clock it runs instantly.
   *
   * @example
   * const report = await sandbox.runScenario('deal-won', { webhookUrl: 'https://app.test/webhooks' });
   * expect(report.failures).toEqual([]);
   */
  async runScenario(scenario: string | ScenarioDefinition, options: RunScenarioOptions = {}): Promise<ScenarioReport> {
    // Loaded on first use (by the platform): a sandbox that plays no scenario never pays for the engine or YAML.
    const engine = loadScenarioEngine(this.platform);
    if (!engine) throw new SandboxConfigError('runScenario needs the Node entry (crm-sandbox): scenarios are not available in the browser build');
    const { runScenario, findScenario } = await engine;
    return runScenario(this, typeof scenario === 'string' ? findScenario(scenario) : scenario, options);
  }

  // --- Reset and snapshots -------------------------------------------------------------------

  /**
   * Back to the seeded state: no connections, tokens or deliveries; the virtual clock back at
   * `startTime`; ids again as in a fresh sandbox. With `apiKey`, only that API token's tenancy
   * is emptied (its connections, their deliveries, its tokens, its request journal) and the rest
   * goes on untouched. A full reset empties the request journal too; event listeners and fault
   * rules stay, and the standing fault rules draw again from their start, as in a fresh sandbox.
   *
   * @example afterEach(() => sandbox.reset());
   */
  reset(given?: { apiKey?: string }): void {
    const options = checkOptionNames(given, ['apiKey'], 'reset()');
    if (options.apiKey !== undefined) this.tenant(options.apiKey);
    if (options.apiKey === undefined) {
      this.install(this.freshParts(this.options.startTime));
      this.journal.clear();
      this.faults.restartStanding();
      this.checker?.stateReplaced();
      return;
    }
    for (const connection of this.parts.registry.list(options.apiKey)) this.removeConnection(connection);
    this.parts.registry.forgetTokens(options.apiKey);
    this.journal.clear(options.apiKey);
    this.checker?.stateReplaced(options.apiKey);
  }

  /**
   * The whole state as versioned JSON (every tenant's connections, tokens, records, the
   * delivery log with its pending retries, the positions of every random stream and the clock's
   * time), each tenant named by a digest of its API key, never the key. Restoring it goes on
   * exactly as this sandbox would have. With `apiKey`, that tenant's state only (its
   * connections, tokens, records, deliveries and chaos; no server stream): what
   * `GET /sandbox/snapshot` answers that tenant.
   *
   * @example const saved = sandbox.snapshot(); … sandbox.restore(saved);
   */
  snapshot(): ServerSnapshot;
  snapshot(options: { apiKey: string }): TenantSnapshot;
  snapshot(options: { apiKey?: string }): SandboxSnapshot;
  snapshot(given?: { apiKey?: string }): SandboxSnapshot {
    const options = checkOptionNames(given, ['apiKey'], 'snapshot()');
    if (options.apiKey === undefined) return takeSnapshot(this.parts, this.options);
    return takeTenantSnapshot(this.parts, this.options, this.tenant(options.apiKey));
  }

  /**
   * Replaces the whole state with a whole-server snapshot's. A bad snapshot throws a 400
   * `ApiError` naming the field (a tenant's digest that no API key of this sandbox has, too),
   * and the state stays as it was. On a virtual clock, time goes to the snapshot's; on a real
   * clock, retries and status moves whose time has passed run at once.
   *
   * With `apiKey`, only that tenant's state is replaced (what `PUT /sandbox/snapshot` does with
   * its key): by all of a tenant's snapshot, or this tenant's part of a whole-server one.
   * Everything restored becomes this tenant's; other tenants and the clock are untouched, and
   * the server's streams (event ids, link and public tokens, new connections) go on from where
   * they are. A connection id, token or event id another tenant holds is a 400 naming the field.
   */
  restore(snapshot: unknown, given?: { apiKey?: string }): void {
    runToEnd(this.restoreInPieces(snapshot, given));
  }

  /**
   * @internal {@link snapshot} for the control API: on a real clock, the digests it writes are
   * worked out first a collection at a time, with turns of the event loop between (the first
   * snapshot of 100 seeded data sets took 180 ms in one piece); the snapshot itself is then
   * taken at once, one moment's state. On a virtual clock, at once (docs/decisions/0040).
   */
  async snapshotInTurns(given?: { apiKey?: string }): Promise<SandboxSnapshot> {
    const options = checkOptionNames(given, ['apiKey'], 'snapshot()');
    if (this.parts.clock.kind === 'real') {
      const { registry } = this.parts;
      const connections = options.apiKey === undefined ? registry.all() : registry.list(this.tenant(options.apiKey));
      await runInTurns(registry.snapshotDigestPieces(connections));
    }
    return this.snapshot(options);
  }

  /**
   * @internal {@link restore} for the control API: on a real clock, the data sets are rebuilt a
   * record at a time with turns of the event loop between (100 used connections took two seconds
   * in one piece), while other requests go on against the state as it was; the checks against
   * other tenants are made again and the state replaced at once, after the last piece. On a
   * virtual clock, at once (docs/decisions/0040).
   */
  async restoreInTurns(snapshot: unknown, given?: { apiKey?: string }): Promise<void> {
    if (this.parts.clock.kind !== 'real') return this.restore(snapshot, given);
    await runInTurns(this.restoreInPieces(snapshot, given));
  }

  /** {@link restore} in pieces; nothing changes before its last piece, when everything does. */
  private *restoreInPieces(snapshot: unknown, given: { apiKey?: string } | undefined): Generator<void, void, void> {
    const options = checkOptionNames(given, ['apiKey'], 'restore()');
    const parsed = yield* parseSnapshotInPieces(snapshot, this.options);
    const started = this.parts;
    if (options.apiKey !== undefined) {
      const apiKey = this.tenant(options.apiKey);
      const part = yield* tenantPartInPieces(started, parsed, apiKey);
      // Reset or replaced whole meanwhile: the part was built against parts that are gone; built again, at once.
      if (this.parts !== started) return this.restore(snapshot, given);
      part.checkAgain();
      for (const connection of this.parts.registry.list(apiKey)) this.removeConnection(connection);
      this.parts.registry.forgetTokens(apiKey);
      loadTenantPart(this.parts, part);
      this.checker?.stateReplaced(apiKey);
      this.revision++;
      return;
    }
    const parts = this.freshParts(this.options.clock === 'virtual' ? parsed.time : Date.now());
    yield* loadSnapshotInPieces(parts, parsed, this.options);
    this.install(parts);
    this.checker?.stateReplaced();
  }

  /**
   * @internal A store saves this sandbox's state (`serve --state-file`): from now on the streams
   * that issue ids (event ids, tokens, connection streams, webhook ids, record ids) count their
   * draws against `reservation` (docs/decisions/0030), and no event is delivered before a save
   * holding it has completed: the store calls {@link saved} after each (an outbox,
   * docs/decisions/0031). For the store's own use, before it serves anything.
   */
  persist(reservation: Reservation): void {
    this.persistence = { reservation };
    this.parts.events.reserve(reservation);
    this.parts.registry.reserve(reservation);
    this.parts.dispatcher.useOutbox();
  }

  /**
   * @internal The store has just saved the state as {@link snapshot} gave it: the events it
   * holds may go out. Call it right after the save, before anything else runs.
   */
  saved(point?: SavePoint): void {
    // A point of parts a reset or restore replaced since holds none of the new parts' events.
    if (point !== undefined && this.savePoints.get(point) !== this.parts) return;
    this.parts.dispatcher.saved(point);
  }

  /**
   * @internal What a save about to be taken (its {@link snapshot} next, with nothing between) holds: for
   * {@link saved} once the save completes, when it completes later, after turns of the event loop (a whole save
   * written in pieces), so that it releases these events and not those emitted meanwhile.
   */
  savePoint(): SavePoint {
    const point = this.parts.dispatcher.savePoint();
    this.savePoints.set(point, this.parts);
    return point;
  }

  /**
   * @internal After a crash (the store's state was not saved at a clean stop): moves every
   * stream that issues ids `draws` on, past whatever the lost run may have drawn beyond the
   * saved state, so no id a client may have been told of is issued again (docs/decisions/0030).
   * Builds the data sets of connections never read, so that their record streams have a
   * position to move from.
   */
  recover(draws: number): void {
    this.parts.events.skipDraws(draws);
    this.parts.registry.skipDraws(draws);
    this.revision++;
  }

  /**
   * Changes whenever the state may have changed (a request, an event, a delivery attempt, a
   * reset or restore): cheap to read, for whoever saves snapshots when something happened.
   */
  get stateRevision(): number {
    return this.revision;
  }

  /** Swaps in new parts; the old ones stop (timers cancelled, attempts in flight aborted). */
  private install(parts: SandboxParts): void {
    this.revision++;
    const old = this.parts;
    this.parts = parts;
    old.clock.close();
    old.dispatcher.close();
  }

  /** Stops every timer and aborts deliveries in flight. The sandbox still answers requests, but nothing more happens by itself. */
  close(): void {
    this.parts.clock.close();
    this.parts.dispatcher.close();
  }
}

/** What {@link Sandbox.handle} throws for a value that is not the core's request record. */
function notARequestRecord(value: unknown): TypeError {
  const object = typeof value === 'object' && value !== null;
  const got = !object
    ? String(value)
    : typeof (value as { url?: unknown }).url === 'string'
      ? 'a Fetch Request (it has a url): use sandbox.fetch(request) for those'
      : 'an object without a string path';
  return new TypeError(`sandbox.handle() takes the core's request record { method, path, query, headers, body }, got ${got}`);
}
