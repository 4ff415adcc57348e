import { chargeWork } from './work.js';

/**
 * Looking for needles from a request in texts, in time linear in both. Not with `includes` or
 * `indexOf`: V8's string search takes text × needle on a needle such as 'a'.repeat(k) + 'b' +
 * 'a'.repeat(k) over a run of 'a's (40 s with k = 200,000 over 800,000 'a's), and a request may
 * carry a needle of a million characters, or a hundred thousand needles, each tested on every
 * record of a search.
 */

/** Needles this short go to V8's `indexOf`: it compares at most this many units a place, a small constant. */
const SHORT = 64;

/**
 * Finds one needle: `(text, from)` gives the first place at or after `from` where it occurs, or -1
 * (Knuth–Morris–Pratt: one pass over the text, never stepping back).
 */
export function needleFinder(needle: string): (text: string, from?: number) => number {
  // Each search counts the text it may read as work (src/shared/work.ts), so that a walk of many long texts stops often.
  if (needle.length <= SHORT) {
    return (text, from = 0) => {
      chargeWork(text.length - from);
      return text.indexOf(needle, from);
    };
  }
  // border[i]: the length of the longest proper prefix of needle[0..i] that is also its suffix.
  const border = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = border[k - 1]!;
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    border[i] = k;
  }
  return (text, from = 0) => {
    chargeWork(text.length - from);
    for (let i = Math.max(0, from), k = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      while (k > 0 && code !== needle.charCodeAt(k)) k = border[k - 1]!;
      if (code === needle.charCodeAt(k) && ++k === needle.length) return i - k + 1;
    }
    return -1;
  };
}

/**
 * Which of many needles occur in a text, found in one pass over it (Aho–Corasick): the text plus
 * the needles found, however many there are and however long.
 *
 * The trie is built breadth-first from the sorted needles, so a node's children get consecutive
 * numbers in code-unit order (found by binary search) and the fail links can be set in number
 * order; everything lives in typed arrays, a few bytes a character.
 */
export class NeedleSet {
  /** The code unit on the edge into each node; node 0 is the root. */
  private readonly unit: Uint16Array;
  /** A node's first child; its children are the nodes firstChild … firstChild + childCount - 1. */
  private readonly firstChild: Int32Array;
  private readonly childCount: Int32Array;
  /** The node of the longest proper suffix of a node's path that is also a path. */
  private readonly fail: Int32Array;
  /** The nearest node, on a node's fail chain and itself included, where a needle ends; 0 for none. */
  private readonly found: Int32Array;
  /** How many different needles there are. */
  readonly size: number;
  /** The empty needle occurs in every text. */
  private readonly hasEmpty: boolean;

  constructor(needles: Iterable<string>) {
    // Sorted by code unit: the needles below a node form a run, and its children's runs follow in order.
    const sorted = [...new Set(needles)].sort();
    this.size = sorted.length;
    this.hasEmpty = sorted[0] === '';
    let nodes = 1;
    for (const needle of sorted) nodes += needle.length;
    this.unit = new Uint16Array(nodes);
    this.firstChild = new Int32Array(nodes);
    this.childCount = new Int32Array(nodes);
    this.fail = new Int32Array(nodes);
    this.found = new Int32Array(nodes);
    // Per node while building: its run of needles [from, to) and its depth.
    const from = new Int32Array(nodes);
    const to = new Int32Array(nodes);
    const depth = new Int32Array(nodes);
    to[0] = sorted.length;
    let made = 1;
    // Nodes are numbered as they are made, breadth-first, so walking the numbers in order is the
    // breadth-first walk: every node of a smaller depth, and so every fail link a new node needs, is made.
    for (let node = 0; node < made; node++) {
      const d = depth[node]!;
      let i = from[node]!;
      // A needle that ends here sorts first in its run (a prefix sorts before what extends it).
      if (i < to[node]! && sorted[i]!.length === d) i++;
      this.firstChild[node] = made;
      while (i < to[node]!) {
        const code = sorted[i]!.charCodeAt(d);
        const child = made++;
        this.unit[child] = code;
        from[child] = i;
        depth[child] = d + 1;
        while (i < to[node]! && sorted[i]!.charCodeAt(d) === code) i++;
        to[child] = i;
        const fail = node === 0 ? 0 : this.step(this.fail[node]!, code);
        this.fail[child] = fail;
        this.found[child] = sorted[from[child]!]!.length === d + 1 ? child : this.found[fail]!;
      }
      this.childCount[node] = made - this.firstChild[node]!;
    }
  }

  /** How many different needles occur in `text`, counting stopped once `enough` are found. */
  countIn(text: string, enough = this.size): number {
    chargeWork(text.length);
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

  /** The child of `node` along `code`, or -1: a binary search among its children, in code order. */
  private child(node: number, code: number): number {
    let low = this.firstChild[node]!;
    let high = low + this.childCount[node]! - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const unit = this.unit[middle]!;
      if (unit === code) return middle;
      if (unit < code) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  private step(node: number, code: number): number {
    for (;;) {
      const next = this.child(node, code);
      if (next !== -1) return next;
      if (node === 0) return 0;
      node = this.fail[node]!;
    }
  }
}
