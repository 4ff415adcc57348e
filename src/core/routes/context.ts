import { ApiError } from '../../shared/errors.js';
import { queryParam, type Reply, type SandboxRequest } from '../http.js';
import type { RouteDefinition } from '../router.js';
import type { Sandbox } from '../sandbox.js';

/** What a route handler gets: the sandbox, the request and what the core already worked out. */
export interface RouteContext {
  readonly sandbox: Sandbox;
  readonly request: SandboxRequest;
  /** Path parameters, decoded. */
  readonly params: Record<string, string>;
  /** The caller's API token (checked), or '' on public routes. */
  readonly apiKey: string;
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
