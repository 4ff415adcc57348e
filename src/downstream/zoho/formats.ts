import { capitalize, namedCustom } from '../custom-fields.js';

/** How Zoho writes a time: `2024-05-01T12:00:00+00:00`. */
export const zohoTimeFormat = (iso: string) => iso.replace(/(\.\d+)?Z$/, '+00:00');

/** Zoho custom fields: `Region` (API names are capitalised). */
export const zohoCustom = namedCustom(capitalize);
