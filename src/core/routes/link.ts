import * as z from 'zod';
import { DEFAULT_INTEGRATION, INTEGRATION_IDS } from '../../model/integrations.js';
import { parseOrThrow } from '../../shared/validation.js';
import type { Route } from './context.js';

export const publicTokenBody = z.object({
  integrationId: z.enum(INTEGRATION_IDS).optional(),
  linkToken: z.string().min(1).optional(),
  nativeOrgId: z.string().min(1).optional(),
  accessToken: z.string().min(1).optional(),
});

export const exchangeBody = z.object({ publicToken: z.string().min(1) });

/** Linking an account: link token → (widget, here `/sandbox/public-token`) → public token → exchange. */
export const linkRoutes: Route[] = [
  {
    method: 'POST',
    pattern: '/link/token',
    handler: (ctx) => ({ body: { linkToken: ctx.sandbox.parts.registry.createLinkToken(ctx.apiKey) } }),
  },
  {
    // The sandbox's stand-in for the browser widget, which turns a link token into a public token.
    method: 'POST',
    pattern: '/sandbox/public-token',
    handler: (ctx) => {
      const { integrationId, linkToken, nativeOrgId, accessToken } = parseOrThrow(publicTokenBody, ctx.body());
      const publicToken = ctx.sandbox.parts.registry.createPublicToken(ctx.apiKey, {
        integrationId: integrationId ?? DEFAULT_INTEGRATION,
        ...(linkToken === undefined ? {} : { linkToken }),
        ...(nativeOrgId === undefined ? {} : { nativeOrgId }),
        ...(accessToken === undefined ? {} : { accessToken }),
      });
      return { body: { publicToken } };
    },
  },
  {
    method: 'POST',
    pattern: '/link/exchange',
    handler: (ctx) => {
      const { publicToken } = parseOrThrow(exchangeBody, ctx.body());
      return { body: ctx.sandbox.exchange(ctx.apiKey, publicToken) };
    },
  },
];
