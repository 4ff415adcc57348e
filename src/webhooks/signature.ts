import { constantTimeEqual } from '../shared/constant-time.js';
import { sha256Hex } from '../shared/digest.js';

// ignoreBOM keeps a leading BOM in the text, as the bytes were signed (Buffer#toString did the same).
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The service's signature: lowercase hex SHA-256 of the connection's accessToken, the exact
 * JSON text of the body, and the `x-service-timestamp` value, concatenated without separators.
 *
 * @example signPayload('access_…', '{"eventId":"…"}', '1735689600')
 */
export function signPayload(accessToken: string, body: string, timestamp: string): string {
  return sha256Hex(accessToken + body + timestamp);
}

export interface VerifySignatureInput {
  /** The accessToken of the connection named by `x-service-connection-id`. */
  accessToken: string;
  /** The raw request body, exactly as received (not re-serialised JSON). */
  body: string | Uint8Array;
  /** The `x-service-timestamp` header: unix seconds. */
  timestamp: string | number | null | undefined;
  /** The `x-service-signature` header. */
  signature: string | null | undefined;
  /** When set, a timestamp further than this from now (either way) is rejected. */
  toleranceSeconds?: number;
  /** The current time in ms, for the tolerance check (defaults to `Date.now()`). */
  now?: number;
}

/**
 * Checks a webhook delivery's signature, for receivers. Compares in constant time; with
 * `toleranceSeconds`, also rejects stale (replayed) or future timestamps.
 *
 * @example
 * const ok = verifySignature({
 *   accessToken,
 *   body: rawBody,
 *   timestamp: req.headers['x-service-timestamp'],
 *   signature: req.headers['x-service-signature'],
 *   toleranceSeconds: 300,
 * });
 */
export function verifySignature(input: VerifySignatureInput): boolean {
  const { accessToken, signature, toleranceSeconds } = input;
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature)) return false;
  if (input.timestamp === null || input.timestamp === undefined) return false;
  const timestamp = String(input.timestamp);
  if (!/^\d+$/.test(timestamp)) return false;
  if (toleranceSeconds !== undefined) {
    const nowSeconds = Math.floor((input.now ?? Date.now()) / 1000);
    if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  }
  const body = typeof input.body === 'string' ? input.body : utf8Decoder.decode(input.body);
  return constantTimeEqual(signature, signPayload(accessToken, body, timestamp));
}
