// Writes test/fixtures/service-v1-document.json: the facts of the service's published v1 OpenAPI
// document (vesselapi/all-api-docs, docs/openapi.yaml at e322d9a16d0df8dd3f7568efd17ed86c03cd2bca):
// its paths, operations, parameters and schemas, with every description, summary, title and
// example left out (the document has no licence: its facts only, never its prose). The tests
// validate the sandbox's unified answers against these schemas. Run by hand, with the document:
//   node scripts/extract-service-document.mjs path/to/openapi.yaml
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

const PROSE = new Set(['description', 'summary', 'title', 'examples', 'example', 'x-examples', 'x-speakeasy-name-override', 'tags']);
// Under `properties`, keys are field names (an Account's `description`), not annotations.
const facts = (node, named = false) => {
  if (Array.isArray(node)) return node.map((item) => facts(item));
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => named || !PROSE.has(key))
      .map(([key, value]) => [key, facts(value, key === 'properties' && !named)]),
  );
};
const document = parse(readFileSync(process.argv[2], 'utf8'));
const kept = Object.fromEntries(
  Object.entries(document.paths).filter(([path]) => path !== '/crm/passthrough' && /^\/(crm|engagement|connection\/(crm|engagement)\/integrations)/.test(path)),
);
const out = {
  source: 'vesselapi/all-api-docs docs/openapi.yaml @ e322d9a16d0df8dd3f7568efd17ed86c03cd2bca: paths, parameters and schemas only',
  openapi: document.openapi,
  paths: facts(kept),
  components: { schemas: facts(document.components.schemas), parameters: facts(document.components.parameters) },
};
writeFileSync(new URL('../test/fixtures/service-v1-document.json', import.meta.url), `${JSON.stringify(out, null, 1)}\n`);
