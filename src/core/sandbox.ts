import { RealClock, VirtualClock, type Clock } from '../clock/clock.js';
import { EventFactory, type EmittedEvent } from '../events/event-factory.js';
import { Lifecycle } from '../events/lifecycle.js';
import { connectionStatusSchema, type ConnectionStatus, type ConnectionSummary, type ExchangeResult } from '../model/connection.js';
import type { CrmObjectType, CrmRecord } from '../model/crm.js';
import type { ServiceEvent } from '../model/events.js';
import { DEFAULT_INTEGRATION, type IntegrationId } from '../model/integrations.js';
import { Dispatcher, type Delivery } from '../webhooks/dispatcher.js';
import { createHttpTransport } from '../webhooks/http-transport.js';
import { ConnectionRegistry, connectionSummary, exchangeResult, type ConnectionState } from './connections.js';
import { parseDuration, type Duration } from './duration.js';
import { ApiError, ErrorCode } from './errors.js';
import { MAX_BODY_BYTES, bodyBytes, parseJsonBody, payloadTooLarge, respond, respondError, type SandboxRequest, type SandboxResponse } from './http.js';
import { resolveOptions, type ResolvedOptions, type SandboxOptions } from './options.js';
import { PageCache } from './page-cache.js';
import { Random } from './random.js';
import { Router } from './router.js';
import { parseObjectType, parseOrThrow } from './validation.js';
import { ROUTES, type RouteHandler } from './routes/index.js';

/** Called for every event the sandbox emits, as it is emitted. */
export type EventListener = (event: ServiceEvent, meta: { connectionId: string }) => void;

/**
 * One sandbox: the state, the rules and the routes of the service, with no transport. The MSW
 * handlers and the dev server both call {@link Sandbox.handle}; tests may also drive it directly.
 *
 * @example
 * const sandbox = createSandbox({ seed: 7, clock: 'virtual' });
 * const { connectionId } = sandbox.connect({ integrationId: 'salesforce' });
 * await sandbox.advance('10s'); // NEW_CONNECTION → INITIAL_SYNCED → READY
 */
export class Sandbox {
  readonly options: ResolvedOptions;
  /** @internal The sandbox's parts, for the routes. */
  readonly parts: {
    readonly clock: Clock;
    readonly registry: ConnectionRegistry;
    readonly lifecycle: Lifecycle;
    readonly dispatcher: Dispatcher;
    readonly pages: PageCache;
  };
  private readonly events: EventFactory;
  private readonly router = new Router<RouteHandler>(ROUTES);
  private readonly listeners = new Set<EventListener>();

  constructor(options: SandboxOptions = {}) {
    this.options = resolveOptions(options);
    const { onError } = this.options;
    const clock: Clock = this.options.clock === 'virtual' ? new VirtualClock(this.options.startTime, onError) : new RealClock(onError);
    const random = new Random(this.options.seed);
    this.events = new EventFactory(random.fork('events'), clock);
    const registry = new ConnectionRegistry({
      clock,
      random,
      tokenTtlMs: this.options.tokenTtlMs,
      connectionLimit: this.options.connectionLimit,
      dataset: this.options.dataset,
      fixtures: this.options.fixtures,
      onRecordChange: (connection, change) => {
        connection.lastActivity = clock.now();
        this.emit(this.events.objectChange(connection.connectionId, change));
      },
    });
    const lifecycle = new Lifecycle(
      clock,
      { initialSyncMs: this.options.initialSyncDelayMs, readyMs: this.options.readyDelayMs },
      (connection, status) => this.emit(this.events.statusChange(connection.connectionId, status)),
    );
    const dispatcher = new Dispatcher({
      clock,
      transport: createHttpTransport({ ca: this.options.webhookCa }),
      retryScheduleMs: this.options.retryScheduleMs,
      attemptTimeoutMs: this.options.attemptTimeoutMs,
      logLimit: this.options.deliveryLogLimit,
      target: (connectionId) => registry.find(connectionId),
    });
    this.parts = { clock, registry, lifecycle, dispatcher, pages: new PageCache() };
  }

  /** Every route (method and path pattern), the service's first, then the control API's. */
  get routes(): ReadonlyArray<{ method: string; pattern: string }> {
    return this.router.routes.map(({ method, pattern }) => ({ method, pattern }));
  }

  /** Answers one request. Never throws: every failure is an error body with its status. */
  async handle(request: SandboxRequest): Promise<SandboxResponse> {
    const method = request.method.toUpperCase();
    const response = await this.answer(method, request);
    // HEAD is GET without the body, wherever GET is served.
    return method === 'HEAD' ? { status: response.status, headers: response.headers, body: '' } : response;
  }

  private async answer(method: string, request: SandboxRequest): Promise<SandboxResponse> {
    try {
      const match = this.router.match(method === 'HEAD' ? 'GET' : method, request.path);
      if (match.kind === 'not-found') {
        throw new ApiError(404, ErrorCode.ROUTE_NOT_FOUND, `no route for ${request.method} ${request.path}`);
      }
      if (match.kind === 'method-not-allowed') {
        const allowed = match.allowed.includes('GET') ? [...match.allowed, 'HEAD'] : match.allowed;
        throw new ApiError(405, ErrorCode.METHOD_NOT_ALLOWED, `${request.method} is not allowed on ${request.path}; use ${allowed.join(', ')}`, { allowed }, { allow: allowed.join(', ') });
      }
      if (request.body !== undefined && bodyBytes(request.body) > MAX_BODY_BYTES) throw payloadTooLarge();
      const apiKey = match.route.public ? '' : this.authenticate(request);
      let parsed: Record<string, unknown> | undefined;
      const reply = await match.route.handler({
        sandbox: this,
        request,
        params: match.params,
        apiKey,
        query: new URLSearchParams(request.query),
        body: () => (parsed ??= parseJsonBody(request)),
      });
      return respond(reply);
    } catch (error) {
      if (error instanceof ApiError) return respondError(error);
      this.options.onError(error);
      return respondError(ApiError.internal());
    }
  }

  private authenticate(request: SandboxRequest): string {
    const apiKey = request.headers['service-api-token'];
    if (apiKey === undefined || apiKey === '') {
      throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, 'missing service-api-token header');
    }
    if (!this.options.apiKeys.includes(apiKey)) {
      throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, 'invalid service-api-token');
    }
    return apiKey;
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
  connect(options: { apiKey?: string; integrationId?: IntegrationId; nativeOrgId?: string } = {}): ExchangeResult {
    const apiKey = options.apiKey ?? this.options.apiKeys[0]!;
    if (!this.options.apiKeys.includes(apiKey)) throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, 'invalid service-api-token');
    const { registry } = this.parts;
    const linkToken = registry.createLinkToken(apiKey);
    const publicToken = registry.createPublicToken(apiKey, {
      integrationId: options.integrationId ?? DEFAULT_INTEGRATION,
      linkToken,
      ...(options.nativeOrgId ? { nativeOrgId: options.nativeOrgId } : {}),
    });
    return this.exchange(apiKey, publicToken);
  }

  /** @internal Exchanges a public token and starts the connection's lifecycle. */
  exchange(apiKey: string, publicToken: string): ExchangeResult {
    const connection = this.parts.registry.exchange(apiKey, publicToken);
    this.parts.lifecycle.start(connection);
    return exchangeResult(connection);
  }

  /** The connections of an API token (default: the first accepted one). */
  connections(apiKey: string = this.options.apiKeys[0]!): ConnectionSummary[] {
    return this.parts.registry.list(apiKey).map(connectionSummary);
  }

  /** @internal Removes a connection with its webhook, pending events and timers. */
  removeConnection(connection: ConnectionState): void {
    this.parts.lifecycle.stop(connection);
    this.parts.dispatcher.connectionRemoved(connection.connectionId);
    this.parts.registry.remove(connection);
  }

  /** Forces a status move; it is always reported as a STATUS_CHANGE event and stops the automatic moves. */
  setStatus(connectionId: string, status: ConnectionStatus): ConnectionSummary {
    const connection = this.connection(connectionId);
    this.parts.lifecycle.force(connection, parseOrThrow(connectionStatusSchema, status, 'status'));
    return connectionSummary(connection);
  }

  // --- Records ------------------------------------------------------------------------------

  /** Creates a CRM record (fields left out are generated) and emits its CREATE event. */
  createRecord(connectionId: string, objectType: CrmObjectType, fields: Record<string, unknown> = {}): CrmRecord {
    return this.records(connectionId, objectType).create(objectType, fields);
  }

  /** Changes the fields given and emits an UPDATE event. */
  updateRecord(connectionId: string, objectType: CrmObjectType, id: string, fields: Record<string, unknown>): CrmRecord {
    return this.records(connectionId, objectType).update(objectType, id, fields);
  }

  /** Deletes a record (and the attendees that depend on it) and emits DELETE events. */
  deleteRecord(connectionId: string, objectType: CrmObjectType, id: string): void {
    this.records(connectionId, objectType).delete(objectType, id);
  }

  getRecord(connectionId: string, objectType: CrmObjectType, id: string): CrmRecord {
    return this.records(connectionId, objectType).get(objectType, id);
  }

  /** Every record of a type, oldest first. */
  listRecords(connectionId: string, objectType: CrmObjectType): CrmRecord[] {
    return [...this.records(connectionId, objectType).crm[objectType].values()];
  }

  private records(connectionId: string, objectType: string) {
    parseObjectType(objectType);
    return this.parts.registry.dataOf(this.connection(connectionId));
  }

  private connection(connectionId: string): ConnectionState {
    const connection = this.parts.registry.find(connectionId);
    if (!connection) throw ApiError.notFound('Connection', connectionId, 'connectionId');
    return connection;
  }

  // --- Events and deliveries ----------------------------------------------------------------

  /** Events emitted (those still in the delivery log), oldest first; one connection's or all. */
  emittedEvents(connectionId?: string): ServiceEvent[] {
    return this.parts.dispatcher.list(connectionId).map((delivery) => delivery.event);
  }

  /** The delivery log: each event with its state and attempts, oldest first. */
  deliveries(connectionId?: string): Delivery[] {
    return this.parts.dispatcher.list(connectionId);
  }

  /** Sends an event again as a new attempt; resolves with the delivery after that attempt. */
  redeliver(eventId: string): Promise<Delivery> {
    return this.parts.dispatcher.redeliver(eventId);
  }

  /** Listens to events as they are emitted; returns a function that stops listening. */
  onEvent(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(emitted: EmittedEvent): void {
    this.parts.dispatcher.enqueue(emitted);
    for (const listener of this.listeners) listener(emitted.event, { connectionId: emitted.connectionId });
  }

  /** Stops every timer and aborts deliveries in flight. The sandbox still answers requests, but nothing more happens by itself. */
  close(): void {
    this.parts.clock.close();
    this.parts.dispatcher.close();
  }
}

/**
 * Creates a sandbox.
 *
 * @example
 * const sandbox = createSandbox({ seed: 42, clock: 'virtual', apiKeys: ['test-key'] });
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new Sandbox(options);
}

