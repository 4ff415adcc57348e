// Derives responses.json (what the Pipedrive SDK tests check answers against) from Pipedrive's
// published OpenAPI documents. Usage (see README.md):
//   node test/vendor-specs/pipedrive/derive.mjs <openapi.yaml (v1)> <openapi-v2.yaml>
// Keeps, for each operation the tests call, the JSON schema of each documented answer: names,
// types, formats, enums and nullability only (descriptions and examples dropped), $refs
// inlined, OpenAPI's `nullable` written as JSON Schema's `type: [..., 'null']`.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

const OPERATIONS = {
  v1: ['get /leads', 'post /leads', 'get /leads/{id}', 'patch /leads/{id}', 'delete /leads/{id}', 'get /notes', 'post /notes', 'get /notes/{id}'],
  v2: ['persons', 'organizations', 'deals', 'activities'].flatMap((name) => [
    `get /${name}`,
    `post /${name}`,
    `get /${name}/{id}`,
    `patch /${name}/{id}`,
    `delete /${name}/{id}`,
  ]),
};

/**
 * Fields Pipedrive answers null while unset although the document types them without
 * `nullable` (a person with no organization has `org_id: null`; an open deal `won_time: null`).
 */
const ANSWERED_NULL = [
  'org_id',
  'picture_id',
  'next_cursor',
  'job_title',
  'postal_address',
  'notes',
  'birthday',
  'address',
  'admin_area_level_2',
  'sublocality',
  'street_number',
  'subpremise',
  'person_id',
  'won_time',
  'lost_time',
  'expected_close_date',
  'deal_id',
  'lead_id',
  'project_id',
  'marked_as_done_time',
  'location',
  'conference_meeting_client',
  'conference_meeting_url',
  'conference_meeting_id',
  'public_description',
  'priority',
  'note',
  'duration',
  'due_date',
  'due_time',
];

const KEEP = new Set(['type', 'format', 'enum', 'properties', 'items', 'allOf', 'oneOf', 'anyOf', 'required', 'additionalProperties', 'nullable']);

function derive(doc, node, seen = []) {
  if (Array.isArray(node)) return node.map((item) => derive(doc, item, seen));
  if (!node || typeof node !== 'object') return node;
  if (node.$ref) {
    if (seen.includes(node.$ref)) return {};
    return derive(
      doc,
      node.$ref
        .slice(2)
        .split('/')
        .reduce((at, key) => at[key], doc),
      [...seen, node.$ref],
    );
  }
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KEEP.has(key)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, schema]) => {
          const derived = derive(doc, schema, seen);
          return [name, ANSWERED_NULL.includes(name) ? nullable(derived) : derived];
        }),
      );
    } else if (key === 'additionalProperties' && typeof value === 'object') out.additionalProperties = derive(doc, value, seen);
    else if (key !== 'nullable') out[key] = derive(doc, value, seen);
  }
  return node.nullable ? nullable(out) : out;
}

function nullable(schema) {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'], ...(schema.enum ? { enum: [...schema.enum, null] } : {}) };
  if (schema.type === undefined) return { anyOf: [schema, { type: 'null' }] };
  return schema;
}

const [v1Path, v2Path] = process.argv.slice(2);
if (!v1Path || !v2Path) throw new Error('usage: derive.mjs <openapi.yaml> <openapi-v2.yaml>');
const out = { sources: {}, operations: {} };
for (const [version, path] of [
  ['v1', v1Path],
  ['v2', v2Path],
]) {
  const text = readFileSync(path, 'utf8');
  out.sources[version] = { title: parse(text).info.title, sha256: createHash('sha256').update(text).digest('hex') };
  const doc = parse(text);
  for (const operation of OPERATIONS[version]) {
    const [method, template] = operation.split(' ');
    const responses = doc.paths[template]?.[method]?.responses;
    if (!responses) throw new Error(`${version} ${operation}: not in the document`);
    out.operations[`${version} ${method.toUpperCase()} ${template}`] = Object.fromEntries(
      Object.entries(responses).flatMap(([status, response]) => {
        const schema = derive(doc, response).content?.['application/json']?.schema ?? derive(doc, response.content?.['application/json']?.schema ?? null);
        return schema ? [[status, schema]] : [];
      }),
    );
  }
}
writeFileSync(new URL('./responses.json', import.meta.url), `${JSON.stringify(out, null, 1)}\n`);
