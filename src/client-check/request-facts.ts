import type { SandboxRequest } from '../model/request.js';
import { hash32 } from '../shared/random.js';
import { UNIFIED_CRM_OBJECTS } from '../unified/crm-objects.js';
import { UNIFIED_ENGAGEMENT_OBJECTS } from '../unified/engagement-objects.js';

/** What a request to the service is, as far as the conduct rules care. */
export type RequestKind = 'list' | 'passthrough' | 'exchange' | 'webhook' | 'connection-delete' | 'other' | 'preflight';

/** The facts of one request the rules read, worked out once when it arrives. */
export interface RequestFacts {
  kind: RequestKind;
  method: string;
  path: string;
  /**
   * The list read, for kind `list`: an engagement list (`users`, `mailboxes`, `contacts`…), a
   * unified CRM list (`/crm/contacts`) or a search (`/crm/contacts/search`, `/engagement/contacts/search`).
   */
  list: string | undefined;
  /** What a walk of pages is of: the list, and for a search its filters too (another search is another walk). */
  walk: string | undefined;
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
  /** A read that hard cases (429, 503) may meet: a list or search, a unified record read, or a passthrough GET. */
  read: boolean;
  /** A unified search: its `limit` may be in the body (the page size cap puts one in the query, which wins). */
  search: boolean;
}

/** The service's own endpoints (not the control API, the link widget's routes or the document). */
const SERVICE_PATHS = new Set([
  '/link/token',
  '/link/exchange',
  '/connection/connections',
  '/connection/connection',
  '/connection/webhook',
  '/crm/passthrough',
]);

/** The engagement lists (`/engagement/users`, `/engagement/contacts`…), from the objects' descriptions: listed by their name, as before. */
const ENGAGEMENT_LISTS = new Set(
  UNIFIED_ENGAGEMENT_OBJECTS.filter((object) => object.operations.includes('list')).map((object) => `/engagement/${object.many}`),
);

/** The unified objects' routes: their lists and searches, and their record routes (get, create, update, details, batch, complete, start). */
const UNIFIED_LISTS = new Set(UNIFIED_CRM_OBJECTS.map((object) => `/crm/${object.many}`));
const UNIFIED_SEARCHES = new Set([
  ...UNIFIED_CRM_OBJECTS.map((object) => `/crm/${object.many}/search`),
  ...UNIFIED_ENGAGEMENT_OBJECTS.filter((object) => object.operations.includes('search')).map((object) => `/engagement/${object.many}/search`),
]);
const UNIFIED_RECORD_PATHS = new Set([
  ...UNIFIED_CRM_OBJECTS.flatMap((object) => ['', '/details', '/batch'].map((tail) => `/crm/${object.one}${tail}`)),
  ...UNIFIED_ENGAGEMENT_OBJECTS.flatMap((object) =>
    object.one
      ? [
          `/engagement/${object.one}`,
          ...(['complete', 'start'] as const).filter((verb) => object.operations.includes(verb)).map((verb) => `/engagement/${object.one}/${verb}`),
        ]
      : [],
  ),
]);

/** Whether a path is one of the service's endpoints: the requests client-check judges. */
export function isServicePath(path: string): boolean {
  return SERVICE_PATHS.has(path) || ENGAGEMENT_LISTS.has(path) || UNIFIED_LISTS.has(path) || UNIFIED_SEARCHES.has(path) || UNIFIED_RECORD_PATHS.has(path);
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
  const search = method === 'POST' && UNIFIED_SEARCHES.has(path);
  const unifiedList = (method === 'GET' && UNIFIED_LISTS.has(path)) || search;
  const kind: RequestKind =
    method === 'OPTIONS'
      ? 'preflight'
      : (method === 'GET' && ENGAGEMENT_LISTS.has(path)) || unifiedList
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
  // A search takes its cursor in the query or the body (the query's wins), as text or a number.
  const cursor = query.get('cursor') ?? (search ? textOf(body?.cursor) : undefined);
  const list = kind !== 'list' ? undefined : unifiedList ? path : path.slice('/engagement/'.length);
  // (The engagement lists keep their short names, users and mailboxes as before; their searches go by path, as the CRM ones.)
  return {
    kind,
    method,
    path,
    list,
    walk: list === undefined ? undefined : search ? `${list} ${hash32(canonical(body?.filters ?? null))}` : list,
    identity,
    shown: show(method, path, query, body),
    accessToken: field('accessToken'),
    connectionId: field('connectionId'),
    // An empty cursor and `1` read as the first page, as the lists take them.
    cursor: cursor === '' || cursor === '1' ? undefined : cursor,
    publicToken: kind === 'exchange' ? field('publicToken') : undefined,
    origin: request.headers.origin,
    read:
      (kind === 'list' && (method === 'GET' || search)) ||
      (method === 'GET' && UNIFIED_RECORD_PATHS.has(path)) ||
      (kind === 'passthrough' && method === 'POST' && body?.method === 'GET'),
    search,
  };
}

/** A search body's cursor as the route reads it: a string, or a number as its text. */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** JSON with every object's keys sorted: the same filters however a client orders them. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
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
