import type { SandboxRequest } from '../model/request.js';
import { hash32 } from '../shared/random.js';
import { UNIFIED_ENGAGEMENT_OBJECTS } from '../unified/engagement-objects.js';

/** What a request to the service is, as far as the conduct rules care. */
export type RequestKind = 'list' | 'passthrough' | 'exchange' | 'webhook' | 'connection-delete' | 'other' | 'preflight';

/** The facts of one request the rules read, worked out once when it arrives. */
export interface RequestFacts {
  kind: RequestKind;
  method: string;
  path: string;
  /** The engagement list read (`users`, `mailboxes`, `contacts`…), for kind `list`. */
  list: string | undefined;
  /** Method, path, sorted query and a hash of the body: equal for a request and its retries. */
  identity: string;
  /** How a report shows the request: tokens and cursors cut short. */
  shown: string;
  accessToken: string | undefined;
  /** A connectionId the request names (DELETE /connection/connection). */
  connectionId: string | undefined;
  cursor: string | undefined;
  publicToken: string | undefined;
  /** The Origin header: a browser sent the request. */
  origin: string | undefined;
  /** A read that hard cases (429, 503) may meet: an engagement list, or a passthrough GET. */
  read: boolean;
}

/** The engagement lists (`GET /engagement/contacts`…): the paged reads, from the objects' descriptions. */
const LIST_PATHS = new Set(UNIFIED_ENGAGEMENT_OBJECTS.filter((object) => object.operations.includes('list')).map((object) => `/engagement/${object.many}`));

/** Every other route of the unified engagement objects: get, writes, searches, complete, start. */
const ENGAGEMENT_PATHS = UNIFIED_ENGAGEMENT_OBJECTS.flatMap((object) => [
  ...(object.one ? [`/engagement/${object.one}`] : []),
  ...(object.operations.includes('search') ? [`/engagement/${object.many}/search`] : []),
  ...(['complete', 'start'] as const).filter((verb) => object.operations.includes(verb)).map((verb) => `/engagement/${object.one}/${verb}`),
]);

/** The service's own endpoints (not the control API, the link widget's routes or the document). */
const SERVICE_PATHS = new Set([
  '/link/token',
  '/link/exchange',
  '/connection/connections',
  '/connection/connection',
  '/connection/webhook',
  ...LIST_PATHS,
  ...ENGAGEMENT_PATHS,
  '/crm/passthrough',
]);

/** Whether a path is one of the service's endpoints: the requests client-check judges. */
export function isServicePath(path: string): boolean {
  return SERVICE_PATHS.has(path);
}

/**
 * Whether a request is a browser's CORS preflight asking to send the service-api-token: a browser
 * about to send the API token (the request itself follows only if the server allows it, which
 * the sandbox does not).
 */
export function isTokenPreflight(request: SandboxRequest): boolean {
  return (
    request.method.toUpperCase() === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    (request.headers['access-control-request-headers'] ?? '')
      .toLowerCase()
      .split(',')
      .some((name) => name.trim() === 'service-api-token')
  );
}

/** Reads the facts of a request to a service endpoint (see {@link isServicePath}). */
export function requestFacts(request: SandboxRequest, method: string): RequestFacts {
  const { path } = request;
  const query = new URLSearchParams(request.query);
  const body = method === 'GET' || method === 'HEAD' ? undefined : jsonObject(request.body);
  const field = (name: string) => {
    const value = query.get(name) ?? body?.[name];
    return typeof value === 'string' ? value : undefined;
  };
  const kind: RequestKind =
    method === 'OPTIONS'
      ? 'preflight'
      : method === 'GET' && LIST_PATHS.has(path)
        ? 'list'
        : path === '/crm/passthrough'
          ? 'passthrough'
          : path === '/link/exchange'
            ? 'exchange'
            : path === '/connection/webhook'
              ? 'webhook'
              : path === '/connection/connection' && method === 'DELETE'
                ? 'connection-delete'
                : 'other';
  const sorted = [...query].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const identity = `${method} ${path}?${new URLSearchParams(sorted).toString()}#${request.body === undefined ? '' : hash32(request.body)}`;
  // An empty cursor, or 1 (which real clients send to start a walk: decision 0026), asks for the first page.
  const cursor = query.get('cursor') ?? undefined;
  return {
    kind,
    method,
    path,
    list: kind === 'list' ? path.slice('/engagement/'.length) : undefined,
    identity,
    shown: show(method, path, query, body),
    accessToken: field('accessToken'),
    connectionId: field('connectionId'),
    cursor: cursor === '' || cursor === '1' ? undefined : cursor,
    publicToken: kind === 'exchange' ? field('publicToken') : undefined,
    origin: request.headers.origin,
    read: (kind === 'list' && method === 'GET') || (kind === 'passthrough' && method === 'POST' && body?.method === 'GET'),
  };
}

/** A token or cursor cut to its first characters: enough to tell them apart in a report. */
export function short(value: string, keep = 12): string {
  return value.length <= keep + 1 ? value : `${value.slice(0, keep)}…`;
}

/** `GET /engagement/users?accessToken=access_1a2b3c…&limit=10`, `POST /crm/passthrough (GET crm/v3/objects/contacts)`. */
function show(method: string, path: string, query: URLSearchParams, body: Record<string, unknown> | undefined): string {
  const params = [...query].map(([name, value]) => `${name}=${name === 'accessToken' ? short(value) : name === 'cursor' ? short(value, 8) : value}`);
  const shownQuery = params.length > 0 ? `?${params.join('&')}` : '';
  const passthrough =
    path === '/crm/passthrough' && body && typeof body.method === 'string' && typeof body.path === 'string'
      ? ` (${body.method} ${body.path.slice(0, 80)})`
      : '';
  return `${method} ${path}${shownQuery}${passthrough}`;
}

/** The body as a JSON object, or undefined (no body, not JSON, not an object). */
function jsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
