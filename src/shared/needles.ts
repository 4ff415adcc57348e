/**
 * Which of many needles occur in a text, found in one pass over it (Aho–Corasick). Testing a text
 * against every needle with `includes` takes needles × text; this takes the text plus the needles
 * found, however many there are: a request may carry a hundred thousand of them, and each record
 * of a search is tested.
 */
export class NeedleSet {
  /** `node * 0x10000 + code unit` → the child node: the trie of the needles, node 0 its root. */
  private readonly child = new Map<number, number>();
  /** The node of the longest proper suffix of a node's path that is also a path. */
  private readonly fail: number[] = [0];
  /** The nearest node, on a node's fail chain and itself included, where a needle ends; 0 for none. */
  private readonly found: number[] = [0];
  /** How many different needles there are. */
  readonly size: number;
  /** The empty needle occurs in every text. */
  private readonly hasEmpty: boolean;

  constructor(needles: Iterable<string>) {
    const distinct = new Set(needles);
    this.size = distinct.size;
    this.hasEmpty = distinct.has('');
    const parent = [0];
    const unit = [0];
    const depth = [0];
    const ends = [false];
    for (const needle of distinct) {
      let node = 0;
      for (let i = 0; i < needle.length; i++) {
        const key = node * 0x10000 + needle.charCodeAt(i);
        let next = this.child.get(key);
        if (next === undefined) {
          next = parent.length;
          this.child.set(key, next);
          parent.push(node);
          unit.push(needle.charCodeAt(i));
          depth.push(depth[node]! + 1);
          ends.push(false);
        }
        node = next;
      }
      ends[node] = needle !== '';
    }
    // Shallow nodes first: a node's fail link comes from its parent's.
    const order = [...parent.keys()].sort((a, b) => depth[a]! - depth[b]!);
    for (const node of order) {
      if (node === 0) continue;
      this.fail[node] = parent[node] === 0 ? 0 : this.step(this.fail[parent[node]!]!, unit[node]!);
      this.found[node] = ends[node] ? node : this.found[this.fail[node]!]!;
    }
  }

  /** How many different needles occur in `text`, counting stopped once `enough` are found. */
  countIn(text: string, enough = this.size): number {
    let count = this.hasEmpty ? 1 : 0;
    if (count >= enough) return count;
    const seen = new Set<number>();
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      node = this.step(node, text.charCodeAt(i));
      // The needles ending here: a chain of nodes; one seen before means the rest of its chain was too.
      for (let hit = this.found[node]!; hit !== 0 && !seen.has(hit); hit = this.found[this.fail[hit]!]!) {
        seen.add(hit);
        if (++count >= enough) return count;
      }
    }
    return count;
  }

  /** Whether every needle occurs in `text`. */
  allIn(text: string): boolean {
    return this.countIn(text) === this.size;
  }

  /** Whether some needle occurs in `text`. */
  someIn(text: string): boolean {
    return this.countIn(text, 1) > 0;
  }

  private step(node: number, code: number): number {
    for (;;) {
      const next = this.child.get(node * 0x10000 + code);
      if (next !== undefined) return next;
      if (node === 0) return 0;
      node = this.fail[node]!;
    }
  }
}
