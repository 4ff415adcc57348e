/**
 * crm-sandbox in a browser (or any runtime without Node's modules): the same API as the Node
 * entry, with webhooks posted by `fetch` (a page's MSW worker can answer them) and fixtures
 * passed as objects, since there are no files to read. Pair it with `crm-sandbox/msw`.
 *
 * @example
 * import { createSandbox } from 'crm-sandbox/browser';
 * import { createHandlers } from 'crm-sandbox/msw';
 * import { setupWorker } from 'msw/browser';
 * const sandbox = createSandbox({ clock: 'virtual' });
 * await setupWorker(...createHandlers(sandbox, { baseUrl: 'https://api.crm.test' })).start();
 */
// Named imports (not the whole module): a bundler keeps English and drops faker's other locales.
import { Faker, base, en, generateMersenne53Randomizer } from '@faker-js/faker';
import { setPlatform } from './model/platform.js';
import { createFetchTransport } from './webhooks/transport.js';

setPlatform({
  createTransport: () => createFetchTransport(),
  loadFaker: () => ({ Faker, base, en, generateMersenne53Randomizer }),
  fillRandom: (bytes) => crypto.getRandomValues(bytes),
});

export * from './api.js';
