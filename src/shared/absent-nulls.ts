/**
 * A request body as the service reads it (decision 0043): a member whose value is `null` is a
 * member not given. Generated clients send every optional field their caller did not set as
 * `null` (the service's own SDK does, for bodies, nested objects and search filters alike), so
 * `{ "contact": { "lastName": "X", "email": null } }` writes no email and `{ "filters": {
 * "sequenceId": null } }` filters on nothing. Members named in `native` carry a system's own JSON
 * (`additional`, the passthrough's `body`): their contents keep their nulls, which mean what the
 * system says (a Salesforce PATCH clears a field given null). Items of arrays are kept as sent.
 */

/**
 * The body without its `null` members, at every depth but inside `native` members: the same
 * object when it has none (so a frozen, shared body stays shared), else a copy without them.
 *
 * @example withoutNulls({ contact: { lastName: 'X', email: null, additional: { Phone: null } } }, new Set(['additional']))
 * // { contact: { lastName: 'X', additional: { Phone: null } } }
 */
export function withoutNulls<T>(value: T, native: ReadonlySet<string>): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = value[index];
      const kept = withoutNulls(item, native);
      if (kept !== item) (copy ??= value.slice())[index] = kept;
    }
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (member === null) {
      copy ??= { ...object };
      delete copy[key];
      continue;
    }
    if (native.has(key)) continue;
    const kept = withoutNulls(member, native);
    if (kept !== member) (copy ??= { ...object })[key] = kept;
  }
  return (copy ?? value) as T;
}
