import { readFileSync } from 'node:fs';
import { type Exchange, openApiChecker } from './openapi-conformance.js';

/**
 * The service's own v1 OpenAPI document (its facts: paths, parameters and schemas, made by
 * scripts/extract-service-document.mjs), with the places where it contradicts itself read as its
 * examples and descriptions say (docs/reference/unified-objects.md lists them), and with
 * `nextPageCursor` null on the last page, as decision 0026 answers it. Answers of the unified
 * routes are checked against it; the sandbox's own document is checked elsewhere.
 */
export function serviceDocument(): any {
  const document = JSON.parse(readFileSync(new URL('../fixtures/service-v1-document.json', import.meta.url), 'utf8'));
  const schemas = document.components.schemas;
  // Its EventAttendee example shows a linked attendee's email as null; its description says an Other attendee's associationId is null.
  schemas.EventAttendee.properties.email = { type: ['string', 'null'] };
  schemas.EventAttendee.properties.associations.properties.associationId = { type: ['string', 'null'] };
  // Its EngIntegration enum has outreach and salesloft; the service's integrations (decisions.md) include apollo.
  schemas.EngIntegration.properties.integrationId.enum.push('apollo');
  // Its Field example shows `options: null` for a field without options.
  schemas.Field.properties.options.type = ['array', 'null'];
  // Its EngUser and EngContact list `required` inside `properties`, where it is no schema.
  for (const name of ['EngUser', 'EngContact']) {
    const schema = schemas[name];
    if (Array.isArray(schema?.properties?.required)) {
      schema.required = schema.properties.required;
      delete schema.properties.required;
    }
  }
  for (const item of Object.values<any>(document.paths)) {
    for (const operation of Object.values<any>(item)) {
      const cursor = operation?.responses?.['200']?.content?.['application/json']?.schema?.properties?.nextPageCursor;
      if (cursor) cursor.type = ['string', 'null'];
    }
  }
  return document;
}

/**
 * A checker of the unified answers against the service's document: only successes (the document
 * shows no error answer), each against its operation's schema, and each accepted request against
 * its request schema.
 */
export function serviceChecker(): ((exchange: Exchange) => string[]) & { covered: Set<string> } {
  const document = serviceDocument();
  const check = openApiChecker(document);
  // The paths of the document (the unified objects), not the spec's (link, webhooks…), which it leaves out.
  const ours = (path: string) => /^\/(crm|engagement)\/|^\/connection\/(crm|engagement)\/integrations$/.test(path);
  return Object.assign(
    (exchange: Exchange) => (exchange.response.status >= 200 && exchange.response.status < 300 && ours(exchange.request.path) ? check(exchange) : []),
    { covered: check.covered },
  );
}
