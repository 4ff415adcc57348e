import { closest } from './closest.js';
import { ApiError } from './errors.js';

/**
 * An options object of the code API, checked before it is used: `undefined` is none (`{}`), a
 * value that is no object is refused, and so is a name the function does not take, with the
 * nearest one it does (decision 0033). The error is a 400 `ApiError` naming the option, as the
 * control API's for a field it does not know, unless `refuse` makes another (createSandbox's is a
 * SandboxConfigError).
 *
 * @example checkOptionNames({ integration: 'hubspot' }, ['apiKey', 'integrationId'], 'connect()') // throws: connect(): integration is not a known option; did you mean integrationId?
 */
export function checkOptionNames<T extends object>(
  value: T | undefined,
  known: readonly string[],
  where: string,
  refuse: (field: string, message: string) => Error = (field, message) => ApiError.invalidField(field, message),
): T {
  if (value === undefined) return {} as T;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw refuse('', `${where} takes an object of options, got ${got}`);
  }
  for (const name of Object.keys(value)) {
    if (known.includes(name)) continue;
    const meant = closest(name, known);
    throw refuse(name, `${where}: ${name} is not a known option; ${meant ? `did you mean ${meant}?` : `the options are ${known.join(', ')}`}`);
  }
  return value;
}
