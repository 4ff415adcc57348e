import { createRequire } from 'node:module';
import { setPlatform, type FakerModule, type Platform } from '../model/platform.js';
import { createHttpTransport } from '../webhooks/http-transport.js';
import { readFixturePath } from './fixture-files.js';

/**
 * Node's platform: fixture paths read from disk, webhooks posted over `node:http` keep-alive
 * connections (fetch when MSW patches it), faker required and the scenario engine imported on
 * first use, so `serve` starts without loading them.
 */
export const nodePlatform: Platform = {
  createTransport: ({ ca }) => createHttpTransport({ ca }),
  readFixturePath,
  loadFaker: () => createRequire(import.meta.url)('@faker-js/faker') as FakerModule,
  // Loaded by the first scenario run: a sandbox that plays none never pays for the engine or YAML.
  loadScenarios: () => import('../scenarios/index.js'),
};

// Importing this module (the Node entry does) makes it the platform of every sandbox.
setPlatform(nodePlatform);
