// A synchronous SHA-256 that runs in browsers too (the core imports no node: module).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ApiError, ErrorCode } from '../shared/errors.js';

/*
 * Tenants: each accepted API key is one. A tenant sees and changes only its own connections,
 * tokens, deliveries, journal and fault rules; what acts on every tenant at once needs the admin
 * key (docs/decisions/0016-tenant-scoped-control-plane.md).
 */

const utf8 = new TextEncoder();

/**
 * How a whole-server snapshot names a tenant without its API key: the first 16 hex characters
 * (64 bits) of the key's SHA-256. It tells keys apart; it does not give a key back.
 *
 * @example tenantDigest('sandbox-api-key') // '…16 hex…'
 */
export function tenantDigest(apiKey: string): string {
  return bytesToHex(sha256(utf8.encode(apiKey))).slice(0, 16);
}

/** The 403 of an operation over every tenant that the caller may not do: no admin key is configured, or the caller did not send it. */
export function adminKeyRequired(operation: string, configured: boolean): ApiError {
  const why = configured
    ? "send the admin key as the service-api-token header (a tenant's API key acts only on its own tenant)"
    : 'admin operations are off: start the server with --admin-key (or CRM_SANDBOX_ADMIN_KEY; in code createSandbox({ adminKey })) and send that key as the service-api-token header';
  return new ApiError(403, ErrorCode.ADMIN_KEY_REQUIRED, `${operation} acts on every tenant and needs the admin key: ${why}`);
}

/** A key the API accepts as a tenant's, else a 401 as for an unknown service-api-token. */
export function acceptedTenant(apiKeys: readonly string[], apiKey: string): string {
  if (!apiKeys.includes(apiKey)) throw new ApiError(401, ErrorCode.INVALID_API_TOKEN, 'invalid service-api-token');
  return apiKey;
}
