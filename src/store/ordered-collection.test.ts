import { describe, expect, it } from 'vitest';
import { OrderedCollection } from './ordered-collection.js';

const item = (id: string, nativeId?: string) => ({ id, ...(nativeId ? { nativeId } : {}) });

describe('OrderedCollection', () => {
  it('pages in insertion order after a sequence, telling where the next page starts', () => {
    const collection = new OrderedCollection<{ id: string }>();
    for (let i = 0; i < 10; i++) collection.insert(item(`r${i}`));
    const first = collection.pageAfter(0, 4);
    expect(first.entries.map((e) => e.record.id)).toEqual(['r0', 'r1', 'r2', 'r3']);
    const second = collection.pageAfter(first.lastSeq!, 4);
    expect(second.entries.map((e) => e.record.id)).toEqual(['r4', 'r5', 'r6', 'r7']);
    const last = collection.pageAfter(second.lastSeq!, 4);
    expect(last.entries.map((e) => e.record.id)).toEqual(['r8', 'r9']);
    expect(last.lastSeq).toBeUndefined();
  });

  it('keeps a walk exact while records are deleted and added', () => {
    const collection = new OrderedCollection<{ id: string }>();
    for (let i = 0; i < 6; i++) collection.insert(item(`r${i}`));
    const first = collection.pageAfter(0, 3);
    collection.delete('r1'); // already seen
    collection.delete('r4'); // not yet seen: must not appear
    collection.insert(item('new'));
    const rest = collection.pageAfter(first.lastSeq!, 10);
    expect(rest.entries.map((e) => e.record.id)).toEqual(['r3', 'r5', 'new']);
  });

  it('indexes native ids and follows a replaced record', () => {
    const collection = new OrderedCollection<{ id: string; nativeId?: string }>((r) => r.nativeId);
    collection.insert(item('a', 'n1'));
    expect(collection.getByNativeId('n1')?.record.id).toBe('a');
    collection.replace(item('a', 'n2'));
    expect(collection.getByNativeId('n1')).toBeUndefined();
    expect(collection.getByNativeId('n2')?.record.id).toBe('a');
    collection.delete('a');
    expect(collection.getByNativeId('n2')).toBeUndefined();
  });

  it('changes version on every write, so caches built on it expire', () => {
    const collection = new OrderedCollection<{ id: string }>();
    const versions = [collection.version];
    collection.insert(item('a'));
    versions.push(collection.version);
    collection.replace(item('a'));
    versions.push(collection.version);
    collection.delete('a');
    versions.push(collection.version);
    expect(new Set(versions).size).toBe(4);
  });

  it('refuses a duplicate id', () => {
    const collection = new OrderedCollection<{ id: string }>();
    collection.insert(item('a'));
    expect(() => collection.insert(item('a'))).toThrow(/duplicate/);
  });

  describe('delta over a seeded base', () => {
    type Item = { id: string; name?: string };
    /** A collection "seeded" with s1…s5, as a seed would rebuild it. */
    const seeded = () => {
      const collection = new OrderedCollection<Item>();
      for (let i = 1; i <= 5; i++) collection.insert({ id: `s${i}` }, { custom: i });
      collection.markBase();
      return collection;
    };
    const contents = (collection: OrderedCollection<Item>) => ({
      entries: collection.entries().map(({ seq, record, extra }) => ({ seq, record, extra })),
      page: collection.pageAfter(2, 3),
    });

    it('holds only what changed since the seed, and fills a collection exactly as it was over a rebuilt base', () => {
      const original = seeded();
      expect(original.delta()).toEqual({ nextSeq: 6, base: 5, digest: original.baseDigest(), deleted: [], entries: [] });
      original.replace({ id: 's2', name: 'changed' });
      original.delete('s4');
      original.insert({ id: 'n1' });
      original.insert({ id: 'n2' });
      original.delete('n1');
      const delta = original.delta();
      expect(delta).toMatchObject({
        nextSeq: 8,
        base: 5,
        deleted: [4],
        entries: [
          { seq: 2, record: { id: 's2', name: 'changed' } },
          { seq: 7, record: { id: 'n2' } },
        ],
      });

      const restored = new OrderedCollection<Item>();
      restored.loadDelta(seeded(), JSON.parse(JSON.stringify(delta)), 'c');
      expect(contents(restored)).toEqual(contents(original));
      expect(restored.delta()).toEqual(delta);
      restored.insert({ id: 'n3' });
      original.insert({ id: 'n3' });
      expect(contents(restored)).toEqual(contents(original));
    });

    it('refuses a delta that does not fit the rebuilt base, naming the field', () => {
      const original = seeded();
      original.insert({ id: 'n1' });
      const delta = original.delta();
      const load =
        (change: Partial<typeof delta>, base = seeded()) =>
        () =>
          new OrderedCollection<Item>().loadDelta(base, { ...delta, ...change }, 'c');
      expect(load({ base: 4 })).toThrow('c.base is 4, but this sandbox seeds 5 entries there');
      expect(load({ digest: '00000000' })).toThrow(/^c\.digest is 00000000, but the seeded entries this sandbox rebuilds there give/);
      expect(load({ entries: [{ seq: 6, record: { id: 's3' }, extra: {} }] })).toThrow('c.entries[0].record.id repeats the id of a seeded entry: s3');
      expect(load({ nextSeq: 3, entries: [] })).toThrow("c.nextSeq must be above every entry's seq, and seeded entry 5 is neither deleted nor replaced");
      const other = new OrderedCollection<Item>();
      for (let i = 1; i <= 5; i++) other.insert({ id: `s${i}`, name: 'another generator' });
      other.markBase();
      expect(load({}, other)).toThrow(/^c\.digest/);
    });
  });
});
