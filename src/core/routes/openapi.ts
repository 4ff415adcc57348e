import type { Route } from './context.js';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of every route, public like `/sandbox/health`.
 * The document's module (and its zod-to-JSON-Schema work) loads on the first request only.
 */
export const openApiRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/openapi.json',
    public: true,
    handler: async () => {
      const { openApiJson } = await import('../openapi/document.js');
      return { json: openApiJson() };
    },
  },
];
