import { CUSTOM_FIELD_KEYS } from '../../model/vocabularies.js';
import { customScalar, isCustomFieldKey } from '../custom-fields.js';
import type { CustomScheme } from '../rest-engine.js';

/** Outreach custom fields: numbered string slots `custom1…custom150`, in the order the org defined them. */
export const outreachCustom: CustomScheme = {
  read: (custom) => {
    const keys = [...CUSTOM_FIELD_KEYS, ...Object.keys(custom).filter((key) => !isCustomFieldKey(key))];
    return Object.fromEntries(
      keys.filter((key) => key in custom).map((key) => [`custom${keys.indexOf(key) + 1}`, custom[key] === null ? null : String(custom[key])]),
    );
  },
  write: (native, value) => {
    const slot = /^custom(\d+)$/.exec(native);
    const key = slot ? CUSTOM_FIELD_KEYS[Number(slot[1]) - 1] : undefined;
    return key ? { [key]: customScalar(value, native, true) } : undefined;
  },
};
