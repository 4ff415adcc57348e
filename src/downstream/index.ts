import type { IntegrationId } from '../model/integrations.js';
import { apollo } from './apollo.js';
import { hubspot } from './hubspot.js';
import { outreach } from './outreach.js';
import { pipedrive } from './pipedrive.js';
import { salesforce } from './salesforce.js';
import { salesloft } from './salesloft.js';
import type { DownstreamSystem } from './types.js';
import { zoho } from './zoho.js';

/** The simulated downstream system of each integration, behind `POST /crm/passthrough` and `additional`. */
export const DOWNSTREAM: Record<IntegrationId, DownstreamSystem> = { salesforce, hubspot, pipedrive, zoho, outreach, salesloft, apollo };

export function downstreamFor(integrationId: IntegrationId): DownstreamSystem {
  return DOWNSTREAM[integrationId];
}
