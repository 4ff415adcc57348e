import type { IntegrationId } from '../model/integrations.js';

/**
 * What each simulated system's native API lets a client do to an email, for the unified layer to
 * read without loading the systems (this module imports nothing else). The service's document
 * refuses unified Email writes on Pipedrive only ("Pipedrive: Not supported"): Pipedrive's mailbox
 * API is read-only. Elsewhere a native create logs an email (Salesforce `sobjects/EmailMessage`,
 * HubSpot `crm/v3/objects/emails`, Zoho `{Module}/{id}/actions/send_mail`); natively only HubSpot
 * updates any email, Salesforce a draft alone (a sent one takes IsExternallyVisible, custom fields
 * and Status New→Read), Zoho none. The engagement platforms have no CRM email object here.
 *
 * @example if (!NATIVE_EMAIL_WRITES[integrationId].create) refuse(); // Pipedrive
 */
export const NATIVE_EMAIL_WRITES: Readonly<Record<IntegrationId, { readonly create: boolean; readonly update: boolean }>> = {
  salesforce: { create: true, update: true },
  hubspot: { create: true, update: true },
  pipedrive: { create: false, update: false },
  zoho: { create: true, update: false },
  outreach: { create: false, update: false },
  salesloft: { create: false, update: false },
  apollo: { create: false, update: false },
};
