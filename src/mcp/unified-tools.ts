import * as z from 'zod';
import { IGNORED_FIELDS_HEADER } from '../core/routes/unified-crm.js';
import type { CrmObjectType } from '../model/crm.js';
import { ApiError } from '../shared/errors.js';
import { UNIFIED_CRM_OBJECTS, type UnifiedObject } from '../unified/crm-objects.js';
import { OPERATORS } from '../unified/filters.js';
import type { SandboxApi } from './api.js';
import { defineTool, jsonOf, passOn, segment, type ToolAnswer } from './tool.js';

/**
 * The unified objects' tools: one per operation (list or search, get, create, update), the
 * object an argument, each the request the app under test makes to the service's unified API
 * (`/crm/contacts`, …) with the connection's accessToken, answering what it answers. Derived
 * from the objects' descriptions (src/unified/crm-objects.ts), so an object described there is
 * an object here.
 */

/** The unified objects the tools serve: today the CRM's (the engagement objects of issue 28 join this list). */
const OBJECTS: readonly UnifiedObject[] = UNIFIED_CRM_OBJECTS;
const WRITABLE = OBJECTS.filter((object) => !object.readOnly);
const LOOKUPS = [...new Set(OBJECTS.flatMap((object) => object.lookups ?? []))];

const names = (objects: readonly UnifiedObject[]) => objects.map((object) => object.type) as [CrmObjectType, ...CrmObjectType[]];
const connectionId = z.string().min(1).describe('A connectionId of this API key (from link_connection or list_connections); its accessToken is sent');
const type = z
  .enum(names(OBJECTS))
  .describe(
    `The unified object: ${OBJECTS.map((object) => `${object.type} (/crm/${object.many})`).join(', ')}${OBJECTS.some((o) => o.readOnly) ? '; users are read only' : ''}`,
  );
const writableType = z.enum(names(WRITABLE)).describe(`The unified object: ${WRITABLE.map((object) => object.type).join(', ')}`);
const allFields = z.boolean().optional().describe("Also answer each record's native shape in its CRM, as additional");
const fields = z.record(z.string(), z.unknown());

const objectOf = (name: CrmObjectType) => OBJECTS.find((object) => object.type === name)!;

/** The connection's accessToken, as `GET /sandbox/connections/{id}` answers it. */
async function accessTokenOf(api: SandboxApi, id: string): Promise<string> {
  return (jsonOf(await api.request('GET', `/sandbox/connections/${segment(id)}`)).connection as { accessToken: string }).accessToken;
}

/** A write's answer (`{ id }`), with the fields it did not write when the API says so (its x-sandbox-ignored-fields header) as `ignored`. */
function withIgnored(answer: { status: number; text: string; headers?: Record<string, string> }): ToolAnswer {
  const ignored = answer.headers?.[IGNORED_FIELDS_HEADER];
  if (ignored === undefined) return passOn(answer);
  return { text: JSON.stringify({ ...jsonOf(answer), ignored }), structured: true };
}

const operators = (Object.entries(OPERATORS) as Array<[string, readonly string[]]>).map(([kind, list]) => `${kind}: ${list.join(' ')}`).join('; ');

export const listUnifiedRecords = defineTool({
  name: 'list_unified_records',
  title: 'List or search unified records',
  description:
    "What the app under test reads through the service's unified API: GET /crm/{objects} (a page, oldest first) or, with filters, POST /crm/{objects}/search, with the connection's accessToken. " +
    'Answers the page as sent, e.g. { contacts: [...], nextPageCursor }: nextPageCursor is null on the last page, else pass it as cursor (with the same filters) for the next. ' +
    `filters: per field an object of operators, every one must hold, e.g. { "email": { "endsWith": "@acme.example" }, "createdTime": { "gte": "2024-01-01T00:00:00Z" } }; operators by field kind: ${operators}. ` +
    'Which fields each object filters on: the crm-sandbox://unified-objects.json resource. A NEW_CONNECTION answers 409 CONNECTION_SYNCING (set_status or advance_clock). ' +
    "For the sandbox's own view of its records, list_records.",
  input: z.strictObject({
    connectionId,
    type,
    filters: z.record(z.string(), z.record(z.string(), z.unknown())).optional().describe('Search: per field, an object of operators'),
    limit: z.number().int().optional().describe('Page size, 1 to 200 (default 100)'),
    cursor: z.string().optional().describe("The previous page's nextPageCursor"),
    allFields,
  }),
  readOnly: true,
  run: async ({ connectionId, type, filters, limit, cursor, allFields }, { api }) => {
    const object = objectOf(type);
    const accessToken = await accessTokenOf(api, connectionId);
    if (filters === undefined)
      return passOn(await api.request('GET', `/crm/${object.many}`, { query: { accessToken, limit, cursor, allFields: allFields?.toString() } }));
    return passOn(await api.request('POST', `/crm/${object.many}/search`, { body: { accessToken, filters, limit, cursor, allFields } }));
  },
});

export const getUnifiedRecord = defineTool({
  name: 'get_unified_record',
  title: 'Get a unified record',
  description:
    `GET /crm/{object}?id= with the connection's accessToken: one record as the app under test reads it, e.g. { contact: {...} }. ` +
    `${OBJECTS.filter((object) => object.lookups?.length)
      .map((object) => `A ${object.type} may be found by ${object.lookups!.join(' or ')} instead`)
      .join('; ')}. Unknown ids are 404 OBJECT_NOT_FOUND.`,
  input: z.strictObject({
    connectionId,
    type,
    id: z.string().min(1).optional().describe("The record's id"),
    ...Object.fromEntries(
      LOOKUPS.map((key) => [
        key,
        z
          .string()
          .min(1)
          .optional()
          .describe(`Find the record by ${key} instead of id (${OBJECTS.filter((object) => object.lookups?.includes(key)).map((object) => object.type)})`),
      ]),
    ),
    allFields,
  }),
  readOnly: true,
  run: async (args, { api }) => {
    const { connectionId, type, id, allFields } = args as { connectionId: string; type: CrmObjectType; id?: string; allFields?: boolean };
    const object = objectOf(type);
    const lookups: Record<string, string | undefined> = {};
    for (const key of LOOKUPS) {
      const value = (args as Record<string, unknown>)[key] as string | undefined;
      if (value === undefined) continue;
      if (!object.lookups?.includes(key))
        throw ApiError.invalidField(key, `${key} finds ${OBJECTS.filter((o) => o.lookups?.includes(key)).map((o) => o.type)} only; give id`);
      lookups[key] = value;
    }
    const accessToken = await accessTokenOf(api, connectionId);
    return passOn(await api.request('GET', `/crm/${object.one}`, { query: { accessToken, id, ...lookups, allFields: allFields?.toString() } }));
  },
});

export const createUnifiedRecord = defineTool({
  name: 'create_unified_record',
  title: 'Create a unified record',
  description:
    "POST /crm/{object} with the connection's accessToken: creates a record as the app under test does through the unified API (an OBJECT_CHANGE CREATE event to the webhook). " +
    'fields is the body\'s object, e.g. Contact { "lastName": "Lovelace", "email": "ada@example.com" }, Deal { "name": "Renewal", "closeDate": "2025-03-01", "amount": 5000, "accountId": "…" }: ' +
    'required fields must be given, links go by id (accountId, contactId, …). Answers { id }, and in ignored the fields it did not write and why (its x-sandbox-ignored-fields header). ' +
    'What each object takes and requires: the crm-sandbox://unified-objects.json resource. To seed test data with left-out fields generated, create_record.',
  input: z.strictObject({ connectionId, type: writableType, fields: fields.describe("The record's fields and link ids") }),
  run: async ({ connectionId, type, fields }, { api }) => {
    const object = objectOf(type);
    const accessToken = await accessTokenOf(api, connectionId);
    return withIgnored(await api.request('POST', `/crm/${object.one}`, { body: { accessToken, [object.key]: fields } }));
  },
});

export const updateUnifiedRecord = defineTool({
  name: 'update_unified_record',
  title: 'Update a unified record',
  description:
    "PATCH /crm/{object} with the connection's accessToken: changes the fields given, as the app under test does (an OBJECT_CHANGE UPDATE event). " +
    'Answers { id }, and in ignored the fields it did not write and why. What each object may update and requires (a Deal update requires closeDate): the crm-sandbox://unified-objects.json resource.',
  input: z.strictObject({
    connectionId,
    type: writableType,
    id: z.string().min(1).describe("The record's id"),
    fields: fields.describe('The fields to change'),
  }),
  run: async ({ connectionId, type, id, fields }, { api }) => {
    const object = objectOf(type);
    const accessToken = await accessTokenOf(api, connectionId);
    return withIgnored(await api.request('PATCH', `/crm/${object.one}`, { body: { accessToken, id, [object.key]: fields } }));
  },
});

/**
 * The objects as an agent needs them to call the tools: paths, answer keys, the fields a create
 * and an update take and require, the link ids, the filters and their operators, the lookups
 * (the `crm-sandbox://unified-objects.json` resource).
 */
export function unifiedObjectsDocument(): Record<string, unknown> {
  return {
    objects: OBJECTS.map((object) => ({
      type: object.type,
      list: `GET /crm/${object.many}`,
      search: `POST /crm/${object.many}/search`,
      get: `GET /crm/${object.one}`,
      ...(object.readOnly ? { readOnly: true } : { create: `POST /crm/${object.one}`, update: `PATCH /crm/${object.one}` }),
      answerKeys: { record: object.key, page: object.listKey },
      ...(object.lookups ? { lookups: object.lookups } : {}),
      fields: object.fields.map((field) => ({
        key: field.key,
        kind: field.kind,
        ...(field.options ? { options: field.options } : {}),
        create: field.create === true,
        update: field.update === true,
        ...(field.requiredOnCreate ? { requiredOnCreate: true } : {}),
        ...(field.requiredOnUpdate ? { requiredOnUpdate: true } : {}),
      })),
      links: object.links.map((link) => ({
        key: link.input,
        ...(link.target ? { target: link.target } : {}),
        form: link.form,
        create: link.create === true,
        update: link.update === true,
        ...(link.requiredOnCreate ? { requiredOnCreate: true } : {}),
      })),
      filters: object.filters.map((filter) => ({ key: filter.key, kind: filter.kind, operators: OPERATORS[filter.kind] })),
    })),
  };
}
