import { PathMatcher } from '../shared/path-matcher.js';
import { isPieces, type Pieces, runToEnd } from '../shared/pieces.js';
import { hashHex, hashUuid } from '../shared/random.js';
import { FieldError, isPlainObject } from './rest-engine.js';
import type { DownstreamSystem } from './system.js';
import type { DownstreamAnswer, DownstreamContext, DownstreamRequest, DownstreamResponse, PassthroughMethod } from './types.js';

/** Path parameters by name, from `:name` segments of a pattern. */
export type Params = Record<string, string>;

/** One route of a simulated system: a method (or several) on a path pattern such as `v1/:collection/:id`. */
export interface Route {
  method: PassthroughMethod | readonly PassthroughMethod[];
  pattern: string;
  run(params: Params, request: DownstreamRequest, context: DownstreamContext): DownstreamAnswer;
}

/** How a system says "no such path", "not with that method" and "bad input". */
export interface RouteErrors {
  notFound(request: DownstreamRequest, context: DownstreamContext): DownstreamResponse;
  methodNotAllowed(request: DownstreamRequest, allowed: readonly PassthroughMethod[], context: DownstreamContext): DownstreamResponse;
  invalid(error: FieldError, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse;
}

/** Each system's route list, matched by the shared matcher (built once per list). */
const matchers = new WeakMap<readonly Route[], PathMatcher<Route>>();

function matcherOf(routes: readonly Route[]): PathMatcher<Route> {
  let matcher = matchers.get(routes);
  if (!matcher) {
    const entries = routes.map((route) => ({
      methods: typeof route.method === 'string' ? [route.method] : route.method,
      pattern: route.pattern,
      value: route,
    }));
    // The systems' paths: trailing slashes dropped, a malformed %-escape kept as sent.
    matcher = new PathMatcher(entries, { trimTrailingSlashes: true, malformedEscapes: 'keep' });
    matchers.set(routes, matcher);
  }
  return matcher;
}

/**
 * Runs the route that matches the request: the most specific pattern that takes its method (see
 * PathMatcher), whatever the list's order. A path that matches only with other methods is the
 * system's 405 (or 404); a FieldError thrown by a route is its native 4xx.
 */
export function dispatch(routes: readonly Route[], errors: RouteErrors, request: DownstreamRequest, context: DownstreamContext): DownstreamAnswer {
  const match = matcherOf(routes).match(request.method, request.path);
  if (match.kind === 'not-found') return errors.notFound(request, context);
  if (match.kind === 'method-not-allowed') return errors.methodNotAllowed(request, match.allowed as PassthroughMethod[], context);
  try {
    const answer = match.value.run(match.params, request, context);
    return isPieces(answer) ? invalidAsNative(answer, errors, request, context) : answer;
  } catch (error) {
    if (error instanceof FieldError) return errors.invalid(error, request, context);
    throw error;
  }
}

/** A walk in pieces whose FieldError, wherever in the walk, is the system's native 4xx, as one thrown at once is. */
function* invalidAsNative(
  pieces: Pieces<DownstreamResponse>,
  errors: RouteErrors,
  request: DownstreamRequest,
  context: DownstreamContext,
): Generator<void, DownstreamResponse, void> {
  try {
    return yield* pieces;
  } catch (error) {
    if (error instanceof FieldError) return errors.invalid(error, request, context);
    throw error;
  }
}

/**
 * A system's two ways to answer, from one: `answer` (a long walk in pieces) and `handle` (the same, at once).
 *
 * @example export const zoho: DownstreamSystem = { integrationId: 'zoho', ...answering((request, context) => dispatch(ROUTES, errors, request, context)), … };
 */
export function answering(answer: DownstreamSystem['answer']): Pick<DownstreamSystem, 'answer' | 'handle'> {
  return {
    answer,
    handle: (request, context) => {
      const answered = answer(request, context);
      return isPieces(answered) ? runToEnd(answered) : answered;
    },
  };
}

/** Whether a helper that answers either a value or an early response (a 404, a 422…) answered the response. */
export const isResponse = (value: unknown): value is DownstreamResponse => isPlainObject(value) && 'statusCode' in value && 'headers' in value;

/** A JSON answer with the system's fixed headers. */
export function reply(statusCode: number, body: unknown, headers: Record<string, string>): DownstreamResponse {
  return { statusCode, headers: { 'content-type': 'application/json;charset=utf-8', ...headers }, body };
}

/** Every value of a query key, in order (a repeated key gives several), from the passthrough's full query. */
export function queryValues(request: DownstreamRequest, name: string): string[] {
  if (request.search) return request.search.getAll(name);
  const value = request.query[name];
  return value === undefined ? [] : [value];
}

/** The request's whole query, repeated keys included, to build a link from. */
export const searchOf = (request: DownstreamRequest): URLSearchParams => new URLSearchParams(request.search ?? request.query);

/** A stable id-like token for a request (HubSpot's correlationId, say): the same request, the same token. */
export function requestToken(request: DownstreamRequest, length = 32): string {
  return hashHex(requestText(request), length);
}

/** `requestToken` as a UUID. */
export const requestUuid = (request: DownstreamRequest): string => hashUuid(requestText(request));

const requestText = (request: DownstreamRequest) => `${request.method}:${request.path}:${JSON.stringify(request.query)}`;

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
