import * as z from 'zod';
import { INTEGRATION_IDS, INTEGRATIONS } from '../../model/integrations.js';
import { once } from '../../shared/once.js';
import { parseOrThrow } from '../../shared/validation.js';
import { type Route, requiredQuery } from './context.js';

export const publicTokenBody = once(() =>
  z.object({
    linkToken: z.string().min(1),
    integrationId: z.enum(INTEGRATION_IDS),
    nativeOrgId: z.string().min(1).max(200).optional(),
    orgName: z.string().max(200).optional(),
  }),
);

/**
 * The routes of the link widget (`/link/widget`), which runs in an end user's browser and
 * holds only a link token: they are public (no service-api-token) and the link token is their
 * authentication. A completed widget uses the link token up.
 */
export const linkWidgetRoutes: Route<'registry'>[] = [
  {
    // What the widget shows before the user picks: the link token's state and the integrations.
    method: 'GET',
    pattern: '/link/widget/session',
    public: true,
    operationId: 'getWidgetSession',
    summary: "The link widget's session: the link token's expiry and the integrations to pick from",
    tag: 'Link',
    query: [{ name: 'linkToken', required: true, description: 'The link token the widget was opened with', schema: { type: 'string', minLength: 1 } }],
    ok: {
      status: 200,
      schema: () =>
        z.object({
          expiresTime: z.iso.datetime(),
          integrations: z.array(z.object({ integrationId: z.enum(INTEGRATION_IDS), name: z.string(), category: z.enum(['crm', 'engagement']) })),
        }),
      description: 'The session',
    },
    handler: (ctx, { registry }) => {
      const link = registry.linkTokens.check(requiredQuery(ctx, 'linkToken'));
      const integrations = INTEGRATION_IDS.map((integrationId) => ({
        integrationId,
        name: INTEGRATIONS[integrationId].name,
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
    operationId: 'createWidgetPublicToken',
    summary: 'The widget completes: a public token (uses the link token up)',
    tag: 'Link',
    body: publicTokenBody,
    ok: { status: 200, schema: () => z.object({ publicToken: z.string() }), description: 'The public token' },
    handler: (ctx, { registry }) => {
      const { linkToken, integrationId, nativeOrgId, orgName } = parseOrThrow(publicTokenBody(), ctx.body());
      const trimmed = orgName?.trim();
      const publicToken = registry.createPublicTokenForLink(linkToken, {
        integrationId,
        ...(nativeOrgId === undefined ? {} : { nativeOrgId }),
        ...(trimmed ? { orgName: trimmed } : {}),
      });
      return { body: { publicToken } };
    },
  },
];
