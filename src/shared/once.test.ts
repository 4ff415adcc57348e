import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { once } from './once.js';

describe('once', () => {
  it('builds on the first call, not before, and answers the same object after', () => {
    let built = 0;
    const schema = once(() => {
      built += 1;
      return z.object({ name: z.string() });
    });
    expect(built).toBe(0);
    const first = schema();
    expect(schema()).toBe(first);
    expect(built).toBe(1);
    expect(first.parse({ name: 'a' })).toEqual({ name: 'a' });
  });

  it('builds again after a build that threw', () => {
    let calls = 0;
    const value = once(() => {
      calls += 1;
      if (calls === 1) throw new Error('first');
      return { calls };
    });
    expect(value).toThrow('first');
    expect(value()).toEqual({ calls: 2 });
    expect(value()).toBe(value());
  });
});
