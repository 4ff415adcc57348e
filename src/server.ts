/** The dev server: the sandbox over plain node:http (or mounted in express). `crm-sandbox serve` uses it; so can your own scripts. */
export { createApp, createRequestListener, startDevServer, type DevServer, type DevServerOptions, type SandboxApp } from './adapters/express.js';
