import { factOfEach } from './facts.js';

/**
 * What each simulated system's native API lets a client do to an email (`emailWrites` of its
 * `<system>/facts.ts`), for the unified layer to read without loading the systems.
 *
 * @example if (!NATIVE_EMAIL_WRITES[integrationId].create) refuse(); // Pipedrive
 */
export const NATIVE_EMAIL_WRITES = factOfEach('emailWrites');
