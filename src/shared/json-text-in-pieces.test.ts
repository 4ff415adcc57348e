import { describe, expect, it } from 'vitest';
import { MAX_SNAPSHOT_DEPTH } from './json-depth.js';
import { JsonTooDeepError, parseJsonInPieces, stringifyInPieces } from './json-text-in-pieces.js';
import { type Pieces, runToEnd } from './pieces.js';
import { Random } from './random.js';

/** Runs pieces to their end, counting the stops. */
function run<T>(pieces: Pieces<T>): { value: T; stops: number } {
  let stops = 0;
  for (;;) {
    const step = pieces.next();
    if (step.done) return { value: step.value, stops };
    stops++;
  }
}

/** A state-like value: lists of records with strings of every kind, nested objects, numbers, nulls, empties. */
function stateLike(seed: number, records: number) {
  const random = new Random(seed);
  const text = () => random.chars(random.uint32() % 40, 'ab "\\\n\u2028é😀{}[],:\u0000');
  return {
    format: 'crm-sandbox-state',
    version: 3,
    empty: { list: [], object: {} },
    connections: Array.from({ length: 4 }, (_, c) => ({
      connectionId: `c${c}`,
      ['__proto__']: { polluted: true },
      data: {
        entries: Array.from({ length: records }, (_, i) => ({
          seq: i + 1,
          record: { id: `r${i}`, name: text(), amount: random.uint32() / 7, none: null, flags: [true, false], nested: { deep: [[[text()]]] } },
          extra: {},
        })),
      },
      notes: text().repeat(3000),
    })),
    deliveries: Array.from({ length: records }, (_, i) => ({ eventId: `e${i}`, body: JSON.stringify({ eventId: `e${i}`, text: text() }) })),
  };
}

describe('JSON text in pieces (a state file, its save)', () => {
  it('parses to what JSON.parse gives, __proto__ keys included, stopping along the way', () => {
    for (const seed of [1, 2, 3]) {
      const text = JSON.stringify(stateLike(seed, 2000));
      expect(text.length).toBeGreaterThan(1_000_000);
      const { value, stops } = run(parseJsonInPieces(text, MAX_SNAPSHOT_DEPTH));
      expect(JSON.stringify(value)).toBe(text);
      const connection = (value as { connections: object[] }).connections[0]!;
      expect(Object.getPrototypeOf(connection)).toBe(Object.prototype);
      expect(Object.keys(connection)).toContain('__proto__');
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
      expect(stops).toBeGreaterThan(10);
    }
    // With whitespace and line breaks between the tokens, as a hand-edited file has them.
    const pretty = JSON.stringify(stateLike(4, 2000), null, 2);
    expect(JSON.stringify(runToEnd(parseJsonInPieces(pretty, MAX_SNAPSHOT_DEPTH)))).toBe(JSON.stringify(JSON.parse(pretty)));
  });

  it('writes what JSON.stringify writes, stopping along the way', () => {
    for (const seed of [1, 2, 3]) {
      const value = { ...stateLike(seed, 3000), when: new Date(0), gone: undefined, list: [undefined, () => 1, 1] };
      const { value: text, stops } = run(stringifyInPieces(value));
      expect(text).toBe(JSON.stringify(value));
      expect(stops).toBeGreaterThan(10);
    }
    for (const small of [null, 1, 'x', [], {}, [1, { a: [2] }]]) expect(runToEnd(stringifyInPieces(small))).toBe(JSON.stringify(small));
  });

  it('refuses text nested deeper than its limit, and gives JSON.parse’s own error for text that is not JSON', () => {
    const deep = `{"a":[${'['.repeat(300)}${']'.repeat(300)}],"pad":"${'x'.repeat(200_000)}"}`;
    expect(() => runToEnd(parseJsonInPieces(deep, MAX_SNAPSHOT_DEPTH))).toThrow(JsonTooDeepError);
    expect(runToEnd(parseJsonInPieces(deep, 400))).toEqual(JSON.parse(deep));
    const good = JSON.stringify(stateLike(5, 2000));
    for (const bad of [good.slice(0, -1), `${good}x`, good.replace('"connections":[', '"connections":[,'), good.replace(':', '::')]) {
      let expected: unknown;
      try {
        JSON.parse(bad);
      } catch (error) {
        expected = error;
      }
      expect(() => runToEnd(parseJsonInPieces(bad, MAX_SNAPSHOT_DEPTH))).toThrow((expected as Error).message);
    }
  });
});
