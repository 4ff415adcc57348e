import * as z from 'zod';
import { once } from '../shared/once.js';
import { hashUuid, type Random } from '../shared/random.js';
import type { CrmObjectType } from './crm.js';

/** The CRMs of the original service. */
export const CRM_INTEGRATION_IDS = ['salesforce', 'hubspot', 'pipedrive', 'zoho'] as const;
/** Its engagement platforms: a new one here must name its native objects in `UNIFIED_ENGAGEMENT_OBJECTS`. */
export const ENGAGEMENT_INTEGRATION_IDS = ['outreach', 'salesloft', 'apollo'] as const;
/** Integration ids of the original service, the CRMs first (the order its lists answer). */
export const INTEGRATION_IDS = [...CRM_INTEGRATION_IDS, ...ENGAGEMENT_INTEGRATION_IDS] as const;
export type IntegrationId = (typeof INTEGRATION_IDS)[number];
export type EngagementIntegrationId = (typeof ENGAGEMENT_INTEGRATION_IDS)[number];
export const DEFAULT_INTEGRATION: IntegrationId = 'hubspot';

/** Who the connected account is in the downstream system. */
export const nativeOrgSchema = once(() =>
  z
    .object({
      nativeOrgId: z.string(),
      nativeUserId: z.string(),
      /** A lowercase slug of the organisation's name, e.g. `acme-corp`; Salesforce uses it as its My Domain. */
      slug: z.string(),
    })
    .strict(),
);
export type NativeOrg = z.infer<ReturnType<typeof nativeOrgSchema>>;

interface IntegrationFacts<Category extends 'crm' | 'engagement'> {
  category: Category;
  /** Its name, as `GET /connection/crm/integrations` answers it. */
  name: string;
  /** Its brand colour, for the icon the integration lists answer (a letter on it). */
  color: string;
  /** The downstream API base URL that passthrough paths are appended to. */
  apiBaseUrl(org: NativeOrg): string;
  /** The organisation's URL, as `nativeOrgURL`. */
  orgUrl(org: NativeOrg): string;
  newOrgId(random: Random): string;
  newUserId(random: Random): string;
  /** A downstream id for a new record of the type, in the system's own format. */
  newNativeId(type: CrmObjectType | 'Mailbox' | 'EngagementUser', random: Random): string;
}

const SALESFORCE_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Salesforce key prefixes: the first three characters of an id say its object. */
const SALESFORCE_KEY_PREFIX: Record<string, string> = {
  Contact: '003',
  Account: '001',
  Deal: '006',
  Lead: '00Q',
  User: '005',
  Note: '002',
  Task: '00T',
  Event: '00U',
  EventAttendee: '0RE',
  Email: '02s',
  Mailbox: '0Xu',
  EngagementUser: '005',
};
const salesforceId = (prefix: string, random: Random) =>
  `${prefix}${random.digits(1)}${random.chars(11, SALESFORCE_ID_ALPHABET)}${random.chars(3, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345')}`;

/** Each integration's facts; its category is the list its id is in. */
export const INTEGRATIONS: { [Id in IntegrationId]: IntegrationFacts<Id extends EngagementIntegrationId ? 'engagement' : 'crm'> } = {
  salesforce: {
    name: 'Salesforce',
    color: '#00A1E0',
    category: 'crm',
    apiBaseUrl: (org) => `https://${org.slug}.my.salesforce.com`,
    orgUrl: (org) => `https://${org.slug}.my.salesforce.com`,
    newOrgId: (random) => salesforceId('00D', random),
    newUserId: (random) => salesforceId('005', random),
    newNativeId: (type, random) => salesforceId(SALESFORCE_KEY_PREFIX[type]!, random),
  },
  hubspot: {
    name: 'HubSpot',
    color: '#FF7A59',
    category: 'crm',
    apiBaseUrl: () => 'https://api.hubapi.com',
    orgUrl: (org) => `https://app.hubspot.com/contacts/${org.nativeOrgId}`,
    newOrgId: (random) => random.digits(8),
    newUserId: (random) => random.digits(8),
    newNativeId: (_type, random) => random.digits(11),
  },
  pipedrive: {
    name: 'Pipedrive',
    color: '#1A1A1A',
    category: 'crm',
    apiBaseUrl: () => 'https://api.pipedrive.com',
    orgUrl: (org) => `https://${org.slug}.pipedrive.com`,
    newOrgId: (random) => random.digits(7),
    newUserId: (random) => random.digits(8),
    // Pipedrive lead ids are UUIDs, every other id an integer; a lead's comes from the same draws,
    // so the rest of the seed stays as it was.
    newNativeId: (type, random) => (type === 'Lead' ? hashUuid(`pipedrive-lead:${random.digits(6)}`) : random.digits(6)),
  },
  zoho: {
    name: 'Zoho CRM',
    color: '#E42527',
    category: 'crm',
    apiBaseUrl: () => 'https://www.zohoapis.com/crm/v3',
    orgUrl: (org) => `https://crm.zoho.com/crm/org${org.nativeOrgId}`,
    newOrgId: (random) => random.digits(9),
    newUserId: (random) => `5${random.digits(18)}`,
    newNativeId: (_type, random) => `5${random.digits(18)}`,
  },
  outreach: {
    name: 'Outreach',
    color: '#5951FF',
    category: 'engagement',
    apiBaseUrl: () => 'https://api.outreach.io/api/v2',
    orgUrl: () => 'https://web.outreach.io',
    newOrgId: (random) => random.digits(6),
    newUserId: (random) => random.digits(3),
    newNativeId: (_type, random) => random.digits(6),
  },
  salesloft: {
    name: 'Salesloft',
    color: '#054A2E',
    category: 'engagement',
    apiBaseUrl: () => 'https://api.salesloft.com/v2',
    orgUrl: () => 'https://app.salesloft.com',
    newOrgId: (random) => random.digits(5),
    newUserId: (random) => random.digits(6),
    newNativeId: (_type, random) => random.digits(8),
  },
  apollo: {
    name: 'Apollo',
    color: '#F5C518',
    category: 'engagement',
    apiBaseUrl: () => 'https://api.apollo.io/v1',
    orgUrl: () => 'https://app.apollo.io',
    newOrgId: (random) => random.hex(24),
    newUserId: (random) => random.hex(24),
    newNativeId: (_type, random) => random.hex(24),
  },
};
