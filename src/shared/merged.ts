/**
 * `{ ...base, ...extra }` (own enumerable string keys), copied by loops, for objects made on every
 * request or delivery. Its inputs are the sandbox's own headers and options, never a client's.
 *
 * On node 20 (V8 11.3) an object literal that starts with a spread and has properties after it
 * (`{ ...headers, 'content-length': n }`) survives the young generation's collections: measured with
 * `--trace-gc-nvp`, a loop making 3M of them promoted ~56 bytes each to the old generation, against
 * ~0.05 for the same object built by a loop, a lone `{ ...base }` or `Object.assign`; node 22 promotes
 * none. On the dev server's hot path that was 76–94 promoted bytes per users-page GET: garbage
 * filling the old generation under any load (decision 0009, item 16).
 */
export function merged<A extends object, B extends object>(base: A, extra: B): A & B {
  const out = {} as Record<string, unknown>;
  for (const key in base) if (Object.hasOwn(base, key)) out[key] = base[key];
  for (const key in extra) if (Object.hasOwn(extra, key)) out[key] = extra[key];
  return out as A & B;
}
