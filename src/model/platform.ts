import type { HttpTransport } from './transport.js';

/** The parts of the faker package the seeded data uses (only these, so a bundle can drop the other locales). */
export type FakerModule = Pick<typeof import('@faker-js/faker'), 'Faker' | 'en' | 'base' | 'generateMersenne53Randomizer'>;

/** A fixture file as read from disk: where it came from (for messages) and its parsed JSON. */
export interface FixtureFileContent {
  source: string;
  content: unknown;
}

/**
 * What the core needs from the runtime it runs in. The core itself imports no `node:` module:
 * each entry builds its sandboxes with its own platform, passed in, never set globally. The
 * Node entry (`crm-sandbox`, `src/node/platform.ts`) provides file reading and a keep-alive
 * `node:http` transport; the browser entry (`crm-sandbox/browser`, `src/browser.ts`) a fetch
 * transport and no file system.
 */
export interface Platform {
  /** The webhook transport of a new set of sandbox parts. */
  createTransport(options: { ca: string | undefined }): HttpTransport;
  /** Reads a fixture path (a directory's `*.json` by name, or one file); absent without a file system. */
  readFixturePath?: (path: string) => FixtureFileContent[];
  /** Faker, loaded when the first connection's data is built (called for every seeded faker: cache it). */
  loadFaker(): FakerModule;
  /**
   * The scenario engine (src/scenarios/index.ts) with the platform's scenario files (the
   * built-ins and paths), loaded on first use; absent in browsers (the built-ins are files).
   */
  loadScenarios?: () => Promise<unknown>;
  /** Fills `bytes` from the runtime's cryptographic randomness (`crypto.getRandomValues`): for tokens no one may guess. */
  fillRandom(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer>;
}

/**
 * `length` lowercase hex characters from the platform's cryptographic randomness: unguessable,
 * and never the same twice (unlike the seeded streams, which a seed replays).
 *
 * @example `link_${unguessableHex(platform, 32)}`
 */
export function unguessableHex(platform: Pick<Platform, 'fillRandom'>, length: number): string {
  const bytes = platform.fillRandom(new Uint8Array(Math.ceil(length / 2)));
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out.slice(0, length);
}
