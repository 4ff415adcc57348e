import { type HttpHandler, http } from 'msw';
import { toFetchResponse, toSandboxRequest } from '../core/fetch.js';
import type { Sandbox } from '../core/sandbox.js';

/** The base URL MSW handlers answer under when none is given: the dev server's default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export interface CreateHandlersOptions {
  /** The service's base URL as your code calls it, e.g. `https://api.service.test`. Default {@link DEFAULT_BASE_URL}. */
  baseUrl?: string;
}

/**
 * MSW request handlers for every endpoint of the sandbox under `baseUrl`, for `setupServer`
 * (Node, with a sandbox from `crm-sandbox`) or `setupWorker` (browsers, with one from
 * `crm-sandbox/browser`). One handler answers everything under the base URL as the service
 * would: each endpoint, and 404 (or 405 for a wrong method) for anything else.
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { createSandbox } from 'crm-sandbox';
 * import { createHandlers } from 'crm-sandbox/msw';
 *
 * const sandbox = createSandbox({ clock: 'virtual' });
 * const server = setupServer(...createHandlers(sandbox, { baseUrl: 'https://api.service.test' }));
 */
export function createHandlers(sandbox: Sandbox, options: CreateHandlersOptions = {}): HttpHandler[] {
  const base = new URL(options.baseUrl ?? DEFAULT_BASE_URL);
  const basePath = base.pathname.replace(/\/+$/, '');
  const prefix = `${base.origin}${basePath}`;

  const answer = async ({ request }: { request: Request }) => toFetchResponse(await sandbox.handle(await toSandboxRequest(request, basePath)));

  // One handler, not one per route: the core routes the request itself, and MSW tests every
  // handler's URL pattern in turn, which cost ~0.3 ms a request with 43 of them (bench/msw-child.mjs).
  return [http.all(`${prefix}/*`, answer)];
}

/**
 * `setupServer().listen()` options that mean the same on msw 2 (`onUnhandledRequest`) and msw 3
 * (which renamed it `onUnhandledFrame`): what to do with a request no handler answers.
 *
 * @example server.listen(onUnhandled('error'));
 */
export function onUnhandled(strategy: 'bypass' | 'warn' | 'error'): { onUnhandledRequest: typeof strategy; onUnhandledFrame: typeof strategy } {
  return { onUnhandledRequest: strategy, onUnhandledFrame: strategy };
}
