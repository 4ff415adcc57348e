import { describe, expect, it } from 'vitest';
import { applyJsonDiff, type Json, jsonDiff } from './json-diff.js';

/** Applies the diff of a → b to a copy of a (as a file holds it) and returns the JSON text. */
const roundTrip = (a: unknown, b: unknown) => JSON.stringify(applyJsonDiff(JSON.parse(JSON.stringify(a)) as Json, jsonDiff(a, b)));

describe('jsonDiff', () => {
  it('turns one value into the other, keys in the same order, whatever changed', () => {
    const record = { id: 'r1', name: 'Ada' };
    const cases: Array<[unknown, unknown]> = [
      [
        { a: 1, b: [1, 2] },
        { a: 2, b: [1, 2, 3] },
      ],
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ], // same keys, another order: written whole
      [
        { a: 1, b: undefined },
        { a: 1, b: 3 },
      ], // undefined members are absent, as in JSON
      [
        { a: 1, b: 3 },
        { a: 1, b: undefined },
      ],
      [
        [3, 2, 1],
        [1, 2],
      ],
      [
        {
          entries: [
            { seq: 1, record },
            { seq: 3, record },
            { seq: 4, record },
          ],
        },
        {
          entries: [
            { seq: 2, record },
            { seq: 3, record: { ...record, name: 'Grace' } },
            { seq: 5, record },
          ],
        },
      ],
      [
        {
          deliveries: [
            { eventId: 'e1', state: 'pending', attempts: [] },
            { eventId: 'e2', state: 'pending', attempts: [] },
          ],
        },
        {
          deliveries: [
            { eventId: 'e2', state: 'succeeded', attempts: [{ attempt: 1 }] },
            { eventId: 'e3', state: 'pending', attempts: [] },
          ],
        },
      ],
      // Kept items that change their order: the array is written whole.
      [
        [{ token: 'a' }, { token: 'b' }],
        [{ token: 'b' }, { token: 'a' }],
      ],
      // A key twice: matched as far as it goes, the rest written whole.
      [
        [{ seq: 1 }, { seq: 2 }],
        [{ seq: 1 }, { seq: 1 }, { seq: 2 }],
      ],
      [
        [{ seq: 1, v: 1 }, { seq: 2 }],
        [{ seq: 2 }, { seq: 3 }, { seq: 1, v: 2 }],
      ],
      [null, { a: 1 }],
      ['x', 'y'],
    ];
    for (const [a, b] of cases) expect(roundTrip(a, b)).toBe(JSON.stringify(b));
  });

  it('costs what changed: unchanged items, shared between the two values, are not written', () => {
    const records = Array.from({ length: 1_000 }, (_, i) => ({ seq: i + 1, record: { id: `r${i}`, text: 'x'.repeat(100) } }));
    const before = { time: 1, entries: records };
    const after = { time: 2, entries: [...records.slice(0, 500), ...records.slice(501), { seq: 1_001, record: { id: 'new', text: 'y' } }] };
    const ops = jsonDiff(before, after);
    expect(ops).toEqual([
      ['s', ['time'], 2],
      ['k', ['entries'], [500], [[999, { seq: 1_001, record: { id: 'new', text: 'y' } }]]],
    ]);
    expect(roundTrip(before, after)).toBe(JSON.stringify(after));
  });
});
