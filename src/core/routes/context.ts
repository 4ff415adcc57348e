import type { DownstreamFault, DownstreamFaultInput } from '../../downstream/faults.js';
import type { ConnectionStatus, ConnectionSummary, ExchangeResult } from '../../model/connection.js';
import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import type { ScenarioSandbox } from '../../scenarios/target.js';
import { ApiError, ErrorCode } from '../../shared/errors.js';
import type { ChaosSettings } from '../../webhooks/chaos.js';
import type { Delivery } from '../../webhooks/delivery.js';
import type { ConnectionState } from '../connections.js';
import type { FaultRule } from '../faults.js';
import { queryParam, type Reply, type SandboxRequest } from '../http.js';
import type { JournalEntry, JournalFilter } from '../journal.js';
import type { ResolvedOptions } from '../options.js';
import type { RouteDefinition } from '../router.js';
import type { SandboxParts } from '../sandbox-parts.js';
import type { SandboxSnapshot } from '../snapshot.js';
import type { Platform } from '../../model/platform.js';
import { adminKeyRequired } from '../tenants.js';

/**
 * What the routes use of the sandbox (the Sandbox class in ../sandbox.ts has all of it), a
 * scenario run's included. Declared here, not imported from there: sandbox.ts imports the route
 * table, and a route importing sandbox.ts back would close an import cycle.
 */
export interface RouteSandbox extends ScenarioSandbox {
  /** The platform it runs on: the scenario routes load the engine through it. */
  readonly platform: Pick<Platform, 'createTransport' | 'loadScenarios'>;
  readonly options: ResolvedOptions;
  readonly parts: SandboxParts;
  exchange(apiKey: string, publicToken: string): ExchangeResult;
  connections(apiKey?: string): ConnectionSummary[];
  removeConnection(connection: ConnectionState): void;
  setStatus(connectionId: string, status: ConnectionStatus): ConnectionSummary;
  createRecord(connectionId: string, objectType: CrmObjectType, fields?: Record<string, unknown>): CrmRecord;
  getRecord(connectionId: string, objectType: CrmObjectType, id: string): CrmRecord;
  updateRecord(connectionId: string, objectType: CrmObjectType, id: string, fields: Record<string, unknown>): CrmRecord;
  deleteRecord(connectionId: string, objectType: CrmObjectType, id: string): void;
  deliveries(connectionId?: string): Delivery[];
  redeliver(eventId: string): Promise<Delivery>;
  chaos(connectionId: string): ChaosSettings;
  setChaos(connectionId: string, settings: ChaosSettings): ChaosSettings;
  downstreamFaults(connectionId: string): DownstreamFault[];
  setDownstreamFaults(connectionId: string, faults: DownstreamFaultInput[]): DownstreamFault[];
  faultRules(options?: { apiKey?: string }): FaultRule[];
  standingFaultRules(): FaultRule[];
  setFaults(rules: FaultRule | readonly FaultRule[] | { rules: readonly FaultRule[] }, options?: { apiKey?: string }): FaultRule[];
  requests(filter?: JournalFilter & { apiKey?: string }): JournalEntry[];
  clearRequests(apiKey?: string): void;
  reset(options?: { apiKey?: string }): void;
  snapshot(options?: { apiKey?: string }): SandboxSnapshot;
  restore(snapshot: unknown, options?: { apiKey?: string }): void;
}

/** What a route handler gets: the sandbox, the request and what the core already worked out. */
export interface RouteContext {
  readonly sandbox: RouteSandbox;
  readonly request: SandboxRequest;
  /** Path parameters, decoded. */
  readonly params: Record<string, string>;
  /** The caller's API token (checked): its tenant. '' on public routes and for the admin. */
  readonly apiKey: string;
  /** The caller sent the admin key (only routes marked `admin` take it). */
  readonly admin: boolean;
  readonly query: URLSearchParams;
  /** The JSON body as an object; 415/400 if it is not one. Parsed once, on first call. */
  body(): Record<string, unknown>;
  /** What the route found out about the request, for the journal. */
  readonly note: RequestNote;
}

/** Filled in while a request is answered: the connection it acted on. */
export interface RequestNote {
  connectionId: string | undefined;
}

export type RouteHandler = (ctx: RouteContext) => Reply | Promise<Reply>;
export type Route = RouteDefinition<RouteHandler>;

/** The connection of an access token the caller may reach (else a 401); counts as activity on it. */
export function connectionByToken(ctx: RouteContext, accessToken: string) {
  const connection = ctx.sandbox.parts.registry.byToken(ctx.apiKey, accessToken);
  connection.lastActivity = ctx.sandbox.parts.clock.now();
  ctx.note.connectionId = connection.connectionId;
  return connection;
}

/** A query parameter that must be present and not empty. */
export function requiredQuery(ctx: RouteContext, name: string): string {
  const value = queryParam(ctx.query, name);
  if (value === undefined || value === '') throw ApiError.invalidField(name, `${name} is required`);
  return value;
}

/**
 * Whether a request acts on every tenant (`?all=true`: only with the admin key, else a 403
 * naming `--admin-key`) or on the caller's own (`?all=false` or none). `operation` names it in
 * the 403. The admin key acts only on every tenant: without `?all=true` it is refused as an
 * unknown key is, since the admin is no tenant. A bad `all` is a 400 naming it.
 */
export function everyTenant(ctx: RouteContext, operation: string): boolean {
  const value = queryParam(ctx.query, 'all');
  if (value !== undefined && value !== 'true' && value !== 'false') throw ApiError.invalidField('all', `all must be true or false, got ${JSON.stringify(value)}`);
  const all = value === 'true';
  if (all && !ctx.admin) throw adminKeyRequired(`${operation}?all=true`, ctx.sandbox.options.adminKey !== undefined);
  if (!all && ctx.admin) throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, "the admin key is no tenant's API key: it acts on every tenant at once, with ?all=true");
  return all;
}
