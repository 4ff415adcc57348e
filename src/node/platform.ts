import { createRequire } from 'node:module';
import type { FakerModule, Platform } from '../model/platform.js';
import { readFixturePath } from './fixture-files.js';
import { createHttpTransport } from './http-transport.js';

/** faker, once required (a cache, the same module for every sandbox): every seeded faker is made from it. */
let faker: FakerModule | undefined;

/**
 * Node's platform, which the Node entry's `createSandbox` (src/node/sandbox.ts) passes to every
 * sandbox it makes: fixture paths read from disk, webhooks posted over `node:http` keep-alive
 * connections (fetch when MSW patches it), faker required and the scenario engine imported on
 * first use, so `serve` starts without loading them; tokens from node:crypto's randomness (node:crypto
 * itself loaded by the first token: about 6 ms of a start that makes none).
 */
export const nodePlatform: Platform = {
  createTransport: ({ ca }) => createHttpTransport({ ca }),
  readFixturePath,
  loadFaker: () => (faker ??= requireFaker()),
  // Loaded by the first scenario run: a sandbox that plays none never pays for the engine, YAML or the files.
  loadScenarios: async () => {
    const [engine, files] = await Promise.all([import('../scenarios/index.js'), import('./scenario-files.js')]);
    return { ...engine, ...files };
  },
  fillRandom: (bytes) => process.getBuiltinModule('node:crypto').webcrypto.getRandomValues(bytes),
};

/**
 * faker, from the build's `dist/vendor/faker-en.js` (only the English locale: faker's own entry
 * loads ~70 locales, about 300 ms and 38 MiB more), or from the package where there is no build
 * output beside this file (the sources, under vitest). The same values either way.
 */
function requireFaker(): FakerModule {
  const require = createRequire(import.meta.url);
  try {
    return require('../vendor/faker-en.js') as FakerModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    return require('@faker-js/faker') as FakerModule;
  }
}
