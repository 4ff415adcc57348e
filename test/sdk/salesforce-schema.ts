import * as z from 'zod';

/**
 * Salesforce's REST answers as Salesforce documents them, for checking every answer of the
 * simulated Salesforce in the jsforce suite. Salesforce publishes no static OpenAPI document of
 * its REST API (its "sObjects REST API OpenAPI" is a beta generated per org, from a live org,
 * under the Beta Services Terms), so these schemas are derived by hand from the documentation
 * pages named beside each, and from the types jsforce 3 declares for them
 * (`jsforce/lib/types/common.d.ts`, MIT): each property either source names is required, with
 * the type it gives; objects are strict, so a property neither names fails.
 *
 * To refresh: reread the pages (the REST API Developer Guide, and the SOAP API reference for the
 * describe results REST returns as JSON) and jsforce's types at the version installed.
 */

/** A record id: 18 characters, case-safe ("Working with Record IDs"). */
const recordId = z.string().regex(/^[a-zA-Z0-9]{18}$/);
/** A URL path under an API version: `/services/data/v53.0…`. */
const versioned = (rest: string) => new RegExp(`^/services/data/v\\d+\\.\\d+${rest}$`);

/** `attributes` of a record: its sObject type and URL (Query; sObject Rows). */
const attributes = z.strictObject({ type: z.string().min(1), url: z.string().regex(versioned('/sobjects/\\w+/[a-zA-Z0-9]{18}')) });

/**
 * A compound address (`BillingAddress`), as the SOAP API's `address` type and the "Compound
 * Fields" page of the SOAP API Developer Guide give its parts.
 */
const compoundAddress = z.strictObject({
  city: z.string().nullable(),
  country: z.string().nullable(),
  geocodeAccuracy: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  postalCode: z.string().nullable(),
  state: z.string().nullable(),
  street: z.string().nullable(),
});

/** A field value: a scalar, a compound address, a parent record (`Account.Name`) or a child relationship's query result. */
const fieldValue: z.ZodType = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), compoundAddress, record, queryResult]));

/** A record as queries and reads answer it (jsforce `Record`: `Id?`, `attributes: { type, url }`). */
export const record: z.ZodType = z.lazy(() => z.object({ attributes, Id: recordId.optional() }).catchall(fieldValue));

/**
 * Query and query-more: `totalSize`, `done`, `records`, and `nextRecordsUrl` exactly while not
 * done. https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_query.htm
 */
export const queryResult: z.ZodType = z.lazy(() =>
  z
    .strictObject({
      totalSize: z.int().nonnegative(),
      done: z.boolean(),
      nextRecordsUrl: z.string().regex(versioned('/query/[\\w-]+')).optional(),
      records: z.array(record),
    })
    .refine((answer) => answer.done === (answer.nextRecordsUrl === undefined), 'nextRecordsUrl is there exactly when done is false'),
);

/**
 * An error answer: an array of `{ message, errorCode, fields? }`.
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
 */
export const errorAnswer = z
  .array(z.strictObject({ message: z.string().min(1), errorCode: z.string().regex(/^[A-Z_]+$/), fields: z.array(z.string()).optional() }))
  .min(1);

/** A one-record create: `{ id, success, errors }`. https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_sobject_create.htm */
export const createAnswer = z.strictObject({ id: recordId, success: z.literal(true), errors: z.array(z.never()).length(0) });

/**
 * One sObject Collections result: with an id and no errors when it succeeded, errors of
 * `{ statusCode, message, fields }` when not (jsforce `SaveResult`).
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_composite_sobjects_collections_create.htm
 */
export const collectionResult = z.union([
  z.strictObject({ id: recordId, success: z.literal(true), errors: z.array(z.never()).length(0) }),
  z.strictObject({
    id: recordId.optional(),
    success: z.literal(false),
    errors: z.array(z.strictObject({ statusCode: z.string().regex(/^[A-Z_]+$/), message: z.string().min(1), fields: z.array(z.string()) })).min(1),
  }),
]);

const nullableString = z.string().nullable();

/**
 * An sObject in the global describe (DescribeGlobalSObjectResult).
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_describeGlobal.htm,
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_describeglobal_describeglobalresult.htm
 */
const globalSObject = z.strictObject({
  activateable: z.boolean(),
  associateEntityType: nullableString,
  associateParentEntity: nullableString,
  createable: z.boolean(),
  custom: z.boolean(),
  customSetting: z.boolean(),
  deepCloneable: z.boolean(),
  deletable: z.boolean(),
  deprecatedAndHidden: z.boolean(),
  feedEnabled: z.boolean(),
  hasSubtypes: z.boolean(),
  idEnabled: z.boolean(),
  isInterface: z.boolean(),
  isSubtype: z.boolean(),
  keyPrefix: nullableString,
  label: z.string(),
  labelPlural: z.string(),
  layoutable: z.boolean(),
  mergeable: z.boolean(),
  mruEnabled: z.boolean(),
  name: z.string(),
  queryable: z.boolean(),
  replicateable: z.boolean(),
  retrieveable: z.boolean(),
  searchable: z.boolean(),
  triggerable: z.boolean(),
  undeletable: z.boolean(),
  updateable: z.boolean(),
  urls: z.record(z.string(), z.string()),
});

export const describeGlobalAnswer = z.strictObject({ encoding: z.string(), maxBatchSize: z.int().positive(), sobjects: z.array(globalSObject) });

/** sObject Basic Information. https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_basic_info.htm */
export const basicInfoAnswer = z.strictObject({ objectDescribe: globalSObject, recentItems: z.array(record) });

/** A field of a describe (DescribeFieldResult). https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_describesobjects_describesobjectresult.htm */
const describeField = z.strictObject({
  aggregatable: z.boolean(),
  aiPredictionField: z.boolean(),
  autoNumber: z.boolean(),
  byteLength: z.int().nonnegative(),
  calculated: z.boolean(),
  calculatedFormula: nullableString,
  cascadeDelete: z.boolean(),
  caseSensitive: z.boolean(),
  compoundFieldName: nullableString,
  controllerName: nullableString,
  createable: z.boolean(),
  custom: z.boolean(),
  defaultValue: z.unknown(),
  defaultValueFormula: nullableString,
  defaultedOnCreate: z.boolean(),
  dependentPicklist: z.boolean(),
  deprecatedAndHidden: z.boolean(),
  digits: z.int().nonnegative(),
  displayLocationInDecimal: z.boolean(),
  encrypted: z.boolean(),
  externalId: z.boolean(),
  extraTypeInfo: nullableString,
  filterable: z.boolean(),
  filteredLookupInfo: z.record(z.string(), z.unknown()).nullable(),
  formulaTreatNullNumberAsZero: z.boolean(),
  groupable: z.boolean(),
  highScaleNumber: z.boolean(),
  htmlFormatted: z.boolean(),
  idLookup: z.boolean(),
  inlineHelpText: nullableString,
  label: z.string(),
  length: z.int().nonnegative(),
  mask: nullableString,
  maskType: nullableString,
  name: z.string(),
  nameField: z.boolean(),
  namePointing: z.boolean(),
  nillable: z.boolean(),
  permissionable: z.boolean(),
  picklistValues: z.array(
    z.strictObject({ active: z.boolean(), defaultValue: z.boolean(), label: nullableString, validFor: nullableString, value: z.string() }),
  ),
  polymorphicForeignKey: z.boolean(),
  precision: z.int().nonnegative(),
  queryByDistance: z.boolean(),
  referenceTargetField: nullableString,
  referenceTo: z.array(z.string()),
  relationshipName: nullableString,
  relationshipOrder: z.int().nullable(),
  restrictedDelete: z.boolean(),
  restrictedPicklist: z.boolean(),
  scale: z.int().nonnegative(),
  searchPrefilterable: z.boolean(),
  soapType: z.enum([
    'tns:ID',
    'urn:address',
    'xsd:anyType',
    'xsd:base64Binary',
    'xsd:boolean',
    'xsd:date',
    'xsd:dateTime',
    'xsd:double',
    'xsd:int',
    'xsd:string',
    'xsd:time',
  ]),
  sortable: z.boolean(),
  type: z.enum([
    'address',
    'anyType',
    'base64',
    'boolean',
    'combobox',
    'complexvalue',
    'currency',
    'date',
    'datetime',
    'double',
    'email',
    'encryptedstring',
    'id',
    'int',
    'location',
    'long',
    'multipicklist',
    'percent',
    'phone',
    'picklist',
    'reference',
    'string',
    'textarea',
    'time',
    'url',
  ]),
  unique: z.boolean(),
  updateable: z.boolean(),
  writeRequiresMasterRead: z.boolean(),
});

const childRelationship = z.strictObject({
  cascadeDelete: z.boolean(),
  childSObject: z.string(),
  deprecatedAndHidden: z.boolean(),
  field: z.string(),
  junctionIdListNames: z.array(z.string()),
  junctionReferenceTo: z.array(z.string()),
  relationshipName: nullableString,
  restrictedDelete: z.boolean(),
});

/** sObject Describe (DescribeSObjectResult). https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_describe.htm */
export const describeAnswer = globalSObject.extend({
  actionOverrides: z.array(
    z.strictObject({ formFactor: z.string(), isAvailableInTouch: z.boolean(), name: z.string(), pageId: z.string(), url: nullableString }),
  ),
  childRelationships: z.array(childRelationship),
  compactLayoutable: z.boolean(),
  fields: z.array(describeField).min(1),
  listviewable: z.boolean(),
  lookupLayoutable: z.boolean(),
  namedLayoutInfos: z.array(z.strictObject({ name: z.string(), urls: z.record(z.string(), z.string()) })),
  networkScopeFieldName: nullableString,
  recordTypeInfos: z.array(
    z.strictObject({
      active: z.boolean(),
      available: z.boolean(),
      defaultRecordTypeMapping: z.boolean(),
      developerName: z.string(),
      master: z.boolean(),
      name: z.string(),
      recordTypeId: z.string(),
      urls: z.record(z.string(), z.string()),
    }),
  ),
  searchLayoutable: z.boolean(),
  supportedScopes: z.array(z.strictObject({ label: z.string(), name: z.string() })).nullable(),
});

/** A one-record read: a record with its Id. https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_retrieve_get.htm */
const recordWithId = z.object({ Id: recordId }).and(record);

/**
 * The schema of the answer to a request of the simulated Salesforce, by method, path and status;
 * undefined for an operation this file does not know (a test must then fail: every answer is checked).
 */
export function answerSchema(method: string, path: string, statusCode: number): z.ZodType | undefined {
  if (statusCode >= 400) return errorAnswer;
  if (statusCode === 204) return ['PATCH', 'DELETE'].includes(method) && /^services\/data\/v[\d.]+\/sobjects\/\w+\/\w+$/.test(path) ? z.null() : undefined;
  const rest = /^services\/data\/v\d+\.\d+\/(.*)$/.exec(path)?.[1];
  if (rest === undefined) return undefined;
  const segments = rest.split('/');
  const [resource, type, id] = segments;
  const is = (expected: string, status: number) => method === expected && statusCode === status;
  if (resource === 'query' && segments.length <= 2 && is('GET', 200)) return queryResult;
  if (resource === 'sobjects') {
    if (segments.length === 1 && is('GET', 200)) return describeGlobalAnswer;
    if (segments.length === 2 && is('GET', 200)) return basicInfoAnswer;
    if (segments.length === 2 && is('POST', 201)) return createAnswer;
    if (segments.length === 3 && id === 'describe' && is('GET', 200)) return describeAnswer;
    if (segments.length === 3 && is('GET', 200)) return recordWithId;
  }
  if (resource === 'composite' && type === 'sobjects') {
    if (segments.length === 2 && statusCode === 200 && ['POST', 'PATCH', 'DELETE'].includes(method)) return z.array(collectionResult);
    if (segments.length === 3 && statusCode === 200 && ['GET', 'POST'].includes(method)) return z.array(recordWithId.nullable());
  }
  return undefined;
}
