import * as z from 'zod';
import { DEFAULT_INTEGRATION, INTEGRATION_IDS } from '../../model/integrations.js';
import { once } from '../../shared/once.js';
import { parseOrThrow } from '../../shared/validation.js';
import type { Route } from './context.js';

export const publicTokenBody = once(() =>
  z.object({
    integrationId: z.enum(INTEGRATION_IDS).optional(),
    linkToken: z.string().min(1).optional(),
    nativeOrgId: z.string().min(1).optional(),
    accessToken: z.string().min(1).optional(),
  }),
);

export const exchangeBody = once(() => z.object({ publicToken: z.string().min(1) }));

/** Linking an account: link token → (widget, here `/sandbox/public-token`) → public token → exchange. */
export const linkRoutes: Route<'registry' | 'connections'>[] = [
  {
    method: 'POST',
    pattern: '/link/token',
    operationId: 'createLinkToken',
    summary: 'A link token for the link widget',
    tag: 'Link',
    ok: { status: 200, schema: () => z.object({ linkToken: z.string() }), description: 'The link token' },
    handler: (ctx, { registry }) => ({ body: { linkToken: registry.linkTokens.create(ctx.apiKey) } }),
  },
  {
    // The sandbox's stand-in for the browser widget, which turns a link token into a public token.
    method: 'POST',
    pattern: '/sandbox/public-token',
    operationId: 'createPublicToken',
    summary: "The sandbox's stand-in for the widget: a public token for an integration",
    tag: 'Link',
    body: publicTokenBody,
    ok: { status: 200, schema: () => z.object({ publicToken: z.string() }), description: 'The public token' },
    handler: (ctx, { registry }) => {
      const { integrationId, linkToken, nativeOrgId, accessToken } = parseOrThrow(publicTokenBody(), ctx.body());
      const publicToken = registry.createPublicToken(ctx.apiKey, {
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
    operationId: 'exchangePublicToken',
    summary: 'Exchange a public token for a connection and its accessToken',
    tag: 'Link',
    body: exchangeBody,
    ok: { status: 200, schema: (out) => out.exchangeResultSchema, description: 'The new connection' },
    handler: (ctx, { connections }) => {
      const { publicToken } = parseOrThrow(exchangeBody(), ctx.body());
      return { body: connections.exchange(ctx.apiKey, publicToken) };
    },
  },
];
