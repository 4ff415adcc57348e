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
 * the Node entry (`crm-sandbox`) provides file reading and a keep-alive `node:http` transport,
 * the browser entry (`crm-sandbox/browser`) a fetch transport and no file system.
 */
export interface Platform {
  /** The webhook transport of a new set of sandbox parts. */
  createTransport(options: { ca: string | undefined }): HttpTransport;
  /** Reads a fixture path (a directory's `*.json` by name, or one file); absent without a file system. */
  readFixturePath?: (path: string) => FixtureFileContent[];
  /** Faker, loaded when the first connection's data is built. */
  loadFaker(): FakerModule;
  /** The scenario engine's module (src/scenarios/index.ts), loaded on first use; absent in browsers (its built-ins are files). */
  loadScenarios?: () => Promise<unknown>;
  /** Fills `bytes` from the runtime's cryptographic randomness (`crypto.getRandomValues`): for tokens no one may guess. */
  fillRandom(bytes: Uint8Array): Uint8Array;
}

let current: Platform | undefined;

/**
 * Sets the platform the core uses; each entry module sets its own when imported.
 *
 * @example setPlatform({ createTransport: () => createFetchTransport(), loadFaker: () => faker })
 */
export function setPlatform(platform: Platform): void {
  current = platform;
}

/** The platform set by the entry module that was imported. */
export function platform(): Platform {
  if (!current) throw new Error("crm-sandbox: no platform set; import the package from 'crm-sandbox' (Node) or 'crm-sandbox/browser'");
  return current;
}

/**
 * `length` lowercase hex characters from the platform's cryptographic randomness: unguessable,
 * and never the same twice (unlike the seeded streams, which a seed replays).
 *
 * @example `link_${unguessableHex(32)}`
 */
export function unguessableHex(length: number): string {
  const bytes = platform().fillRandom(new Uint8Array(Math.ceil(length / 2)));
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out.slice(0, length);
}
