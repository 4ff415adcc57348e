import * as z from 'zod';
import { loadDownstream } from '../../downstream/load.js';
import { type DownstreamResponse, PASSTHROUGH_METHODS } from '../../downstream/types.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { nativeBodySchema, nativeQuerySchema } from '../../model/passthrough.js';
import { ApiError } from '../../shared/errors.js';
import { parseOrThrow } from '../../shared/validation.js';
import { answerWithFaults } from '../downstream-faults.js';
import type { Reply } from '../http.js';
import type { Route } from './context.js';

export const passthroughBody = z.object({
  accessToken: z.string().min(1),
  method: z.enum(PASSTHROUGH_METHODS),
  path: z.string().min(1),
  body: nativeBodySchema.optional(),
  query: nativeQuerySchema.optional(),
});

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
    handler: async (ctx, deps) => {
      // The simulated systems load with the first passthrough call; first, so the rest runs as one step.
      const { downstreamFor } = await loadDownstream();
      const body = parseOrThrow(passthroughBody, ctx.body());
      const connection = ctx.connectionByToken(body.accessToken);
      const { path, query } = normalizePassthroughPath(body.path);
      for (const [name, value] of Object.entries(body.query ?? {})) {
        for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
      }
      const { registry, clock } = deps;
      const data = registry.dataOf(connection);
      const search = query.toString();
      const url = `${INTEGRATIONS[connection.integrationId].apiBaseUrl(connection.org)}/${path}${search ? `?${search}` : ''}`;
      const request = { method: body.method, path, query: Object.fromEntries(query), search: query, body: body.body };
      const system = downstreamFor(connection.integrationId);
      const reply = (answer: DownstreamResponse) => ({ headers: answer.headers, url, statusCode: answer.statusCode, body: answer.body });
      // What the system's answer can depend on besides the data: the method, the path and query as sent, the body.
      const key = `${request.method} ${path}?${search} ${body.body === undefined ? '' : JSON.stringify(body.body)}`;
      return answerWithFaults<Reply>(
        connection,
        request,
        clock,
        () =>
          deps.passthroughAnswers.get(
            data,
            connection.org,
            key,
            () => clock.now(),
            (context) => reply(system.handle(request, context)),
          ),
        (faultAnswer) => ({ body: reply(faultAnswer) }),
      );
    },
  },
];
