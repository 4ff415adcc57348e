import { CLOSE_BRACE, CLOSE_BRACKET, escaped, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-depth.js';
import type { Pieces } from './pieces.js';

/**
 * `JSON.parse` and `JSON.stringify` of a whole state (megabytes: a state file, its save) in pieces (./pieces.ts), so
 * that a server loading or saving one answers others between them: a 3.4 MB state file parsed at once held the event
 * loop 20–30 ms, its save's `JSON.stringify` as long, and both grow with the file. The value and the text are exactly
 * those of the built-ins; the built-ins do every part small enough (64 KiB of text), and a long text is cut only where
 * it splits into the items of an array or the members of an object.
 */

/** Text handed to the built-in at once: about a tenth of a millisecond of parsing or writing. */
const PART_CHARS = 64 * 1024;
/** Characters a scan reads between two stops. */
const SCAN_CHARS = 256 * 1024;

const COMMA = 0x2c;
const COLON = 0x3a;

/** What `parseJsonInPieces` throws for text nested deeper than its limit. */
export class JsonTooDeepError extends Error {}

/** Text that is not JSON after all: the caller parses it at once, for the built-in's own error. */
class NotJson extends Error {}

/**
 * The value of JSON text, as `JSON.parse(text)` gives it, in pieces; a {@link JsonTooDeepError} when it nests objects
 * and arrays more than `maxDepth` levels (as `jsonTooDeep` counts them), and `JSON.parse`'s own SyntaxError when it is
 * not JSON.
 *
 * @example const value = await runInTurns(parseJsonInPieces(text, MAX_SNAPSHOT_DEPTH));
 */
export function* parseJsonInPieces(text: string, maxDepth: number): Pieces<unknown> {
  try {
    const reader = new Reader(text, maxDepth);
    const at = reader.space(0);
    const end = yield* reader.skip(at, 0);
    if (reader.space(end) !== text.length) throw new NotJson();
    return yield* reader.value(at, end, 0);
  } catch (error) {
    if (!(error instanceof NotJson)) throw error;
    // Not JSON: the built-in says where (and, should the scan have been wrong, gives the value).
    return JSON.parse(text);
  }
}

/** Reads values out of the text by their extent, handing each small one to `JSON.parse`. */
class Reader {
  /** Characters handed to the built-in since the last stop. */
  private parsed = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  /** The first place at or after `at` that is not whitespace. */
  space(at: number): number {
    const { text } = this;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return at;
      at++;
    }
  }

  /** The end of the value that starts at `at` (`depth` containers around it), stopping every {@link SCAN_CHARS} characters read. */
  *skip(at: number, depth: number): Pieces<number> {
    const { text } = this;
    const first = text.charCodeAt(at);
    if (first === QUOTE) return this.stringEnd(at);
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
      let end = at;
      while (end < text.length && !isDelimiter(text.charCodeAt(end))) end++;
      if (end === at) throw new NotJson();
      return end;
    }
    let open = 0;
    let stop = at + SCAN_CHARS;
    for (let i = at; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) {
        i = this.stringEnd(i) - 1;
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        if (depth + ++open > this.maxDepth) throw new JsonTooDeepError(`nested more than ${this.maxDepth} levels deep`);
      } else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --open === 0) {
        return i + 1;
      }
      if (i >= stop) {
        yield;
        stop = i + SCAN_CHARS;
      }
    }
    throw new NotJson();
  }

  /** The end of the string whose opening quote is at `at`. */
  private stringEnd(at: number): number {
    const { text } = this;
    let i = at;
    do {
      i = text.indexOf('"', i + 1);
      if (i === -1) throw new NotJson();
    } while (escaped(text, i));
    return i + 1;
  }

  /** The value whose text is [at, end), `depth` containers deep. */
  *value(at: number, end: number, depth: number): Pieces<unknown> {
    const { text } = this;
    const first = text.charCodeAt(at);
    // Its nesting was counted by the scan that found its end.
    if (end - at <= PART_CHARS || (first !== OPEN_BRACE && first !== OPEN_BRACKET)) {
      this.parsed += end - at;
      if (this.parsed >= PART_CHARS) {
        this.parsed = 0;
        yield;
      }
      return JSON.parse(text.slice(at, end));
    }
    return first === OPEN_BRACKET ? yield* this.array(at, end, depth + 1) : yield* this.object(at, end, depth + 1);
  }

  private *array(at: number, end: number, depth: number): Pieces<unknown[]> {
    const out: unknown[] = [];
    let i = this.space(at + 1);
    if (this.text.charCodeAt(i) === CLOSE_BRACKET) return this.closes(i, end, out);
    for (;;) {
      const itemEnd = yield* this.skip(i, depth);
      out.push(yield* this.value(i, itemEnd, depth));
      i = this.space(itemEnd);
      const code = this.text.charCodeAt(i);
      if (code === CLOSE_BRACKET) return this.closes(i, end, out);
      if (code !== COMMA) throw new NotJson();
      i = this.space(i + 1);
    }
  }

  private *object(at: number, end: number, depth: number): Pieces<Record<string, unknown>> {
    const { text } = this;
    const out: Record<string, unknown> = {};
    let i = this.space(at + 1);
    if (text.charCodeAt(i) === CLOSE_BRACE) return this.closes(i, end, out);
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) throw new NotJson();
      const keyEnd = this.stringEnd(i);
      const key = JSON.parse(text.slice(i, keyEnd)) as string;
      i = this.space(keyEnd);
      if (text.charCodeAt(i) !== COLON) throw new NotJson();
      i = this.space(i + 1);
      const valueEnd = yield* this.skip(i, depth);
      const value = yield* this.value(i, valueEnd, depth);
      // As JSON.parse makes it: an own property, `__proto__` included (an assignment would set the prototype).
      if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
      else out[key] = value;
      i = this.space(valueEnd);
      const code = text.charCodeAt(i);
      if (code === CLOSE_BRACE) return this.closes(i, end, out);
      if (code !== COMMA) throw new NotJson();
      i = this.space(i + 1);
    }
  }

  /** A container's value, when its closing bracket is where its end said. */
  private closes<T>(at: number, end: number, value: T): T {
    if (at + 1 !== end) throw new NotJson();
    return value;
  }
}

const isDelimiter = (code: number) =>
  code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === COLON;

/**
 * `JSON.stringify(value)` in pieces: the same text, the built-in writing every part of {@link PART_CHARS} or less at
 * once, and a larger array an item at a time (an object a member at a time). Values are plain data (no `toJSON` but a
 * Date's, no cycles), as a snapshot is.
 *
 * @example const text = await runInTurns(stringifyInPieces(sandbox.snapshot()));
 */
export function* stringifyInPieces(value: unknown): Pieces<string> {
  const out = { text: '', since: 0 };
  yield* write(value, out);
  return out.text;
}

interface Out {
  text: string;
  /** Length of the text at the last stop. */
  since: number;
}

/** Adds a part; stops once {@link PART_CHARS} were added since the last stop. */
function* add(out: Out, part: string): Pieces<void> {
  out.text += part;
  if (out.text.length - out.since >= PART_CHARS) {
    out.since = out.text.length;
    yield;
  }
}

const plain = (value: unknown): value is object => typeof value === 'object' && value !== null && !(value instanceof Date);
/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const skipped = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

function* write(value: unknown, out: Out): Pieces<void> {
  if (!plain(value) || !larger(value, PART_CHARS)) {
    yield* add(out, JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    yield* add(out, '[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield* add(out, ',');
      const item: unknown = value[i];
      if (skipped(item)) yield* add(out, 'null');
      else yield* write(item, out);
    }
    yield* add(out, ']');
    return;
  }
  yield* add(out, '{');
  let first = true;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (skipped(item)) continue;
    yield* add(out, `${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    yield* write(item, out);
  }
  yield* add(out, '}');
}

/**
 * Whether a value's text would be longer than `budget` characters, told by counting its strings and items (a bound
 * from below), never more than `budget` of them: a record is written at once, a list of them an item at a time.
 */
export function larger(value: object, budget: number): boolean {
  const pending: unknown[] = [value];
  let size = 0;
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') size += item.length + 2;
    else if (plain(item)) {
      const items = Array.isArray(item) ? item : Object.values(item);
      size += items.length + 2;
      if (size > budget) return true;
      if (!Array.isArray(item)) for (const key of Object.keys(item)) size += key.length + 3;
      for (const child of items) pending.push(child);
    } else size += 4;
    if (size > budget) return true;
  }
  return false;
}
