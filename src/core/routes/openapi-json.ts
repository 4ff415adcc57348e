import * as z from 'zod';
import type { Route } from './context.js';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of every route, public like `/sandbox/health`.
 * It receives the document from its loader (../openapi/load-document.ts): the module that builds
 * the document imports this route table, so this route cannot import it.
 */
export const openApiJsonRoutes: Route<'openApiJson'>[] = [
  {
    method: 'GET',
    pattern: '/openapi.json',
    public: true,
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    tag: 'Document',
    ok: { status: 200, schema: () => z.record(z.string(), z.unknown()), description: 'The OpenAPI 3.1 document' },
    handler: async (_ctx, { openApiJson }) => ({ json: await openApiJson() }),
  },
];
