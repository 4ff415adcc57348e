import { ApiError, ErrorCode } from '../shared/errors.js';
import { headerText, isHeaderSafe } from '../shared/header-text.js';

export type { SandboxRequest, SandboxResponse } from '../model/request.js';

import type { SandboxRequest, SandboxResponse } from '../model/request.js';
import { jsonTooDeep, MAX_JSON_DEPTH, MAX_SNAPSHOT_DEPTH, tooDeepPhrase } from '../shared/json-depth.js';
import { utf8ByteLength } from '../shared/text-codec.js';
import { CachedPage } from './page-cache.js';

/** Bodies over 1 MiB are refused with a 413. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** `PUT /sandbox/snapshot` takes a whole state: bodies up to 64 MiB. */
export const SNAPSHOT_BODY_BYTES = 64 * 1024 * 1024;

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

// The path first: no request but a snapshot's pays for the case-insensitive method.
const isSnapshotWrite = (method: string, path: string) => path === '/sandbox/snapshot' && method.toUpperCase() === 'PUT';

/** The most a request's body may take, in bytes: {@link SNAPSHOT_BODY_BYTES} for `PUT /sandbox/snapshot`, else {@link MAX_BODY_BYTES}. */
export function bodyLimit(method: string, path: string): number {
  return isSnapshotWrite(method, path) ? SNAPSHOT_BODY_BYTES : MAX_BODY_BYTES;
}

/** How deep a request's JSON may nest: {@link MAX_SNAPSHOT_DEPTH} for `PUT /sandbox/snapshot`, else {@link MAX_JSON_DEPTH}. */
export function depthLimit(method: string, path: string): number {
  return isSnapshotWrite(method, path) ? MAX_SNAPSHOT_DEPTH : MAX_JSON_DEPTH;
}

/** A 413: the core answers it, and the dev server too when it stops reading a body early. */
export function payloadTooLarge(limit = MAX_BODY_BYTES): ApiError {
  return new ApiError(413, ErrorCode.PAYLOAD_TOO_LARGE, `request body is over the ${limit} byte limit`, { limit });
}

/** What a route returns: a value to serialise, JSON text it already has (maybe encoded too), or a kept page (a 200). */
export type Reply = { status?: number; body: unknown; headers?: Record<string, string> } | { status?: number; json: string; encoded?: Uint8Array } | CachedPage;

export function respond(reply: Reply): SandboxResponse {
  if (reply instanceof CachedPage) return pageResponse(reply);
  if ('json' in reply) {
    // Built in place (no spread of a throw-away object): most answers are kept pages.
    const response: SandboxResponse = { status: reply.status ?? 200, headers: { 'content-type': JSON_CONTENT_TYPE }, body: reply.json };
    if (reply.encoded) response.encoded = reply.encoded;
    return response;
  }
  const headers = reply.headers ? { 'content-type': JSON_CONTENT_TYPE, ...safeHeaders(reply.headers) } : { 'content-type': JSON_CONTENT_TYPE };
  return { status: reply.status ?? 200, headers, body: JSON.stringify(reply.body) };
}

/** Most characters one header of a route's answer carries: whatever a route puts there, the answer's headers stay under 8 KiB. */
export const MAX_HEADER_CHARS = 4096;

/**
 * A route's headers as they can go out, whatever the route put in them: a value with a character a header may not
 * carry is percent-encoded, a longer one cut. The routes build theirs so already (unified-shared's writeAnswer); this
 * is the guard that a new one cannot turn a write that was done into a 500 (node refuses such a header only once the
 * answer is written, after the work).
 */
function safeHeaders(headers: Record<string, string>): Record<string, string> {
  let safe: Record<string, string> | undefined;
  for (const name in headers) {
    const value = headers[name]!;
    if (isHeaderSafe(value) && value.length <= MAX_HEADER_CHARS) continue;
    safe ??= { ...headers };
    safe[name] = headerText(value).slice(0, MAX_HEADER_CHARS);
  }
  return safe ?? headers;
}

/**
 * A kept page's answer: its bytes for the wire, its text decoded only when read (a dev server never reads it; a
 * Fetch answer is made from the bytes too).
 */
function pageResponse(page: CachedPage): SandboxResponse {
  return new PageResponse(page);
}

/** A kept page's answer, one shape for all (an object literal with a getter made a closure per answer: 0.5 µs a request). */
class PageResponse implements SandboxResponse {
  readonly status = 200;
  readonly headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
  readonly encoded: Uint8Array;
  constructor(private readonly page: CachedPage) {
    this.encoded = page.encoded;
  }
  get body(): string {
    return this.page.json;
  }
}

export function respondError(error: ApiError): SandboxResponse {
  return respond({ status: error.status, body: error.toBody(), headers: error.headers ?? {} });
}

/** Reads one query parameter; a repeated parameter is a 400, since which one counts is anyone's guess. */
export function queryParam(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw ApiError.invalidField(name, `${name} must be given once, got ${values.length} values`);
  return values[0];
}

/**
 * Parses a JSON body into an object: 415 for another content type, 400 for bad JSON, JSON nested
 * deeper than {@link depthLimit} (read from the text before parsing), or a body that is not an
 * object. A request without a body reads as `{}`, so missing fields are named.
 */
export function parseJsonBody(request: SandboxRequest): Record<string, unknown> {
  const text = request.body;
  if (text === undefined || text === '') return {};
  const contentType = mediaType(request);
  if (contentType !== 'application/json' && !contentType.endsWith('+json')) {
    throw new ApiError(
      415,
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      `request bodies must be JSON with content-type application/json, got ${contentType ? JSON.stringify(contentType) : 'no content-type'}`,
    );
  }
  const depth = depthLimit(request.method, request.path);
  if (jsonTooDeep(text, depth)) throw new ApiError(400, ErrorCode.INVALID_JSON, `request body is ${tooDeepPhrase(depth)}`, { limit: depth });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, ErrorCode.INVALID_JSON, `request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ApiError.invalidField('', 'request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** The request's media type (`application/json`), lower case, without parameters. */
function mediaType(request: SandboxRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Longest body text {@link sharedJsonBody} keeps: a search or a passthrough call, not a bulk write. */
const SHARED_BODY_CHARS = 4096;
/** How many distinct body texts {@link sharedJsonBody} keeps (then it starts again): at most about 2 MiB of text. */
const SHARED_BODIES = 256;
const sharedBodies = new Map<string, Record<string, unknown>>();

/**
 * The JSON body as {@link parseJsonBody} reads it, deeply frozen and shared by every request that
 * sends the same text (up to 4 kB) with a JSON content type: a client repeats a search or a
 * passthrough call again and again, and parsing is a pure function of the text. Only for routes
 * that read their body and never change it (a change would throw). The same errors as
 * parseJsonBody, since a text is kept only once it parsed.
 *
 * @example const body = sharedJsonBody(request); // the same object for the same text
 */
export function sharedJsonBody(request: SandboxRequest): Record<string, unknown> {
  const text = request.body;
  if (text === undefined || text === '' || text.length > SHARED_BODY_CHARS || depthLimit(request.method, request.path) !== MAX_JSON_DEPTH) {
    return parseJsonBody(request);
  }
  const kept = sharedBodies.get(text);
  if (kept !== undefined) {
    const contentType = mediaType(request);
    if (contentType === 'application/json' || contentType.endsWith('+json')) return kept;
  }
  const parsed = deepFreeze(parseJsonBody(request));
  if (sharedBodies.size >= SHARED_BODIES) sharedBodies.clear();
  sharedBodies.set(text, parsed);
  return parsed;
}

/** Freezes parsed JSON in place, every object and array in it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/**
 * Whether `text` takes more than `limit` bytes as UTF-8. Counted only when the length alone
 * cannot tell (a UTF-16 unit is 1 to 3 bytes): most bodies are far below the limit.
 *
 * @example isOverBytes(body, MAX_BODY_BYTES)
 */
export function isOverBytes(text: string, limit: number): boolean {
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return utf8ByteLength(text) > limit;
}
