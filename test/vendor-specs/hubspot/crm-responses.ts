/**
 * The response schemas of the HubSpot CRM operations the SDK suite calls, as an OpenAPI 3.1
 * document for `openApiChecker`: re-written by hand from HubSpot's published OpenAPI specs
 * (which are not licensed for copying; see README.md beside this file for the source commit,
 * the files and how to refresh). Only what a client relies on is kept: each schema's field
 * names, types, formats, enums and required fields; descriptions and examples are not.
 *
 * Where HubSpot's live API answers differently from its spec, the schema allows both and says
 * so (`REAL`): a property value is `null` when the object has none; v4 association ids
 * (`fromObjectId`, `toObjectId`) are numbers; an unlabelled association's `label` is `null`.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dateTime = { type: 'string', format: 'date-time' };
const strings = { type: 'object', additionalProperties: { type: 'string' } };
const arrayOf = (name: string) => ({ type: 'array', items: ref(name) });
const json = (name: string, description = 'OK') => ({ description, content: { 'application/json': { schema: ref(name) } } });
const error = { '4XX': json('ErrorBody', 'An error occurred.') };
const noContent = { '204': { description: 'No content' } };

/** REAL: HubSpot answers `null` for a property the object has no value of (the spec says string). */
const propertyValues = { type: 'object', additionalProperties: { type: ['string', 'null'] } };
/** REAL: v4 answers carry object ids as numbers (the spec says string). */
const v4Id = { type: ['string', 'integer'] };

const simpleObjectFields = {
  archived: { type: 'boolean' },
  archivedAt: dateTime,
  createdAt: dateTime,
  id: { type: 'string' },
  objectWriteTraceId: { type: 'string' },
  properties: propertyValues,
  propertiesWithHistory: { type: 'object', additionalProperties: arrayOf('ValueWithTimestamp') },
  updatedAt: dateTime,
  url: { type: 'string' },
  warnings: { type: 'array', items: { type: 'object' } },
};
const objectRequired = ['archived', 'createdAt', 'id', 'properties', 'updatedAt'];
const batchFields = {
  completedAt: dateTime,
  links: strings,
  requestedAt: dateTime,
  startedAt: dateTime,
  status: { type: 'string', enum: ['CANCELED', 'COMPLETE', 'PENDING', 'PROCESSING'] },
};
const batchRequired = ['completedAt', 'results', 'startedAt', 'status'];
const withErrors = { errors: arrayOf('StandardError'), numErrors: { type: 'integer' } };
const idOf = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };

const schemas = {
  SimplePublicObject: { type: 'object', required: objectRequired, properties: simpleObjectFields },
  SimplePublicObjectWithAssociations: {
    type: 'object',
    required: objectRequired,
    properties: { ...simpleObjectFields, associations: { type: 'object', additionalProperties: ref('CollectionResponseAssociatedId') } },
  },
  ValueWithTimestamp: {
    type: 'object',
    required: ['sourceType', 'timestamp', 'value'],
    properties: {
      sourceId: { type: 'string' },
      sourceLabel: { type: 'string' },
      sourceType: { type: 'string' },
      timestamp: dateTime,
      updatedByUserId: { type: 'integer' },
      value: { type: 'string' },
    },
  },
  CollectionResponseAssociatedId: {
    type: 'object',
    required: ['results'],
    properties: {
      paging: ref('Paging'),
      results: { type: 'array', items: { type: 'object', required: ['id', 'type'], properties: { id: { type: 'string' }, type: { type: 'string' } } } },
    },
  },
  NextPage: { type: 'object', required: ['after'], properties: { after: { type: 'string' }, link: { type: 'string' } } },
  ForwardPaging: { type: 'object', properties: { next: ref('NextPage') } },
  Paging: {
    type: 'object',
    properties: { next: ref('NextPage'), prev: { type: 'object', required: ['before'], properties: { before: { type: 'string' }, link: { type: 'string' } } } },
  },
  CollectionResponseSimplePublicObjectWithAssociationsForwardPaging: {
    type: 'object',
    required: ['results'],
    properties: { paging: ref('ForwardPaging'), results: arrayOf('SimplePublicObjectWithAssociations') },
  },
  CollectionResponseWithTotalSimplePublicObject: {
    type: 'object',
    required: ['results', 'total'],
    properties: { paging: ref('Paging'), results: arrayOf('SimplePublicObject'), total: { type: 'integer' } },
  },
  BatchResponseSimplePublicObject: { type: 'object', required: batchRequired, properties: { ...batchFields, results: arrayOf('SimplePublicObject') } },
  BatchResponseSimplePublicObjectWithErrors: {
    type: 'object',
    required: batchRequired,
    properties: { ...batchFields, ...withErrors, results: arrayOf('SimplePublicObject') },
  },
  StandardError: {
    type: 'object',
    required: ['category', 'context', 'errors', 'links', 'message', 'status'],
    properties: {
      category: { type: 'string' },
      context: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
      errors: arrayOf('ErrorDetail'),
      id: { type: 'string' },
      links: strings,
      message: { type: 'string' },
      status: { type: 'string' },
      subCategory: { type: 'object' },
    },
  },
  ErrorDetail: {
    type: 'object',
    required: ['message'],
    properties: {
      code: { type: 'string' },
      context: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
      in: { type: 'string' },
      message: { type: 'string' },
      subCategory: { type: 'string' },
    },
  },
  /** HubSpot's `Error` (the spec's name), under the name the checker looks up for unknown routes. */
  ErrorBody: {
    type: 'object',
    required: ['category', 'correlationId', 'message'],
    properties: {
      category: { type: 'string' },
      context: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
      correlationId: { type: 'string', format: 'uuid' },
      errors: arrayOf('ErrorDetail'),
      links: strings,
      message: { type: 'string' },
      subCategory: { type: 'string' },
    },
  },
  LabelsBetweenObjectPair: {
    type: 'object',
    required: ['fromObjectId', 'fromObjectTypeId', 'labels', 'toObjectId', 'toObjectTypeId'],
    properties: {
      fromObjectId: v4Id,
      fromObjectTypeId: { type: 'string' },
      labels: { type: 'array', items: { type: 'string' } },
      toObjectId: v4Id,
      toObjectTypeId: { type: 'string' },
    },
  },
  AssociationSpecWithLabel: {
    type: 'object',
    required: ['category', 'typeId'],
    properties: {
      category: { type: 'string', enum: ['HUBSPOT_DEFINED', 'INTEGRATOR_DEFINED', 'USER_DEFINED', 'WORK'] },
      fromObjectTypeId: { type: 'string' },
      // REAL: `null` for an unlabelled association (the spec says string).
      label: { type: ['string', 'null'] },
      toObjectTypeId: { type: 'string' },
      typeId: { type: 'integer' },
    },
  },
  MultiAssociatedObjectWithLabel: {
    type: 'object',
    required: ['associationTypes', 'toObjectId'],
    properties: { associationTypes: arrayOf('AssociationSpecWithLabel'), toObjectId: v4Id },
  },
  CollectionResponseMultiAssociatedObjectWithLabelForwardPaging: {
    type: 'object',
    required: ['results'],
    properties: { paging: ref('ForwardPaging'), results: arrayOf('MultiAssociatedObjectWithLabel') },
  },
  BatchResponsePublicDefaultAssociation: {
    type: 'object',
    required: batchRequired,
    properties: {
      ...batchFields,
      ...withErrors,
      results: {
        type: 'array',
        items: {
          type: 'object',
          required: ['associationSpec', 'from', 'to'],
          properties: {
            associationSpec: {
              type: 'object',
              required: ['associationCategory', 'associationTypeId'],
              properties: {
                associationCategory: { type: 'string', enum: ['HUBSPOT_DEFINED', 'INTEGRATOR_DEFINED', 'USER_DEFINED', 'WORK'] },
                associationTypeId: { type: 'integer' },
              },
            },
            from: idOf,
            to: idOf,
          },
        },
      },
    },
  },
};

const OBJECTS = '/crm/v3/objects/{objectType}';
const V4 = '/crm/v4/objects/{objectType}/{objectId}/associations';

/** The operations the SDK suite calls, each with its documented answers. */
export const HUBSPOT_CRM_RESPONSES = {
  openapi: '3.1.0',
  info: { title: 'HubSpot CRM answers, as the SDK suite checks them', version: 'v3 objects, v4 associations' },
  paths: {
    [OBJECTS]: {
      get: { responses: { '200': json('CollectionResponseSimplePublicObjectWithAssociationsForwardPaging'), ...error } },
      post: { responses: { '201': json('SimplePublicObject'), ...error } },
    },
    [`${OBJECTS}/{objectId}`]: {
      get: { responses: { '200': json('SimplePublicObjectWithAssociations'), ...error } },
      patch: { responses: { '200': json('SimplePublicObject'), ...error } },
      delete: { responses: { ...noContent, ...error } },
    },
    [`${OBJECTS}/search`]: { post: { responses: { '200': json('CollectionResponseWithTotalSimplePublicObject'), ...error } } },
    [`${OBJECTS}/batch/create`]: {
      post: { responses: { '201': json('BatchResponseSimplePublicObject'), '207': json('BatchResponseSimplePublicObjectWithErrors'), ...error } },
    },
    [`${OBJECTS}/batch/read`]: {
      post: { responses: { '200': json('BatchResponseSimplePublicObject'), '207': json('BatchResponseSimplePublicObjectWithErrors'), ...error } },
    },
    [`${OBJECTS}/batch/update`]: {
      post: { responses: { '200': json('BatchResponseSimplePublicObject'), '207': json('BatchResponseSimplePublicObjectWithErrors'), ...error } },
    },
    [`${OBJECTS}/batch/archive`]: { post: { responses: { ...noContent, ...error } } },
    [`${V4}/{toObjectType}`]: { get: { responses: { '200': json('CollectionResponseMultiAssociatedObjectWithLabelForwardPaging'), ...error } } },
    [`${V4}/{toObjectType}/{toObjectId}`]: {
      put: { responses: { '201': json('LabelsBetweenObjectPair'), ...error } },
      delete: { responses: { ...noContent, ...error } },
    },
    [`${V4}/default/{toObjectType}/{toObjectId}`]: { put: { responses: { '200': json('BatchResponsePublicDefaultAssociation'), ...error } } },
  },
  components: { schemas },
};
