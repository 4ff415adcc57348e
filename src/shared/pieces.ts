/**
 * Work done in pieces: a generator that stops (`yield`) after each piece, run to its end at once
 * ({@link runToEnd}) by a caller that cannot wait, or with turns of the event loop between pieces
 * ({@link runInTurns}) by one that can. The pieces are the same either way, in the same order:
 * only when other work gets its turn changes.
 */

/**
 * Gives the event loop back once the caller has held it for `sliceMs` of real time, so that a long
 * piece of work in a server process lets other requests (and Ctrl+C) through within milliseconds.
 * Where it yields changes nothing the work does; only when other work gets its turn.
 *
 * @example const breather = new Breather(); for (const item of many) { await breather.breathe(); work(item); }
 */
export class Breather {
  private since = performance.now();
  constructor(private readonly sliceMs = BREATH_SLICE_MS) {}

  /** Resolves at once while the slice lasts; after it, on the next turn of the event loop. */
  async breathe(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await nextTurn();
    this.since = performance.now();
  }
}

/**
 * How long a piece of work holds the event loop at most between two turns (with the usual pauses of the collector on
 * top). In Node 1 ms, not 5: others' p99 during a 10,000-create run fell by a third, and the run went no slower
 * (decision 0038). Still 5 ms where a turn is a timer (a browser), which waits at least 4 ms once nested.
 */
export const BREATH_SLICE_MS = typeof setImmediate === 'function' ? 1 : 5;

/**
 * Runs `task` on the next turn of the event loop, after the I/O already waiting (Node's setImmediate; a timer of 0
 * where there is none, as in a browser); its cancel. With `unref`, it does not hold a Node process open.
 *
 * @example const cancel = onNextTurn(() => move(connection), { unref: true });
 */
export function onNextTurn(task: () => void, { unref = false } = {}): () => void {
  if (typeof setImmediate === 'function') {
    const handle = setImmediate(task);
    if (unref) handle.unref();
    return () => clearImmediate(handle);
  }
  const handle = setTimeout(task, 0);
  if (unref) handle.unref?.();
  return () => clearTimeout(handle);
}

/** The next turn of the event loop, as a promise (held: a run waiting for it keeps its process up). */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => onNextTurn(resolve));
}

/**
 * Runs work given in pieces to its end, giving the event loop a turn whenever it has held it for
 * `sliceMs` (no turn, and no promise between pieces, before that); its result.
 *
 * @example const deliveries = await runInTurns(log.listInPieces(connectionId));
 */
export async function runInTurns<T>(pieces: Iterator<void, T, void>, sliceMs = BREATH_SLICE_MS): Promise<T> {
  for (;;) {
    const step = runSlice(pieces, sliceMs);
    if (step.done) return step.value;
    await nextTurn();
  }
}

/** Runs pieces until the work ends or has held the event loop for `sliceMs`; the last step (done: the result). */
function runSlice<T>(pieces: Iterator<void, T, void>, sliceMs: number): IteratorResult<void, T> {
  const since = performance.now();
  for (;;) {
    const step = pieces.next();
    if (step.done || performance.now() - since >= sliceMs) return step;
  }
}

/**
 * Runs work given in pieces to its end, at once; its result.
 *
 * @example const data = runToEnd(seedInPieces(ctx));
 */
export function runToEnd<T>(pieces: Iterator<void, T, void>): T {
  for (;;) {
    const step = pieces.next();
    if (step.done) return step.value;
  }
}

/** Work given in pieces: a generator that stops (`yield`) after each piece and returns its result. */
export type Pieces<T> = Generator<void, T, void>;

/** Whether a value that is either a result or the work that makes it in pieces is the work. */
export const isPieces = <T>(value: T | Pieces<T>): value is Pieces<T> => typeof (value as Partial<Pieces<T>> | undefined)?.next === 'function';

/** The work, with `map` applied to its result once it ends. */
export function* mapPieces<T, U>(pieces: Pieces<T>, map: (result: T) => U): Pieces<U> {
  return map(yield* pieces);
}

/**
 * Runs work given in pieces to its end, as of one moment: at once (no promise) when it ends within its first slice;
 * else with a turn of the event loop whenever it has held it for `sliceMs`, and, when a turn changed what it reads
 * (`changed()`, asked after each turn), left unfinished and made `again()` over what there is now (at once, or in
 * pieces of its own: `again` may answer a promise).
 *
 * @example const answer = runOfOneMoment(search(), () => data.changeMark() !== before, () => runToEnd(search()));
 */
export function runOfOneMoment<T>(pieces: Pieces<T>, changed: () => boolean, again: () => T | Promise<T>, sliceMs = BREATH_SLICE_MS): T | Promise<T> {
  const step = runSlice(pieces, sliceMs);
  return step.done ? step.value : goOnInTurns(pieces, changed, again, sliceMs);
}

/**
 * Runs work given in pieces to its end: at once (no promise) when it ends within its first slice, else with a turn of
 * the event loop whenever it has held it for `sliceMs` (work that reads nothing another request may change: a search's
 * filters compiled).
 *
 * @example const filter = await runFromNow(compileFiltersInPieces(body.filters, object.filters));
 */
export function runFromNow<T>(pieces: Pieces<T>, sliceMs = BREATH_SLICE_MS): T | Promise<T> {
  const step = runSlice(pieces, sliceMs);
  return step.done ? step.value : nextTurn().then(() => runInTurns(pieces, sliceMs));
}

async function goOnInTurns<T>(pieces: Pieces<T>, changed: () => boolean, again: () => T | Promise<T>, sliceMs: number): Promise<T> {
  for (;;) {
    await nextTurn();
    if (changed()) return again();
    const step = runSlice(pieces, sliceMs);
    if (step.done) return step.value;
  }
}
