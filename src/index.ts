/**
 * crm-sandbox: a local sandbox of the unified CRM and engagement integration service.
 *
 * - `createSandbox()` builds the core (state, rules, routes, events) with no transport.
 * - `crm-sandbox/msw` turns it into MSW handlers; `crm-sandbox/server` into a dev server.
 * - `verifySignature()` checks webhook deliveries in your receiver.
 *
 * This is the Node entry: its `createSandbox` passes Node's platform (fixture paths read from
 * disk, webhooks over node:http, scenarios from files). A bundler resolving `crm-sandbox` for a
 * browser (the `browser` export condition) gets `crm-sandbox/browser`: the same API on fetch.
 */

export * from './api.js';
export { createSandbox } from './node/sandbox.js';
