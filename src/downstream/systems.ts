import type { IntegrationId } from '../model/integrations.js';
import { apollo } from './apollo/index.js';
import { hubspot } from './hubspot/index.js';
import { outreach } from './outreach/index.js';
import { pipedrive } from './pipedrive/index.js';
import { salesforce } from './salesforce/index.js';
import { salesloft } from './salesloft/index.js';
import type { DownstreamSystem } from './system.js';
import { zoho } from './zoho/index.js';

/** The simulated downstream system of each integration, behind `POST /crm/passthrough` and `additional`. */
export const DOWNSTREAM: Record<IntegrationId, DownstreamSystem> = { salesforce, hubspot, pipedrive, zoho, outreach, salesloft, apollo };

export function downstreamFor(integrationId: IntegrationId): DownstreamSystem {
  return DOWNSTREAM[integrationId];
}
