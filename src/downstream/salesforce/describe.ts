import type { FieldMap } from '../rest-engine.js';

/**
 * Salesforce field metadata the simulated sObjects need: each field's type (for `describe` and
 * for SOQL's literal checks) and which sObjects a reference field points at (for parent
 * relationship fields such as `Account.Name`).
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_describe.htm
 */

/** Reference fields and the sObjects they point at; the relationship name is the field without `Id`. */
export const REFERENCES: Record<string, readonly string[]> = {
  AccountId: ['Account'],
  OwnerId: ['User'],
  CreatedById: ['User'],
  LastModifiedById: ['User'],
  WhoId: ['Contact', 'Lead'],
  WhatId: ['Account', 'Opportunity'],
  ParentId: ['Account', 'Contact', 'Opportunity', 'Lead'],
  ConvertedContactId: ['Contact'],
  ConvertedAccountId: ['Account'],
  EventId: ['Event'],
  RelationId: ['Contact', 'Lead', 'User'],
  RelatedToId: ['Account', 'Opportunity'],
  ActivityId: ['Task'],
  ReplyToEmailMessageId: ['EmailMessage'],
};

/** Child relationships by parent sObject: name → the child sObject and its field that points at the parent. */
export const CHILD_RELATIONSHIPS: Record<string, Record<string, { childSObject: string; field: string }>> = {
  Account: {
    Contacts: { childSObject: 'Contact', field: 'AccountId' },
    Opportunities: { childSObject: 'Opportunity', field: 'AccountId' },
    Tasks: { childSObject: 'Task', field: 'WhatId' },
    Events: { childSObject: 'Event', field: 'WhatId' },
    Notes: { childSObject: 'Note', field: 'ParentId' },
    Emails: { childSObject: 'EmailMessage', field: 'RelatedToId' },
  },
  Contact: {
    Tasks: { childSObject: 'Task', field: 'WhoId' },
    Events: { childSObject: 'Event', field: 'WhoId' },
    Notes: { childSObject: 'Note', field: 'ParentId' },
  },
  Opportunity: {
    Tasks: { childSObject: 'Task', field: 'WhatId' },
    Events: { childSObject: 'Event', field: 'WhatId' },
    Notes: { childSObject: 'Note', field: 'ParentId' },
    Emails: { childSObject: 'EmailMessage', field: 'RelatedToId' },
  },
  Lead: {
    Tasks: { childSObject: 'Task', field: 'WhoId' },
    Events: { childSObject: 'Event', field: 'WhoId' },
    Notes: { childSObject: 'Note', field: 'ParentId' },
  },
  Event: { EventRelations: { childSObject: 'EventRelation', field: 'EventId' } },
};

/** A child relationship of an sObject by name, case-insensitively. */
export function childRelationship(parent: string, name: string): { name: string; childSObject: string; field: string } | undefined {
  const children = CHILD_RELATIONSHIPS[parent] ?? {};
  const key = Object.keys(children).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key ? { name: key, ...children[key]! } : undefined;
}

/** The reference field behind a relationship name (`Account` → `AccountId`), case-insensitively. */
export function referenceField(relationship: string): string | undefined {
  return Object.keys(REFERENCES).find((name) => name.slice(0, -2).toLowerCase() === relationship.toLowerCase());
}

/** A relationship over several sObject types (`Who`, `What`) is polymorphic: its parent shows as type `Name`. */
export const isPolymorphic = (referenceName: string) => (REFERENCES[referenceName]?.length ?? 0) > 1 && referenceName !== 'OwnerId';

const TYPES: Record<string, string> = {
  Id: 'id',
  Email: 'email',
  Phone: 'phone',
  MobilePhone: 'phone',
  Website: 'url',
  Description: 'textarea',
  Body: 'textarea',
  AnnualRevenue: 'currency',
  Amount: 'currency',
  ExpectedRevenue: 'currency',
  Probability: 'percent',
  NumberOfEmployees: 'int',
  DurationInMinutes: 'int',
  CloseDate: 'date',
  ActivityDate: 'date',
  ActivityDateTime: 'datetime',
  StartDateTime: 'datetime',
  EndDateTime: 'datetime',
  CreatedDate: 'datetime',
  LastModifiedDate: 'datetime',
  SystemModstamp: 'datetime',
  StageName: 'picklist',
  Status: 'picklist',
  Priority: 'picklist',
  Industry: 'picklist',
  Type: 'picklist',
  TaskSubtype: 'picklist',
  Username: 'string',
  Score__c: 'double',
  BillingAddress: 'address',
  ShippingAddress: 'address',
  TextBody: 'textarea',
  HtmlBody: 'textarea',
  Headers: 'textarea',
  FromAddress: 'email',
  MessageDate: 'datetime',
  FirstOpenedDate: 'datetime',
  LastOpenedDate: 'datetime',
  Incoming: 'boolean',
  HasAttachment: 'boolean',
};

/** A field's Salesforce type: `string`, `id`, `reference`, `boolean`, `date`, `datetime`, `currency`… */
export function fieldType(name: string): string {
  if (TYPES[name]) return TYPES[name]!;
  if (REFERENCES[name]) return 'reference';
  if (/^Is[A-Z]/.test(name)) return 'boolean';
  return 'string';
}

export const isStringType = (type: string) => ['string', 'id', 'reference', 'email', 'phone', 'url', 'textarea', 'picklist'].includes(type);
export const isNumberType = (type: string) => ['currency', 'percent', 'int', 'double'].includes(type);

/** A field's SOAP type, which `describe` reports beside its type. */
const SOAP_TYPES: Record<string, string> = {
  id: 'tns:ID',
  reference: 'tns:ID',
  boolean: 'xsd:boolean',
  date: 'xsd:date',
  datetime: 'xsd:dateTime',
  currency: 'xsd:double',
  percent: 'xsd:double',
  double: 'xsd:double',
  int: 'xsd:int',
  address: 'urn:address',
};

/** Digits, precision and scale of a number field, as Salesforce's standard fields have them. */
const NUMBER_SHAPE: Record<string, { digits: number; precision: number; scale: number }> = {
  int: { digits: 9, precision: 0, scale: 0 },
  currency: { digits: 0, precision: 18, scale: 2 },
  percent: { digits: 0, precision: 3, scale: 0 },
  double: { digits: 0, precision: 18, scale: 0 },
};

/** The compound field a part belongs to: `BillingCity` → `BillingAddress`, `FirstName` → `Name`. */
function compoundOf(name: string): string | null {
  if (/^Billing(Street|City|State|PostalCode|Country)$/.test(name)) return 'BillingAddress';
  if (/^Shipping(Street|City|State|PostalCode|Country)$/.test(name)) return 'ShippingAddress';
  return name === 'FirstName' || name === 'LastName' ? 'Name' : null;
}

/**
 * One entry of `describe`'s `fields`: every property of Salesforce's DescribeFieldResult, in its
 * order (https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_describesobjects_describesobjectresult.htm).
 */
export function describeField(
  name: string,
  field: FieldMap | undefined,
  options: { writable: boolean; required: boolean; custom: boolean },
): Record<string, unknown> {
  const type = fieldType(name);
  const writable = options.writable && (options.custom || field?.write !== undefined);
  const references = REFERENCES[name];
  const length = isStringType(type) && type !== 'id' && type !== 'reference' ? (type === 'textarea' ? 32000 : 255) : 0;
  const system = ['Id', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp', 'CreatedById', 'LastModifiedById', 'IsDeleted'].includes(name);
  // Long text and compound fields take no WHERE, ORDER BY or GROUP BY.
  const filterable = type !== 'textarea' && type !== 'address';
  const shape = NUMBER_SHAPE[type] ?? { digits: 0, precision: 0, scale: 0 };
  return {
    aggregatable: filterable,
    aiPredictionField: false,
    autoNumber: false,
    byteLength: type === 'id' || type === 'reference' ? 18 : length * 3,
    calculated: !writable && !system && type !== 'address',
    calculatedFormula: null,
    cascadeDelete: false,
    caseSensitive: false,
    compoundFieldName: compoundOf(name),
    controllerName: null,
    createable: writable,
    custom: options.custom,
    defaultValue: null,
    defaultValueFormula: null,
    defaultedOnCreate: system || name === 'OwnerId',
    dependentPicklist: false,
    deprecatedAndHidden: false,
    digits: shape.digits,
    displayLocationInDecimal: false,
    encrypted: false,
    externalId: false,
    extraTypeInfo: null,
    filterable,
    filteredLookupInfo: null,
    formulaTreatNullNumberAsZero: false,
    groupable: filterable && !isNumberType(type) && type !== 'datetime',
    highScaleNumber: false,
    htmlFormatted: false,
    idLookup: name === 'Id' || name === 'Email',
    inlineHelpText: null,
    label: name
      .replace(/__c$/, '')
      .replace(/Id$/, name === 'Id' ? 'Id' : ' ID')
      .replace(/([a-z])([A-Z])/g, '$1 $2'),
    length,
    mask: null,
    maskType: null,
    name,
    nameField: name === 'Name',
    namePointing: references !== undefined && isPolymorphic(name),
    nillable: !options.required && name !== 'Id' && type !== 'boolean',
    permissionable: writable && !options.required,
    picklistValues: [],
    polymorphicForeignKey: references !== undefined && isPolymorphic(name),
    precision: shape.precision,
    queryByDistance: false,
    referenceTargetField: null,
    referenceTo: references ? [...references] : [],
    relationshipName: references ? name.slice(0, -2) : null,
    relationshipOrder: null,
    restrictedDelete: false,
    restrictedPicklist: false,
    scale: shape.scale,
    searchPrefilterable: false,
    soapType: SOAP_TYPES[type] ?? 'xsd:string',
    sortable: filterable,
    type,
    unique: false,
    updateable: writable,
    writeRequiresMasterRead: false,
  };
}

/** What the simulated sObjects are in Salesforce's global describe, beyond being queryable and writable. */
const SOBJECT_TRAITS: Record<string, { labelPlural: string; feedEnabled: boolean; mergeable: boolean; searchable: boolean; layoutable: boolean }> = {
  Contact: { labelPlural: 'Contacts', feedEnabled: true, mergeable: true, searchable: true, layoutable: true },
  Account: { labelPlural: 'Accounts', feedEnabled: true, mergeable: true, searchable: true, layoutable: true },
  Opportunity: { labelPlural: 'Opportunities', feedEnabled: true, mergeable: false, searchable: true, layoutable: true },
  Lead: { labelPlural: 'Leads', feedEnabled: true, mergeable: true, searchable: true, layoutable: true },
  User: { labelPlural: 'Users', feedEnabled: true, mergeable: false, searchable: true, layoutable: true },
  Note: { labelPlural: 'Notes', feedEnabled: false, mergeable: false, searchable: true, layoutable: true },
  Task: { labelPlural: 'Tasks', feedEnabled: false, mergeable: false, searchable: true, layoutable: true },
  Event: { labelPlural: 'Events', feedEnabled: false, mergeable: false, searchable: true, layoutable: true },
  EventRelation: { labelPlural: 'Event Relations', feedEnabled: false, mergeable: false, searchable: false, layoutable: false },
  EmailMessage: { labelPlural: 'Email Messages', feedEnabled: false, mergeable: false, searchable: true, layoutable: true },
};

/**
 * The properties of Salesforce's DescribeGlobalSObjectResult an sObject's entry has besides its
 * name, label, key prefix and what may be done with it (`createable`…, given by the caller).
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_describeGlobal.htm
 */
export function sobjectTraits(name: string, writable: boolean) {
  const traits = SOBJECT_TRAITS[name] ?? { labelPlural: `${name}s`, feedEnabled: false, mergeable: false, searchable: false, layoutable: false };
  return {
    activateable: false,
    associateEntityType: null as string | null,
    associateParentEntity: null as string | null,
    customSetting: false,
    deepCloneable: false,
    deprecatedAndHidden: false,
    feedEnabled: traits.feedEnabled,
    hasSubtypes: false,
    idEnabled: true,
    isInterface: false,
    isSubtype: false,
    labelPlural: traits.labelPlural,
    layoutable: traits.layoutable,
    mergeable: traits.mergeable && writable,
    mruEnabled: traits.layoutable,
    replicateable: true,
    retrieveable: true,
    searchable: traits.searchable,
    triggerable: writable,
    undeletable: writable,
  };
}
