import type { IntegrationId } from '../model/integrations.js';
import { apollo } from './apollo/objects.js';
import { hubspot } from './hubspot/objects.js';
import { outreach } from './outreach/objects.js';
import { pipedrive } from './pipedrive/objects.js';
import { salesforce } from './salesforce/objects.js';
import { salesloft } from './salesloft/objects.js';
import type { DownstreamSystem } from './types.js';
import { zoho } from './zoho/objects.js';

/** The simulated downstream system of each integration, behind `POST /crm/passthrough` and `additional`. */
export const DOWNSTREAM: Record<IntegrationId, DownstreamSystem> = { salesforce, hubspot, pipedrive, zoho, outreach, salesloft, apollo };

export function downstreamFor(integrationId: IntegrationId): DownstreamSystem {
  return DOWNSTREAM[integrationId];
}
