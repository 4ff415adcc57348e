import type { IntegrationId } from '../model/integrations.js';
import { facts as apollo } from './apollo/facts.js';
import { facts as hubspot } from './hubspot/facts.js';
import { facts as outreach } from './outreach/facts.js';
import { facts as pipedrive } from './pipedrive/facts.js';
import { facts as salesforce } from './salesforce/facts.js';
import { facts as salesloft } from './salesloft/facts.js';
import type { SystemFacts } from './types.js';
import { facts as zoho } from './zoho/facts.js';

/**
 * Each system's facts (`<system>/facts.ts`): what the unified layer reads of it at startup, without
 * loading the systems themselves (those come with DOWNSTREAM, ./index.ts, on first use).
 */
export const SYSTEM_FACTS: Record<IntegrationId, SystemFacts> = { salesforce, hubspot, pipedrive, zoho, outreach, salesloft, apollo };

/**
 * One fact of every system, by integration id, in SYSTEM_FACTS's order.
 *
 * @example factOfEach('unmapped').pipedrive.Task // ['priority', 'status']
 */
export function factOfEach<K extends keyof SystemFacts>(key: K): Record<IntegrationId, SystemFacts[K]> {
  return Object.fromEntries(Object.entries(SYSTEM_FACTS).map(([id, facts]) => [id, facts[key]])) as Record<IntegrationId, SystemFacts[K]>;
}
