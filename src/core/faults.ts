import * as z from 'zod';
import { parseDuration, requireUnit } from '../shared/duration.js';
import { ApiError, ErrorCode } from '../shared/errors.js';
import { once } from '../shared/once.js';
import { Random } from '../shared/random.js';
import { parseOrThrow } from '../shared/validation.js';
import type { SandboxRequest } from './http.js';

/**
 * One fault rule: what to inject into the service's own endpoints, and where. Every knob is
 * optional; `route` and `connectionId` narrow where it applies (both: where both hold).
 *
 * @example { route: '/engagement', latency: '50ms-400ms', errorRate: 0.05 }
 */
export interface FaultRule {
  /** Path prefix (`/engagement`), optionally after a method (`POST /crm/passthrough`). Default: every service endpoint. */
  route?: string;
  /** Only requests that act on this connection (by accessToken or connectionId). */
  connectionId?: string;
  /** Added latency: `200ms`, or a range `50ms-400ms` drawn uniformly (seeded); a duration needs its unit. */
  latency?: string;
  /** Share of requests answered with `errorStatus` instead, 0 to 1 (seeded). */
  errorRate?: number;
  /** The status of injected errors. Default 503. */
  errorStatus?: number;
  /** Per API token: `100/min` (also `/s`, `/h`); over it, a 429 with `Retry-After`. */
  rateLimit?: string;
}

/** The override headers a single request may carry (like Prism's `Prefer`). */
export const FAULT_HEADERS = { forceStatus: 'x-sandbox-force-status', latency: 'x-sandbox-latency' } as const;

/** One rule's schema, built on first use, not at import (docs/decisions/0035). */
export const ruleSchema = once(() =>
  z
    .object({
      route: z
        .string()
        .regex(/^(?:(GET|HEAD|POST|PUT|PATCH|DELETE) )?\//, 'must be a path prefix such as /engagement, optionally after a method: POST /crm/passthrough')
        .optional(),
      connectionId: z.string().min(1).optional(),
      latency: z.union([z.string(), z.number().nonnegative()]).optional(),
      errorRate: z.number().min(0).max(1).optional(),
      errorStatus: z.number().int().min(400).max(599).optional(),
      rateLimit: z.string().optional(),
    })
    .strict(),
);
export const rulesSchema = once(() => z.object({ rules: z.array(ruleSchema()) }).strict());

interface ParsedRule {
  rule: FaultRule;
  method: string | undefined;
  pathPrefix: string;
  connectionId: string | undefined;
  latency: [number, number] | undefined;
  errorRate: number;
  errorStatus: number;
  rateLimit: { count: number; windowMs: number } | undefined;
}

/** What the faults decided for one request. */
export interface FaultDecision {
  /** Milliseconds to hold the answer back. */
  latencyMs: number;
  /** An error to answer instead of running the request. */
  error: ApiError | undefined;
  /** What was injected, for the journal: `latency 120ms, error-rate 503`. */
  label: string | undefined;
}

const WINDOWS: Record<string, number> = { s: 1000, sec: 1000, second: 1000, m: 60_000, min: 60_000, minute: 60_000, h: 3_600_000, hour: 3_600_000 };

/** `100/min` → 100 requests per 60 000 ms; else a 400 naming `field`. */
export function parseRateLimit(text: string, field: string): { count: number; windowMs: number } {
  const match = /^\s*(\d+)\s*\/\s*([a-z]+)\s*$/.exec(text);
  const windowMs = match ? WINDOWS[match[2]!] : undefined;
  const count = match ? Number(match[1]) : 0;
  if (!match || windowMs === undefined || count < 1) {
    throw ApiError.invalidField(field, `${field} must be a count per s, min or h, such as 100/min; got ${JSON.stringify(text)}`);
  }
  return { count, windowMs };
}

/** `200ms` → [200, 200]; `50ms-400ms` → [50, 400]; else a 400 naming `field`. */
/**
 * The most latency a fault may add, from a rule or the `x-sandbox-latency` header: past any HTTP
 * client's usual timeout (10-30 s), so every timeout path can be tested, yet no request holds a
 * socket of the server for long.
 */
export const MAX_LATENCY_MS = 60_000;

export function parseLatency(value: string | number, field: string): [number, number] {
  const wrap = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw ApiError.invalidField(field, `${(error as Error).message} (or a range such as 50ms-400ms)`);
    }
  };
  // A number is read as its text, as every duration is: 0 is none, any other needs its unit.
  const text = String(value);
  const [low, high, ...rest] = text.split('-');
  if (rest.length > 0 || low === undefined)
    throw ApiError.invalidField(field, `${field} must be a duration or a range such as 50ms-400ms, got ${JSON.stringify(value)}`);
  try {
    requireUnit(text, field);
  } catch (error) {
    throw ApiError.invalidField(field, (error as Error).message);
  }
  const min = wrap(() => parseDuration(low.trim(), field));
  const max = high === undefined ? min : wrap(() => parseDuration(high.trim(), field));
  if (max < min) throw ApiError.invalidField(field, `${field} range must go from low to high, got ${JSON.stringify(value)}`);
  if (max > MAX_LATENCY_MS)
    throw ApiError.invalidField(field, `${field} must be at most ${MAX_LATENCY_MS / 1000}s, got ${JSON.stringify(value)}`, { max: MAX_LATENCY_MS });
  return [min, max];
}

/**
 * Parses fault rules (one rule, `{ rules: [...] }` or a list); a bad one is a 400 naming the
 * field (`rules[1].errorRate`).
 */
export function parseFaultRules(value: unknown): FaultRule[] {
  // No rules (a sandbox's standing ones are most often none): what the parse below answers, without building its schemas.
  if (noRules(value)) return [];
  const body = Array.isArray(value) ? { rules: value } : value;
  const listed = typeof body === 'object' && body !== null && 'rules' in body;
  // Two shapes, checked apart: a union would report its issues without the field's path.
  const rules = listed ? parseOrThrow(rulesSchema(), body).rules : [parseOrThrow(ruleSchema(), body)].filter((rule) => Object.keys(rule).length > 0);
  const prefix = (i: number) => (listed ? `rules[${i}].` : '');
  rules.forEach((rule, i) => {
    if (rule.latency !== undefined) parseLatency(rule.latency, `${prefix(i)}latency`);
    if (rule.rateLimit !== undefined) parseRateLimit(rule.rateLimit, `${prefix(i)}rateLimit`);
  });
  return rules as FaultRule[];
}

/** `[]`, or a plain object with no key (`{}`, one rule with no knob): both parse to no rule. */
function noRules(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype && Object.keys(value).length === 0;
}

function compile(rule: FaultRule): ParsedRule {
  const [first, second] = (rule.route ?? '/').split(' ');
  return {
    rule,
    method: second === undefined ? undefined : first,
    pathPrefix: second ?? first ?? '/',
    connectionId: rule.connectionId,
    latency: rule.latency === undefined ? undefined : parseLatency(rule.latency, 'latency'),
    errorRate: rule.errorRate ?? 0,
    errorStatus: rule.errorStatus ?? 503,
    rateLimit: rule.rateLimit === undefined ? undefined : parseRateLimit(rule.rateLimit, 'rateLimit'),
  };
}

/**
 * One layer of rules with its own seeded stream and rate windows, so what one layer draws never
 * shifts the other's faults.
 */
class FaultLayer {
  rules: ParsedRule[] = [];
  random: Random;
  /** Requests counted per rule and API token in the current window. */
  readonly windows = new Map<string, { start: number; count: number }>();
  private readonly seed: number;
  private readonly label: string;

  constructor(seed: number, label: string) {
    this.seed = seed;
    this.label = label;
    this.random = new Random(seed).fork(label);
  }

  /** Replaces the rules (checked: a bad one throws a 400 naming it) and starts over. */
  set(rules: unknown): void {
    this.rules = parseFaultRules(rules).map(compile);
    this.restart();
  }

  /** The random stream and the rate windows back to their start. */
  restart(): void {
    this.random = new Random(this.seed).fork(this.label);
    this.windows.clear();
  }

  get current(): FaultRule[] {
    return this.rules.map((parsed) => ({ ...parsed.rule }));
  }
}

/**
 * Injects faults into the service's own endpoints: latency, errors at a rate, a rate limit per
 * API token, and the per-request override headers. Three layers of rules apply together, in
 * this order:
 *
 * - the standing rules, given when the sandbox is made (`createSandbox({ faults })`, the fault
 *   flags of `serve`): configured by whoever runs it, for every API token;
 * - the server's runtime rules, which the sandbox's owner replaces (`setFaults()` in code, or
 *   `PUT /sandbox/faults?all=true` with the admin key): for every API token too;
 * - each tenant's runtime rules (`PUT /sandbox/faults` with its API key,
 *   `setFaults(rules, { apiKey })`): for that API token's requests only.
 *
 * Each layer draws from its own seeded stream, so what one draws never shifts another's faults,
 * and no tenant's requests move another tenant's draws: a runtime layer's stream (a tenant's
 * also draws that tenant's `x-sandbox-latency` ranges) starts over whenever its rules are set,
 * the standing one at a full reset. The same rules and the same calls give the same faults.
 */
export class FaultInjector {
  private readonly standing: FaultLayer;
  private readonly runtime: FaultLayer;
  /** Each tenant's own runtime rules, by API key (every accepted key has one). */
  private readonly tenants = new Map<string, FaultLayer>();
  /** How many layers hold rules: the common case, none, skips all fault work. */
  private layersWithRules = 0;

  constructor(seed: number, apiKeys: readonly string[]) {
    this.standing = new FaultLayer(seed, 'faults:standing');
    // The label the single layer had before there were more: runtime rules draw as they did.
    this.runtime = new FaultLayer(seed, 'faults');
    // A tenant's layer draws as the single runtime layer did when each tenant was alone.
    for (const apiKey of apiKeys) this.tenants.set(apiKey, new FaultLayer(seed, 'faults'));
  }

  /** The runtime rules in force: the server's, or with `apiKey` that tenant's. */
  current(apiKey?: string): FaultRule[] {
    return this.layer(apiKey).current;
  }

  /** The standing rules. */
  get standingRules(): FaultRule[] {
    return this.standing.current;
  }

  get active(): boolean {
    return this.layersWithRules > 0;
  }

  /** Replaces the runtime rules (the server's, or with `apiKey` that tenant's) and starts their stream and rate windows over. */
  set(rules: unknown, apiKey?: string): FaultRule[] {
    this.replace(this.layer(apiKey), rules);
    return this.current(apiKey);
  }

  /** Sets the standing rules: once, when the sandbox is made. */
  setStanding(rules: unknown): void {
    this.replace(this.standing, rules);
  }

  /** The standing rules' stream and rate windows back to their start, as in a fresh sandbox. */
  restartStanding(): void {
    this.standing.restart();
  }

  private layer(apiKey: string | undefined): FaultLayer {
    if (apiKey === undefined) return this.runtime;
    const layer = this.tenants.get(apiKey);
    if (!layer) throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, 'invalid service-api-token');
    return layer;
  }

  private replace(layer: FaultLayer, rules: unknown): void {
    const had = layer.rules.length > 0;
    layer.set(rules);
    this.layersWithRules += Number(layer.rules.length > 0) - Number(had);
  }

  /**
   * Decides one request's faults. `connectionOf` finds the connection the request names, asked
   * only when a rule is scoped to one. Undefined when nothing applies (the common, cheap case).
   * The standing rules apply first, then the server's runtime ones, then the caller's own; every
   * matching rule adds its latency, and the first error wins.
   */
  decide(request: SandboxRequest, apiKey: string, now: number, connectionOf: () => string | undefined): FaultDecision | undefined {
    const forced = request.headers[FAULT_HEADERS.forceStatus];
    const latencyHeader = request.headers[FAULT_HEADERS.latency];
    if (!this.active && forced === undefined && latencyHeader === undefined) return undefined;
    const tenant = this.tenants.get(apiKey);
    const labels: string[] = [];
    let latencyMs = 0;
    let error: ApiError | undefined;
    if (latencyHeader !== undefined) {
      const [min, max] = parseLatency(latencyHeader, FAULT_HEADERS.latency);
      latencyMs += between((tenant ?? this.runtime).random, min, max);
    }
    if (forced !== undefined) {
      const status = Number(forced);
      if (!/^\d{3}$/.test(forced) || status < 400 || status > 599) {
        throw ApiError.invalidField(FAULT_HEADERS.forceStatus, `${FAULT_HEADERS.forceStatus} must be a status from 400 to 599, got ${JSON.stringify(forced)}`);
      }
      error = injected(status, 'forced');
      labels.push(`forced ${status}`);
    }
    let connectionId: string | undefined | null = null;
    for (const layer of tenant ? [this.standing, this.runtime, tenant] : [this.standing, this.runtime]) {
      for (const [index, rule] of layer.rules.entries()) {
        if (rule.method !== undefined && rule.method !== request.method.toUpperCase()) continue;
        if (!request.path.startsWith(rule.pathPrefix)) continue;
        if (rule.connectionId !== undefined) {
          if (connectionId === null) connectionId = connectionOf();
          if (connectionId !== rule.connectionId) continue;
        }
        if (rule.latency) latencyMs += between(layer.random, rule.latency[0], rule.latency[1]);
        if (error) continue;
        if (rule.rateLimit) error = countRate(layer, index, rule.rateLimit, apiKey, now);
        if (error) {
          labels.push('rate-limit 429');
          continue;
        }
        if (rule.errorRate > 0 && layer.random.uint32() / 0x1_0000_0000 < rule.errorRate) {
          error = injected(rule.errorStatus, 'error-rate');
          labels.push(`error-rate ${rule.errorStatus}`);
        }
      }
    }
    if (latencyMs > 0) labels.unshift(`latency ${latencyMs}ms`);
    return labels.length === 0 ? undefined : { latencyMs, error, label: labels.join(', ') };
  }
}

function between(random: Random, min: number, max: number): number {
  return min === max ? min : min + Math.floor((random.uint32() / 0x1_0000_0000) * (max - min + 1));
}

function countRate(layer: FaultLayer, index: number, limit: { count: number; windowMs: number }, apiKey: string, now: number): ApiError | undefined {
  const key = `${index}\u0000${apiKey}`;
  const start = now - (now % limit.windowMs);
  let window = layer.windows.get(key);
  if (!window || window.start !== start) {
    window = { start, count: 0 };
    layer.windows.set(key, window);
  }
  window.count++;
  if (window.count <= limit.count) return undefined;
  const retryAfter = Math.max(1, Math.ceil((start + limit.windowMs - now) / 1000));
  return new ApiError(
    429,
    ErrorCode.RATE_LIMITED,
    `rate limit of ${limit.count} requests per ${limit.windowMs / 1000}s exceeded for this API token; retry after ${retryAfter}s`,
    { limit: limit.count, windowMs: limit.windowMs, retryAfter },
    { 'retry-after': String(retryAfter) },
  );
}

function injected(status: number, cause: 'forced' | 'error-rate'): ApiError {
  return new ApiError(status, ErrorCode.INJECTED_FAULT, `injected fault: ${status} (${cause === 'forced' ? FAULT_HEADERS.forceStatus : 'errorRate'})`, {
    fault: cause,
  });
}
