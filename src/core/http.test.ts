import { describe, expect, it } from 'vitest';
import { isOverBytes } from './http.js';

describe('isOverBytes', () => {
  it('decides by length where it can, and counts UTF-8 bytes where it must', () => {
    expect(isOverBytes('a'.repeat(11), 10)).toBe(true); // longer than the limit in any encoding
    expect(isOverBytes('€'.repeat(3), 9)).toBe(false); // 3 units × 3 bytes: at most the limit
    expect(isOverBytes('€'.repeat(4), 10)).toBe(true); // 12 bytes, counted
    expect(isOverBytes('a'.repeat(4) + 'é'.repeat(3), 10)).toBe(false); // 4 + 6 = 10 bytes
    expect(isOverBytes('a'.repeat(5) + 'é'.repeat(3), 10)).toBe(true); // 11 bytes
    expect(isOverBytes('\uD83D\uDE80'.repeat(2) + 'ab', 10)).toBe(false); // two 4-byte emoji + 2
    expect(isOverBytes('\uD83D\uDE80'.repeat(2) + 'abc', 10)).toBe(true);
  });
});
