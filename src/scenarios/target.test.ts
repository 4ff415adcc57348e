import { describe, expect, it } from 'vitest';
import { Breather } from './target.js';

describe('Breather', () => {
  it('gives the event loop a turn once its slice is used up, and none before', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    await new Breather(60_000).breathe();
    order.push('within the slice');
    await new Breather(0).breathe();
    order.push('after a turn');
    expect(order).toEqual(['within the slice', 'other work', 'after a turn']);
  });
});
