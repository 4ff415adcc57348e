import { CUSTOM_FIELD_KEYS } from '../model/vocabularies.js';
import { type CustomScheme, FieldError, isPlainObject, type NativeFields } from './rest-engine.js';

/**
 * What the systems build their custom-field schemes from (each system's own scheme: its
 * `formats.ts`). The simulated org defines the custom fields the seed gives every record
 * (`fakeCustomFields`, CUSTOM_FIELD_KEYS); a write to any other custom field is an unknown field.
 */

/** Whether the key names one of the org's custom fields. */
export const isCustomFieldKey = (key: string) => (CUSTOM_FIELD_KEYS as readonly string[]).includes(key);

/** A custom field's written value, checked: a scalar, numeric strings as numbers where the system holds every value as a string (`stringly`). */
export function customScalar(value: unknown, native: string, stringly: boolean): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return stringly && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  throw new FieldError(native, `${native} must be a string, number or boolean, got ${Array.isArray(value) ? 'array' : typeof value}`, 'type');
}

/** `region` → `Region`, `lead_source` → `Lead_Source`. */
export const capitalize = (key: string) => key.replace(/(^|_)([a-z])/g, (_m, sep: string, c: string) => `${sep}${c.toUpperCase()}`);

/**
 * One native field per custom field, named from the key (`region` → `Region__c`). Systems that
 * hold every value as a string (`stringly`: HubSpot, Outreach) render them as strings and read
 * numbers back from numeric strings.
 */
export function namedCustom(nameOf: (key: string) => string, stringly = false): CustomScheme {
  // Names are asked for on every render: worked out once per key.
  const names = new Map<string, string>();
  const nameFor = (key: string) => {
    let name = names.get(key);
    if (name === undefined) names.set(key, (name = nameOf(key)));
    return name;
  };
  return {
    read: (custom) => Object.fromEntries(Object.entries(custom).map(([key, value]) => [nameFor(key), stringly && value !== null ? String(value) : value])),
    write: (native, value) => {
      const key = CUSTOM_FIELD_KEYS.find((candidate) => nameFor(candidate) === native);
      return key ? { [key]: customScalar(value, native, stringly) } : undefined;
    },
  };
}

/** All custom fields in one object field: Pipedrive and Salesloft `custom_fields`, Apollo `typed_custom_fields`. */
export function nestedCustom(container: string): CustomScheme {
  return {
    read: (custom) => ({ [container]: { ...custom } }),
    write: (native, value) => {
      if (native !== container) return undefined;
      if (!isPlainObject(value)) throw new FieldError(native, `${native} must be an object, got ${Array.isArray(value) ? 'array' : typeof value}`, 'type');
      const out: NativeFields = {};
      for (const [key, item] of Object.entries(value)) {
        if (!isCustomFieldKey(key)) throw new FieldError(`${native}.${key}`, `${native}.${key} is not a custom field`, 'unknown');
        out[key] = customScalar(item, `${native}.${key}`, false);
      }
      return out;
    },
  };
}
