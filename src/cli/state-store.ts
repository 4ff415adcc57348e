import { respondError, type SandboxResponse } from '../core/http.js';
import type { Sandbox } from '../core/sandbox.js';
import { ApiError, ErrorCode, SandboxConfigError } from '../shared/errors.js';
import { stringifyInPieces } from '../shared/json-text-in-pieces.js';
import { runInTurns } from '../shared/pieces.js';
import { Reservation } from '../shared/reservation.js';
import { flagName } from './flags.js';
import { markPath, readRunningMark, removeRunningMark, writeRunningMark } from './running-mark.js';
import {
  type LoadedState,
  loadStateFile,
  loadStateFileInTurns,
  ownerOnlyFile,
  removeTempFiles,
  writeFileAtomic,
  writeFileAtomicInTurns,
} from './state-file.js';
import { Journal, readJournal, removeJournal } from './state-journal.js';

/*
 * `serve --state-file`: the store that keeps the sandbox's state in a file across restarts,
 * crashes included (docs/decisions/0030 and 0031).
 *
 * - Saves: the whole state, at most every 250 ms while it changes (`--state-sync batched`, the
 *   default: a crash loses at most the last 250 ms); with `--state-sync always`, each write is
 *   also committed to a journal before it is answered (writes answered together share one
 *   commit), and the state is written whole every 250 ms, which starts the journal again.
 * - An outbox: no event is delivered before a save holding it has completed, so no receiver
 *   hears of a write a crash then lost.
 * - A reservation of ids: every stream that issues ids may draw at most a reserved number of
 *   values past the state saved; the mark beside the file says how many, and is made larger
 *   before a stream would pass it. A clean stop removes the mark; a start that finds it moves
 *   every stream past the reservation, so no id a client was told of is issued again.
 */

/** How `--state-sync` saves: `batched` (at most every 250 ms) or `always` (each write before its answer). */
export const STATE_SYNC_MODES = ['batched', 'always'] as const;
export type StateSync = (typeof STATE_SYNC_MODES)[number];

/** Draws each stream that issues ids may make past the saved state before the mark must say more. */
export const RESERVE_DRAWS = 8192;

/** Requests that change nothing: with `--state-sync always` they wait only for a commit already under way. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface StateStoreOptions {
  /** Default `batched`. */
  sync?: StateSync;
  /** Longest time between a change and the save that holds it (`batched`), or between whole saves (`always`). Default 250 ms. */
  intervalMs?: number;
  /** Draws each stream may make past the saved state before the mark is made larger. Default {@link RESERVE_DRAWS}. */
  reserve?: number;
  onError?: (error: unknown) => void;
}

/** What {@link StateStore.open} found. */
export interface OpenedState {
  /** Whether there was a state file. */
  loaded: boolean;
  /** Commits of the journal laid over it. */
  commits: number;
  /** After a run that did not stop cleanly: how many draws every stream that issues ids moved past the saved state. */
  recovered: number | undefined;
  /** Temporary files of interrupted saves, removed. */
  removed: string[];
}

/**
 * The state file of `serve --state-file`: {@link open} before serving, {@link start} the saves,
 * {@link durable} before answering (`--state-sync always`), {@link close} at a clean stop.
 *
 * @example
 * const store = new StateStore(sandbox, 'state.json', { sync: 'always' });
 * store.open(); store.start(); … store.close();
 */
export class StateStore {
  readonly path: string;
  readonly sync: StateSync;
  private readonly sandbox: Sandbox;
  private readonly intervalMs: number;
  private readonly reserve: number;
  private readonly reservation: Reservation;
  /** `always` only: the commits since the last whole save. */
  private readonly journal: Journal | undefined;
  /** A commit failed part way: the next one writes the state whole (the journal may end in part of a line). */
  private journalBroken = false;
  private timer: NodeJS.Timeout | undefined;
  /** The state revision the last whole save held. */
  private savedRevision = Number.NaN;
  /** The state revision the file and its journal hold. */
  private durableRevision = Number.NaN;
  /** The length of the last whole save. */
  private savedBytes = 0;
  /** Answers waiting for the next commit, and whether it is scheduled. */
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private scheduled = false;
  /** `batched`: the save in pieces under way, if any. */
  private saving: Promise<void> | undefined;
  /** Changes at a clean stop: a save in pieces begun before it does not replace the file after it. */
  private generation = 0;
  private readonly onError: (error: unknown) => void;

  constructor(sandbox: Sandbox, path: string, options: StateStoreOptions = {}) {
    this.sandbox = sandbox;
    this.path = path;
    this.sync = options.sync ?? 'batched';
    this.intervalMs = options.intervalMs ?? 250;
    this.reserve = options.reserve ?? RESERVE_DRAWS;
    this.reservation = new Reservation(this.reserve, (size) => this.extend(size));
    this.journal = this.sync === 'always' ? new Journal(path) : undefined;
    this.onError = options.onError ?? ((error) => console.error(`crm-sandbox: cannot save ${path}: ${(error as Error).message}`));
  }

  /**
   * Loads the file (with its journal), removes what interrupted saves left, and, if the last run
   * did not stop cleanly, moves every stream that issues ids past its reservation. Then saves
   * the state whole when it has to (a fresh start, a recovery, a journal laid over the file, a
   * file others may read, `always`'s journal base) and marks the file as in use. A file that
   * cannot be read stops the start (SandboxConfigError) with nothing written.
   */
  open(): OpenedState {
    const mark = readRunningMark(this.path);
    this.sandbox.persist(this.reservation);
    return this.opened(
      mark,
      loadStateFile(this.sandbox, this.path, (text) => readJournal(this.path, text)),
    );
  }

  /**
   * {@link open} with turns of the event loop while the file is read, parsed and laid in (`serve` listens meanwhile,
   * answering `/sandbox/health` and holding the rest: docs/decisions/0050). What comes after the load (a recovery, the
   * save a start may need, the mark) is done at once, as by {@link open}.
   */
  async openInTurns(): Promise<OpenedState> {
    const mark = readRunningMark(this.path);
    this.sandbox.persist(this.reservation);
    return this.opened(mark, await loadStateFileInTurns(this.sandbox, this.path, (text) => readJournal(this.path, text)));
  }

  /** What follows the load: temporary files removed, a recovery after a crash, the save a start needs, the mark. */
  private opened(mark: ReturnType<typeof readRunningMark>, { loaded, commits }: LoadedState): OpenedState {
    const removed = removeTempFiles(this.path);
    // A mark without a file: the file was removed to start over (a fresh start is saved before its mark is written).
    const recovered = loaded && mark ? mark.reserve : undefined;
    if (recovered !== undefined) this.sandbox.recover(recovered);
    if (!loaded || recovered !== undefined || commits > 0 || this.journal || !ownerOnlyFile(this.path)) {
      try {
        this.saveWhole();
      } catch (error) {
        throw new SandboxConfigError(`${flagName('state-file')} ${this.path}: cannot save it: ${(error as Error).message}`);
      }
    } else {
      this.savedRevision = this.durableRevision = this.sandbox.stateRevision;
      this.sandbox.saved();
    }
    // Batched: a journal of an earlier `always` run is in the file now (laid over it and saved), or belonged to an earlier file.
    if (!this.journal) removeJournal(this.path);
    writeRunningMark(this.path, { reserve: this.markFor(this.reserve) });
    return { loaded, commits, recovered, removed };
  }

  /** Starts the saves of changes, at most every `intervalMs` (a real-time timer: saving is about the process, not the simulation). */
  start(): void {
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /**
   * `always`: the answer to a write goes out only once a commit holds what it changed (the
   * answers of writes handled together share one commit); a read waits only for a commit under
   * way, so it never shows a write that is not saved yet. A commit that fails turns the answer
   * into a 500 saying so. Undefined: answer now.
   */
  durable(method: string, response: SandboxResponse): Promise<SandboxResponse> | undefined {
    if (this.sync !== 'always' || (SAFE_METHODS.has(method) && this.waiters.length === 0)) return undefined;
    return this.commit().then(
      () => response,
      (error: unknown) =>
        respondError(
          new ApiError(
            500,
            ErrorCode.INTERNAL_ERROR,
            `the state file could not be saved (${(error as Error).message}): the change was made but a crash would lose it`,
          ),
        ),
    );
  }

  /**
   * Resolves once the state as it is now is saved: a commit to the journal (`always`; a whole save
   * when `batched`), made in the next turn and shared by all who ask meanwhile.
   */
  commit(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.commitNow());
    });
  }

  /** A clean stop: saves the state whole if anything changed, then removes the journal and the mark. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    // A save in pieces under way is left unfinished: the one made here, at once, holds more.
    this.generation++;
    try {
      if (this.sandbox.stateRevision !== this.savedRevision || (this.journal?.commits ?? 0) > 0 || this.journalBroken) this.saveWhole();
      this.journal?.close();
      removeRunningMark(this.path);
    } catch (error) {
      // The mark stays: the next start moves past whatever this run drew.
      this.onError(error);
    }
    this.settleWaiters();
  }

  /**
   * Every `intervalMs`: batched, a whole save if anything changed. Always, a commit of what
   * changed without a request (deliveries, status moves), and a whole save once the journal has
   * grown past the file (or 1 MiB), so that a start never replays more than about the file again.
   */
  private tick(): void {
    try {
      if (this.journal && !this.journalBroken && this.journal.bytes <= Math.max(1 << 20, this.savedBytes)) {
        if (this.sandbox.stateRevision !== this.durableRevision) this.append();
        return;
      }
      if (this.sandbox.stateRevision === this.savedRevision && !this.journalBroken && (this.journal?.commits ?? 0) === 0) return;
      if (this.journal) {
        this.saveWhole();
        return;
      }
      // Batched: in pieces, one save at a time.
      if (this.saving) return;
      this.saving = this.saveWholeInTurns()
        .catch((error: unknown) => this.onError(error))
        .finally(() => {
          this.saving = undefined;
        });
    } catch (error) {
      this.onError(error);
    }
  }

  private commitNow(): void {
    this.scheduled = false;
    try {
      if (this.sandbox.stateRevision !== this.durableRevision) this.append();
    } catch (error) {
      this.onError(error);
      this.settleWaiters(error);
      return;
    }
    this.settleWaiters();
  }

  private settleWaiters(error?: unknown): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  }

  /** One commit to the journal; if it fails, the state is written whole instead. */
  private append(): void {
    if (!this.journal || this.journalBroken) {
      this.saveWhole();
      return;
    }
    const revision = this.sandbox.stateRevision;
    const snapshot = this.sandbox.snapshot();
    try {
      this.journal.append(snapshot);
    } catch (error) {
      this.journalBroken = true;
      this.journal.close();
      this.onError(error);
      this.saveWhole();
      return;
    }
    this.durableRevision = revision;
    this.afterSave();
  }

  /** Writes the whole state (and, `always`, starts the journal again from it). */
  private saveWhole(): void {
    const revision = this.sandbox.stateRevision;
    // A save in pieces under way completes after this one, if at all: it must not replace it.
    this.generation++;
    const snapshot = this.sandbox.snapshot();
    const text = JSON.stringify(snapshot);
    writeFileAtomic(this.path, text);
    this.savedBytes = text.length;
    this.journal?.restart(text, snapshot);
    this.journalBroken = false;
    this.savedRevision = this.durableRevision = revision;
    this.afterSave();
  }

  /**
   * A save has completed: its events may go out, every stream counts its draws again from the
   * positions it holds, and a mark made larger by a burst goes back to its size.
   */
  private afterSave(): void {
    this.reservation.renew(this.markedBack());
    this.sandbox.saved();
  }

  /** After a save: a mark made larger by a burst goes back to its size; the size to count against from now on. */
  private markedBack(): number {
    if (this.reservation.size <= this.reserve) return this.reservation.size;
    try {
      writeRunningMark(this.path, { reserve: this.markFor(this.reserve) });
      return this.reserve;
    } catch (error) {
      this.onError(error);
      return this.reservation.size;
    }
  }

  /**
   * What the mark says for a reservation of `size` draws: `batched` saves complete turns after their snapshot, so a
   * stream may be up to two reservations past the file (see Reservation.begin): twice the size. `always` saves at once.
   */
  private markFor(size: number): number {
    return this.sync === 'batched' ? 2 * size : size;
  }

  /**
   * `batched`: the state written whole with turns of the event loop between its pieces (docs/decisions/0050): the
   * snapshot at once (one moment), its JSON text in pieces, the file by the thread pool (fsync included), then renamed
   * over the old one at once, unless a clean stop saved after it. Only then do the events the snapshot holds go out
   * (a save point), and the streams count from the positions it holds (Reservation.begin and commit).
   */
  private async saveWholeInTurns(): Promise<void> {
    const revision = this.sandbox.stateRevision;
    const point = this.sandbox.savePoint();
    this.reservation.begin();
    const snapshot = this.sandbox.snapshot();
    const text = await runInTurns(stringifyInPieces(snapshot));
    const generation = this.generation;
    if (!(await writeFileAtomicInTurns(this.path, text, () => this.generation !== generation))) return;
    this.savedBytes = text.length;
    this.savedRevision = this.durableRevision = revision;
    this.reservation.commit(this.markedBack());
    this.sandbox.saved(point);
  }

  /** A stream is about to pass the reservation: the mark says more first. */
  private extend(size: number): number {
    const larger = size + this.reserve;
    try {
      writeRunningMark(this.path, { reserve: this.markFor(larger) });
    } catch (error) {
      this.onError(new Error(`cannot write ${markPath(this.path)} (${(error as Error).message}): ids drawn from now on could be issued again after a crash`));
    }
    return larger;
  }
}
