import { describe, expect, it } from 'vitest';
import { merged } from './merged.js';

describe('merged', () => {
  it('is what a spread of both gives: same keys, same order, later values win', () => {
    const base = { 'content-type': 'application/json', 'x-a': '1' };
    const extra = { 'x-a': '2', 'content-length': 12 };
    const out = merged(base, extra);
    expect(out).toEqual({ ...base, ...extra });
    expect(Object.keys(out)).toEqual(Object.keys({ ...base, ...extra }));
    expect(JSON.stringify(out)).toBe(JSON.stringify({ ...base, ...extra }));
  });

  it('copies: neither input changes, and the result is a new object', () => {
    const base = { a: 1 };
    const extra = { b: 2 };
    const out = merged(base, extra);
    expect(out).not.toBe(base);
    expect(base).toEqual({ a: 1 });
    expect(extra).toEqual({ b: 2 });
  });

  it('skips inherited properties, as a spread does', () => {
    const base = Object.create({ inherited: true }) as Record<string, unknown>;
    base.own = 1;
    expect(merged(base, {})).toEqual({ own: 1 });
  });
});
