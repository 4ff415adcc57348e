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
});
