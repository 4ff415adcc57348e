const PRIME = 0x01000193;
const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);

/**
 * FNV-1a (32 bits) over a JSON value — keys, strings and numbers in order, each marked with its
 * kind — without serialising it: digests of thousands of records then cost no garbage. Values
 * equal as JSON (same keys in the same order) hash the same; `undefined` properties are skipped,
 * as `JSON.stringify` skips them.
 *
 * @example hashJson({ id: 'a', tags: ['x'] }) === hashJson(JSON.parse('{"id":"a","tags":["x"]}'))
 */
export function hashJson(value: unknown, hash = 0x811c9dc5): number {
  switch (typeof value) {
    case 'string':
      hash = Math.imul(hash ^ 0x22, PRIME);
      for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), PRIME);
      return hash;
    case 'number':
      float[0] = value + 0; // -0 is 0, as in JSON
      return Math.imul(Math.imul(Math.imul(hash ^ 0x23, PRIME) ^ words[0]!, PRIME) ^ words[1]!, PRIME);
    case 'boolean':
      return Math.imul(hash ^ (value ? 0x74 : 0x66), PRIME);
    case 'object': {
      if (value === null) return Math.imul(hash ^ 0x6e, PRIME);
      if (Array.isArray(value)) {
        hash = Math.imul(hash ^ 0x5b, PRIME);
        for (const item of value) hash = hashJson(item, hash);
        return Math.imul(hash ^ 0x5d, PRIME);
      }
      hash = Math.imul(hash ^ 0x7b, PRIME);
      const record = value as Record<string, unknown>;
      for (const key in record) {
        if (record[key] === undefined) continue;
        hash = hashJson(record[key], hashJson(key, hash));
      }
      return Math.imul(hash ^ 0x7d, PRIME);
    }
    default:
      return hash;
  }
}
