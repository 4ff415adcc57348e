import type { FieldMap, NativeObject } from '../downstream/rest-engine.js';
import type { IntegrationId } from '../model/integrations.js';
import { CUSTOM_FIELD_KEYS, CUSTOM_FIELD_OPTIONS } from '../model/vocabularies.js';
import type { DetailType, UnifiedObject } from './crm-objects.js';
import { isMapped } from './view.js';

/** One field of an object on an integration, as the document's Field schema gives it (`GET /crm/contact/details`). */
export interface FieldDetail {
  key: string;
  name: string;
  type: DetailType;
  options: Array<{ key: string; name: string }> | null;
  isArray: boolean;
  custom: boolean;
  universal: boolean;
  required: boolean;
  creatable: boolean;
  updatable: boolean;
}

const optionsOf = (values: readonly string[] | undefined) => (values ? values.map((value) => ({ key: value, name: value })) : null);

/**
 * The fields of an object on a connection's CRM: its unified fields that CRM has (`universal`),
 * then the org's custom fields under their native names (`custom`), then, with `allFields`, the
 * native object's own fields. A native field that holds one unified field takes its type.
 *
 * @example fieldDetails(unifiedObjectOf('Deal'), 'salesforce', nativeObjectOf('salesforce', 'Deal')?.object, false)
 */
export function fieldDetails(object: UnifiedObject, integrationId: IntegrationId, native: NativeObject | undefined, allFields: boolean): FieldDetail[] {
  const details: FieldDetail[] = object.fields
    .filter((field) => isMapped(integrationId, object.type, field.key))
    .map((field) => ({
      key: field.key,
      name: field.label,
      type: field.detail,
      options: optionsOf(field.options),
      isArray: field.kind === 'stringList',
      custom: false,
      universal: true,
      required: field.requiredOnCreate === true,
      creatable: field.create === true,
      updatable: field.update === true,
    }));
  if (!native) return details;
  const writable = !object.readOnly && !native.readOnly;
  for (const [key, name] of customNames(native)) {
    const options = (CUSTOM_FIELD_OPTIONS as Record<string, readonly string[]>)[key];
    details.push({
      key: name,
      name: key.charAt(0).toUpperCase() + key.slice(1),
      type: options ? 'singleselect' : 'number',
      options: optionsOf(options),
      isArray: false,
      custom: true,
      universal: false,
      required: false,
      creatable: writable,
      updatable: writable,
    });
  }
  if (!allFields) return details;
  for (const field of native.fields) {
    if (!field.read) continue;
    details.push({
      key: field.native,
      name: field.native,
      type: nativeType(field, object),
      options: null,
      isArray: false,
      custom: false,
      universal: false,
      required: native.required?.includes(field.native) ?? false,
      creatable: writable && field.write !== undefined,
      updatable: writable && field.write !== undefined,
    });
  }
  return details;
}

/** The org's custom fields by their native names (`region` → `Region__c` on Salesforce). */
function customNames(native: NativeObject): Array<[key: string, native: string]> {
  if (!native.custom) return [];
  return CUSTOM_FIELD_KEYS.flatMap((key) => {
    const names = Object.keys(native.custom!.read({ [key]: null }));
    return names.length === 1 ? [[key, names[0]!] as [string, string]] : [];
  });
}

function nativeType(field: FieldMap, object: UnifiedObject): DetailType {
  const [only, ...more] = field.covers;
  if (only !== undefined && more.length === 0) {
    if (only.startsWith('associations.')) return 'reference';
    const unified = object.fields.find((candidate) => candidate.key === only);
    if (unified) return unified.detail;
    if (only.startsWith('address.')) return 'string';
  }
  if (/(^id$|^Id$|_id$|Id$)/.test(field.native)) return /^(id|Id)$/.test(field.native) ? 'id' : 'reference';
  return field.covers.length > 1 ? 'singleselect' : 'string';
}
