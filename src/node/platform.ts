import { webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import { setPlatform, type FakerModule, type Platform } from '../model/platform.js';
import { createHttpTransport } from '../webhooks/http-transport.js';
import { readFixturePath } from './fixture-files.js';

/**
 * Node's platform: fixture paths read from disk, webhooks posted over `node:http` keep-alive
 * connections (fetch when MSW patches it), faker required and the scenario engine imported on
 * first use, so `serve` starts without loading them; tokens from node:crypto's randomness.
 */
export const nodePlatform: Platform = {
  createTransport: ({ ca }) => createHttpTransport({ ca }),
  readFixturePath,
  loadFaker,
  // Loaded by the first scenario run: a sandbox that plays none never pays for the engine or YAML.
  loadScenarios: () => import('../scenarios/index.js'),
  fillRandom: (bytes) => webcrypto.getRandomValues(bytes),
};

/**
 * faker, from the build's `dist/vendor/faker-en.js` (only the English locale: faker's own entry
 * loads ~70 locales, about 300 ms and 38 MiB more), or from the package where there is no build
 * output beside this file (the sources, under vitest). The same values either way.
 */
function loadFaker(): FakerModule {
  const require = createRequire(import.meta.url);
  try {
    return require('../vendor/faker-en.js') as FakerModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    return require('@faker-js/faker') as FakerModule;
  }
}

// Importing this module (the Node entry does) makes it the platform of every sandbox.
setPlatform(nodePlatform);
