import { createRecord, deleteRecord, displayName, FieldError, type Found, findRecord, type NativeFields, updateRecord } from '../rest-engine.js';
import { type Params, type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { CHILD_RELATIONSHIPS, describeField } from './describe.js';
import { customColumns, describe, errors, HEADERS, POLICY, render, SOBJECTS, type SObject, sobjectNamed, versioned, writeBody } from './objects.js';

/**
 * Salesforce's sObject resources: the list of sObjects, an sObject's basic information and its
 * full `describe`, and one record at a time (create, read, update, delete).
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_list.htm
 */

/** Runs a route only for a known API version and sObject; anything else is NOT_FOUND. */
function onSObject(run: (object: SObject, params: Params, request: DownstreamRequest, context: DownstreamContext) => DownstreamResponse): Route['run'] {
  return versioned((_version, params, request, context) => {
    const object = sobjectNamed(params.sobject);
    if (!object) return errors.notFound(request, context);
    if (object.readOnly && request.method !== 'GET') return errors.methodNotAllowed(request, ['GET'], context);
    return run(object, params, request, context);
  });
}

function withRecord(
  run: (object: SObject, found: Found, params: Params, request: DownstreamRequest, context: DownstreamContext) => DownstreamResponse,
): Route['run'] {
  return onSObject((object, params, request, context) => {
    const found = findRecord([object], params.id!, context.data);
    return found ? run(object, found, params, request, context) : errors.notFound(request, context);
  });
}

function describeFull(object: SObject, version: string): NativeFields {
  const writable = !object.readOnly;
  const own = object.fields
    .filter((field) => field.read)
    .map((field) => describeField(field.native, field, { writable, required: object.required?.includes(field.native) ?? false, custom: false }));
  const custom = customColumns().map((name) => describeField(name, undefined, { writable, required: false, custom: true }));
  const childRelationships = Object.entries(CHILD_RELATIONSHIPS[object.name] ?? {}).map(([relationshipName, { childSObject, field }]) => ({
    childSObject,
    field,
    relationshipName,
    cascadeDelete: false,
    deprecatedAndHidden: false,
    junctionIdListNames: [],
    junctionReferenceTo: [],
    restrictedDelete: false,
  }));
  const global = describe(object, version);
  return {
    ...global,
    fields: [...own, ...custom],
    childRelationships,
    recordTypeInfos: [],
    // The rest of Salesforce's DescribeSObjectResult: no layouts, actions or scopes are simulated.
    actionOverrides: [],
    compactLayoutable: global.layoutable,
    listviewable: global.layoutable,
    lookupLayoutable: global.layoutable,
    namedLayoutInfos: [],
    networkScopeFieldName: null,
    searchLayoutable: global.searchable,
    supportedScopes: [{ label: `All ${global.labelPlural}`, name: 'everything' }],
  };
}

/** The sObject routes (`…/:sobject/describe` outranks `…/:sobject/:id`: a static segment beats a parameter). */
export function sobjectRoutes(): Route[] {
  return [
    {
      method: 'GET',
      pattern: 'services/data/:version/sobjects/:sobject/describe',
      run: versioned((version, params, request, context) => {
        const object = sobjectNamed(params.sobject);
        return object ? reply(200, describeFull(object, version), HEADERS) : errors.notFound(request, context);
      }),
    },
    {
      method: 'GET',
      pattern: 'services/data/:version/sobjects',
      run: versioned((version) => reply(200, { encoding: 'UTF-8', maxBatchSize: 200, sobjects: SOBJECTS.map((object) => describe(object, version)) }, HEADERS)),
    },
    {
      method: 'GET',
      pattern: 'services/data/:version/sobjects/:sobject',
      run: onSObject((object, params, _request, context) => {
        const recent = context.data.crm[object.type].slice(0, 10).map(({ record }) => ({
          attributes: { type: object.name, url: `/services/data/${params.version}/sobjects/${object.name}/${record.nativeId}` },
          Id: record.nativeId,
          Name: displayName(record),
        }));
        return reply(200, { objectDescribe: describe(object, params.version!), recentItems: recent }, HEADERS);
      }),
    },
    {
      method: 'POST',
      pattern: 'services/data/:version/sobjects/:sobject',
      run: onSObject((object, _params, request, context) => {
        const body = writeBody(request.body, object);
        if ('Id' in body) throw new FieldError('Id', 'The Id field should not be specified in the sobject data.', 'value', 'INVALID_FIELD');
        const { entry } = createRecord(object, body, POLICY, context);
        return reply(201, { id: entry.record.nativeId, success: true, errors: [] }, HEADERS);
      }),
    },
    {
      method: ['GET', 'PATCH', 'DELETE'],
      pattern: 'services/data/:version/sobjects/:sobject/:id',
      run: withRecord((object, found, params, request, context) => {
        if (request.method === 'GET') {
          const row = render(object, found.entry.record, found.entry.extra, context, params.version);
          const wanted = request.query.fields === undefined ? undefined : new Set(request.query.fields.split(',').map((name) => name.trim().toLowerCase()));
          const keep = (name: string) => !wanted || name === 'attributes' || name === 'Id' || wanted.has(name.toLowerCase());
          return reply(200, Object.fromEntries(Object.entries(row).filter(([name]) => keep(name))), HEADERS);
        }
        if (request.method === 'PATCH') updateRecord(found, writeBody(request.body, object), POLICY, context);
        else deleteRecord(found, context);
        return reply(204, null, HEADERS);
      }),
    },
  ];
}
