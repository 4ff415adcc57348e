import type { CrmRecord } from '../../model/crm.js';
import { CUSTOM_FIELD_KEYS } from '../../model/vocabularies.js';
import { mapPieces, type Pieces } from '../../shared/pieces.js';
import type { ArchivedRecord } from '../../store/connection-data.js';
import { collectionHandlers } from '../collection-api.js';
import {
  createRecord,
  deleteRecord,
  FieldError,
  type Found,
  findRecord,
  isPlainObject,
  type NativeFields,
  renderFields,
  translate,
  updateRecord,
} from '../rest-engine.js';
import { intParam, isResponse, type Route, reply } from '../router.js';
import type { DownstreamAnswer, DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { collectInPieces, findInPieces } from '../walk-in-pieces.js';
import { api, COLLECTIONS, collectionNamed, errors, HEADERS, type HubspotObject, hubspotError, OBJECT_TYPE_IDS, PREFIX, renderObject } from './objects.js';
import { groupsTest, parseSearch, queryTest, type SearchRequest, sortBy } from './search.js';

/**
 * HubSpot CRM v3 beyond list/get/create/update/delete: search, batch, `archived=true` reads
 * and the properties API. https://developers.hubspot.com/docs/api/crm/understanding-the-crm
 */

/** Properties each object returns from a search when the body names none (the search docs' table). */
const SEARCH_DEFAULTS: Record<string, readonly string[]> = {
  contacts: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
  companies: ['createdate', 'domain', 'hs_lastmodifieddate', 'hs_object_id', 'name'],
  deals: ['amount', 'closedate', 'createdate', 'dealname', 'dealstage', 'hs_lastmodifieddate', 'hs_object_id', 'pipeline'],
};
/** What a free-text `query` looks at, per object. */
const SEARCHABLE: Record<string, readonly string[]> = {
  contacts: ['firstname', 'lastname', 'email', 'phone', 'mobilephone'],
  companies: ['name', 'domain', 'website', 'phone'],
  deals: ['dealname', 'dealstage', 'pipeline'],
  tasks: ['hs_task_subject', 'hs_task_body'],
  notes: ['hs_note_body'],
  meetings: ['hs_meeting_title', 'hs_meeting_body'],
  leads: ['hs_lead_name', 'email'],
  emails: ['hs_email_subject', 'hs_email_text'],
};

const BATCH_LIMIT = 100;

/** Every property of an object: its fields (bar the `associations` pseudo-field) and the org's custom properties. */
export function propertyNames(target: HubspotObject): string[] {
  const own = target.fields.filter((field) => field.native !== 'associations').map((field) => field.native);
  return [...new Set([...own, ...CUSTOM_FIELD_KEYS])];
}

const propertiesOf = (target: HubspotObject, record: CrmRecord, extra: Record<string, unknown>, context: DownstreamContext): NativeFields =>
  renderFields(target, record, extra, context);

/** A request that asks for these properties, for `renderObject`: its query replaced, the passthrough's full query (`search`) too. */
const asking = ({ search: _replaced, ...request }: DownstreamRequest, properties: readonly string[] | undefined): DownstreamRequest => ({
  ...request,
  query: properties ? { properties: properties.join(',') } : {},
});

function targetOf(collection: string | undefined, request: DownstreamRequest, context: DownstreamContext): HubspotObject | DownstreamResponse {
  const name = collectionNamed(collection);
  return name ? COLLECTIONS[name]! : errors.notFound(request, context);
}

/** The body is checked at once; the walk over every record goes in pieces. */
function search(collection: string, request: DownstreamRequest, context: DownstreamContext): Pieces<DownstreamResponse> {
  const target = COLLECTIONS[collection]!;
  const names = propertyNames(target);
  const parsed = parseSearch(request.body, (name) => names.includes(name));
  const inGroups = groupsTest(parsed.groups);
  const inQuery = parsed.query === undefined ? () => true : queryTest(SEARCHABLE[collection] ?? [], parsed.query);
  return searchInPieces(collection, target, parsed, (properties) => inGroups(properties) && inQuery(properties), request, context);
}

function* searchInPieces(
  collection: string,
  target: HubspotObject,
  parsed: SearchRequest,
  passes: (properties: NativeFields) => boolean,
  request: DownstreamRequest,
  context: DownstreamContext,
): Pieces<DownstreamResponse> {
  const rows = yield* collectInPieces(context.data.crm[target.type].entries(), (entry) => {
    const properties = propertiesOf(target, entry.record, entry.extra, context);
    return passes(properties) ? { entry, properties } : undefined;
  });
  const sorted = yield* sortBy(rows, (row) => row.properties, parsed.sort);
  const page = sorted.slice(parsed.after, parsed.after + parsed.limit);
  const shown = asking(request, parsed.properties ?? SEARCH_DEFAULTS[collection] ?? []);
  const next = parsed.after + parsed.limit;
  return reply(
    200,
    {
      total: sorted.length,
      results: page.map(({ entry }) => renderObject(target, entry.record, entry.extra, context, shown)),
      ...(next < sorted.length ? { paging: { next: { after: String(next) } } } : {}),
    },
    HEADERS,
  );
}

/** The `inputs` array of a batch body, checked against the documented limit. */
function inputsOf(body: unknown): NativeFields[] {
  const inputs = isPlainObject(body) ? body.inputs : undefined;
  if (!Array.isArray(inputs)) throw new FieldError('inputs', 'Invalid input JSON: expected an object with "inputs"', 'body');
  if (inputs.length > BATCH_LIMIT) throw new FieldError('inputs', `Batch input cannot exceed ${BATCH_LIMIT} inputs, got ${inputs.length}`, 'body');
  return inputs.map((input, i) => {
    if (!isPlainObject(input)) throw new FieldError(`inputs[${i}]`, `inputs[${i}] must be an object`, 'body');
    return input;
  });
}

const idOf = (input: NativeFields, i: number): string => {
  const id = input.id;
  if (typeof id !== 'string' && typeof id !== 'number') throw new FieldError(`inputs[${i}].id`, `inputs[${i}].id is required`, 'body');
  return String(id);
};

const batchDone = (statusCode: number, results: unknown[], context: DownstreamContext, more: NativeFields = {}) => {
  const at = new Date(context.now).toISOString();
  return reply(statusCode, { status: 'COMPLETE', results, ...more, startedAt: at, completedAt: at }, HEADERS);
};

/** The native body of one batch input: its properties and, on create, its associations. */
function inputBody(input: NativeFields, i: number): NativeFields {
  if (!isPlainObject(input.properties)) throw new FieldError(`inputs[${i}].properties`, `inputs[${i}].properties must be an object`, 'body');
  return { ...input.properties, ...(input.associations === undefined ? {} : { associations: input.associations }) };
}

function batch(collection: string, action: string, request: DownstreamRequest, context: DownstreamContext): DownstreamAnswer {
  const target = COLLECTIONS[collection]!;
  const inputs = inputsOf(request.body);
  const body = request.body as NativeFields;
  const plain = asking(request, undefined);
  const render = (found: Found, shown = plain) => renderObject(target, found.entry.record, found.entry.extra, context, shown);
  switch (action) {
    case 'read':
      return readBatch(
        target,
        inputs.map(idOf),
        asking(request, Array.isArray(body.properties) ? body.properties.map(String) : undefined),
        typeof body.idProperty === 'string' ? body.idProperty : undefined,
        render,
        context,
      );
    case 'create': {
      const bodies = inputs.map(inputBody);
      // Every input is checked before any is written: a bad one changes nothing.
      for (const item of bodies) translate(target, item, api.policy, context);
      context.data.checkRoom(bodies.length);
      const created = bodies.map((item) => createRecord(target, item, api.policy, context));
      return batchDone(
        201,
        created.map((item) => render(item)),
        context,
      );
    }
    case 'update': {
      const found = inputs.map((input, i) => {
        const id = idOf(input, i);
        const hit = findRecord([target], id, context.data);
        if (!hit) throw new MissingIds([id]);
        return { hit, body: inputBody(input, i) };
      });
      for (const { hit, body: item } of found) translate(target, item, api.policy, context, hit.entry.record);
      const updated = found.map(({ hit, body: item }) => updateRecord(hit, item, api.policy, context));
      return batchDone(
        200,
        updated.map((item) => render(item)),
        context,
      );
    }
    case 'archive': {
      // Ids that do not exist are skipped: archiving is idempotent.
      for (const [i, input] of inputs.entries()) {
        const hit = findRecord([target], idOf(input, i), context.data);
        if (hit) deleteRecord(hit, context);
      }
      return reply(204, null, HEADERS);
    }
    default:
      return errors.notFound(request, context);
  }
}

/** Batch ids that name no record. */
class MissingIds extends Error {
  constructor(readonly ids: string[]) {
    super('missing ids');
  }
}

function archivedOf(target: HubspotObject, context: DownstreamContext): ArchivedRecord[] {
  return context.data.archived.filter((item) => item.type === target.type);
}

function renderArchived(target: HubspotObject, item: ArchivedRecord, context: DownstreamContext, request: DownstreamRequest): NativeFields {
  return { ...renderObject(target, item.record, item.extra, context, request), archived: true, archivedAt: item.archivedAt };
}

function listArchived(collection: string, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const target = COLLECTIONS[collection]!;
  const offset = intParam(request.query.after, 'after', 0, 0);
  const limit = intParam(request.query.limit, 'limit', 10, 1, 100);
  const all = archivedOf(target, context);
  const items = all.slice(offset, offset + limit).map((item) => renderArchived(target, item, context, request));
  return api.list(items, { offset, limit, total: all.length }, collection, request, context);
}

/** The records by a property's value (lower-cased), the first in store order for each: every record rendered once, not once per id asked for. */
function* recordsBy(target: HubspotObject, idProperty: string, context: DownstreamContext): Pieces<Map<string, Found['entry']>> {
  const out = new Map<string, Found['entry']>();
  // Every record's property, in pieces (decision 0042); the first record with a value keeps it.
  yield* collectInPieces(context.data.crm[target.type].entries(), (entry) => {
    const key = String(propertiesOf(target, entry.record, entry.extra, context)[idProperty] ?? '').toLowerCase();
    if (!out.has(key)) out.set(key, entry);
    return undefined;
  });
  return out;
}

/** `…/batch/read`: by id, or by a unique property (`idProperty`), which looks at every record. */
function* readBatch(
  target: HubspotObject,
  ids: string[],
  shown: DownstreamRequest,
  idProperty: string | undefined,
  render: (found: Found, shown: DownstreamRequest) => unknown,
  context: DownstreamContext,
): Pieces<DownstreamResponse> {
  const byProperty = idProperty === undefined ? undefined : yield* recordsBy(target, idProperty, context);
  const found: Found[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const hit = byProperty ? byProperty.get(id.toLowerCase()) : findRecord([target], id, context.data)?.entry;
    if (hit) found.push({ object: target, entry: hit });
    else missing.push(id);
  }
  const results = found.map((item) => render(item, shown));
  if (missing.length === 0) return batchDone(200, results, context);
  // Some found, some not: a multi-status answer, as the batch docs describe.
  return batchDone(207, results, context, {
    numErrors: 1,
    errors: [
      {
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message: `Could not get some ${target.name.toUpperCase()} objects, they may be deleted or not exist. Check that ids are valid.`,
        context: { ids: missing },
      },
    ],
  });
}

/** `GET …/{value}?idProperty=email`: the record whose unique property has that value. */
function byIdProperty(collection: string, idProperty: string, value: string, request: DownstreamRequest, context: DownstreamContext): DownstreamAnswer {
  const target = COLLECTIONS[collection]!;
  if (!propertyNames(target).includes(idProperty)) {
    return hubspotError(400, 'VALIDATION_ERROR', `Property "${idProperty}" does not exist or is not a unique property`, request);
  }
  const wanted = value.toLowerCase();
  // The first record with that value: a walk in pieces (decision 0042) that stops there.
  const found = findInPieces(
    context.data.crm[target.type].entries(),
    (candidate) => String(propertiesOf(target, candidate.record, candidate.extra, context)[idProperty] ?? '').toLowerCase() === wanted,
  );
  return mapPieces(found, (entry) =>
    entry ? reply(200, renderObject(target, entry.record, entry.extra, context, request), HEADERS) : api.missing(collection, value, request),
  );
}

/** HubSpot's property definition of one of an object's properties. */
function propertyDefinition(target: HubspotObject, name: string, context: DownstreamContext): NativeFields {
  const field = target.fields.find((candidate) => candidate.native === name);
  const isCustom = !field;
  const writable = isCustom || field.write !== undefined;
  const type = propertyType(name);
  const at = new Date(context.now).toISOString();
  return {
    name,
    label: name
      .replace(/^hs_/, '')
      .replace(/_/g, ' ')
      .replace(/^\w/, (c) => c.toUpperCase()),
    type,
    fieldType: type === 'datetime' ? 'date' : type === 'number' ? 'number' : type === 'enumeration' ? 'select' : type === 'bool' ? 'booleancheckbox' : 'text',
    description: '',
    groupName: `${target.name}information`,
    options: [],
    displayOrder: -1,
    calculated: !writable && !/date$|^hs_object_id$/.test(name),
    externalOptions: false,
    hasUniqueValue: name === 'hs_object_id',
    hidden: false,
    formField: writable,
    modificationMetadata: { archivable: isCustom, readOnlyDefinition: !isCustom, readOnlyValue: !writable },
    createdAt: at,
    updatedAt: at,
    archived: false,
  };
}

const DATETIME = /date$|_time$|timestamp$/;
const NUMBER = new Set(['annualrevenue', 'numberofemployees', 'amount', 'hs_deal_stage_probability', 'hs_projected_amount', 'hs_object_id', 'score']);
const ENUMERATION = new Set([
  'dealstage',
  'pipeline',
  'hs_task_status',
  'hs_task_priority',
  'industry',
  'hubspot_owner_id',
  'hs_activity_type',
  'hs_email_direction',
  'hs_email_status',
]);
const BOOL = new Set(['hs_is_closed', 'hs_is_closed_won']);

function propertyType(name: string): string {
  if (DATETIME.test(name)) return 'datetime';
  if (NUMBER.has(name)) return 'number';
  if (ENUMERATION.has(name)) return 'enumeration';
  if (BOOL.has(name)) return 'bool';
  return 'string';
}

const guard =
  (run: (collection: string, params: Record<string, string>, request: DownstreamRequest, context: DownstreamContext) => DownstreamAnswer): Route['run'] =>
  (params, request, context) => {
    const target = targetOf(params.collection, request, context);
    if (isResponse(target)) return target;
    const collection = Object.keys(COLLECTIONS).find((key) => COLLECTIONS[key] === target)!;
    try {
      return run(collection, params, request, context);
    } catch (error) {
      if (error instanceof MissingIds) {
        return hubspotError(404, 'OBJECT_NOT_FOUND', 'Object not found.  objectId are usually numeric.', request, { context: { id: error.ids } });
      }
      throw error;
    }
  };

/** Search, batch, the reads (archived and `idProperty` ones too) of every object type by any of its names, and the properties API. */
export function objectRoutes(): Route[] {
  return [
    { method: 'POST', pattern: `${PREFIX}/:collection/search`, run: guard((collection, _params, request, context) => search(collection, request, context)) },
    {
      method: 'POST',
      pattern: `${PREFIX}/:collection/batch/:action`,
      run: guard((collection, params, request, context) => batch(collection, params.action!, request, context)),
    },
    {
      method: 'GET',
      pattern: `${PREFIX}/:collection`,
      run: guard((collection, params, request, context) =>
        request.query.archived === 'true' ? listArchived(collection, request, context) : collectionHandlers(api, collection).list(params, request, context),
      ),
    },
    {
      method: 'GET',
      pattern: `${PREFIX}/:collection/:id`,
      run: guard((collection, params, request, context) => {
        const idProperty = request.query.idProperty;
        if (idProperty !== undefined && request.query.archived !== 'true') return byIdProperty(collection, idProperty, params.id!, request, context);
        if (request.query.archived !== 'true') return collectionHandlers(api, collection).get(params, request, context);
        const target = COLLECTIONS[collection]!;
        const item = archivedOf(target, context)
          .filter((candidate) => candidate.record.nativeId === params.id)
          .at(-1);
        return item ? reply(200, renderArchived(target, item, context, request), HEADERS) : api.missing(collection, params.id!, request);
      }),
    },
    {
      method: 'GET',
      pattern: 'crm/v3/properties/:collection',
      run: guard((collection, _params, _request, context) => {
        const target = COLLECTIONS[collection]!;
        return reply(200, { results: propertyNames(target).map((name) => propertyDefinition(target, name, context)) }, HEADERS);
      }),
    },
    {
      method: 'GET',
      pattern: 'crm/v3/properties/:collection/:name',
      run: guard((collection, params, request, context) => {
        const target = COLLECTIONS[collection]!;
        if (!propertyNames(target).includes(params.name!)) {
          return hubspotError(404, 'OBJECT_NOT_FOUND', `Unable to find property ${params.name} for object type ${OBJECT_TYPE_IDS[collection]}`, request);
        }
        return reply(200, propertyDefinition(target, params.name!, context), HEADERS);
      }),
    },
  ];
}
