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
};

/** Child relationships by parent sObject: name → the child sObject and its field that points at the parent. */
export const CHILD_RELATIONSHIPS: Record<string, Record<string, { childSObject: string; field: string }>> = {
  Account: {
    Contacts: { childSObject: 'Contact', field: 'AccountId' },
    Opportunities: { childSObject: 'Opportunity', field: 'AccountId' },
    Tasks: { childSObject: 'Task', field: 'WhatId' },
    Events: { childSObject: 'Event', field: 'WhatId' },
    Notes: { childSObject: 'Note', field: 'ParentId' },
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

/** One entry of `describe`'s `fields`. */
export function describeField(name: string, field: FieldMap | undefined, options: { writable: boolean; required: boolean; custom: boolean }): Record<string, unknown> {
  const type = fieldType(name);
  const writable = options.writable && (options.custom || field?.write !== undefined);
  const references = REFERENCES[name];
  return {
    name,
    label: name.replace(/__c$/, '').replace(/Id$/, name === 'Id' ? 'Id' : ' ID').replace(/([a-z])([A-Z])/g, '$1 $2'),
    type,
    length: isStringType(type) && type !== 'id' && type !== 'reference' ? (type === 'textarea' ? 32000 : 255) : 0,
    custom: options.custom,
    nillable: !options.required && name !== 'Id' && type !== 'boolean',
    createable: writable,
    updateable: writable,
    calculated: !writable && !['Id', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp', 'CreatedById', 'LastModifiedById', 'IsDeleted'].includes(name),
    defaultedOnCreate: ['Id', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp', 'CreatedById', 'LastModifiedById', 'IsDeleted', 'OwnerId'].includes(name),
    filterable: type !== 'textarea',
    sortable: type !== 'textarea',
    unique: false,
    idLookup: name === 'Id' || name === 'Email',
    referenceTo: references ? [...references] : [],
    relationshipName: references ? name.slice(0, -2) : null,
    picklistValues: [],
  };
}
