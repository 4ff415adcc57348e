import type { DownstreamContext } from '../downstream/types.js';
import type { NativeOrg } from '../model/integrations.js';
import { isPieces, mapPieces, runOfOneMoment, runToEnd } from '../shared/pieces.js';
import type { ConnectionData } from '../store/connection-data.js';
import { BoundedPages, CACHE_LIMITS, CachedPage, type CacheLimits } from './page-cache.js';

/** What answers a call: the system's answer to it, or the work that makes it in pieces. */
type Answerer = (context: DownstreamContext) => unknown;

/**
 * Passthrough answers, serialised, kept per connection until its data changes. A simulated
 * system answers from the connection's records, its org and the request, and from the clock:
 * a call that did not read the clock and left the data and the random streams as they were
 * (see `ConnectionData.changeMark`) gives the same bytes when it is made again on the same
 * data, so those bytes are kept. Anything else (a write, a failed write that drew an id, a
 * read that compares dates with "now") is answered afresh every time.
 */
/** How often a call answered in pieces starts again in pieces after a turn changed the data, before it is made at once. */
const ANSWER_RESTARTS = 2;

export class PassthroughCache {
  /** By data set, at its change mark; within {@link CACHE_LIMITS} bytes per connection and for the server. */
  private readonly kept: BoundedPages;

  constructor(limits: CacheLimits = CACHE_LIMITS) {
    this.kept = new BoundedPages(limits);
  }

  /**
   * The kept answer to `key` on this connection's data, or the one `answer` serialises now
   * (kept when the call could not have depended on anything but the data and the request).
   * `answer` gets the context to pass to the system; its `now` is read at most once. An answer
   * given in pieces (a long walk) runs with turns of the event loop between when `inTurns`, and is
   * made again when a turn changed the data, so that it is of one moment: in pieces twice, then at once.
   */
  get(data: ConnectionData, org: NativeOrg, key: string, now: () => number, answer: Answerer): CachedPage;
  get(
    data: ConnectionData,
    org: NativeOrg,
    key: string,
    now: () => number,
    answer: Answerer,
    inTurns: boolean,
    restarts?: number,
  ): CachedPage | Promise<CachedPage>;
  get(data: ConnectionData, org: NativeOrg, key: string, now: () => number, answer: Answerer, inTurns = false, restarts = 0): CachedPage | Promise<CachedPage> {
    const before = data.changeMark();
    const hit = this.kept.peek(data, before, key);
    if (hit) return hit;
    let readClock = false;
    let at: number | undefined;
    const context: DownstreamContext = {
      org,
      data,
      get now() {
        readClock = true;
        return (at ??= now());
      },
    };
    // The answer as bytes, kept when nothing but the data and the request could have made it.
    const serialised = (value: unknown): CachedPage => {
      const page = CachedPage.of(JSON.stringify(value));
      if (!readClock && data.changeMark() === before) this.kept.keep(data, before, key, page, data);
      return page;
    };
    const answered = answer(context);
    if (!isPieces(answered)) return serialised(answered);
    if (!inTurns) return serialised(runToEnd(answered));
    // Started again in pieces when a turn changed the data, at most twice; then at once (decision 0049).
    return runOfOneMoment(
      mapPieces(answered, serialised),
      () => data.changeMark() !== before,
      () => this.get(data, org, key, now, answer, restarts < ANSWER_RESTARTS, restarts + 1),
    );
  }

  /** Bytes kept in all, and for a connection (its data set). */
  size(data?: ConnectionData): number {
    return this.kept.size(data);
  }
}
