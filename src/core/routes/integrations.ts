import * as z from 'zod';
import { INTEGRATION_IDS, INTEGRATIONS, type IntegrationId } from '../../model/integrations.js';
import type { Route } from './context.js';

/**
 * `GET /connection/crm/integrations` and `/connection/engagement/integrations`: the integrations a
 * connection can be made to, `{ integrationId, name, iconURL }`, the icon a base-64 data URI as
 * the service's document says (here a letter on the integration's colour, made once).
 */
const icons = new Map<IntegrationId, string>();

function icon(id: IntegrationId): string {
  let uri = icons.get(id);
  if (uri === undefined) {
    const { name, color } = INTEGRATIONS[id];
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="${color}"/><text x="32" y="43" font-family="Arial, sans-serif" font-size="30" font-weight="bold" fill="#fff" text-anchor="middle">${name.charAt(0)}</text></svg>`;
    uri = `data:image/svg+xml;base64,${btoa(svg)}`;
    icons.set(id, uri);
  }
  return uri;
}

const listOf = (category: 'crm' | 'engagement') =>
  INTEGRATION_IDS.filter((id) => INTEGRATIONS[id].category === category).map((integrationId) => ({
    integrationId,
    name: INTEGRATIONS[integrationId].name,
    iconURL: icon(integrationId),
  }));

const integrations = (category: 'crm' | 'engagement', operationId: string): Route<never> => ({
  method: 'GET',
  pattern: `/connection/${category}/integrations`,
  operationId,
  summary: `The ${category === 'crm' ? 'CRM' : 'engagement'} integrations a connection can be made to`,
  tag: 'Connections',
  ok: {
    status: 200,
    schema: () =>
      z.object({
        integrations: z.array(z.object({ integrationId: z.enum(INTEGRATION_IDS), name: z.string(), iconURL: z.string().describe('A base-64 data URI') })),
      }),
    description: 'The integrations',
  },
  handler: () => ({ body: { integrations: listOf(category) } }),
});

export const integrationRoutes: Route<never>[] = [integrations('crm', 'listCrmIntegrations'), integrations('engagement', 'listEngagementIntegrations')];
