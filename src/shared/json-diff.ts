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
 * keyed array there (`k`: remove the items with the keys listed, then insert each new item at
 * its index). Later operations may address items by their index after an edit.
 */
export type JsonOp = ['s', JsonPath, Json] | ['a', JsonPath, Json[]] | ['k', JsonPath, string, Array<string | number>, Array<[number, Json]>];

/** The fields that name an item of an array, tried in this order. */
const KEY_FIELDS = ['seq', 'eventId', 'connectionId', 'token'] as const;

type JsonObject = { [key: string]: Json };
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object's keys as JSON writes them: those whose value is not undefined. */
function keysOf(object: JsonObject): string[] {
  return Object.keys(object).filter((key) => object[key] !== undefined);
}

/**
 * The operations that turn `before` into `after` (both JSON-serialisable; `undefined` members are
 * left out, as JSON leaves them). Applied in order by {@link applyJsonDiff} to a copy of `before`,
 * they give a value that serialises to the very text of `after`.
 *
 * @example applyJsonDiff(JSON.parse(JSON.stringify(a)), jsonDiff(a, b)) // deep-equal to b, same key order
 */
export function jsonDiff(before: unknown, after: unknown): JsonOp[] {
  const ops: JsonOp[] = [];
  diff(before, after, [], ops);
  return ops;
}

function diff(before: unknown, after: unknown, path: JsonPath, ops: JsonOp[]): void {
  if (before === after) return;
  if (Array.isArray(before) && Array.isArray(after)) {
    diffArrays(before as Json[], after as Json[], path, ops);
    return;
  }
  if (isObject(before) && isObject(after)) {
    const keys = keysOf(before);
    const next = keysOf(after);
    if (keys.length === next.length && keys.every((key, i) => key === next[i])) {
      for (const key of keys) diff(before[key], after[key], [...path, key], ops);
      return;
    }
  }
  ops.push(['s', path, after as Json]);
}

function diffArrays(before: Json[], after: Json[], path: JsonPath, ops: JsonOp[]): void {
  const key = keyOf(before, after);
  if (key !== undefined && diffKeyed(before as JsonObject[], after as JsonObject[], key, path, ops)) return;
  if (after.length >= before.length && before.every((item, i) => same(item, after[i]))) {
    if (after.length > before.length) ops.push(['a', path, after.slice(before.length)]);
    return;
  }
  if (after.length === before.length) {
    for (let i = 0; i < after.length; i++) diff(before[i], after[i], [...path, i], ops);
    return;
  }
  ops.push(['s', path, after]);
}

/** The field that names every item of both arrays, once each; undefined when none does. */
function keyOf(before: Json[], after: Json[]): string | undefined {
  const sample = after[0] ?? before[0];
  if (!isObject(sample)) return undefined;
  const field = KEY_FIELDS.find((name) => typeof sample[name] === 'string' || typeof sample[name] === 'number');
  if (field === undefined) return undefined;
  const unique = (items: Json[]) => {
    const seen = new Set<unknown>();
    for (const item of items) {
      if (!isObject(item)) return false;
      const value = item[field];
      if ((typeof value !== 'string' && typeof value !== 'number') || seen.has(value)) return false;
      seen.add(value);
    }
    return true;
  };
  return unique(before) && unique(after) ? field : undefined;
}

/**
 * A keyed array's change: the items gone, the new ones with their index, then the changes inside
 * the items kept. False (nothing written) when the items kept changed their order.
 */
function diffKeyed(before: JsonObject[], after: JsonObject[], field: string, path: JsonPath, ops: JsonOp[]): boolean {
  /** Each item before, with its index, by key. */
  const old = new Map<unknown, { item: JsonObject; at: number }>();
  before.forEach((item, at) => {
    old.set(item[field], { item, at });
  });
  const kept = new Set<unknown>();
  const added: Array<[number, Json]> = [];
  const changed: Array<[number, JsonObject, JsonObject]> = [];
  let lastKept = -1;
  for (let i = 0; i < after.length; i++) {
    const item = after[i]!;
    const found = old.get(item[field]);
    if (found === undefined) {
      added.push([i, item]);
      continue;
    }
    const { item: previous, at } = found;
    if (at < lastKept) return false;
    lastKept = at;
    kept.add(item[field]);
    if (previous !== item) changed.push([i, previous, item]);
  }
  const removed = before.flatMap((item) => (kept.has(item[field]) ? [] : [item[field] as string | number]));
  if (removed.length > 0 || added.length > 0) ops.push(['k', path, field, removed, added]);
  for (const [i, previous, item] of changed) diff(previous, item, [...path, i], ops);
  return true;
}

/** Deep equality of JSON values, identity first. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = keysOf(a);
    const other = keysOf(b);
    return keys.length === other.length && keys.every((key, i) => key === other[i] && same(a[key], b[key]));
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
    const [, , field, removed, added] = op;
    const gone = new Set<unknown>(removed);
    const items = target.filter((item) => !gone.has((item as JsonObject)[field]));
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
