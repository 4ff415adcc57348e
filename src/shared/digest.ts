// A synchronous SHA-256 that runs in browsers, Node, Deno and Bun alike: node:crypto's where the runtime has it, else an audited JavaScript one.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const utf8 = new TextEncoder();

type NodeHash = (algorithm: string, data: string, encoding: 'hex') => string;

/**
 * Node's native SHA-256 where there is one (the same hex, about a tenth of the JavaScript one's CPU); the audited
 * JavaScript one everywhere else. Looked up through `process.getBuiltinModule`, so no import of node:crypto reaches a
 * browser; on first use, not at import: loading node:crypto costs about 6 ms of a `serve` start that hashes nothing
 * before its first answer (docs/decisions/0035).
 */
let nodeHash: NodeHash | false | undefined;
/** Node's hash, or false where the runtime has none (false, not null: `??=` looks up once either way). */
function lookUpNodeHash(): NodeHash | false {
  const runtime = globalThis as { process?: { getBuiltinModule?: (id: string) => { hash?: NodeHash } | undefined } };
  return runtime.process?.getBuiltinModule?.('node:crypto')?.hash ?? false;
}

/**
 * Lowercase hex SHA-256 of a text's UTF-8.
 *
 * @example sha256Hex('abc') // 'ba7816bf…'
 */
export function sha256Hex(text: string): string {
  nodeHash ??= lookUpNodeHash();
  return nodeHash ? nodeHash('sha256', text, 'hex') : bytesToHex(sha256(utf8.encode(text)));
}

/** Keys up to this many characters are kept as they are. */
const KEY_CHARS = 256;

/**
 * A cache key for a text a request gave (a search's filters as JSON, a passthrough call: a method, its path and body):
 * the text itself when short, else `#` and its SHA-256, so that a kept answer never holds a whole request (a
 * 1,000,000-character `contains` made every kept page's key 1 MB). The two kinds never meet: those texts never start
 * with `#`.
 *
 * @example const key = requestKey(JSON.stringify(body.filters));
 */
export const requestKey = (text: string): string => (text.length <= KEY_CHARS ? text : `#${sha256Hex(text)}`);
