import { CUSTOM_FIELD_KEYS } from '../model/vocabularies.js';
import { hashHex } from '../shared/random.js';
import { type CustomScheme, FieldError, isPlainObject, type NativeFields } from './rest-engine.js';

/**
 * Custom fields as each system names them. The simulated org defines the custom fields the seed
 * gives every record (`fakeCustomFields`, CUSTOM_FIELD_KEYS); a write to any other custom field is an unknown field.
 */
const isKnown = (key: string) => (CUSTOM_FIELD_KEYS as readonly string[]).includes(key);

function scalar(value: unknown, native: string, stringly: boolean): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return stringly && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  throw new FieldError(native, `${native} must be a string, number or boolean, got ${Array.isArray(value) ? 'array' : typeof value}`, 'type');
}

const capitalize = (key: string) => key.replace(/(^|_)([a-z])/g, (_m, sep: string, c: string) => `${sep}${c.toUpperCase()}`);

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
      return key ? { [key]: scalar(value, native, stringly) } : undefined;
    },
  };
}

/** Salesforce: `Region__c`. */
export const salesforceCustom = namedCustom((key) => `${capitalize(key)}__c`);
/** Zoho: `Region` (API names are capitalised). */
export const zohoCustom = namedCustom(capitalize);
/** HubSpot: the property's internal name, values as strings. */
export const hubspotCustom = namedCustom((key) => key, true);

/** A Pipedrive custom field's key: 40 hex digits (`dcf558aac1ae4e8c4f849ba5e668430d8df9be12`), the same for every org. */
export const pipedriveFieldKey = (key: string) => hashHex(`pipedrive-field:${key}`, 40);
/** Pipedrive API v1: each custom field at the top level under its key. */
export const pipedriveHashCustom = namedCustom(pipedriveFieldKey);

/** All custom fields in one object field: Pipedrive and Salesloft `custom_fields`, Apollo `typed_custom_fields`. */
export function nestedCustom(container: string): CustomScheme {
  return {
    read: (custom) => ({ [container]: { ...custom } }),
    write: (native, value) => {
      if (native !== container) return undefined;
      if (!isPlainObject(value)) throw new FieldError(native, `${native} must be an object, got ${Array.isArray(value) ? 'array' : typeof value}`, 'type');
      const out: NativeFields = {};
      for (const [key, item] of Object.entries(value)) {
        if (!isKnown(key)) throw new FieldError(`${native}.${key}`, `${native}.${key} is not a custom field`, 'unknown');
        out[key] = scalar(item, `${native}.${key}`, false);
      }
      return out;
    },
  };
}

/** Outreach: numbered string slots `custom1…custom150`, in the order the org defined them. */
export const outreachCustom: CustomScheme = {
  read: (custom) => {
    const keys = [...CUSTOM_FIELD_KEYS, ...Object.keys(custom).filter((key) => !isKnown(key))];
    return Object.fromEntries(
      keys.filter((key) => key in custom).map((key) => [`custom${keys.indexOf(key) + 1}`, custom[key] === null ? null : String(custom[key])]),
    );
  },
  write: (native, value) => {
    const slot = /^custom(\d+)$/.exec(native);
    const key = slot ? CUSTOM_FIELD_KEYS[Number(slot[1]) - 1] : undefined;
    return key ? { [key]: scalar(value, native, true) } : undefined;
  },
};
