/**
 * Serialised pages, kept until the collection they show changes. Reading a page is most of a
 * dev server's traffic; its JSON is built once per version of the data, not once per request.
 */
export class PageCache {
  private readonly byCollection = new WeakMap<object, { version: number; pages: Map<string, string> }>();
  private readonly maxPagesPerCollection: number;

  constructor(maxPagesPerCollection = 256) {
    this.maxPagesPerCollection = maxPagesPerCollection;
  }

  /** The cached JSON for `key` at this version of `collection`, or what `render` builds. */
  get(collection: { version: number }, key: string, render: () => string): string {
    let cached = this.byCollection.get(collection);
    if (!cached || cached.version !== collection.version) {
      cached = { version: collection.version, pages: new Map() };
      this.byCollection.set(collection, cached);
    }
    let json = cached.pages.get(key);
    if (json === undefined) {
      if (cached.pages.size >= this.maxPagesPerCollection) cached.pages.clear();
      json = render();
      cached.pages.set(key, json);
    }
    return json;
  }
}
