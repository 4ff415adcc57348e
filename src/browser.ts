/**
 * crm-sandbox in a browser (or any runtime without Node's modules): the same API as the Node
 * entry, with webhooks posted by `fetch` (a page's MSW worker can answer them) and fixtures
 * passed as objects, since there are no files to read. Pair it with `crm-sandbox/msw`. Bundlers
 * resolve `crm-sandbox` itself to this file under the `browser` export condition.
 *
 * @example
 * import { createSandbox } from 'crm-sandbox/browser';
 * import { createHandlers } from 'crm-sandbox/msw';
 * import { setupWorker } from 'msw/browser';
 * const sandbox = createSandbox({ clock: 'virtual' });
 * await setupWorker(...createHandlers(sandbox, { baseUrl: 'https://api.crm.test' })).start();
 */
// Named imports (not the whole module): a bundler keeps English and drops faker's other locales.
import { base, en, Faker, generateMersenne53Randomizer } from '@faker-js/faker';
import type { SandboxOptions } from './core/options.js';
import { Sandbox } from './core/sandbox.js';
import type { Platform } from './model/platform.js';
import { createFetchTransport } from './webhooks/transport.js';

/** A browser's platform: fetch for webhooks, no file system (fixtures are objects), no scenarios, Web Crypto randomness. */
const browserPlatform: Platform = {
  createTransport: () => createFetchTransport(),
  loadFaker: () => ({ Faker, base, en, generateMersenne53Randomizer }),
  fillRandom: (bytes) => crypto.getRandomValues(bytes),
};

/**
 * Creates a sandbox on the browser's platform: webhooks posted with the page's `fetch`, fixtures
 * as objects (paths need the Node entry), no scenario runs.
 *
 * @example
 * const sandbox = createSandbox({ seed: 42, clock: 'virtual', apiKeys: ['test-key'] });
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new Sandbox(options, browserPlatform);
}

export * from './api.js';
