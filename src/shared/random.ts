import * as z from 'zod';
import { once } from './once.js';
import { Allowance, type Reservation } from './reservation.js';

/**
 * Seeded randomness. Every id and every generated value in the sandbox comes from a `Random`
 * derived from the sandbox seed, never from `Math.random()`, so a seed reproduces a run.
 *
 * Streams are forked by label: the data of the 3rd connection comes from
 * `root.fork('connection:3')` and does not shift when some unrelated stream (say, link tokens)
 * is drawn from more or less often.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  readonly seed: number;
  /** Counts draws against a state file's reservation (ids streams of a `serve --state-file`); none otherwise. */
  private allowance: Allowance | undefined;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    // sfc32 state from splitmix32 of the seed, as recommended for small-state generators.
    let s = this.seed;
    const next = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Where the stream stands: its seed and position, enough to continue it exactly (snapshots). */
  state(): RandomState {
    return { seed: this.seed, position: [this.a, this.b, this.c, this.d] };
  }

  /** A stream that continues exactly where `state()` was taken. */
  static fromState(state: RandomState): Random {
    const random = new Random(state.seed);
    [random.a, random.b, random.c, random.d] = state.position;
    return random;
  }

  /** A new independent stream, the same for the same seed and label. */
  fork(label: string): Random {
    return new Random(hash32(`${this.seed}:${label}`));
  }

  /**
   * Counts this stream's draws against `reservation` from its position now (none: stops
   * counting). A stream that issues ids does, under a state file (docs/decisions/0030).
   */
  reserve(reservation: Reservation | undefined): void {
    this.allowance = reservation && new Allowance(reservation);
  }

  /** Moves the stream `draws` values on, as if they had been drawn (not counted against a reservation). */
  skipDraws(draws: number): void {
    for (let i = 0; i < draws; i++) this.next();
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  uint32(): number {
    this.allowance?.take();
    return this.next();
  }

  private next(): number {
    // sfc32 (Chris Doty-Humphrey's Small Fast Counting generator)
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** `length` lowercase hex characters. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.uint32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  /** `length` decimal digits, the first one not zero. */
  digits(length: number): string {
    let out = String(1 + (this.uint32() % 9));
    while (out.length < length) out += String(this.uint32() % 10);
    return out;
  }

  /** `length` characters from `alphabet`. */
  chars(length: number, alphabet: string): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.uint32() % alphabet.length];
    return out;
  }
}

const uint32 = once(() => z.number().int().min(0).max(0xffffffff));
const int32 = once(() => z.number().int().min(-0x80000000).max(0xffffffff));

/** A stream's seed and its sfc32 position (four 32-bit words), as a snapshot keeps it. */
export const randomStateSchema = once(() => z.object({ seed: uint32(), position: z.tuple([int32(), int32(), int32(), int32()]) }).strict());
export type RandomState = z.infer<ReturnType<typeof randomStateSchema>>;

/** FNV-1a, 32 bits: a stable hash of a label into a seed. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** `length` hex digits hashed from a text: a stable id-like token (the same text, the same token). */
export function hashHex(text: string, length: number): string {
  let out = '';
  for (let round = 0; out.length < length; round++) out += hash32(`${round}:${text}`).toString(16).padStart(8, '0');
  return out.slice(0, length);
}

/** `hashHex` laid out as a (version 4) UUID. */
export function hashUuid(text: string): string {
  const hex = hashHex(text, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
