import type { DownstreamContext } from '../downstream/types.js';
import type { NativeOrg } from '../model/integrations.js';
import { isPieces, mapPieces, runOfOneMoment, runToEnd } from '../shared/pieces.js';
import { utf8Bytes } from '../shared/text-codec.js';
import type { ConnectionData } from '../store/connection-data.js';
import type { CachedPage } from './page-cache.js';

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
export class PassthroughCache {
  private readonly byData = new WeakMap<ConnectionData, { mark: string; answers: Map<string, CachedPage> }>();
  private readonly maxAnswersPerConnection: number;

  constructor(maxAnswersPerConnection = 128) {
    this.maxAnswersPerConnection = maxAnswersPerConnection;
  }

  /**
   * The kept answer to `key` on this connection's data, or the one `answer` serialises now
   * (kept when the call could not have depended on anything but the data and the request).
   * `answer` gets the context to pass to the system; its `now` is read at most once. An answer
   * given in pieces (a long walk) runs with turns of the event loop between when `inTurns`, and is
   * made again at once when a turn changed the data, so that it is of one moment.
   */
  get(data: ConnectionData, org: NativeOrg, key: string, now: () => number, answer: Answerer): CachedPage;
  get(data: ConnectionData, org: NativeOrg, key: string, now: () => number, answer: Answerer, inTurns: boolean): CachedPage | Promise<CachedPage>;
  get(data: ConnectionData, org: NativeOrg, key: string, now: () => number, answer: Answerer, inTurns = false): CachedPage | Promise<CachedPage> {
    const before = data.changeMark();
    const kept = this.byData.get(data);
    const hit = kept?.mark === before ? kept.answers.get(key) : undefined;
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
      const json = JSON.stringify(value);
      const page = { json, encoded: utf8Bytes(json) };
      if (!readClock && data.changeMark() === before) this.keep(data, before, key, page);
      return page;
    };
    const answered = answer(context);
    if (!isPieces(answered)) return serialised(answered);
    if (!inTurns) return serialised(runToEnd(answered));
    return runOfOneMoment(
      mapPieces(answered, serialised),
      () => data.changeMark() !== before,
      () => this.get(data, org, key, now, answer),
    );
  }

  private keep(data: ConnectionData, mark: string, key: string, page: CachedPage): void {
    let entry = this.byData.get(data);
    if (entry?.mark !== mark) this.byData.set(data, (entry = { mark, answers: new Map() }));
    if (entry.answers.size >= this.maxAnswersPerConnection) entry.answers.clear();
    entry.answers.set(key, page);
  }
}
