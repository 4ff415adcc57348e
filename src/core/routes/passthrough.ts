import * as z from 'zod';
import { loadDownstream, loadedDownstream } from '../../downstream/load.js';
import { type DownstreamRequest, type DownstreamResponse, PASSTHROUGH_METHODS } from '../../downstream/types.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { nativeBodySchema, nativeQuerySchema } from '../../model/passthrough.js';
import { requestKey } from '../../shared/digest.js';
import { ApiError } from '../../shared/errors.js';
import { once } from '../../shared/once.js';
import { isPieces, mapPieces } from '../../shared/pieces.js';
import { parseOrThrow } from '../../shared/validation.js';
import type { ConnectionData } from '../../store/connection-data.js';
import type { ConnectionState } from '../connections.js';
import { answerWithFaults } from '../downstream-faults.js';
import type { Reply } from '../http.js';
import type { Route, RouteContext, RouteDeps } from './context.js';

export const passthroughBody = once(() =>
  z.object({
    accessToken: z.string().min(1),
    method: z.enum(PASSTHROUGH_METHODS),
    path: z.string().min(1),
    body: nativeBodySchema().optional(),
    query: nativeQuerySchema().optional(),
  }),
);

/**
 * A downstream path as the service takes it: relative to the integration's base URL. A leading
 * slash is tolerated; an absolute URL, a `//host` prefix or a `..` segment would leave the
 * downstream system and is a 400.
 */
export function normalizePassthroughPath(raw: string): { path: string; query: URLSearchParams } {
  const bad = (why: string) => ApiError.invalidField('path', `path ${why}, got ${JSON.stringify(raw)}`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) throw bad('must be relative to the integration base URL, not an absolute URL');
  // URL parsers read `\` as `/`, so `/\host` and `\\host` name a host as `//host` does.
  if (/^[/\\]{2}/.test(raw)) throw bad('must not start with a host');
  if (raw.includes('\\')) throw bad('must not contain backslashes');
  const [pathPart = '', queryPart = ''] = raw.replace(/^\//, '').split(/\?(.*)/s);
  const segments = pathPart.split('/');
  const decoded = segments.map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw bad('has a malformed %-escape');
    }
  });
  if (decoded.some((segment) => segment === '..' || segment === '.')) throw bad('must not contain . or .. segments');
  if (pathPart === '' || pathPart.includes('#')) throw bad(pathPart === '' ? 'must not be empty' : 'must not contain #');
  return { path: pathPart, query: new URLSearchParams(queryPart) };
}

/** `POST /crm/passthrough`: a raw request to the connection's (simulated) downstream system. */
export const passthroughRoutes: Route<'registry' | 'clock' | 'passthroughAnswers'>[] = [
  {
    method: 'POST',
    pattern: '/crm/passthrough',
    operationId: 'passthrough',
    summary: "A raw request to the connection's (simulated) downstream system",
    tag: 'Passthrough',
    body: passthroughBody,
    // The downstream request's own body and query: their nulls are the system's to read.
    nativeMembers: ['body', 'query'],
    ok: {
      status: 200,
      schema: () =>
        z.object({
          headers: z.record(z.string(), z.string()),
          url: z.string(),
          statusCode: z.number().int(),
          body: z.unknown().describe("The downstream system's answer, in its own shape"),
        }),
      description: "The downstream system's answer (its errors too: statusCode says)",
    },
    handler: (ctx, deps) => {
      // The simulated systems load with the first passthrough call; first, so the rest runs as one step.
      const downstream = loadedDownstream();
      if (!downstream) return loadDownstream().then(() => passthrough(ctx, deps));
      return passthrough(ctx, deps);
    },
  },
];

/** A passthrough body worked out: what a call needs of it besides the connection. */
interface Call {
  accessToken: string;
  method: z.infer<ReturnType<typeof passthroughBody>>['method'];
  path: string;
  /** The query as sent, then the body's `query` (kept as is: each call gets a copy). */
  query: URLSearchParams;
  search: string;
  nativeBody: unknown;
  /** What the system's answer can depend on besides the data: the method, the path and query as sent, the body. */
  key: string;
}

/**
 * Calls worked out, by the (frozen, shared) body they came from: checking a body and reading its
 * path depend on its text alone, and a client sends the same call again and again. An entry
 * goes when its body leaves the shared bodies.
 */
const calls = new WeakMap<object, Call>();

/** The call a body asks for: checked (400 naming the field), the path normalised; the connection found in between, as always. */
function callOf(ctx: RouteContext): { call: Call; connection: ConnectionState } {
  const shared = ctx.sharedBody();
  const known = calls.get(shared);
  if (known) return { call: known, connection: ctx.connectionByToken(known.accessToken) };
  const body = parseOrThrow(passthroughBody(), shared);
  const connection = ctx.connectionByToken(body.accessToken);
  const { path, query } = normalizePassthroughPath(body.path);
  for (const [name, value] of Object.entries(body.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
  }
  const search = query.toString();
  // A long call by its digest: a kept answer never holds a whole request.
  const key = requestKey(`${body.method} ${path}?${search} ${body.body === undefined ? '' : JSON.stringify(body.body)}`);
  const call: Call = { accessToken: body.accessToken, method: body.method, path, query, search, nativeBody: body.body, key };
  calls.set(shared, call);
  return { call, connection };
}

/** The request a system gets: its own copies, so nothing it does reaches the kept call. */
function requestOf(call: Call): DownstreamRequest {
  const search = new URLSearchParams(call.query);
  return {
    method: call.method,
    path: call.path,
    query: Object.fromEntries(search),
    search,
    body: call.nativeBody === undefined ? undefined : structuredClone(call.nativeBody),
  };
}

function passthrough(ctx: RouteContext, deps: Pick<RouteDeps, 'registry' | 'clock' | 'passthroughAnswers'>): Reply | Promise<Reply> {
  const { downstreamFor } = loadedDownstream()!;
  const { call, connection } = callOf(ctx);
  // A connection's first call seeds its data set in pieces (decision 0038), then answers.
  return deps.registry.withData(connection, (data) => answerCall(call, connection, data, downstreamFor, deps));
}

function answerCall(
  call: Call,
  connection: ConnectionState,
  data: ConnectionData,
  downstreamFor: NonNullable<ReturnType<typeof loadedDownstream>>['downstreamFor'],
  deps: Pick<RouteDeps, 'clock' | 'passthroughAnswers'>,
): Reply | Promise<Reply> {
  const { clock } = deps;
  const url = `${INTEGRATIONS[connection.integrationId].apiBaseUrl(connection.org)}/${call.path}${call.search ? `?${call.search}` : ''}`;
  const system = downstreamFor(connection.integrationId);
  const reply = (answer: DownstreamResponse) => ({ headers: answer.headers, url, statusCode: answer.statusCode, body: answer.body });
  // A long walk (a native search, a filtered query) answers in pieces: with turns between on a real clock (decision 0042).
  const answer = () =>
    deps.passthroughAnswers.get(
      data,
      connection.org,
      call.key,
      () => clock.now(),
      (context) => {
        const answered = system.answer(requestOf(call), context);
        return isPieces(answered) ? mapPieces(answered, reply) : reply(answered);
      },
      clock.kind === 'real',
    );
  // Most calls meet no downstream fault: answered now, without the fault path's promise.
  if (connection.downstreamFaults.length === 0) return answer();
  return answerWithFaults<Reply>(connection, requestOf(call), clock, system.faultAnswers, answer, (faultAnswer) => ({ body: reply(faultAnswer) }));
}
