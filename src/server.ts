/**
 * crm-sandbox/server: the dev server, the sandbox over plain node:http (`crm-sandbox serve` uses
 * it; so can your own scripts), or mounted in an express app of yours with `createApp` (express is
 * an optional peer dependency: install it to use `createApp`).
 */

export { createApp, type SandboxApp } from './node/create-app.js';
export { createRequestListener, type DevServer, type DevServerOptions, startDevServer } from './node/dev-server.js';
