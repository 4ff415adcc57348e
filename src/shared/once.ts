/**
 * A function that builds its value on its first call and answers that same value after: for the
 * zod schemas of a module, which `serve` would otherwise build as the module loads, before its
 * first answer, though most requests never read them (docs/decisions/0035). zod 4 binds every
 * method of a schema to it as it is built, so each costs; the same object each call keeps what is
 * keyed by a schema (the OpenAPI document's names, registries) as it was.
 *
 * @example
 * export const bodySchema = once(() => z.object({ name: z.string().min(1) }));
 * parseOrThrow(bodySchema(), input); // built at the first call, then kept
 */
export function once<T extends object>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
