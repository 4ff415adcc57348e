import { EVENT_HEADERS } from '../model/events.js';
import { signPayload } from './signature.js';

/**
 * The headers of one delivery attempt: the dispatcher sends them, and the inspector shows them
 * again for any logged attempt (the signature is a pure function of token, body and timestamp).
 *
 * @example signedHeaders('access_…', '7f3a…', '{"eventId":"…"}', '1735689600')
 */
export function signedHeaders(accessToken: string, connectionId: string, body: string, timestamp: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    [EVENT_HEADERS.timestamp]: timestamp,
    [EVENT_HEADERS.signature]: signPayload(accessToken, body, timestamp),
    [EVENT_HEADERS.connectionId]: connectionId,
  };
}
