import type { CrmObjectType } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';
import { COLLECTIONS as APOLLO } from './apollo/objects.js';
import { COLLECTIONS as HUBSPOT, OWNERS as HUBSPOT_OWNERS, api as hubspotApi } from './hubspot/objects.js';
import { COLLECTIONS as OUTREACH } from './outreach/objects.js';
import { MAIL_MESSAGE } from './pipedrive/mail.js';
import { COLLECTIONS as PIPEDRIVE, api as pipedriveApi } from './pipedrive/objects.js';
import type { NativeObject, WritePolicy } from './rest-engine.js';
import { POLICY as SALESFORCE_POLICY, SOBJECTS } from './salesforce/objects.js';
import { COLLECTIONS as SALESLOFT } from './salesloft/objects.js';
import { EMAIL as ZOHO_EMAIL } from './zoho/emails.js';
import { MODULES as ZOHO, USERS as ZOHO_USERS, api as zohoApi } from './zoho/objects.js';

/**
 * Each system's native objects by unified type, with what it does with a field it does not know:
 * what the unified API writes `additional` through, and what `details` lists.
 */
const OBJECTS: Record<IntegrationId, { objects: readonly NativeObject[]; policy: WritePolicy }> = {
  salesforce: { objects: SOBJECTS, policy: SALESFORCE_POLICY },
  hubspot: { objects: [...Object.values(HUBSPOT), HUBSPOT_OWNERS], policy: hubspotApi.policy },
  pipedrive: { objects: [...Object.values(PIPEDRIVE).flat(), MAIL_MESSAGE], policy: pipedriveApi.policy },
  zoho: { objects: [...Object.values(ZOHO), ZOHO_USERS, ZOHO_EMAIL], policy: zohoApi.policy },
  outreach: { objects: Object.values(OUTREACH), policy: { unknown: 'reject', readOnly: 'reject' } },
  salesloft: { objects: Object.values(SALESLOFT), policy: { unknown: 'ignore', readOnly: 'ignore' } },
  apollo: { objects: Object.values(APOLLO), policy: { unknown: 'ignore', readOnly: 'ignore' } },
};

/**
 * The native object a system keeps a unified type in (Salesforce `Opportunity` for Deal, a
 * Pipedrive `Activity` for Task), and the system's write policy; undefined where it has none.
 *
 * @example nativeObjectOf('salesforce', 'Deal')?.object.name // 'Opportunity'
 */
export function nativeObjectOf(integrationId: IntegrationId, type: CrmObjectType): { object: NativeObject; policy: WritePolicy } | undefined {
  const { objects, policy } = OBJECTS[integrationId];
  const object = objects.find((candidate) => candidate.type === type);
  return object ? { object, policy } : undefined;
}
