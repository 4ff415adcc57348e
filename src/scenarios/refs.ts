/**
 * References between steps. A string that is exactly `$name.path` stands for that value (of any
 * type); `${name.path}` inside a longer string is replaced by its text; `$$` is a literal `$`.
 * `${i}` is the index inside a `repeat`.
 */

const WHOLE = /^\$([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)*)$/;
const INLINE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)*)\}/g;

/** Raised when a reference cannot be resolved; the runner names the step. */
export class RefError extends Error {}

/** A reference inside a step: where it is, the name it starts with and the keys after it. */
export interface RefAt {
  path: PropertyKey[];
  name: string;
  keys: string[];
}

/** Every reference in `value`, with where it is (for the check before a run). */
export function refsIn(value: unknown, path: PropertyKey[] = [], out: RefAt[] = []): RefAt[] {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) out.push({ path, name: whole[1]!, keys: keysOf(whole[2]!) });
    else for (const match of value.matchAll(INLINE)) if (match[1]) out.push({ path, name: match[1], keys: keysOf(match[2] ?? '') });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) refsIn(item, [...path, index], out);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) refsIn(item, [...path, key], out);
  }
  return out;
}

const keysOf = (path: string) => path.split('.').slice(1);

/** Whether a string is a whole-value reference (its type is only known at run time). */
export function isWholeRef(value: unknown): boolean {
  return typeof value === 'string' && WHOLE.test(value);
}

/** Whether a string is text with references inside (`"Call ${ada.firstName}"`, `"$$5"`): it stays a string. */
export function isTemplate(value: unknown): boolean {
  return typeof value === 'string' && !WHOLE.test(value) && value.search(INLINE) !== -1;
}

/** `$deal.amount` for the text `"${deal.amount}"`, which makes a string of what `$deal.amount` stands for. */
export function wholeRefOfTemplate(value: string): string | undefined {
  const match = /^\$\{([^}]*)\}$/.exec(value);
  return match && WHOLE.test(`$${match[1]}`) ? `$${match[1]}` : undefined;
}

/** Replaces every reference in `value` with what `scope` holds. */
export function resolveRefs(value: unknown, scope: Readonly<Record<string, unknown>>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookUp(scope, whole[1]!, whole[2]!);
    if (!value.includes('$')) return value;
    return value.replace(INLINE, (match, name: string | undefined, path: string | undefined) => {
      if (match === '$$') return '$';
      const found = lookUp(scope, name!, path ?? '');
      return typeof found === 'object' && found !== null ? JSON.stringify(found) : String(found);
    });
  }
  if (Array.isArray(value)) return value.map((item) => resolveRefs(item, scope));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveRefs(item, scope)]));
  }
  return value;
}

function lookUp(scope: Readonly<Record<string, unknown>>, name: string, path: string): unknown {
  if (!Object.hasOwn(scope, name)) throw new RefError(`$${name} is not defined by an earlier step`);
  let current: unknown = scope[name];
  let walked = `$${name}`;
  for (const key of path.split('.').slice(1)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) {
      throw new RefError(`${walked} has no field ${JSON.stringify(key)}`);
    }
    current = (current as Record<string, unknown>)[key];
    walked += `.${key}`;
  }
  return current;
}
