/** The dev server: the sandbox over express. `crm-sandbox serve` uses it; so can your own scripts. */
export { createApp, startDevServer, type DevServer, type DevServerOptions } from './adapters/express.js';
