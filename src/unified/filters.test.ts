import { describe, expect, it } from 'vitest';
import { Random } from '../shared/random.js';
import { LOOKUP_WORK, workDone } from '../shared/work.js';
import { compileFilters } from './filters.js';

/** The string list operators as they were defined (every wanted value against every entry), kept as the oracle. */
const quadratic = {
  hasSome: (wanted: string[], list: string[]) => wanted.some((item) => list.includes(item)),
  hasEvery: (wanted: string[], list: string[]) => wanted.every((item) => list.includes(item)),
};

const fields = [{ key: 'to', kind: 'stringList' as const }];

describe('string list filters (issue 47: linear in the list)', () => {
  it('hasSome and hasEvery answer as comparing every wanted value with every entry did, duplicates and empties included', () => {
    const random = new Random(47);
    const word = () => String.fromCharCode(97 + (random.uint32() % 6));
    for (let i = 0; i < 5_000; i++) {
      const wanted = Array.from({ length: random.uint32() % 5 }, word);
      const list = Array.from({ length: random.uint32() % 6 }, word);
      for (const operator of ['hasSome', 'hasEvery'] as const) {
        const filter = compileFilters({ to: { [operator]: wanted } }, fields);
        expect(filter({ to: list }), `${operator} ${JSON.stringify(wanted)} over ${JSON.stringify(list)}`).toBe(quadratic[operator](wanted, list));
      }
    }
    // A record without the list has none of the values; every one of none holds.
    expect(compileFilters({ to: { hasEvery: [] } }, fields)({})).toBe(true);
    expect(compileFilters({ to: { hasSome: [] } }, fields)({ to: ['a'] })).toBe(false);
  });

  it('does work that grows with the list, not with the wanted values × the list, and counts it', () => {
    const list = Array.from({ length: 2_000 }, (_, i) => `entry${i}@example.com`);
    const workOf = (wanted: string[], operator: 'hasSome' | 'hasEvery') => {
      const filter = compileFilters({ to: { [operator]: wanted } }, fields);
      const before = workDone();
      expect(filter({ to: list })).toBe(false);
      return workDone() - before;
    };
    const many = Array.from({ length: 30_000 }, (_, i) => `wanted${i}@example.com`);
    // hasSome: one lookup an entry, however many are wanted; hasEvery with more wanted values than entries: none.
    expect(workOf(many, 'hasSome')).toBe(workOf(many.slice(0, 3), 'hasSome'));
    expect(workOf(many, 'hasSome')).toBe(LOOKUP_WORK * list.length);
    expect(workOf(many, 'hasEvery')).toBe(list.length);
    // A contains over a long value counts its characters.
    const contains = compileFilters({ subject: { contains: 'needle' } }, [{ key: 'subject', kind: 'string' }]);
    const before = workDone();
    expect(contains({ subject: 'x'.repeat(100_000) })).toBe(false);
    expect(workDone() - before).toBeGreaterThanOrEqual(100_000);
  });
});
