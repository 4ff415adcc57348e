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
  // Its contacts/search body gives each `required` as a string, not a list: read as the one-name lists they mean.
  const lists = (node: any): void => {
    if (node === null || typeof node !== 'object') return;
    if (typeof node.required === 'string') node.required = [node.required];
    for (const value of Object.values(node)) lists(value);
  };
  lists(document.paths['/engagement/contacts/search'].post.requestBody);
  // Its EngContact's associations require `eventIds`, which they never define and its examples never show: read as its examples (accountId, actionIds, taskIds, ownerUserId).
  schemas.EngContact.properties.associations.required = schemas.EngContact.properties.associations.required.filter((key: string) => key !== 'eventIds');
  // Its CallDisposition requires `associations`, which it never defines and its examples never show.
  schemas.CallDisposition.required = schemas.CallDisposition.required.filter((key: string) => key !== 'associations');
  // Its engagement records require single associations typed as strings (a task's callId, a contact's accountId) that many records
  // have none of: absent then, as the CRM records' are (decision 0045; its types have no null).
  for (const name of ['EngAccount', 'EngContact', 'EngTask', 'Action', 'Call', 'EngEmail']) {
    const associations = schemas[name].properties.associations;
    if (Array.isArray(associations.required)) associations.required = associations.required.filter((key: string) => key.endsWith('Ids'));
  }
  // POST /engagement/emails/search is not in the document (Feb 2023); a sales product used it in production, with EngEmail filters by field:
  // read as the emails list answers, its body as /engagement/contacts/search's is, over the EngEmail fields and associations.
  document.paths['/engagement/emails/search'] = {
    post: {
      requestBody: {
        content: {
          'application/json': {
            schema: { type: 'object', properties: { accessToken: { type: 'string' }, filters: { type: 'object' } }, required: ['accessToken'] },
          },
        },
      },
      responses: structuredClone(document.paths['/engagement/emails'].get.responses),
    },
  };
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
