import { utf8Bytes } from '../shared/text-codec.js';

/** A serialised page: its JSON text and the same text encoded once as UTF-8 for the wire. */
export interface CachedPage {
  json: string;
  encoded: Uint8Array;
}

/**
 * Serialised pages, kept until the collection they show changes. Reading a page is most of a
 * dev server's traffic; its JSON is built and encoded once per version of the data, not once
 * per request.
 */
export class PageCache {
  private readonly byCollection = new WeakMap<object, { version: number; pages: Map<string, CachedPage> }>();
  private readonly maxPagesPerCollection: number;

  constructor(maxPagesPerCollection = 256) {
    this.maxPagesPerCollection = maxPagesPerCollection;
  }

  /** The cached page for `key` at this version of `collection`, if there is one (nothing is built). */
  peek(collection: { version: number }, key: string): CachedPage | undefined {
    const cached = this.byCollection.get(collection);
    return cached?.version === collection.version ? cached.pages.get(key) : undefined;
  }

  /** The cached page for `key` at this version of `collection`, or the one `render` builds. */
  get(collection: { version: number }, key: string, render: () => string): CachedPage {
    let cached = this.byCollection.get(collection);
    if (!cached || cached.version !== collection.version) {
      cached = { version: collection.version, pages: new Map() };
      this.byCollection.set(collection, cached);
    }
    let page = cached.pages.get(key);
    if (page === undefined) {
      if (cached.pages.size >= this.maxPagesPerCollection) cached.pages.clear();
      const json = render();
      page = { json, encoded: utf8Bytes(json) };
      cached.pages.set(key, page);
    }
    return page;
  }
}
