import type { z } from 'zod';
import { larger } from './json-text-in-pieces.js';
import type { Pieces } from './pieces.js';

/** A value this large (as its JSON would be, about) is checked a part at a time; a smaller one at once. */
const AT_ONCE_CHARS = 16 * 1024;

type Def = { type: string; shape?: Record<string, z.ZodType>; catchall?: z.ZodType; element?: z.ZodType; innerType?: z.ZodType; checks?: unknown[] };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether `value` passes `schema`, in pieces: a large object a property at a time and a large array an item at a time,
 * each part small enough checked by zod at once. It answers as `schema.safeParse(value).success` does for schemas
 * made of objects (strict or stripping), arrays, optional and nullable parts, whose rules each hold on one field (no
 * refinement of a whole object or array: those are checked at once); a snapshot's 100 data sets of 1,000 records each
 * held the event loop 50 ms a data set, checked whole.
 *
 * @example if (!(yield* passesInPieces(connectionSchema, connection))) return false;
 */
export function* passesInPieces(schema: z.ZodType, value: unknown): Pieces<boolean> {
  const def = defOf(schema);
  if (def.type === 'optional' && def.innerType) return value === undefined || (yield* passesInPieces(def.innerType, value));
  if (def.type === 'nullable' && def.innerType) return value === null || (yield* passesInPieces(def.innerType, value));
  const split = typeof value === 'object' && value !== null && !def.checks?.length && larger(value, AT_ONCE_CHARS);
  if (split && def.type === 'object' && def.shape && isPlainObject(value)) {
    const catchall = def.catchall === undefined ? undefined : defOf(def.catchall).type;
    if (catchall !== undefined && catchall !== 'never') return schema.safeParse(value).success;
    // Strict: no key but the shape's; stripping: any other key is dropped, never refused.
    if (catchall === 'never') for (const key of Object.keys(value)) if (!Object.hasOwn(def.shape, key)) return false;
    for (const [key, part] of Object.entries(def.shape)) {
      if (!(yield* passesInPieces(part, value[key]))) return false;
    }
    return true;
  }
  if (split && def.type === 'array' && def.element && Array.isArray(value)) {
    for (const item of value) {
      if (!(yield* passesInPieces(def.element, item))) return false;
    }
    return true;
  }
  yield;
  return schema.safeParse(value).success;
}
