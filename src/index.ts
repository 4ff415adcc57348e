/**
 * crm-sandbox: a local sandbox of the unified CRM and engagement integration service.
 *
 * - `createSandbox()` builds the core (state, rules, routes, events) with no transport.
 * - `crm-sandbox/msw` turns it into MSW handlers; `crm-sandbox/server` into a dev server.
 * - `verifySignature()` checks webhook deliveries in your receiver.
 *
 * This is the Node entry: fixture paths are read from disk and webhooks go out over node:http.
 * Browsers get `crm-sandbox/browser`, the same API on fetch.
 */
import './node/platform.js';

export * from './api.js';
