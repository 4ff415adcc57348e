/**
 * How deep JSON input may nest (objects and arrays inside each other): request bodies and scenario
 * definitions. JSON.parse itself takes any depth, but JSON.stringify and every recursive walk over
 * the value (validation, references, hashing) overflow the stack some thousands of levels down:
 * input is refused at the door instead (decision 0018). Far above any real shape: a HubSpot
 * search through the passthrough is 7 levels deep, the built-in scenarios at most 9, a snapshot 11.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Snapshots and state files hold values written through bodies a few levels down inside their
 * own shape: twice the body limit, so every snapshot the sandbox writes loads again.
 */
export const MAX_SNAPSHOT_DEPTH = 2 * MAX_JSON_DEPTH;

/**
 * Whether JSON text nests objects and arrays more than `limit` levels deep, read from the text
 * without parsing it: brackets outside strings are counted. A text shorter than `2 * limit + 2`
 * characters cannot be (each level takes an opening and a closing bracket), so most request
 * bodies cost one comparison. Text that is not JSON gives some answer; its parse fails anyway.
 *
 * @example jsonTooDeep('[[[]]]', 2) // true
 */
export function jsonTooDeep(text: string, limit: number): boolean {
  if (text.length < 2 * limit + 2) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // To the closing quote (one not escaped), found by the native search: most of a body is strings.
      do {
        i = text.indexOf('"', i + 1);
        if (i === -1) return false;
      } while (escaped(text, i));
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
export function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * Whether a value (already parsed: a YAML document, a definition given in code) nests objects and
 * arrays more than `limit` levels deep. Walked with a stack of its own, so any depth is measured
 * without recursion. A value reached again (shared by YAML aliases) is walked again only from a
 * deeper level; a cycle, which is deeper than any limit, is found too deep.
 *
 * @example valueTooDeep({ a: [[1]] }, 2) // true
 */
export function valueTooDeep(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  const deepestAt = new Map<object, number>();
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null || (deepestAt.get(current) ?? 0) >= depth) continue;
    if (depth > limit) return true;
    deepestAt.set(current, depth);
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}

/** The words every refusal uses: `nested more than 128 levels deep (…)`. */
export function tooDeepPhrase(limit: number): string {
  return `nested more than ${limit} levels deep (objects and arrays inside each other)`;
}

/** The character codes JSON's structure is read by. */
export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
