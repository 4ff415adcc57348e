import { describe, expect, it } from 'vitest';
import { hashJson } from './json-hash.js';

describe('hashJson', () => {
  it('hashes a value as its JSON: the same after a round trip through JSON text', () => {
    const value = { id: 'v.contact.1', n: 1.5, zero: -0, flags: [true, false, null], nested: { a: [1, 'x'] }, gone: undefined };
    expect(hashJson(JSON.parse(JSON.stringify(value)))).toBe(hashJson(value));
  });

  it('tells apart what JSON tells apart: values, kinds, boundaries and key order', () => {
    const distinct = [
      { a: 1 },
      { a: 2 },
      { a: '1' },
      { b: 1 },
      ['ab', 'c'],
      ['a', 'bc'],
      [1, [2]],
      [[1], 2],
      { a: 1, b: 2 },
      { b: 2, a: 1 },
      null,
      false,
      0,
      '',
    ];
    expect(new Set(distinct.map((value) => hashJson(value))).size).toBe(distinct.length);
  });
});
