import { SandboxConfigError } from './errors.js';

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

/**
 * Reads a boolean as the sandbox reads every one given as text (an environment variable, a flag's
 * value): `true`, `1`, `yes` or `false`, `0`, `no`, in any case (decision 0032). Anything else
 * throws a SandboxConfigError naming `name`, so `CRM_SANDBOX_QUIET=y` is not quietly false.
 *
 * @example parseBoolean('YES', 'CRM_SANDBOX_QUIET') // true
 * @example parseBoolean('on', 'CRM_SANDBOX_QUIET') // throws: CRM_SANDBOX_QUIET must be true or false (also 1/0, yes/no), got "on"
 */
export function parseBoolean(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (text !== undefined && TRUE.has(text)) return true;
  if (text !== undefined && FALSE.has(text)) return false;
  const got = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw new SandboxConfigError(`${name} must be true or false (also 1/0, yes/no), got ${got}`);
}
