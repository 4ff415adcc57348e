import { describe, expect, it } from 'vitest';
import { BoundedPages, CachedPage, PageCache } from './page-cache.js';

const page = (bytes: number) => new CachedPage(new Uint8Array(bytes).fill(0x61));
/** What an entry of `bytes` and a one-character key counts (its answer, its key, its bookkeeping). */
const cost = (bytes: number) => bytes + 2 + 200;

describe('kept answers, bounded by bytes (issue 47)', () => {
  it('keeps a connection’s answers within its limit, the oldest going first', () => {
    const kept = new BoundedPages({ perConnection: cost(1000) * 3, total: 1_000_000 });
    const owner = {};
    const holder = {};
    for (const key of ['a', 'b', 'c', 'd']) kept.keep(holder, 1, key, page(1000), owner);
    expect(['a', 'b', 'c', 'd'].map((key) => kept.peek(holder, 1, key) !== undefined)).toEqual([false, true, true, true]);
    expect(kept.size(owner)).toBe(cost(1000) * 3);
    // Another connection's answers do not count against it.
    kept.keep({}, 1, 'a', page(1000), {});
    expect(kept.size(owner)).toBe(cost(1000) * 3);
    expect(kept.size()).toBe(cost(1000) * 4);
  });

  it('keeps the server’s answers within the total, the oldest of any connection going first', () => {
    const kept = new BoundedPages({ perConnection: 1_000_000, total: cost(1000) * 3 });
    const holders = [{}, {}, {}, {}];
    for (const [i, holder] of holders.entries()) kept.keep(holder, 1, 'k', page(1000), { i });
    expect(holders.map((holder) => kept.peek(holder, 1, 'k') !== undefined)).toEqual([false, true, true, true]);
    expect(kept.size()).toBe(cost(1000) * 3);
  });

  it('answers only at the version kept, drops a holder’s older answers when a newer one is kept, and keeps nothing over the limit alone', () => {
    const kept = new BoundedPages({ perConnection: 5000, total: 10_000 });
    const owner = {};
    const holder = {};
    kept.keep(holder, 1, 'a', page(100), owner);
    kept.keep(holder, 1, 'b', page(100), owner);
    expect(kept.peek(holder, 2, 'a')).toBeUndefined();
    kept.keep(holder, 2, 'a', page(100), owner);
    expect(kept.peek(holder, 1, 'b')).toBeUndefined();
    expect(kept.size(owner)).toBe(cost(100));
    kept.keep(holder, 2, 'big', page(6000), owner);
    expect(kept.peek(holder, 2, 'big')).toBeUndefined();
    expect(kept.size(owner)).toBe(cost(100));
    // The same key again replaces its answer, counted once.
    kept.keep(holder, 2, 'a', page(300), owner);
    expect(kept.size(owner)).toBe(cost(300));
  });

  it('PageCache renders once per version and keeps the bytes only, its text decoded when read', () => {
    const cache = new PageCache({ perConnection: 1_000_000, total: 1_000_000 });
    const collection = { version: 1 };
    let renders = 0;
    const render = () => {
      renders++;
      return JSON.stringify({ ok: 'é' });
    };
    const first = cache.get(collection, 'p', render);
    expect(cache.get(collection, 'p', render)).toBe(first);
    expect(renders).toBe(1);
    expect(first.json).toBe('{"ok":"é"}');
    expect(Object.keys(first)).toEqual(['encoded']);
    collection.version = 2;
    expect(cache.get(collection, 'p', render)).not.toBe(first);
    expect(renders).toBe(2);
  });
});
