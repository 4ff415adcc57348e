import type * as z from 'zod';
import type { ClientCheck } from '../../client-check/client-check.js';
import type { Clock } from '../../clock/clock.js';
import type { Platform } from '../../model/platform.js';
import type { ScenarioSandbox } from '../../scenarios/target.js';
import { withoutNulls } from '../../shared/absent-nulls.js';
import { ApiError, ErrorCode } from '../../shared/errors.js';
import type { Dispatcher } from '../../webhooks/dispatcher.js';
import type { ConnectionDesk } from '../connection-desk.js';
import type { ConnectionRegistry, ConnectionState } from '../connections.js';
import type { DeliveryDesk } from '../delivery-desk.js';
import type { FaultDesk } from '../fault-desk.js';
import { deepFreeze, parseJsonBody, queryParam, type Reply, type SandboxRequest, sharedJsonBody } from '../http.js';
import type { JournalDesk } from '../journal-desk.js';
import type * as ResponseSchemas from '../openapi/response-schemas.js';
import type { PageCache } from '../page-cache.js';
import type { PassthroughCache } from '../passthrough-cache.js';
import type { RecordDesk } from '../record-desk.js';
import type { SandboxSnapshot } from '../snapshot.js';
import { adminKeyRequired } from '../tenants.js';

// --- What a route receives ------------------------------------------------------------------

/**
 * What the routes use of a sandbox: some of its parts (always the current ones: a reset or a
 * restore swaps them) and its operations in narrow groups, each a part of its own (a desk over
 * the current parts, the same call as the Sandbox method of that name, which delegates to it). A
 * route list names the ones it uses (`Route<'registry' | 'records'>`) and its handlers receive
 * only those. The Sandbox (../sandbox.ts) builds them; only `state` and the scenario target are
 * the Sandbox itself. Declared here, since sandbox.ts imports the route table.
 */
export interface RouteDeps {
  /** Connections, tokens and each connection's data. */
  readonly registry: ConnectionRegistry;
  readonly clock: Clock;
  readonly dispatcher: Dispatcher;
  /** Serialised list pages, per collection, until it changes. */
  readonly pages: PageCache;
  /** Serialised passthrough answers, per connection, while its data stays the same. */
  readonly passthroughAnswers: PassthroughCache;
  /** Connections: exchange, list, status, removal (../connection-desk.ts). */
  readonly connections: ConnectionDesk;
  /** A connection's records, written straight in its store (../record-desk.ts). */
  readonly records: RecordDesk;
  /** The delivery log, redelivery, retry now and delivery chaos (../delivery-desk.ts). */
  readonly deliveries: DeliveryDesk;
  /** The runtime fault rules and each connection's downstream faults (../fault-desk.ts). */
  readonly faults: FaultDesk;
  /** A tenant's request journal (../journal-desk.ts). */
  readonly journal: JournalDesk;
  /** Reset, snapshot and restore: they swap the parts themselves, so the Sandbox (../sandbox.ts) does them. */
  readonly state: {
    reset(options?: { apiKey?: string }): void;
    snapshot(options?: { apiKey?: string }): SandboxSnapshot;
    restore(snapshot: unknown, options?: { apiKey?: string }): void;
    /** The same, giving the event loop turns while it works (docs/decisions/0040). */
    snapshotInTurns(options?: { apiKey?: string }): Promise<SandboxSnapshot>;
    restoreInTurns(snapshot: unknown, options?: { apiKey?: string }): Promise<void>;
  };
  readonly scenarios: {
    /** The sandbox a run plays on. */
    readonly target: ScenarioSandbox;
    /** Loads the engine (none in a browser). */
    readonly platform: Pick<Platform, 'loadScenarios'>;
    /** The most records a run through the control API may create. */
    readonly repeatLimit: number;
    /** The most bytes of record fields (as JSON) a run through the control API may write. */
    readonly fieldBytesLimit: number;
  };
  /** The OpenAPI document of these routes, as JSON text (built on first use). */
  openApiJson(): Promise<string>;
  /** The client-check, when it is on (`serve --client-check`, `crm-sandbox client-check`). */
  readonly clientCheck: ClientCheck | undefined;
}

/** What a route handler gets of its request, with what the core already worked out. */
export interface RouteContext {
  readonly request: SandboxRequest;
  /** Path parameters, decoded. */
  readonly params: Record<string, string>;
  /** The caller's API token (checked): its tenant. '' on public routes and for the admin. */
  readonly apiKey: string;
  /** The caller sent the admin key (only routes marked `admin` take it). */
  readonly admin: boolean;
  /** An admin key is configured (`--admin-key`): what a 403 for `?all=true` says. */
  readonly adminKeyConfigured: boolean;
  /** The parsed query, shared by the requests that send the same text: read it, never change it (copy it first). */
  readonly query: URLSearchParams;
  /** The JSON body as an object; 415/400 if it is not one. Parsed once, on first call. */
  body(): Record<string, unknown>;
  /**
   * The same body, read only (deeply frozen), shared with every request that sent the same text:
   * for routes that only read their body (a search, the passthrough), it is parsed once per text,
   * not once per request. `body()` answers the same object afterwards in this request.
   */
  sharedBody(): Readonly<Record<string, unknown>>;
  /** The caller's connection `connectionId` (default: the path's): another tenant's is a 404, as a missing one. */
  connection(connectionId?: string): ConnectionState;
  /** The connection of an access token the caller may reach (else a 401); counts as activity on it, and is the request's connection in the journal. */
  connectionByToken(accessToken: string): ConnectionState;
  /** What the route found out about the request, for the journal. */
  readonly note: RequestNote;
}

/** Filled in while a request is answered: the connection it acted on. */
export interface RequestNote {
  connectionId: string | undefined;
}

export type RouteHandler<Uses extends keyof RouteDeps = never> = (ctx: RouteContext, deps: Pick<RouteDeps, Uses>) => Reply | Promise<Reply>;

// --- What a route declares -------------------------------------------------------------------

/** A JSON Schema written by hand (query parameters, which the routes read one by one, not through zod). */
export type JsonSchema = Record<string, unknown>;

export interface QueryParameter {
  name: string;
  required?: boolean;
  /** Its text, or one made when the document is built from what the document's schemas module holds (as `ok.schema`). */
  description: string | ((schemas: typeof ResponseSchemas) => string);
  schema: JsonSchema;
}

export type RouteTag = 'Link' | 'Connections' | 'CRM' | 'Engagement' | 'Webhooks' | 'Passthrough' | 'Sandbox control' | 'Document';

/**
 * One route, declared once: how it is matched and authenticated, what the OpenAPI document says
 * of it (../openapi/build-document.ts derives the document from these), and its handler.
 */
export interface Route<Uses extends keyof RouteDeps = keyof RouteDeps> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** `/sandbox/connections/:connectionId/status`: `:name` segments are parameters (see PathMatcher). */
  pattern: string;
  /** Answers without the service-api-token header (health checks, the document, the link widget). */
  public?: boolean;
  /** Also takes the admin key (the operations over every tenant, `?all=true`); every other route refuses it as an unknown key. */
  admin?: boolean;
  operationId: string;
  summary: string;
  tag: RouteTag;
  /** The query parameters it reads, documented. */
  query?: QueryParameter[];
  /** The zod schema of its JSON body: the one it parses with, or (where it checks the body itself) one made when the document is built. */
  body?: z.ZodType | (() => z.ZodType);
  /**
   * Members of its body whose contents are a downstream system's own JSON, kept as sent, nulls
   * included (the passthrough's `body` and `query`); `additional` always is. See {@link nullRuleOf}.
   */
  nativeMembers?: readonly string[];
  /**
   * Success: status, description, and the body's schema, made when the document is built (so the
   * response schemas load with the document, not with every sandbox): a zod schema, or a `$ref`.
   */
  ok: { status: number; description: string; schema: (schemas: typeof ResponseSchemas) => z.ZodType | { $ref: string } };
  /** Error statuses particular to this route (the common ones are added by the document). */
  errors?: number[];
  handler: RouteHandler<Uses>;
}

// --- The context of one request --------------------------------------------------------------

/** The tags of the service's own routes: their bodies read a `null` member as one not given. */
const SERVICE_TAGS: ReadonlySet<RouteTag> = new Set<RouteTag>(['Link', 'Connections', 'CRM', 'Engagement', 'Webhooks', 'Passthrough']);
const ADDITIONAL_ONLY: ReadonlySet<string> = new Set(['additional']);
const nullRules = new WeakMap<Route<never>, ReadonlySet<string> | undefined>();

/**
 * How a route reads `null` in its body (decision 0043): on the service's own routes a member
 * given `null` is a member not given, at every depth but inside the members that carry a system's
 * own JSON (the answer: their names); the sandbox's control API keeps what it is sent (undefined).
 */
export function nullRuleOf(route: Route<never>): ReadonlySet<string> | undefined {
  if (nullRules.has(route)) return nullRules.get(route);
  const rule = SERVICE_TAGS.has(route.tag) ? (route.nativeMembers ? new Set(['additional', ...route.nativeMembers]) : ADDITIONAL_ONLY) : undefined;
  nullRules.set(route, rule);
  return rule;
}

/** Shared bodies without their nulls, by the shared body they came from (frozen, as that one is). */
const sharedWithoutNulls = new WeakMap<object, Readonly<Record<string, unknown>>>();

/** The {@link RouteContext} of one request: one object, its body parsed on demand. */
export class RequestContext implements RouteContext {
  readonly query: URLSearchParams;
  private parsed: Record<string, unknown> | undefined;

  /** `nullRule`: the route's {@link nullRuleOf}. */
  constructor(
    private readonly deps: Pick<RouteDeps, 'registry' | 'clock'>,
    readonly adminKeyConfigured: boolean,
    readonly request: SandboxRequest,
    readonly params: Record<string, string>,
    readonly apiKey: string,
    readonly admin: boolean,
    readonly note: RequestNote,
    private readonly nullRule?: ReadonlySet<string>,
  ) {
    this.query = queryOf(request.query);
  }

  body(): Record<string, unknown> {
    if (this.parsed !== undefined) return this.parsed;
    const parsed = parseJsonBody(this.request);
    this.parsed = this.hasNulls() ? withoutNulls(parsed, this.nullRule!) : parsed;
    return this.parsed;
  }

  sharedBody(): Readonly<Record<string, unknown>> {
    if (this.parsed !== undefined) return this.parsed;
    const shared = sharedJsonBody(this.request);
    if (!this.hasNulls()) return (this.parsed = shared);
    let kept = sharedWithoutNulls.get(shared);
    if (kept === undefined) sharedWithoutNulls.set(shared, (kept = deepFreeze(withoutNulls(shared, this.nullRule!))));
    return (this.parsed = kept as Record<string, unknown>);
  }

  /** Whether the body may hold a null the route's rule drops: most bodies have no `null` in their text at all. */
  private hasNulls(): boolean {
    return this.nullRule !== undefined && this.request.body?.includes('null') === true;
  }

  connection(connectionId: string = this.params.connectionId!): ConnectionState {
    return this.deps.registry.get(this.apiKey, connectionId);
  }

  connectionByToken(accessToken: string): ConnectionState {
    const connection = this.deps.registry.byToken(this.apiKey, accessToken);
    connection.lastActivity = this.deps.clock.now();
    this.note.connectionId = connection.connectionId;
    return connection;
  }
}

/** Longest query text {@link queryOf} keeps, and how many it keeps (then it starts again). */
const SHARED_QUERY_CHARS = 1024;
const SHARED_QUERIES = 256;
const sharedQueries = new Map<string, URLSearchParams>();

/**
 * The parsed query of a request, shared by the requests that send the same text (a client reads
 * the same page again and again): the handlers only read `ctx.query` (one that needs another
 * query makes a copy, as the inspector's does).
 */
function queryOf(text: string): URLSearchParams {
  if (text.length > SHARED_QUERY_CHARS) return new URLSearchParams(text);
  let query = sharedQueries.get(text);
  if (query === undefined) {
    query = new URLSearchParams(text);
    if (sharedQueries.size >= SHARED_QUERIES) sharedQueries.clear();
    sharedQueries.set(text, query);
  }
  return query;
}

// --- Helpers of the handlers -----------------------------------------------------------------

/** `?accessToken=`, documented. */
export const accessTokenQuery: QueryParameter = {
  name: 'accessToken',
  required: true,
  description: "The connection's accessToken",
  schema: { type: 'string', minLength: 1 },
};

/** `?all=true`: the operation over every tenant, with the admin key (else 403); see {@link everyTenant}. */
export const allTenantsQuery: QueryParameter = {
  name: 'all',
  description: "Every tenant's state, not only the caller's: needs the admin key (--admin-key) as service-api-token, else 403",
  schema: { type: 'boolean', default: false },
};

/** The 409 of a data route while the connection is NEW_CONNECTION: its data is still syncing (the service's rule). */
export function checkSynced(connection: ConnectionState): void {
  if (connection.status !== 'NEW_CONNECTION') return;
  throw new ApiError(409, ErrorCode.CONNECTION_SYNCING, 'data still syncing: the connection has not finished its initial sync', {
    status: connection.status,
  });
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
  if (value !== undefined && value !== 'true' && value !== 'false')
    throw ApiError.invalidField('all', `all must be true or false, got ${JSON.stringify(value)}`);
  const all = value === 'true';
  if (all && !ctx.admin) throw adminKeyRequired(`${operation}?all=true`, ctx.adminKeyConfigured);
  if (!all && ctx.admin)
    throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, "the admin key is no tenant's API key: it acts on every tenant at once, with ?all=true");
  return all;
}
