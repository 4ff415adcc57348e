/**
 * What the core takes of client-check's code (src/core/client-check-slot.ts): the class
 * `sandbox.startClientCheck()` makes, and the reader of `GET /sandbox/client-check`'s `rules=`.
 * The core does not import this module: the package's entries hand it over, and the CLI loads it
 * when client-check is turned on.
 */
export { ClientCheck } from './client-check.js';
export { parseRuleList } from './rules.js';
