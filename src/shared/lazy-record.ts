/**
 * A record whose values are built on first read, each once: for tables of zod schemas that
 * `serve` would otherwise build at import, before its first answer, though most requests never
 * read them (docs/decisions/0035). Keys keep their order and are enumerable, so `Object.keys`,
 * `Object.entries` and spreading see the same record an eager one would be.
 *
 * @example
 * const FIELDS = lazyRecord({ User: () => z.object({ email: z.string() }) });
 * FIELDS.User.shape; // built here, then kept
 */
export function lazyRecord<B extends Record<string, () => unknown>>(builders: B): { readonly [K in keyof B]: ReturnType<B[K]> } {
  const record = {} as { [K in keyof B]: ReturnType<B[K]> };
  for (const key of Object.keys(builders) as Array<keyof B & string>) {
    Object.defineProperty(record, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = builders[key]!() as ReturnType<B[typeof key]>;
        Object.defineProperty(record, key, { value, enumerable: true, writable: false, configurable: false });
        return value;
      },
    });
  }
  return record;
}
