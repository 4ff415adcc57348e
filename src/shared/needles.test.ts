import { describe, expect, it } from 'vitest';
import { NeedleSet, needleFinder } from './needles.js';
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

  it('finds what includes finds with many needles over a wide alphabet: code-unit order, surrogates, shared prefixes', () => {
    const random = new Random(11);
    const alphabet = 'ab\u0000\uffff\ud83d\ude00é';
    const differ: unknown[] = [];
    for (let round = 0; round < 500; round++) {
      const needles = Array.from({ length: random.uint32() % 40 }, () => random.chars(1 + (random.uint32() % 6), alphabet));
      const text = random.chars(random.uint32() % 200, alphabet);
      const set = new NeedleSet(needles);
      const expected = [...new Set(needles)].filter((needle) => text.includes(needle)).length;
      if (set.countIn(text) !== expected) differ.push({ needles, text, expected });
    }
    expect(differ).toEqual([]);
  });

  it('takes one needle of 800,000 characters, and one that V8 searches in text × needle', () => {
    const text = 'a'.repeat(800_000);
    expect(new NeedleSet([`${'a'.repeat(800_000)}b`]).someIn(text)).toBe(false);
    expect(new NeedleSet(['a'.repeat(800_000)]).allIn(text)).toBe(true);
    expect(new NeedleSet([`${'a'.repeat(200_000)}b${'a'.repeat(200_000)}`]).someIn(text)).toBe(false);
    expect(new NeedleSet([`${'a'.repeat(200_000)}b${'a'.repeat(200_000)}`]).someIn(`${text}b${text}`)).toBe(true);
  });
});

describe('needleFinder', () => {
  it('finds what indexOf finds, from any place, short needles and long ones', () => {
    const random = new Random(13);
    const differ: unknown[] = [];
    for (let round = 0; round < 3000; round++) {
      // Long needles over two letters: the KMP path, with borders of every length; short ones: indexOf.
      const length = round % 2 === 0 ? 65 + (random.uint32() % 60) : random.uint32() % 8;
      const needle = random.chars(length, 'ab');
      const text = `${random.chars(random.uint32() % 200, 'ab')}${round % 3 === 0 ? needle : ''}${random.chars(random.uint32() % 50, 'ab')}`;
      const from = (random.uint32() % (text.length + 3)) - 1;
      const got = needleFinder(needle)(text, from);
      if (got !== text.indexOf(needle, from)) differ.push({ needle, text, from, got });
    }
    expect(differ).toEqual([]);
  });

  it('finds a long needle in one pass where indexOf would take text × needle', () => {
    const needle = `${'a'.repeat(200_000)}b${'a'.repeat(200_000)}`;
    const text = 'a'.repeat(800_000);
    expect(needleFinder(needle)(text)).toBe(-1);
    expect(needleFinder(needle)(`${text}b${text}`)).toBe(600_000);
    expect(needleFinder(needle)(`${text}b${text}`, 600_001)).toBe(-1);
  });
});
