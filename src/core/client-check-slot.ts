/**
 * Where the core finds client-check's code. The core imports none of it (types aside), so that
 * `crm-sandbox serve` without --client-check never loads it (decision 0035): the package's entries
 * (`crm-sandbox`, `crm-sandbox/browser`, `crm-sandbox/testing`) hand it over as they load, so that
 * for a library user `sandbox.startClientCheck()` stays synchronous and always works; the CLI
 * awaits {@link loadClientCheckCode} before a command turns client-check on.
 */
export type ClientCheckCode = typeof import('../client-check/code.js');

let provided: ClientCheckCode | undefined;

/**
 * Hands client-check's code to the core (the package's entries call it as they load).
 *
 * @example
 * provideClientCheckCode(clientCheckCode); // the namespace of src/client-check/code.ts, imported by the entry
 */
export function provideClientCheckCode(code: ClientCheckCode): void {
  provided = code;
}

/**
 * Loads client-check's code if it is not there yet: what the CLI awaits before it turns
 * client-check on.
 *
 * @example
 * await loadClientCheckCode();
 * sandbox.startClientCheck();
 */
export async function loadClientCheckCode(): Promise<void> {
  provided ??= await import('../client-check/code.js');
}

/**
 * Client-check's code; an Error saying what is missing when it was not handed over. No public
 * entry gets here without it: only code that imports the core's modules directly could.
 */
export function clientCheckCode(): ClientCheckCode {
  if (!provided) {
    throw new Error(
      "client-check's code is not loaded: create the sandbox through 'crm-sandbox' (or 'crm-sandbox/browser', 'crm-sandbox/testing'), " +
        'or await loadClientCheckCode() (src/core/client-check-slot.ts) before startClientCheck()',
    );
  }
  return provided;
}
