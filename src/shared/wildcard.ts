import { needleFinder } from './needles.js';
import { chargeWork } from './work.js';

/**
 * Wildcard patterns (SOQL `LIKE` with `%` and `_`, HubSpot `CONTAINS_TOKEN` with `*`) matched
 * without a RegExp, in time that grows with the value and the pattern, never exponentially.
 *
 * The answers are those of the anchored RegExp the simulated systems used to build, `^…$` with
 * the run wildcard as `.*` and the single one as `.`: a backtracking engine takes exponential
 * time on `%a%a%a%b` against a long value, where this takes one pass. The pattern splits on the
 * run wildcard into segments; the first must match at the start, the last at the end, and each
 * one between is taken at its leftmost place after the one before (leftmost is always safe: it
 * leaves the most room for the rest). A segment is found with `needleFinder` (linear: `indexOf` is
 * not, on some long segments), or, when it holds single-character wildcards, with a bit-parallel
 * Shift-And scan: O(n·⌈k/32⌉) for a segment of k characters over n.
 */

export interface WildcardSyntax {
  /** The character that matches any run of characters, the empty one included (`%`, `*`). */
  any: string;
  /** The character that matches exactly one UTF-16 code unit (`_`), if the syntax has one. */
  one?: string;
  /** Letters match regardless of case, exactly as with a RegExp's `i` flag (without `u`). */
  ignoreCase?: boolean;
  /** Wildcards never match a line terminator, as `.` without the `s` flag: a match never spans lines. */
  withinLines?: boolean;
}

/** Whether a whole value matches the pattern. */
export type WildcardMatcher = (value: string) => boolean;

const LINE_BREAK = /[\n\r\u2028\u2029]/;
const LINE_BREAKS = /([\n\r\u2028\u2029])/;

/**
 * Compiles a pattern once, to test many values. `literalAt`: places in the pattern whose wildcard character stands for
 * itself (SOQL's `\%` and `\_`, already unescaped by the caller); not with `withinLines`.
 */
export function wildcardMatcher(pattern: string, syntax: WildcardSyntax, literalAt?: ReadonlySet<number>): WildcardMatcher {
  if (literalAt && literalAt.size > 0) {
    if (syntax.withinLines) throw new Error('wildcardMatcher: literal wildcard characters are not taken with withinLines');
    return lineMatcher(pattern, syntax, literalAt);
  }
  if (!syntax.withinLines) return lineMatcher(pattern, syntax);
  if (!LINE_BREAK.test(pattern)) {
    const line = lineMatcher(pattern, syntax);
    return (value) => !LINE_BREAK.test(value) && line(value);
  }
  // Each line break of the pattern matches only itself, and nothing else matches one: the value
  // must have the same breaks in the same order, and each line must match its line of the pattern.
  const parts = pattern.split(LINE_BREAKS);
  const lines = parts.map((part, i) => (i % 2 === 0 ? lineMatcher(part, syntax) : undefined));
  return (value) => {
    const got = value.split(LINE_BREAKS);
    if (got.length !== parts.length) return false;
    return got.every((part, i) => (i % 2 === 0 ? lines[i]!(part) : part === parts[i]));
  };
}

interface Segment {
  text: string;
  /** 1 where the text has a single-character wildcard; undefined when it has none. */
  wildAt: Uint8Array | undefined;
  /** Holds single-character wildcards. */
  wild: boolean;
  /** The leftmost place in [from, to) where the whole segment matches, or -1. */
  find(value: string, from: number, to: number): number;
}

function lineMatcher(pattern: string, syntax: WildcardSyntax, literalAt?: ReadonlySet<number>): WildcardMatcher {
  const folding = syntax.ignoreCase === true;
  const segments = split(pattern, syntax, literalAt).map(({ text, from }) =>
    segment(folding ? foldCase(text) : text, wildPlaces(text, from, syntax.one, literalAt)),
  );
  const first = segments[0]!;
  if (segments.length === 1) return (value) => value.length === first.text.length && matchesAt(value, 0, first, folding);
  const last = segments.at(-1)!;
  // Empty segments between two run wildcards match anywhere: only the others are looked for.
  const middle = segments.slice(1, -1).filter((item) => item.text !== '');
  const shortest = segments.reduce((sum, item) => sum + item.text.length, 0);
  if (middle.length === 0) {
    // `ab%`, `%yz`, `ab%yz`: only the two ends are read, however long the value.
    return (value) => value.length >= shortest && matchesAt(value, 0, first, folding) && matchesAt(value, value.length - last.text.length, last, folding);
  }
  return (raw) => {
    if (raw.length < shortest) return false;
    const value = folding ? foldCase(raw) : raw;
    const end = value.length - last.text.length;
    if (!matchesAt(value, 0, first, false) || !matchesAt(value, end, last, false)) return false;
    let at = first.text.length;
    for (const item of middle) {
      const found = item.find(value, at, end);
      if (found < 0) return false;
      at = found + item.text.length;
    }
    return true;
  };
}

/** The pattern's segments between its run wildcards (those not in `literalAt`), each with where it starts in the pattern. */
function split(pattern: string, syntax: WildcardSyntax, literalAt: ReadonlySet<number> | undefined): Array<{ text: string; from: number }> {
  if (!literalAt) {
    let from = 0;
    return pattern.split(syntax.any).map((text) => {
      const part = { text, from };
      from += text.length + 1;
      return part;
    });
  }
  const parts: Array<{ text: string; from: number }> = [];
  let from = 0;
  for (let at = pattern.indexOf(syntax.any); at !== -1; at = pattern.indexOf(syntax.any, at + 1)) {
    if (literalAt.has(at)) continue;
    parts.push({ text: pattern.slice(from, at), from });
    from = at + 1;
  }
  parts.push({ text: pattern.slice(from), from });
  return parts;
}

/** Where a segment (starting at `from` in the pattern) has single-character wildcards; undefined for none. */
function wildPlaces(text: string, from: number, one: string | undefined, literalAt: ReadonlySet<number> | undefined): Uint8Array | undefined {
  if (one === undefined || !text.includes(one)) return undefined;
  const places = new Uint8Array(text.length);
  let any = false;
  for (let i = text.indexOf(one); i !== -1; i = text.indexOf(one, i + 1)) {
    if (literalAt?.has(from + i)) continue;
    places[i] = 1;
    any = true;
  }
  return any ? places : undefined;
}

function segment(text: string, wildAt: Uint8Array | undefined): Segment {
  return { text, wildAt, wild: wildAt !== undefined, find: wildAt ? shiftAnd(text, wildAt) : leftmost(text) };
}

/** A segment without single-character wildcards: its leftmost place, by `needleFinder`. */
function leftmost(text: string): Segment['find'] {
  const firstAt = needleFinder(text);
  return (value, from, to) => {
    const found = firstAt(value, from);
    return found >= 0 && found + text.length <= to ? found : -1;
  };
}

/** Whether the segment matches the value from `at`, the value's units folded first when `folding`. */
function matchesAt(value: string, at: number, item: Segment, folding: boolean): boolean {
  if (!item.wild && !folding) return value.startsWith(item.text, at);
  for (let i = 0; i < item.text.length; i++) {
    if (item.wildAt?.[i]) continue;
    const want = item.text.charCodeAt(i);
    const got = value.charCodeAt(at + i);
    if ((folding ? foldUnit(got) : got) !== want) return false;
  }
  return true;
}

/**
 * Shift-And: bit i of the state says the segment's first i+1 characters match the text ending
 * here. One pass over the text, ⌈k/32⌉ words a character, whatever the segment holds.
 */
function shiftAnd(text: string, wildAt: Uint8Array): Segment['find'] {
  const words = (text.length + 31) >>> 5;
  const anyChar = new Uint32Array(words);
  for (let i = 0; i < text.length; i++) if (wildAt[i]) anyChar[i >>> 5] = anyChar[i >>> 5]! | (1 << (i & 31));
  const masks = new Map<number, Uint32Array>();
  for (let i = 0; i < text.length; i++) {
    if (wildAt[i]) continue;
    const code = text.charCodeAt(i);
    let mask = masks.get(code);
    if (!mask) masks.set(code, (mask = anyChar.slice()));
    mask[i >>> 5] = mask[i >>> 5]! | (1 << (i & 31));
  }
  const lastWord = (text.length - 1) >>> 5;
  const lastBit = 1 << ((text.length - 1) & 31);
  return (value, from, to) => {
    chargeWork((to - from) * words);
    const state = new Uint32Array(words);
    for (let j = from; j < to; j++) {
      const mask = masks.get(value.charCodeAt(j)) ?? anyChar;
      let carry = 1;
      for (let w = 0; w < words; w++) {
        const word = state[w]!;
        state[w] = ((word << 1) | carry) & mask[w]!;
        carry = word >>> 31;
      }
      if (state[lastWord]! & lastBit) return j - text.length + 1;
    }
    return -1;
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, control characters included, is the point
const NON_ASCII = /[^\x00-\x7f]/;
let canonical: Uint16Array | undefined;

/** One code unit as `foldCase` folds it. */
function foldUnit(code: number): number {
  if (code < 0x80) return code >= 0x61 && code <= 0x7a ? code - 0x20 : code;
  canonical ??= canonicalTable();
  return canonical[code]!;
}

/**
 * Each UTF-16 code unit as a case-insensitive RegExp (no `u` flag) compares it: upper-cased,
 * unless that takes more than one unit or turns a non-ASCII letter into an ASCII one (ECMA-262
 * Canonicalize). The length never changes, so positions in the folded text are positions in the text.
 */
export function foldCase(text: string): string {
  if (!NON_ASCII.test(text)) return text.toUpperCase();
  const codes = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = foldUnit(text.charCodeAt(i));
  let out = '';
  for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode(...codes.subarray(i, i + 8192));
  return out;
}

function canonicalTable(): Uint16Array {
  const table = new Uint16Array(0x10000);
  for (let code = 0; code < 0x10000; code++) {
    const upper = String.fromCharCode(code).toUpperCase();
    const unit = upper.length === 1 ? upper.charCodeAt(0) : code;
    table[code] = code >= 0x80 && unit < 0x80 ? code : unit;
  }
  return table;
}
