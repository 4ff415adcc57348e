import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Sandbox } from '../core/sandbox.js';
import { createRequestListener, type DevServerOptions } from './dev-server.js';

/**
 * What {@link createApp} returns: an express application, typed by what you do with it (mount it
 * with `app.use(path, …)`, or `listen`) so that your project needs no `@types/express`. It is an
 * express app at run time: cast it if you want express's own type.
 */
export interface SandboxApp {
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
  listen(port: number, host?: string, callback?: (error?: Error) => void): Server;
}

/**
 * The dev server's listener as an express app, to mount the sandbox in an express server of your
 * own (`app.use('/crm', createApp(sandbox))`). express is an optional peer dependency, loaded
 * only when this is called: without it installed this throws, saying `npm install express`.
 *
 * @example
 * const app = createApp(createSandbox());
 * app.listen(4010, '127.0.0.1');
 */
export function createApp(sandbox: Sandbox, options: Pick<DevServerOptions, 'log'> = {}): SandboxApp {
  const express = loadExpress();
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  const listener = createRequestListener(sandbox, options);
  app.use((req, res) => listener(req, res));
  return app;
}

/** express, as your project installed it; an error naming the install command when it did not. */
function loadExpress(): typeof import('express') {
  try {
    return createRequire(import.meta.url)('express') as typeof import('express');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && (error as Error).message.includes("'express'");
    if (!missing) throw error;
    throw new Error(
      'createApp() needs express, an optional peer dependency of crm-sandbox that is not installed: npm install express (startDevServer and createRequestListener need nothing more)',
      {
        cause: error,
      },
    );
  }
}
