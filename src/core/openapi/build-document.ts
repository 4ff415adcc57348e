import * as z from 'zod';
import { CRM_OBJECT_TYPES } from '../../model/crm.js';
import { EVENT_HEADERS } from '../../model/events.js';
import { pascal } from '../../shared/pascal-case.js';
import type { JsonSchema } from '../routes/context.js';
import { ROUTES, type Route } from '../routes/index.js';
import { snapshotSchema } from '../snapshot.js';
import * as responseSchemas from './response-schemas.js';

/** The server URL the CLI prints by default: where `crm-sandbox serve` listens. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:4010';

export interface OpenApiOptions {
  /** `servers[0].url`. `.` (the default) means "where this document was fetched from, minus its name". */
  serverUrl?: string;
}

const COMPONENTS = '#/components/schemas/';
const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'A bad field (metadata.field names it), bad JSON, or a bad fault header',
  '401': 'A missing or wrong service-api-token, or a bad accessToken / link token / public token',
  '403': 'An operation over every tenant (all=true) without the admin key',
  '404': "An object that does not exist or is not the caller's",
  '409': 'A state that does not allow it (still syncing, a delivery in progress)',
  '413': 'A request body over 1 MiB (64 MiB for PUT /sandbox/snapshot)',
  '415': 'A body that is not application/json',
  '431': 'Request headers over 16 KiB (dev server)',
  '429': 'Rate limited by a fault rule (Retry-After says when to try again)',
  '500': 'A bug of the sandbox',
  '503': 'An injected fault (fault rules, errorRate)',
  '4XX': "Another status forced by x-sandbox-force-status or a fault rule's errorStatus",
  '5XX': "Another status forced by x-sandbox-force-status or a fault rule's errorStatus",
};

/** The service's endpoints meet fault rules and x-sandbox-force-status; the control API (`/sandbox/…`) and the public routes never do. */
function errorStatuses(op: Route): string[] {
  const statuses = new Set<number | string>([400, 404, 413, 431, 500, ...(op.errors ?? [])]);
  if (op.pattern !== '/sandbox/health' && op.pattern !== '/openapi.json') statuses.add(401);
  if (op.body) statuses.add(415);
  if (!op.pattern.startsWith('/sandbox/') && !op.public) for (const status of [429, 503, '4XX', '5XX']) statuses.add(status);
  return [...statuses].map(String).sort();
}

const openApiPath = (pattern: string) => pattern.replace(/:([A-Za-z]+)/g, '{$1}');

/** Names zod schemas in a registry, once each (a schema used twice keeps its first name). */
class Names {
  readonly registry = z.registry<{ id: string }>();
  private readonly ids = new Map<z.ZodType, string>();
  name(schema: z.ZodType, id: string): string {
    const known = this.ids.get(schema);
    if (known) return known;
    this.ids.set(schema, id);
    this.registry.add(schema, { id });
    return id;
  }
  schemas(io: 'input' | 'output'): Record<string, JsonSchema> {
    const { schemas } = z.toJSONSchema(this.registry, { io, unrepresentable: 'any', uri: (id) => COMPONENTS + id });
    return Object.fromEntries(
      Object.entries(schemas).map(([id, schema]) => {
        const { $schema: _schema, $id: _id, ...rest } = schema as JsonSchema;
        return [id, rest];
      }),
    );
  }
}

const ref = (id: string) => ({ $ref: COMPONENTS + id });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

function parameters(op: Route): JsonSchema[] {
  const path = [...op.pattern.matchAll(/:([A-Za-z]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: name === 'objectType' ? { type: 'string', enum: [...CRM_OBJECT_TYPES] } : { type: 'string', minLength: 1 },
  }));
  const query = (op.query ?? []).map((param) => ({
    name: param.name,
    in: 'query',
    required: param.required ?? false,
    description: typeof param.description === 'function' ? param.description(responseSchemas) : param.description,
    schema: param.schema,
  }));
  return [...path, ...query];
}

function webhook(event: 'ObjectChangeEvent' | 'StatusChangeEvent', summary: string): JsonSchema {
  const header = (name: string, description: string, schema: JsonSchema) => ({ name, in: 'header', required: true, description, schema });
  return {
    post: {
      summary,
      description:
        "Sent to the connection's webhookUrl. Verify x-service-signature before trusting the body; answer 2xx, or the event is retried on the schedule.",
      parameters: [
        header(EVENT_HEADERS.timestamp, 'Unix seconds when this attempt was signed', { type: 'string', pattern: '^\\d+$' }),
        header(EVENT_HEADERS.signature, 'Lowercase hex SHA-256 of accessToken + raw body + x-service-timestamp', { type: 'string', pattern: '^[0-9a-f]{64}$' }),
        header(EVENT_HEADERS.connectionId, 'The connection the event is about', { type: 'string' }),
      ],
      requestBody: { required: true, content: json(ref(event)) },
      responses: { '2XX': { description: 'Accepted' }, default: { description: 'Not accepted: retried on the schedule' } },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the service's endpoints and the sandbox's control API, derived
 * from the routes' declarations (routes/*.ts): their paths, query parameters, the zod schemas
 * they validate bodies with, and their answers' schemas (response-schemas.ts, the model's records).
 *
 * @example
 * const document = buildOpenApiDocument({ serverUrl: 'http://127.0.0.1:4010' });
 * writeFileSync('openapi.json', JSON.stringify(document, null, 2));
 */
export function buildOpenApiDocument(options: OpenApiOptions = {}): JsonSchema {
  const requests = new Names();
  const responses = new Names();
  requests.name(snapshotSchema(), 'Snapshot');
  for (const [id, schema] of Object.entries(responseSchemas.NAMED_RESPONSE_SCHEMAS)) responses.name(schema, id);

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of ROUTES) {
    const body = typeof op.body === 'function' ? op.body() : op.body;
    const ok = op.ok.schema(responseSchemas);
    const okSchema = ok instanceof z.ZodType ? ref(responses.name(ok, `${pascal(op.operationId)}Response`)) : ok;
    const errors = Object.fromEntries(
      errorStatuses(op).map((status) => [
        status,
        {
          description: ERROR_DESCRIPTIONS[status] ?? 'An error',
          ...(status === '429' ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'string' } } } } : {}),
          content: json(ref('ErrorBody')),
        },
      ]),
    );
    const path = (paths[openApiPath(op.pattern)] ??= {});
    path[op.method.toLowerCase()] = {
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.tag],
      ...(op.public ? { security: [] } : {}),
      ...(parameters(op).length ? { parameters: parameters(op) } : {}),
      ...(body ? { requestBody: { required: false, content: json(ref(requests.name(body, `${pascal(op.operationId)}Request`))) } } : {}),
      responses: { [String(op.ok.status)]: { description: op.ok.description, content: json(okSchema) }, ...errors },
    };
  }

  return {
    openapi: '3.1.1',
    info: {
      title: 'crm-sandbox',
      version: '1',
      description:
        "A local sandbox of a unified CRM/engagement integration service: its endpoints, and the sandbox's own control API under /sandbox. " +
        'Every error status answers { message, errorCode?, metadata? }; an unknown path is a 404 and a known path with another method a 405 (with Allow), both with that body. ' +
        'HEAD is answered wherever GET is.',
    },
    servers: [{ url: options.serverUrl ?? '.' }],
    security: [{ apiToken: [] }],
    tags: ['Link', 'Connections', 'CRM', 'Engagement', 'Webhooks', 'Passthrough', 'Sandbox control', 'Document'].map((name) => ({ name })),
    paths,
    webhooks: {
      OBJECT_CHANGE: webhook('ObjectChangeEvent', 'A record was created, updated or deleted'),
      STATUS_CHANGE: webhook('StatusChangeEvent', 'A connection moved to a new status'),
    },
    components: {
      securitySchemes: { apiToken: { type: 'apiKey', in: 'header', name: 'service-api-token' } },
      schemas: { ...responses.schemas('output'), ...requests.schemas('input') },
    },
  };
}

const cache = new Map<string, string>();

/** The document as JSON text (built once per server URL): what `GET /openapi.json` answers. */
export function openApiJson(options: OpenApiOptions = {}): string {
  const key = options.serverUrl ?? '.';
  let text = cache.get(key);
  if (text === undefined) {
    text = JSON.stringify(buildOpenApiDocument(options));
    cache.set(key, text);
  }
  return text;
}
