import { hashHex } from '../../shared/random.js';
import { namedCustom } from '../custom-fields.js';

/** How Pipedrive writes a time: `2024-05-01 12:00:00` (UTC). */
export const pipedriveTimeFormat = (iso: string) => iso.slice(0, 19).replace('T', ' ');

/** A Pipedrive custom field's key: 40 hex digits (`dcf558aac1ae4e8c4f849ba5e668430d8df9be12`), the same for every org. */
export const pipedriveFieldKey = (key: string) => hashHex(`pipedrive-field:${key}`, 40);
/** Pipedrive API v1: each custom field at the top level under its key. */
export const pipedriveHashCustom = namedCustom(pipedriveFieldKey);
