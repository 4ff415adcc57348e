import { SandboxConfigError } from '../shared/errors.js';
import { onNextTurn } from '../shared/pieces.js';
import { MinHeap } from './min-heap.js';

/** A scheduled task; cancel it to make sure it never runs. */
export interface Timer {
  cancel(): void;
}

/**
 * The sandbox's only source of time. Status moves, retry schedules and every timestamp go
 * through it, so that a virtual clock can run a day of them in milliseconds.
 */
export interface Clock {
  readonly kind: 'real' | 'virtual';
  /** Milliseconds since the unix epoch. */
  now(): number;
  /** Runs `task` after `delayMs` of this clock's time. */
  setTimer(delayMs: number, task: () => unknown): Timer;
  /**
   * Registers work in flight (a webhook delivery, say) that `advance()` and `settle()` wait for
   * before they look at the next due task.
   */
  track<T>(work: Promise<T>): Promise<T>;
  /** Virtual clock only: moves time forward, running everything that falls due, in order. */
  advance(ms: number): Promise<void>;
  /** Runs everything due now and waits for work in flight, until nothing is left to do. */
  settle(): Promise<void>;
  /** Cancels every timer; a timer set after close never runs. */
  close(): void;
  /** Virtual clock only: when the next task falls due (undefined when none is scheduled, and always on a real clock). */
  nextDue(): number | undefined;
}

type ErrorSink = (error: unknown) => void;

/**
 * The real current time, ms since the unix epoch: the one place the sandbox reads the wall
 * clock, for the real clock and for what must be real whatever clock a sandbox runs on (the
 * `x-service-timestamp` of attempts sent with `webhookTimestamps: 'real'`).
 */
export function realNow(): number {
  return Date.now();
}

/** What a closed clock hands out: a timer that never runs. */
const NO_TIMER: Timer = { cancel: () => undefined };

abstract class BaseClock {
  private readonly inFlight = new Set<Promise<unknown>>();
  protected readonly onError: ErrorSink;

  constructor(onError: ErrorSink) {
    this.onError = onError;
  }

  track<T>(work: Promise<T>): Promise<T> {
    const tracked = work.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    // The caller keeps the original promise; the tracked copy must never be an unhandled rejection.
    tracked.catch(() => undefined);
    return work;
  }

  /** Waits until no tracked work is left, including work started by work that finished. */
  protected async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Runs a task, counting what it returns as work in flight and reporting what it throws. */
  protected run(task: () => unknown): void {
    try {
      const result = task();
      if (result instanceof Promise) this.track(result.catch(this.onError));
    } catch (error) {
      this.onError(error);
    }
  }
}

/** `task` after `delayMs` on a timer that does not hold the process open; its cancel. */
function laterTimer(task: () => void, delayMs: number): () => void {
  const handle = setTimeout(task, delayMs);
  handle.unref?.();
  return () => clearTimeout(handle);
}

/** Wall-clock time, for the dev server. Timers are unref'd so they never hold a process open. */
export class RealClock extends BaseClock implements Clock {
  readonly kind = 'real' as const;
  /** The cancel of each task scheduled and not yet run. */
  private readonly pending = new Set<() => void>();
  private closed = false;

  now(): number {
    return realNow();
  }

  setTimer(delayMs: number, task: () => unknown): Timer {
    // Work that finishes after close (an attempt aborted in flight) must not start anything more.
    if (this.closed) return NO_TIMER;
    // Due already (a delay of 0, or a time a millisecond past by the time it is scheduled): right
    // after the work at hand, before the next request is read (Node's setImmediate; a timer where
    // there is none, as in a browser). setTimeout would wait at least 1 ms, and a request the
    // client sends meanwhile (the first read after a link with --ready-delay 0ms) would find the
    // move not made; a negative delay would print Node's TimeoutNegativeWarning.
    const due = !(delayMs > 0);
    const fire = () => {
      this.pending.delete(cancel);
      this.run(task);
    };
    const cancel = due ? onNextTurn(fire, { unref: true }) : laterTimer(fire, delayMs);
    this.pending.add(cancel);
    return {
      cancel: () => {
        cancel();
        this.pending.delete(cancel);
      },
    };
  }

  advance(): Promise<void> {
    return Promise.reject(new SandboxConfigError("advance() needs a virtual clock: createSandbox({ clock: 'virtual' })"));
  }

  async settle(): Promise<void> {
    await this.drain();
  }

  nextDue(): undefined {
    return undefined;
  }

  close(): void {
    this.closed = true;
    for (const cancel of this.pending) cancel();
    this.pending.clear();
  }
}

interface VirtualTask {
  at: number;
  seq: number;
  task: () => unknown;
  cancelled: boolean;
}

/**
 * Time that moves only when told to. Due tasks run one at a time in (time, scheduling order),
 * and the work each starts is awaited before the next runs, so a run is reproducible.
 */
export class VirtualClock extends BaseClock implements Clock {
  readonly kind = 'virtual' as const;
  private time: number;
  private seq = 0;
  private readonly queue = new MinHeap<VirtualTask>((x, y) => x.at - y.at || x.seq - y.seq);
  /** advance() and settle() calls run one after another, never interleaved. */
  private turn: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(startTime: number, onError: ErrorSink) {
    super(onError);
    this.time = startTime;
  }

  now(): number {
    return this.time;
  }

  setTimer(delayMs: number, task: () => unknown): Timer {
    if (this.closed) return NO_TIMER;
    const entry: VirtualTask = { at: this.time + Math.max(0, delayMs), seq: this.seq++, task, cancelled: false };
    this.queue.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) {
      return Promise.reject(new SandboxConfigError(`advance() needs a non-negative duration, got ${ms}`));
    }
    return this.exclusive(() => this.runUntil(this.time + ms));
  }

  settle(): Promise<void> {
    return this.exclusive(() => this.runUntil(this.time));
  }

  close(): void {
    this.closed = true;
    for (let entry = this.queue.pop(); entry; entry = this.queue.pop()) entry.cancelled = true;
  }

  nextDue(): number | undefined {
    for (let next = this.queue.peek(); next; next = this.queue.peek()) {
      if (!next.cancelled) return next.at;
      this.queue.pop();
    }
    return undefined;
  }

  private async runUntil(target: number): Promise<void> {
    await this.drain();
    for (let next = this.queue.peek(); next && next.at <= target; next = this.queue.peek()) {
      this.queue.pop();
      if (next.cancelled) continue;
      this.time = Math.max(this.time, next.at);
      this.run(next.task);
      await this.drain();
    }
    this.time = Math.max(this.time, target);
  }

  private exclusive(work: () => Promise<void>): Promise<void> {
    const result = this.turn.then(work);
    this.turn = result.catch(() => undefined);
    return result;
  }
}
