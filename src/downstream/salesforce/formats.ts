import { capitalize, namedCustom } from '../custom-fields.js';

/** How Salesforce writes a time: `2024-05-01T12:00:00.000+0000`. */
export const salesforceTimeFormat = (iso: string) => iso.replace(/Z$/, '+0000');

/** Salesforce custom fields: `Region__c`. */
export const salesforceCustom = namedCustom((key) => `${capitalize(key)}__c`);
