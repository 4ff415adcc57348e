/**
 * Whether `given` equals `secret`, compared without an early exit: the time taken depends only
 * on the length of `given` (which its sender knows), never on how many characters matched nor
 * on the secret's length. For API keys and webhook signatures.
 *
 * @example constantTimeEqual(request.headers['service-api-token'] ?? '', configuredKey)
 */
export function constantTimeEqual(given: string, secret: string): boolean {
  if (secret.length === 0) return given.length === 0;
  let difference = given.length ^ secret.length;
  // `i % secret.length` stays inside the secret whatever was given: no out-of-range read, no other code path.
  for (let i = 0; i < given.length; i++) difference |= given.charCodeAt(i) ^ secret.charCodeAt(i % secret.length);
  return difference === 0;
}
