import { describe, expect, it } from 'vitest';
import { lazyRecord } from './lazy-record.js';

describe('lazyRecord', () => {
  it('builds each value on its first read, once, and keeps the keys in order', () => {
    const built: string[] = [];
    const build = (name: string) => () => {
      built.push(name);
      return { name };
    };
    const record = lazyRecord({ b: build('b'), a: build('a') });
    expect(Object.keys(record)).toEqual(['b', 'a']);
    expect(built).toEqual([]);
    const first = record.a;
    expect(record.a).toBe(first);
    expect(built).toEqual(['a']);
    expect(Object.entries(record)).toEqual([
      ['b', { name: 'b' }],
      ['a', { name: 'a' }],
    ]);
    expect(built).toEqual(['a', 'b']);
    expect({ ...record }).toEqual({ b: { name: 'b' }, a: { name: 'a' } });
  });

  it('cannot be written to', () => {
    const record = lazyRecord({ a: () => 1 }) as { a: number };
    expect(record.a).toBe(1);
    expect(() => {
      record.a = 2;
    }).toThrow(TypeError);
  });
});
