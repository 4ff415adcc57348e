/**
 * A count of the work a walk's tests have done, so that a walk is cut into pieces by what it costs, not by how many
 * records it passed: one record of a search may cost a comparison or a million (a `contains` over a 1 MiB note, a
 * list of 50,000 addresses), and a piece of a fixed count of records held the event loop from 1 ms to a second.
 *
 * A unit is about one character compared or one list entry looked at (a nanosecond or two). The tests that may be
 * long add what they did ({@link chargeWork}); a walk reads the count before and after (`workDone()`), and ends
 * its piece once {@link WORK_PIECE} units are done. Synchronous code only: nothing else runs between the two reads.
 *
 * @example const start = workDone(); while (workDone() - start < WORK_PIECE && i < all.length) test(all[i++]);
 */
let done = 0;

/** Adds the work a test just did (characters compared, entries looked at). */
export function chargeWork(units: number): void {
  done += units;
}

/** The work done so far, for a walk to measure a piece by. */
export const workDone = (): number => done;

/**
 * Units of work in a piece of a walk: 25–50 µs on this machine's cores where a unit takes the 1–2 ns a KMP scan takes,
 * and still a few milliseconds where one takes a hundred times that. Pieces this small cost next to nothing: a slice
 * (1 ms, decision 0038) runs as many as fit before it gives a turn.
 */
export const WORK_PIECE = 25_000;

/**
 * What looking a string up in a set costs: a warm lookup takes 35–70 ns, but the first one of a string whose hash V8
 * has not worked out yet 0.5–1 µs (measured: 600,000 strings of a record's lists, each looked up once, in a set of
 * 40,000, 0.3–0.6 s of CPU the first time, 20–40 ms after). Counted at the first's cost, so a piece stays short
 * when every string is new, as in the first search over records a client just wrote.
 */
export const LOOKUP_WORK = 400;

/** What looking at one record costs a walk besides its tests (its view, the loop, the call): units. */
export const RECORD_WORK = 50;
