/**
 * What `GET /openapi.json` answers (the route is ../routes/openapi-json.ts): the document of every
 * route as JSON text. The module that builds it (./build-document.ts, with its zod-to-JSON-Schema
 * work) loads on the first request only; it imports the route table, so no route module may import it.
 */
export async function openApiJson(): Promise<string> {
  const document = await import('./build-document.js');
  return document.openApiJson();
}
