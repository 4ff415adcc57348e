/**
 * How far the streams that issue ids may go past the positions a state file holds
 * (docs/decisions/0030), as a database sequence caches a range: each stream counts what it
 * draws since the last save against `size`, and before it would pass it asks `extend` for more
 * (which records the larger size where a restart finds it). After a crash, a restart moves every
 * stream `size` draws on from its saved position: nothing the lost run drew is drawn again.
 *
 * @example
 * const reservation = new Reservation(8192, (size) => { writeMark(size + 8192); return size + 8192; });
 * random.reserve(reservation); … after each save: reservation.renew();
 */
export class Reservation {
  /** Draws each stream may make past its position at the last save (items, for a counter). */
  size: number;
  /** Changes at each save: every stream counts again from the position that save holds. */
  epoch = 0;
  private readonly extend: (size: number) => number;

  /** `extend(size)` makes a larger reservation durable and returns it (it must be larger than `size`). */
  constructor(size: number, extend: (size: number) => number) {
    this.size = size;
    this.extend = extend;
  }

  /** A save taken since {@link begin} has not completed (or failed): the next one counts on from the same epoch. */
  private pending = false;

  /** A save now holds every stream's position: counts start again, against `size` (default: the current one). */
  renew(size = this.size): void {
    this.size = size;
    this.epoch++;
    this.pending = false;
  }

  /**
   * A save whose snapshot is taken now will complete later (its text written in pieces, the file by the thread pool):
   * counts start again from the positions it holds, unless the last such save has not completed, when they go on
   * (the file then still holds an older state, whose distance is the draws of both epochs). So until a save completes,
   * a stream may be two reservations past the file: the mark must say twice the size (StateStore does).
   */
  begin(): void {
    if (this.pending) return;
    this.pending = true;
    this.epoch++;
  }

  /** The save begun last has completed: the file holds the positions its epoch counts from. Against `size` from now on. */
  commit(size = this.size): void {
    this.pending = false;
    this.size = size;
  }

  /** A stream is about to pass `size`. */
  exhausted(): void {
    const size = this.extend(this.size);
    this.size = size > this.size ? size : this.size * 2;
  }
}

/** One stream's count of what it drew since the last save, against a {@link Reservation}. */
export class Allowance {
  private readonly reservation: Reservation;
  private epoch: number;
  private used = 0;

  /** Counts from the stream's position now (its saved one, or where it starts). */
  constructor(reservation: Reservation) {
    this.reservation = reservation;
    this.epoch = reservation.epoch;
  }

  /** Counts one draw (or item), extending the reservation first if it would pass it. */
  take(): void {
    const reservation = this.reservation;
    if (this.epoch !== reservation.epoch) {
      this.epoch = reservation.epoch;
      this.used = 0;
    }
    if (++this.used > reservation.size) reservation.exhausted();
  }
}
