/**
 * What `GET /openapi.json` answers (the route is ./document.ts): the document of every route as
 * JSON text. Its module (and its zod-to-JSON-Schema work) loads on the first request only; it
 * imports the route table, so no route module may import it.
 */
export async function openApiJson(): Promise<string> {
  const document = await import('../openapi/document.js');
  return document.openApiJson();
}
