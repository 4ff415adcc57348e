import type { Pieces } from '../shared/pieces.js';
import { WORK_PIECE, workDone } from '../shared/work.js';

/**
 * A simulated system's walk over a whole collection (a search, a filtered query), in pieces: a route that walks
 * answers a generator (`DownstreamAnswer`), which stops after each piece, and the passthrough runs it with turns of
 * the event loop between on a real clock, at once on a virtual one (docs/decisions/0042). The pieces change nothing
 * the walk finds, only when other requests get their turn.
 */

/**
 * Records a walk looks at between two stops at most: 0.1–1 ms of rendering and testing them (1–10 µs a record, by
 * system). A piece also stops once its tests have done {@link WORK_PIECE} units of work (src/shared/work.ts: the
 * matchers count the characters they compare), so that a walk whose every record is a long text matched against a
 * long pattern stops after a few records, not a hundred.
 */
export const WALK_PIECE = 100;

/** The records and the work of the piece under way: `over()` after each record says whether to stop there. */
class Piece {
  private count = 0;
  private since = workDone();
  over(): boolean {
    if (++this.count < WALK_PIECE && workDone() - this.since < WORK_PIECE) return false;
    this.count = 0;
    this.since = workDone();
    return true;
  }
}

/**
 * What `pick` makes of each item, in order, bar those it makes nothing of (undefined): stops after every
 * {@link WALK_PIECE} items.
 *
 * @example return mapPieces(collectInPieces(collection.entries(), (entry) => (passes(entry) ? entry : undefined)), (found) => reply(200, found, HEADERS));
 */
export function* collectInPieces<T, U>(items: readonly T[], pick: (item: T) => U | undefined): Pieces<U[]> {
  const found: U[] = [];
  const piece = new Piece();
  for (let i = 0; i < items.length; i++) {
    const made = pick(items[i]!);
    if (made !== undefined) found.push(made);
    if (piece.over()) yield;
  }
  return found;
}

/**
 * The first item `test` accepts, or undefined: stops after every {@link WALK_PIECE} items it looked at, and looks no
 * further than the one it finds.
 */
export function* findInPieces<T>(items: readonly T[], test: (item: T) => boolean): Pieces<T | undefined> {
  const piece = new Piece();
  for (let i = 0; i < items.length; i++) {
    if (test(items[i]!)) return items[i];
    if (piece.over()) yield;
  }
  return undefined;
}

/** Items sorted in one piece: shorter lists are sorted at once; a longer one in runs of this many, then merged. */
const SORT_RUN = 1_000;

/**
 * The items in the order `compare` gives, ties in their order (the one answer a stable sort has): sorted as
 * `Array.prototype.sort` sorts them, but a long list in pieces, in runs sorted at once then merged a piece at a time.
 *
 * @example const rows = yield* sortInPieces(found, (a, b) => a.score - b.score);
 */
export function* sortInPieces<T>(items: T[], compare: (a: T, b: T) => number): Pieces<T[]> {
  if (items.length <= SORT_RUN) return items.sort(compare);
  let runs: T[][] = [];
  for (let start = 0; start < items.length; start += SORT_RUN) {
    runs.push(items.slice(start, start + SORT_RUN).sort(compare));
    yield;
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let i = 0; i < runs.length; i += 2) merged.push(i + 1 < runs.length ? yield* mergeInPieces(runs[i]!, runs[i + 1]!, compare) : runs[i]!);
    runs = merged;
  }
  return runs[0]!;
}

/** Two sorted runs as one, the earlier run's item first on a tie (so the sort stays stable). */
function* mergeInPieces<T>(earlier: T[], later: T[], compare: (a: T, b: T) => number): Pieces<T[]> {
  const out: T[] = [];
  const piece = new Piece();
  let i = 0;
  let j = 0;
  while (i < earlier.length && j < later.length) {
    out.push(compare(later[j]!, earlier[i]!) < 0 ? later[j++]! : earlier[i++]!);
    if (piece.over()) yield;
  }
  for (; i < earlier.length; i++) out.push(earlier[i]!);
  for (; j < later.length; j++) out.push(later[j]!);
  return out;
}
