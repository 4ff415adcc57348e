/*
 * What changed between two JSON values, as operations that turn the first into the second:
 * what `serve --state-file --state-sync always` appends to its journal at each commit, instead of
 * writing the whole state (docs/decisions/0031). Values are compared by identity first, so
 * unchanged records (immutable, shared between snapshots) cost one comparison. Object keys keep
 * their order: an object whose keys changed is written whole. Arrays of items with a key
 * (`seq`, `eventId`, `connectionId`, `token`) are changed item by item; others are appended to
 * when they only grew, else written whole (or item by item when their length is the same).
 */

/** A JSON value (as `JSON.parse` gives it). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Where a change applies: object keys and array indexes, from the root. */
export type JsonPath = Array<string | number>;

/**
 * One change: set the value at a path (`s`), append items to the array there (`a`), or edit the
 * array there (`k`: remove the items at the indexes listed, then insert each new item at its
 * index in the result). Later operations may address items by their index after an edit.
 */
export type JsonOp = ['s', JsonPath, Json] | ['a', JsonPath, Json[]] | ['k', JsonPath, number[], Array<[number, Json]>];

/** The fields that name an item of an array, tried in this order. */
const KEY_FIELDS = ['seq', 'eventId', 'connectionId', 'token'] as const;

type JsonObject = { [key: string]: Json };
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where the diff stands: built as a chain, and made a path only when an operation is written there (most places change nothing). */
interface At {
  up: At | undefined;
  key: string | number;
}
const pathOf = (at: At | undefined): JsonPath => {
  const path: JsonPath = [];
  for (let step = at; step; step = step.up) path.push(step.key);
  return path.reverse();
};
const down = (at: At | undefined, key: string | number): At => ({ up: at, key });

/**
 * The operations that turn `before` into `after` (both JSON-serialisable; `undefined` members are
 * left out, as JSON leaves them). Applied in order by {@link applyJsonDiff} to a copy of `before`,
 * they give a value that serialises to the very text of `after`.
 *
 * @example applyJsonDiff(JSON.parse(JSON.stringify(a)), jsonDiff(a, b)) // deep-equal to b, same key order
 */
export function jsonDiff(before: unknown, after: unknown): JsonOp[] {
  const ops: JsonOp[] = [];
  diff(before, after, undefined, ops);
  return ops;
}

function diff(before: unknown, after: unknown, at: At | undefined, ops: JsonOp[]): void {
  if (before === after) return;
  if (Array.isArray(before) && Array.isArray(after)) {
    diffArrays(before as Json[], after as Json[], at, ops);
    return;
  }
  if (isObject(before) && isObject(after) && sameKeys(before, after)) {
    for (const key in after) if (after[key] !== undefined) diff(before[key], after[key], down(at, key), ops);
    return;
  }
  ops.push(['s', pathOf(at), after as Json]);
}

/** Whether two objects have the same keys in the same order, as JSON writes them (undefined members left out). */
function sameKeys(a: JsonObject, b: JsonObject): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < ka.length && a[ka[i]!] === undefined) i++;
    while (j < kb.length && b[kb[j]!] === undefined) j++;
    if (i === ka.length || j === kb.length) return i === ka.length && j === kb.length;
    if (ka[i++] !== kb[j++]) return false;
  }
}

function diffArrays(before: Json[], after: Json[], at: At | undefined, ops: JsonOp[]): void {
  // Most arrays of a state only grow at their end: the items before are the very same ones.
  let prefix = 0;
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix++;
  if (prefix === before.length) {
    if (after.length > before.length) ops.push(['a', pathOf(at), after.slice(prefix)]);
    return;
  }
  const key = keyOf(before, after);
  if (key !== undefined && diffKeyed(before, after, prefix, key, at, ops)) return;
  if (after.length >= before.length && before.every((item, i) => same(item, after[i]))) {
    if (after.length > before.length) ops.push(['a', pathOf(at), after.slice(before.length)]);
    return;
  }
  if (after.length === before.length) {
    for (let i = 0; i < after.length; i++) diff(before[i], after[i], down(at, i), ops);
    return;
  }
  ops.push(['s', pathOf(at), after]);
}

/** The field that may name the items of both arrays (the first item's), to match them by. */
function keyOf(before: Json[], after: Json[]): string | undefined {
  const sample = after[0] ?? before[0];
  if (!isObject(sample)) return undefined;
  return KEY_FIELDS.find((name) => typeof sample[name] === 'string' || typeof sample[name] === 'number');
}

const keyIn = (item: unknown, field: string): string | number | undefined => {
  const value = isObject(item) ? item[field] : undefined;
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
};

/**
 * An array whose items are matched by a key (past the `prefix` both share): the indexes of the
 * items gone, the new items with their index, then the changes inside the items kept. False
 * (nothing written) when an item has no key, a key is there twice, or the items kept changed
 * their order.
 */
function diffKeyed(before: Json[], after: Json[], prefix: number, field: string, at: At | undefined, ops: JsonOp[]): boolean {
  /** Where each key was before, past the prefix. */
  const index = new Map<string | number, number>();
  for (let i = prefix; i < before.length; i++) {
    const key = keyIn(before[i], field);
    if (key === undefined || index.has(key)) return false;
    index.set(key, i);
  }
  const added: Array<[number, Json]> = [];
  const changed: Array<[number, number]> = [];
  const kept = new Set<number>();
  let lastKept = prefix - 1;
  for (let i = prefix; i < after.length; i++) {
    const key = keyIn(after[i], field);
    if (key === undefined) return false;
    const was = index.get(key);
    if (was === undefined) {
      added.push([i, after[i]!]);
      continue;
    }
    if (was <= lastKept) return false; // kept items out of order, or a key twice
    lastKept = was;
    kept.add(was);
    if (before[was] !== after[i]) changed.push([was, i]);
  }
  const removed: number[] = [];
  for (let i = prefix; i < before.length; i++) if (!kept.has(i)) removed.push(i);
  if (removed.length > 0 || added.length > 0) ops.push(['k', pathOf(at), removed, added]);
  for (const [was, i] of changed) diff(before[was], after[i], down(at, i), ops);
  return true;
}

/** Deep equality of JSON values, identity first. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (isObject(a) && isObject(b) && sameKeys(a, b)) {
    for (const key in b) if (b[key] !== undefined && !same(a[key], b[key])) return false;
    return true;
  }
  return false;
}

/**
 * Applies operations made by {@link jsonDiff} to `value` (changing it in place where it can) and
 * returns the result. A path that does not fit the value throws.
 */
export function applyJsonDiff(value: Json, ops: readonly JsonOp[]): Json {
  let root = value;
  for (const op of ops) {
    const path = op[1];
    if (op[0] === 's') {
      if (path.length === 0) root = op[2];
      else (container(root, path.slice(0, -1)) as Record<string | number, Json>)[path.at(-1)!] = op[2];
      continue;
    }
    const target = container(root, path);
    if (!Array.isArray(target)) throw new Error(`no array at ${JSON.stringify(path)}`);
    if (op[0] === 'a') {
      for (const item of op[2]) target.push(item);
      continue;
    }
    const [, , removed, added] = op;
    const gone = new Set(removed);
    const items = target.filter((_, i) => !gone.has(i));
    for (const [index, item] of added) items.splice(index, 0, item);
    target.length = items.length;
    for (let i = 0; i < items.length; i++) target[i] = items[i]!;
  }
  return root;
}

/** The object or array at `path`. */
function container(root: Json, path: JsonPath): Json[] | JsonObject {
  let at: Json | undefined = root;
  for (const segment of path) {
    if (!(Array.isArray(at) || isObject(at))) throw new Error(`no value at ${JSON.stringify(path)}`);
    at = (at as Record<string | number, Json>)[segment];
  }
  if (!(Array.isArray(at) || isObject(at))) throw new Error(`no object or array at ${JSON.stringify(path)}`);
  return at;
}
