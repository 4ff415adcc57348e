import { hash32 } from '../shared/random.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse, PassthroughMethod } from './types.js';
import { FieldError, isPlainObject } from './rest-engine.js';

/** Path parameters by name, from `:name` segments of a pattern. */
export type Params = Record<string, string>;

/** One route of a simulated system: a method (or several) on a path pattern such as `v1/:collection/:id`. */
export interface Route {
  method: PassthroughMethod | readonly PassthroughMethod[];
  pattern: string;
  run(params: Params, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse;
}

/** How a system says "no such path", "not with that method" and "bad input". */
export interface RouteErrors {
  notFound(request: DownstreamRequest, context: DownstreamContext): DownstreamResponse;
  methodNotAllowed(request: DownstreamRequest, allowed: readonly PassthroughMethod[], context: DownstreamContext): DownstreamResponse;
  invalid(error: FieldError, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse;
}

/** A path's segments, trailing slashes dropped (trimmed by a loop: `/\/+$/` backtracks quadratically on a long run of slashes). */
function segmentsOf(path: string): string[] {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(0, end).split('/');
}

function match(pattern: string, got: readonly string[]): Params | undefined {
  const want = pattern.split('/');
  if (want.length !== got.length) return undefined;
  const params: Params = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) {
      if (g === '') return undefined;
      params[w.slice(1)] = safeDecode(g);
    } else if (w !== g) {
      return undefined;
    }
  }
  return params;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Runs the first route whose pattern and method match. A path that matches only with other
 * methods is the system's 405 (or 404); a FieldError thrown by a route is its native 4xx.
 */
export function dispatch(routes: readonly Route[], errors: RouteErrors, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const allowed: PassthroughMethod[] = [];
  const got = segmentsOf(request.path);
  for (const route of routes) {
    const params = match(route.pattern, got);
    if (!params) continue;
    const methods = typeof route.method === 'string' ? [route.method] : route.method;
    if (!methods.includes(request.method)) {
      allowed.push(...methods.filter((method) => !allowed.includes(method)));
      continue;
    }
    try {
      return route.run(params, request, context);
    } catch (error) {
      if (error instanceof FieldError) return errors.invalid(error, request, context);
      throw error;
    }
  }
  return allowed.length > 0 ? errors.methodNotAllowed(request, allowed, context) : errors.notFound(request, context);
}

/** Whether a helper that answers either a value or an early response (a 404, a 422…) answered the response. */
export const isResponse = (value: unknown): value is DownstreamResponse => isPlainObject(value) && 'statusCode' in value && 'headers' in value;

/** A JSON answer with the system's fixed headers. */
export function reply(statusCode: number, body: unknown, headers: Record<string, string>): DownstreamResponse {
  return { statusCode, headers: { 'content-type': 'application/json;charset=utf-8', ...headers }, body };
}

/** A stable id-like token for a request (HubSpot's correlationId, say): the same request, the same token. */
export function requestToken(request: DownstreamRequest, length = 32): string {
  let out = '';
  for (let round = 0; out.length < length; round++) {
    out += hash32(`${round}:${request.method}:${request.path}:${JSON.stringify(request.query)}`).toString(16).padStart(8, '0');
  }
  return out.slice(0, length);
}

/** `requestToken` as a UUID. */
export function requestUuid(request: DownstreamRequest): string {
  const hex = requestToken(request, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * An integer query (or body) parameter within bounds. Missing → the default; not an integer or
 * below `min` → a FieldError for the system to answer natively; above `max` → `max`, as the
 * real APIs clamp page sizes.
 */
export function intParam(value: unknown, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : /^-?\d+$/.test(String(value)) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n)) throw new FieldError(name, `${name} must be an integer, got ${JSON.stringify(value)}`, 'param');
  if (n < min) throw new FieldError(name, `${name} must be at least ${min}, got ${n}`, 'param');
  return Math.min(n, max);
}
