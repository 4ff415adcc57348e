import { createRecord, deleteRecord, FieldError, findRecord, isPlainObject, type NativeFields, translate, updateRecord } from '../rest-engine.js';
import { type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { canonicalFields, columnNamed, errorOf, HEADERS, POLICY, render, SOBJECTS, type SObject, sfError, sobjectNamed, versioned } from './objects.js';

/**
 * Salesforce's sObject Collections resource (`composite/sobjects`): create, update, delete and
 * read many records in one call.
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_composite_sobjects_collections.htm
 */

/** The most records one collections call takes. */
export const COLLECTION_LIMIT = 200;

/** One collections result: `{ id, success, errors }`. */
type Outcome = { id?: string; success: boolean; errors: Array<{ statusCode: string; message: string; fields: string[] }> };

const failure = (error: FieldError, sobjectName: string): Outcome => {
  const body = errorOf(error, sobjectName);
  return { success: false, errors: [{ statusCode: body.errorCode, message: body.message, fields: body.fields }] };
};
const ROLLED_BACK: Outcome['errors'][number] = {
  statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK',
  message: 'Record rolled back because not all records were valid and the request was using AllOrNone header',
  fields: [],
};

function recordsOf(body: unknown): { allOrNone: boolean; records: NativeFields[] } {
  if (!isPlainObject(body) || !Array.isArray(body.records)) {
    throw new FieldError(undefined, 'Cannot deserialize instance of SObjectCollection: expected an object with "records"', 'body');
  }
  if (body.records.length > COLLECTION_LIMIT) {
    throw new FieldError(undefined, `record limit reached. cannot submit more than ${COLLECTION_LIMIT} records into this call`, 'body', 'EXCEEDED_ID_LIMIT');
  }
  const records = body.records.map((record, i) => {
    if (!isPlainObject(record)) throw new FieldError(undefined, `records[${i}] must be an object`, 'body');
    return record;
  });
  return { allOrNone: body.allOrNone === true, records };
}

/**
 * The sObject a collections record names in `attributes.type`, and its fields without
 * `attributes`, under their canonical names (`id` → `Id`); `bad` if they cannot be read so.
 */
function typed(record: NativeFields): { object: SObject | undefined; fields: NativeFields; typeName: string; bad?: FieldError } {
  const { attributes, ...fields } = record;
  const typeName = isPlainObject(attributes) && typeof attributes.type === 'string' ? attributes.type : '';
  const object = sobjectNamed(typeName);
  if (!object) return { object, fields, typeName };
  try {
    return { object, fields: canonicalFields(object, fields), typeName };
  } catch (error) {
    if (error instanceof FieldError) return { object, fields, typeName, bad: error };
    throw error;
  }
}

/**
 * Checks each record (`check` throws a FieldError for a bad one) and, unless allOrNone and one
 * failed, writes the good ones. With allOrNone, a failure rolls every record back.
 */
function collect(allOrNone: boolean, items: Array<{ name: string; check: () => void; write: () => string }>): Outcome[] {
  const checked: Array<Outcome | undefined> = items.map((item) => {
    try {
      item.check();
      return undefined;
    } catch (error) {
      if (error instanceof FieldError) return failure(error, item.name);
      throw error;
    }
  });
  if (allOrNone && checked.some(Boolean)) return checked.map((outcome) => outcome ?? { success: false, errors: [ROLLED_BACK] });
  return items.map((item, i) => {
    if (checked[i]) return checked[i]!;
    try {
      return { id: item.write(), success: true, errors: [] };
    } catch (error) {
      if (error instanceof FieldError) return failure(error, item.name);
      throw error;
    }
  });
}

const typeError = (typeName: string) =>
  new FieldError(undefined, typeName ? `sObject type '${typeName}' is not supported.` : 'No SObject Type defined in attributes', 'value', 'INVALID_TYPE');

function createMany(request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const { allOrNone, records } = recordsOf(request.body);
  // The sandbox's record cap is checked for the whole collection first: it writes all of them or none.
  context.data.checkRoom(records.length);
  const outcomes = collect(
    allOrNone,
    records.map((record) => {
      const { object, fields, typeName, bad } = typed(record);
      return {
        name: object?.name ?? typeName,
        check: () => {
          if (!object || object.readOnly) throw typeError(typeName);
          if (bad) throw bad;
          if ('Id' in fields) throw new FieldError('Id', 'cannot specify Id in an insert call', 'value', 'INVALID_FIELD_FOR_INSERT_UPDATE');
          translate(object, fields, POLICY, context);
        },
        write: () => createRecord(object!, fields, POLICY, context).entry.record.nativeId,
      };
    }),
  );
  return reply(
    200,
    outcomes.map((outcome) => withId(outcome, outcome.id)),
    HEADERS,
  );
}

function updateMany(request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const { allOrNone, records } = recordsOf(request.body);
  const outcomes = collect(
    allOrNone,
    records.map((record) => {
      const { object, fields: all, typeName, bad } = typed(record);
      const { Id: id, ...fields } = all;
      const found = object && typeof id === 'string' ? findRecord([object], id, context.data) : undefined;
      return {
        name: object?.name ?? typeName,
        check: () => {
          if (!object || object.readOnly) throw typeError(typeName);
          if (bad) throw bad;
          if (typeof id !== 'string') throw new FieldError('Id', 'Id not specified in an update call', 'required', 'MISSING_ARGUMENT');
          if (!found) throw new FieldError('Id', 'invalid cross reference id', 'reference', 'INVALID_CROSS_REFERENCE_KEY');
          translate(object, fields, POLICY, context, found.entry.record);
        },
        write: () => updateRecord(found!, fields, POLICY, context).entry.record.nativeId,
      };
    }),
  );
  return reply(
    200,
    outcomes.map((outcome, i) => withId(outcome, outcome.id ?? idIn(records[i]!))),
    HEADERS,
  );
}

/** `{ id, success, errors }` in Salesforce's key order; no id where there is none (a failed create). */
const withId = (outcome: Outcome, id: string | undefined): Outcome => ({
  ...(id === undefined ? {} : { id }),
  success: outcome.success,
  errors: outcome.errors,
});

/** The id a record to update names, in any case (`Id`, `id`). */
const idIn = (record: NativeFields): string | undefined => {
  const value = Object.entries(record).find(([name]) => name.toLowerCase() === 'id')?.[1];
  return typeof value === 'string' ? value : undefined;
};

/** The ids a read or delete names: at least one, at most `limit`. */
function checkIds(ids: string[], limit = COLLECTION_LIMIT): string[] {
  if (ids.length === 0) throw new FieldError('ids', 'The ids parameter is required', 'param', 'MALFORMED_ID');
  if (ids.length > limit) {
    throw new FieldError('ids', `record limit reached. cannot submit more than ${limit} records into this call`, 'param', 'EXCEEDED_ID_LIMIT');
  }
  return ids;
}

const listParam = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
const idsParam = (request: DownstreamRequest) => checkIds(listParam(request.query.ids));

/** The sObject an id belongs to, by key prefix, and the record if it exists. */
function byId(id: string, context: DownstreamContext) {
  const object = SOBJECTS.find((candidate) => id.startsWith(candidate.keyPrefix));
  return { object, found: object ? findRecord([object], id, context.data) : undefined };
}

function deleteMany(request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const ids = idsParam(request);
  const outcomes = collect(
    request.query.allOrNone === 'true',
    ids.map((id) => {
      const { object, found } = byId(id, context);
      return {
        name: object?.name ?? 'sObject',
        check: () => {
          if (found && !object!.readOnly) return;
          const deleted = context.data.archived.some((item) => item.record.nativeId === id);
          throw deleted
            ? new FieldError(undefined, 'entity is deleted', 'reference', 'ENTITY_IS_DELETED')
            : new FieldError(undefined, 'invalid cross reference id', 'reference', 'INVALID_CROSS_REFERENCE_KEY');
        },
        write: () => {
          deleteRecord(found!, context);
          return id;
        },
      };
    }),
  );
  return reply(
    200,
    outcomes.map((outcome, i) => withId(outcome, ids[i])),
    HEADERS,
  );
}

/** The most records a read with a request body takes ("Get Records With a Request Body"). */
export const READ_BODY_LIMIT = 2000;

/** `{ ids, fields }`, the body of a read by POST: both lists of strings. */
function readBody(body: unknown): { ids: string[]; fields: string[] } {
  const list = (name: 'ids' | 'fields'): string[] => {
    const value = isPlainObject(body) ? body[name] : undefined;
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      throw new FieldError(undefined, `Cannot deserialize value of ${name}: expected an array of strings`, 'body');
    }
    return value.map((item) => item.trim()).filter(Boolean);
  };
  if (!isPlainObject(body)) throw new FieldError(undefined, 'Cannot deserialize the request body: expected an object with "ids" and "fields"', 'body');
  return { ids: checkIds(list('ids'), READ_BODY_LIMIT), fields: list('fields') };
}

/** The records of `ids` with the `wanted` fields, in the order asked; null for an id with no record. */
function readMany(object: SObject, version: string, ids: string[], wanted: string[], context: DownstreamContext): DownstreamResponse {
  if (wanted.length === 0) throw new FieldError('fields', 'The fields parameter is required', 'param', 'MALFORMED_QUERY');
  // Each column once (a name asked for again would only set it again), looked up by name, not by scanning.
  const selected = new Set(
    wanted.map((name) => {
      const column = columnNamed(object, name);
      if (!column) throw new FieldError('fields', `No such column '${name}' on entity '${object.name}'.`, 'unknown', 'INVALID_FIELD');
      return column;
    }),
  );
  const rows = ids.map((id) => {
    const found = findRecord([object], id, context.data);
    if (!found) return null;
    const row = render(object, found.entry.record, found.entry.extra, context, version);
    return { attributes: row.attributes, Id: row.Id, ...Object.fromEntries([...selected].map((name) => [name, row[name] ?? null])) };
  });
  return reply(200, rows, HEADERS);
}

/** The sObject Collections routes. */
export function sobjectCollectionRoutes(): Route[] {
  return [
    {
      method: ['POST', 'PATCH', 'DELETE'],
      pattern: 'services/data/:version/composite/sobjects',
      run: versioned((_version, _params, request, context) =>
        request.method === 'POST' ? createMany(request, context) : request.method === 'PATCH' ? updateMany(request, context) : deleteMany(request, context),
      ),
    },
    {
      // GET takes the ids and fields in the query; POST in the body, for more ids than a URL holds.
      method: ['GET', 'POST'],
      pattern: 'services/data/:version/composite/sobjects/:sobject',
      run: versioned((version, params, request, context) => {
        const object = sobjectNamed(params.sobject);
        if (!object) return sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
        if (request.method === 'GET') return readMany(object, version, idsParam(request), listParam(request.query.fields), context);
        const { ids, fields } = readBody(request.body);
        return readMany(object, version, ids, fields, context);
      }),
    },
  ];
}
