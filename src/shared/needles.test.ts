import { describe, expect, it } from 'vitest';
import { NeedleSet } from './needles.js';
import { Random } from './random.js';

/** The needle set against `includes`, needle by needle, and on as many needles as a request can carry. */

describe('NeedleSet', () => {
  it('finds what includes finds: every needle, some needle, how many', () => {
    const random = new Random(7);
    const differ: unknown[] = [];
    let allFound = 0;
    for (let round = 0; round < 3000; round++) {
      // A small alphabet, so that needles overlap, nest and repeat.
      const needles = Array.from({ length: random.uint32() % 6 }, () => random.chars(random.uint32() % 4, 'abcé'));
      const text = random.chars(random.uint32() % 16, 'abcé');
      const set = new NeedleSet(needles);
      const distinct = [...new Set(needles)];
      const expected = {
        count: distinct.filter((needle) => text.includes(needle)).length,
        all: needles.every((needle) => text.includes(needle)),
        some: needles.some((needle) => text.includes(needle)),
      };
      const got = { count: set.countIn(text), all: set.allIn(text), some: set.someIn(text) };
      if (JSON.stringify(got) !== JSON.stringify(expected)) differ.push({ needles, text, got, expected });
      if (expected.all && needles.length > 1) allFound++;
    }
    expect(differ).toEqual([]);
    expect(allFound).toBeGreaterThan(100);
  });

  it('counts each needle once, the empty needle everywhere, and stops at enough', () => {
    const set = new NeedleSet(['he', 'she', 'his', 'hers', 'he', '']);
    expect(set.size).toBe(5);
    expect(set.countIn('ushers')).toBe(4);
    expect(set.countIn('')).toBe(1);
    expect(set.countIn('ushers', 2)).toBe(2);
    expect(new NeedleSet([]).allIn('x')).toBe(true);
    expect(new NeedleSet([]).someIn('x')).toBe(false);
  });

  it('takes a hundred thousand needles and a long text', () => {
    const needles = Array.from({ length: 100_000 }, (_, i) => `w${i.toString(36)}`);
    const set = new NeedleSet(needles);
    const text = 'x'.repeat(200_000);
    expect(set.someIn(text)).toBe(false);
    expect(set.someIn(`${text}w2bi`)).toBe(true);
    expect(set.allIn(needles.join(' '))).toBe(true);
    expect(new NeedleSet(Array.from({ length: 50_000 }, (_, i) => 'a'.repeat((i % 200) + 1))).allIn('a'.repeat(200))).toBe(true);
  });
});
