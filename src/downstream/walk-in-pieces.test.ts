import { describe, expect, it } from 'vitest';
import { runToEnd } from '../shared/pieces.js';
import { collectInPieces, findInPieces, sortInPieces, WALK_PIECE } from './walk-in-pieces.js';

/** Counts the stops of work in pieces, and its result. */
function stops<T>(pieces: Generator<void, T, void>): { result: T; stops: number } {
  let count = 0;
  for (;;) {
    const step = pieces.next();
    if (step.done) return { result: step.value, stops: count };
    count++;
  }
}

describe('a walk in pieces (docs/decisions/0042)', () => {
  it('collects what it picks, in order, stopping after every WALK_PIECE items', () => {
    const items = Array.from({ length: 5 * WALK_PIECE + 3 }, (_, i) => i);
    const { result, stops: count } = stops(collectInPieces(items, (n) => (n % 7 === 0 ? `#${n}` : undefined)));
    expect(result).toEqual(items.filter((n) => n % 7 === 0).map((n) => `#${n}`));
    expect(count).toBe(5);
  });

  it('finds the first item a test accepts, looking no further, or undefined after the last', () => {
    const items = Array.from({ length: 3 * WALK_PIECE }, (_, i) => ({ i, even: i % 2 === 0 }));
    expect(stops(findInPieces(items, (item) => item.i >= 2 * WALK_PIECE + 1 && !item.even))).toEqual({ result: items[2 * WALK_PIECE + 1], stops: 2 });
    expect(stops(findInPieces(items, (item) => item.i === 3))).toEqual({ result: items[3], stops: 0 });
    expect(stops(findInPieces(items, () => false))).toEqual({ result: undefined, stops: 3 });
  });

  it('sorts as a stable sort does, ties in their order, a long list in pieces', () => {
    // A pseudo-random list with many ties: keys 0–99, each item tagged with where it was.
    let state = 7;
    const next = () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state;
    };
    for (const length of [0, 1, 999, 1_000, 1_001, 4_321, 25_000]) {
      const items = Array.from({ length }, (_, at) => ({ key: next() % 100, at }));
      const byKey = (a: { key: number }, b: { key: number }) => a.key - b.key;
      const expected = [...items].sort(byKey);
      const { result, stops: count } = stops(sortInPieces([...items], byKey));
      expect(result).toEqual(expected);
      expect(count > 0).toBe(length > 1_000);
    }
    expect(runToEnd(sortInPieces([3, 1, 2], (a, b) => b - a))).toEqual([3, 2, 1]);
  });
});
