import type { SandboxRequest, SandboxResponse } from '../model/request.js';
import { type Duration, formatDuration, parseDuration } from '../shared/duration.js';
import { ApiError, ErrorCode, SandboxConfigError } from '../shared/errors.js';
import { checkOptionNames } from '../shared/option-names.js';
import { TenantConduct } from './conduct.js';
import type { HardCase } from './hard-cases.js';
import { buildReport, type ClientCheckReport, type ClientCheckSettings, type ReportOptions } from './report.js';
import { isServicePath, isTokenPreflight, type RequestFacts, requestFacts } from './request-facts.js';

/** How hard client-check makes a client's life. */
export interface ClientCheckOptions {
  /** Seed of the hard cases (which reads meet a 429 or a 503, and for how long). Default: the sandbox's seed. */
  seed?: number;
  /** Most records a page of a list or search holds, whatever `limit` asks (1 to 200). Default 10. */
  pageSize?: number;
  /** Retry-After of the injected 429s, in whole seconds: `2s`, or a seeded range `1s-2s` (the default). */
  retryAfter?: string;
  /** Inject 429s and 503s into the reads. Default true. */
  faults?: boolean;
  /** Delete each connection linked during the check this long after its exchange. Default: never. */
  deleteConnectionAfter?: Duration;
}

const CLIENT_CHECK_OPTION_NAMES = Object.keys({
  seed: true,
  pageSize: true,
  retryAfter: true,
  faults: true,
  deleteConnectionAfter: true,
} satisfies Record<keyof ClientCheckOptions, true>);

/** What client-check needs from the sandbox it watches. */
export interface ClientCheckHost {
  seed: number;
  apiKeys: readonly string[];
  /** The largest `limit` the lists and searches accept: a larger one is left for them to refuse. */
  maxLimit: number;
  now(): number;
  setTimer(delayMs: number, task: () => void): void;
  exists(connectionId: string): boolean;
  /** Deletes a connection as `DELETE /connection/connection` does. */
  deleteConnection(connectionId: string): void;
}

export const DEFAULT_PAGE_SIZE = 10;
export const DEFAULT_RETRY_AFTER = '1s-2s';
/** The longest Retry-After client-check injects: a careful client's run must stay short. */
const MAX_RETRY_AFTER_S = 60;

/**
 * `2s` → [2, 2]; `1s-2s` → [1, 2]: whole seconds from 1 to 60, as a Retry-After header carries
 * them. Else a SandboxConfigError naming `name`.
 */
export function parseRetryAfter(text: string, name: string): [number, number] {
  const seconds = text.split('-').map((end) => parseDuration(end.trim(), name) / 1000);
  const min = seconds[0]!;
  const max = seconds[1] ?? min;
  if (seconds.length > 2 || !seconds.every((value) => Number.isInteger(value) && value >= 1 && value <= MAX_RETRY_AFTER_S) || max < min) {
    throw new SandboxConfigError(`${name} must be whole seconds from 1s to ${MAX_RETRY_AFTER_S}s, or a range such as 1s-2s, got ${JSON.stringify(text)}`);
  }
  return [min, max];
}

/**
 * client-check: puts hard cases in the way of the clients that call the sandbox — reads that
 * meet a 429 with Retry-After or a 503 now and then (seeded), pages of at most `pageSize`
 * records, connections deleted mid-run if asked (new connections sync as the sandbox's options
 * say) — and judges each tenant's conduct against the rules in rules.ts. The core calls
 * {@link ClientCheck.observe} for every request; nothing is recorded for requests it does not
 * judge (the control API, public routes, unknown API keys).
 *
 * @example
 * const check = sandbox.startClientCheck({ deleteConnectionAfter: '5s' });
 * // … the client runs …
 * check.report('sandbox-api-key', { final: true }).rules.filter((rule) => rule.status === 'fail');
 */
export class ClientCheck {
  readonly settings: ClientCheckSettings;
  private readonly host: ClientCheckHost;
  private readonly retryAfterSeconds: [number, number];
  private readonly deleteAfterMs: number | undefined;
  private readonly tenants = new Map<string, { conduct: TenantConduct; startedAt: number }>();

  constructor(given: ClientCheckOptions, host: ClientCheckHost) {
    const options = checkOptionNames(given, CLIENT_CHECK_OPTION_NAMES, 'startClientCheck()', (_field, message) => new SandboxConfigError(message));
    this.host = host;
    if (options.seed !== undefined && !(Number.isSafeInteger(options.seed) && options.seed >= 0)) {
      throw new SandboxConfigError(`seed must be a non-negative integer, got ${JSON.stringify(options.seed)}`);
    }
    if (options.faults !== undefined && typeof options.faults !== 'boolean')
      throw new SandboxConfigError(`faults must be true or false, got ${JSON.stringify(options.faults)}`);
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > host.maxLimit)
      throw new SandboxConfigError(`pageSize must be an integer from 1 to ${host.maxLimit}, got ${pageSize}`);
    const retryAfter = options.retryAfter ?? DEFAULT_RETRY_AFTER;
    this.retryAfterSeconds = parseRetryAfter(retryAfter, 'retryAfter');
    this.deleteAfterMs = options.deleteConnectionAfter === undefined ? undefined : parseDuration(options.deleteConnectionAfter, 'deleteConnectionAfter');
    const [min, max] = this.retryAfterSeconds;
    this.settings = {
      seed: options.seed ?? host.seed,
      pageSize,
      retryAfter: min === max ? `${min}s` : `${min}s-${max}s`,
      faults: options.faults ?? true,
      deleteConnectionAfter: this.deleteAfterMs === undefined ? null : formatDuration(this.deleteAfterMs),
    };
    for (const apiKey of host.apiKeys) this.restart(apiKey);
  }

  /**
   * Starts watching a request as it arrives: a tenant's request to one of the service's
   * endpoints, or a browser's preflight asking to send the API token (counted for the tenant
   * when the sandbox has only one). Undefined for everything else, which costs nothing more.
   */
  observe(request: SandboxRequest, method: string, apiKey: string, at: number): Observation | undefined {
    if (!isServicePath(request.path)) return undefined;
    let tenant = this.tenants.get(apiKey);
    if (!tenant && apiKey === '' && this.tenants.size === 1 && isTokenPreflight(request)) tenant = this.tenants.values().next().value!;
    return tenant ? new Observation(this, tenant.conduct, request, method, at) : undefined;
  }

  /** A connection's status moved (its STATUS_CHANGE event). */
  statusChanged(connectionId: string, status: string, at: number): void {
    for (const { conduct } of this.tenants.values()) conduct.statusChanged(connectionId, status, at);
  }

  /**
   * The report of an API token's conduct since the check started (or was restarted for it).
   * `final`: the client is done, so a walk of pages still open is abandoned. A key that is no
   * tenant's is a 401, as for the API.
   */
  report(apiKey: string, options: ReportOptions = {}): ClientCheckReport {
    const tenant = this.tenantOf(apiKey);
    return buildReport(
      tenant.conduct,
      { settings: this.settings, startedAt: tenant.startedAt, now: this.host.now(), exists: (id) => this.host.exists(id) },
      options,
    );
  }

  /** The sandbox's state was reset or restored, an API token's or (without one) everyone's: see {@link TenantConduct.forgetState}. */
  stateReplaced(apiKey?: string): void {
    for (const [key, { conduct }] of this.tenants) if (apiKey === undefined || key === apiKey) conduct.forgetState();
  }

  /** Forgets an API token's conduct and starts its check (and its plan of hard cases) over. */
  restart(apiKey: string): void {
    const startedAt = this.host.now();
    // A reset or restore on a virtual clock may take time back before the start: `-1.500s` then.
    const since = (at: number) => `${at < startedAt ? '-' : '+'}${(Math.abs(at - startedAt) / 1000).toFixed(3)}s`;
    const conduct = new TenantConduct({ seed: this.settings.seed, faults: this.settings.faults, retryAfterSeconds: this.retryAfterSeconds }, since);
    this.tenants.set(apiKey, { conduct, startedAt });
  }

  private tenantOf(apiKey: string) {
    const tenant = this.tenants.get(apiKey);
    if (!tenant) throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, 'invalid service-api-token');
    return tenant;
  }

  /** @internal The page size and the hard case a request meets. */
  prepare(conduct: TenantConduct, facts: RequestFacts, request: SandboxRequest, at: number): { hardCase?: HardCase; request: SandboxRequest } {
    const hardCase = conduct.plan.decide(facts, at);
    if (hardCase) {
      conduct.injected(hardCase, facts, at);
      return { hardCase, request };
    }
    return { request: facts.kind === 'list' ? this.capped(request, facts.search) : request };
  }

  /** @internal After a successful exchange: the connection is deleted later, if asked. */
  linked(conduct: TenantConduct, connectionId: string): void {
    if (this.deleteAfterMs === undefined) return;
    this.host.setTimer(this.deleteAfterMs, () => {
      if (!this.host.exists(connectionId)) return;
      this.host.deleteConnection(connectionId);
      conduct.connectionDeleted(connectionId, this.host.now(), 'client-check');
    });
  }

  /**
   * The request with its `limit` at most the page size (a missing one set to it; a bad one left
   * for the route to refuse). A search may send its limit in the body: the query's, which the
   * route reads first, caps it.
   */
  private capped(request: SandboxRequest, search: boolean): SandboxRequest {
    const { pageSize } = this.settings;
    const limits = [...request.query.matchAll(/(?:^|&)limit=([^&]*)/g)];
    if (limits.length === 0) {
      const inBody = search ? bodyLimit(request.body) : undefined;
      if (inBody !== undefined && !(inBody > pageSize && inBody <= this.host.maxLimit)) return request;
      return { ...request, query: request.query === '' ? `limit=${pageSize}` : `${request.query}&limit=${pageSize}` };
    }
    const given = limits[0]![1]!;
    const number = /^\d+$/.test(given) ? Number(given) : Number.NaN;
    if (limits.length > 1 || !(number > pageSize && number <= this.host.maxLimit)) return request;
    return { ...request, query: request.query.replace(/(^|&)limit=[^&]*/, `$1limit=${pageSize}`) };
  }
}

/**
 * A search body's `limit` as the route reads it (a number, or a string of digits); NaN for one the
 * route refuses, undefined when there is none.
 */
function bodyLimit(body: string | undefined): number | undefined {
  let limit: unknown;
  try {
    limit = body ? (JSON.parse(body) as { limit?: unknown } | null)?.limit : undefined;
  } catch {
    return undefined;
  }
  if (limit === undefined || limit === null) return undefined;
  if (typeof limit === 'number') return Number.isInteger(limit) && limit >= 0 ? limit : Number.NaN;
  return typeof limit === 'string' && /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
}

/** What a request meets: a hard case (the error to answer instead, and the journal's label for it), or the request to answer. */
export interface PreparedRequest {
  error?: ApiError;
  label?: string;
  request: SandboxRequest;
}

/**
 * One request client-check watches, from arrival to answer. The core asks {@link prepare} what
 * to answer (a hard case, or the request with its page size) and tells {@link answered} the
 * answer.
 */
export class Observation {
  private readonly check: ClientCheck;
  private readonly conduct: TenantConduct;
  private readonly request: SandboxRequest;
  private readonly at: number;
  private readonly facts: RequestFacts;
  private hardCase: HardCase | undefined;

  constructor(check: ClientCheck, conduct: TenantConduct, request: SandboxRequest, method: string, at: number) {
    this.check = check;
    this.conduct = conduct;
    this.request = request;
    this.at = at;
    this.facts = requestFacts(request, method);
  }

  /**
   * Called once the request passed authentication and the fault rules: the hard case it meets
   * (an error to answer instead, and the journal's label for it), or the request to answer.
   */
  prepare(): PreparedRequest {
    const prepared = this.check.prepare(this.conduct, this.facts, this.request, this.at);
    this.hardCase = prepared.hardCase;
    return prepared.hardCase ? { error: prepared.hardCase.error, label: prepared.hardCase.label, request: this.request } : { request: prepared.request };
  }

  /** The answer, the connection the request acted on (if any) and the time it was ready. */
  answered(response: SandboxResponse, connectionId: string | undefined, now: number): void {
    const linked = this.conduct.answered(this.facts, this.at, now, response, connectionId, this.hardCase);
    if (linked !== undefined) this.check.linked(this.conduct, linked);
  }
}
