import * as z from 'zod';
import { INTEGRATION_IDS, INTEGRATIONS, type IntegrationId } from '../../model/integrations.js';
import { parseOrThrow } from '../../shared/validation.js';
import { requiredQuery, type Route } from './context.js';

/** Names the widget shows for each integration. */
export const INTEGRATION_NAMES: Record<IntegrationId, string> = {
  salesforce: 'Salesforce',
  hubspot: 'HubSpot',
  pipedrive: 'Pipedrive',
  zoho: 'Zoho CRM',
  outreach: 'Outreach',
  salesloft: 'Salesloft',
  apollo: 'Apollo',
};

export const publicTokenBody = z.object({
  linkToken: z.string().min(1),
  integrationId: z.enum(INTEGRATION_IDS),
  nativeOrgId: z.string().min(1).max(200).optional(),
  orgName: z.string().max(200).optional(),
});

/**
 * The routes of the link widget (`/link/widget`), which runs in an end user's browser and
 * holds only a link token: they are public (no service-api-token) and the link token is their
 * authentication. A completed widget uses the link token up.
 */
export const linkWidgetRoutes: Route[] = [
  {
    // What the widget shows before the user picks: the link token's state and the integrations.
    method: 'GET',
    pattern: '/link/widget/session',
    public: true,
    handler: (ctx) => {
      const link = ctx.sandbox.parts.registry.checkLinkToken(requiredQuery(ctx, 'linkToken'));
      const integrations = INTEGRATION_IDS.map((integrationId) => ({
        integrationId,
        name: INTEGRATION_NAMES[integrationId],
        category: INTEGRATIONS[integrationId].category,
      }));
      return { body: { expiresTime: new Date(link.expiresAt).toISOString(), integrations } };
    },
  },
  {
    // The user confirmed: a public token for the customer's backend to exchange.
    method: 'POST',
    pattern: '/link/widget/public-token',
    public: true,
    handler: (ctx) => {
      const { linkToken, integrationId, nativeOrgId, orgName } = parseOrThrow(publicTokenBody, ctx.body());
      const trimmed = orgName?.trim();
      const publicToken = ctx.sandbox.parts.registry.createPublicTokenForLink(linkToken, {
        integrationId,
        ...(nativeOrgId === undefined ? {} : { nativeOrgId }),
        ...(trimmed ? { orgName: trimmed } : {}),
      });
      return { body: { publicToken } };
    },
  },
];
