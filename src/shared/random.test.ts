import { describe, expect, it } from 'vitest';
import { Random } from './random.js';

describe('Random', () => {
  it('repeats itself for the same seed and differs for another', () => {
    const a = new Random(7);
    const b = new Random(7);
    const c = new Random(8);
    const draw = (r: Random) => [r.hex(32), r.digits(8), r.uint32()];
    const first = draw(a);
    expect(draw(b)).toEqual(first);
    expect(draw(c)).not.toEqual(first);
  });

  it('forks independent streams: drawing from one does not shift another', () => {
    const root = new Random(3);
    const before = root.fork('events').hex(32);
    root.fork('tokens').hex(64);
    root.uint32();
    expect(root.fork('events').hex(32)).toBe(before);
    expect(root.fork('tokens').hex(32)).not.toBe(before);
  });

  it('gives well-formed values', () => {
    const r = new Random(1);
    for (let i = 0; i < 200; i++) {
      expect(r.hex(32)).toMatch(/^[0-9a-f]{32}$/);
      expect(r.digits(6)).toMatch(/^[1-9]\d{5}$/);
      expect(r.chars(5, 'ab')).toMatch(/^[ab]{5}$/);
    }
  });
});
