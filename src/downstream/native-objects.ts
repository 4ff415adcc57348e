import type { CrmObjectType } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';
import type { NativeObject, WritePolicy } from './rest-engine.js';
import { DOWNSTREAM } from './systems.js';

/**
 * The native object a system keeps a unified type in (Salesforce `Opportunity` for Deal, a
 * Pipedrive `Activity` for Task), and the system's write policy; undefined where it has none.
 * Both are the system's own (`nativeObjects`, `writePolicy`).
 *
 * @example nativeObjectOf('salesforce', 'Deal')?.object.name // 'Opportunity'
 */
export function nativeObjectOf(integrationId: IntegrationId, type: CrmObjectType): { object: NativeObject; policy: WritePolicy } | undefined {
  const { nativeObjects, writePolicy } = DOWNSTREAM[integrationId];
  const object = nativeObjects.find((candidate) => candidate.type === type);
  return object ? { object, policy: writePolicy } : undefined;
}
