import { describe, expect, it } from 'vitest';
import { Random } from './random.js';
import { Reservation } from './reservation.js';

describe('Random', () => {
  it('repeats itself for the same seed and differs for another', () => {
    const a = new Random(7);
    const b = new Random(7);
    const c = new Random(8);
    const draw = (r: Random) => [r.hex(32), r.digits(8), r.uint32()];
    const first = draw(a);
    expect(draw(b)).toEqual(first);
    expect(draw(c)).not.toEqual(first);
  });

  it('forks independent streams: drawing from one does not shift another', () => {
    const root = new Random(3);
    const before = root.fork('events').hex(32);
    root.fork('tokens').hex(64);
    root.uint32();
    expect(root.fork('events').hex(32)).toBe(before);
    expect(root.fork('tokens').hex(32)).not.toBe(before);
  });

  it('gives well-formed values', () => {
    const r = new Random(1);
    for (let i = 0; i < 200; i++) {
      expect(r.hex(32)).toMatch(/^[0-9a-f]{32}$/);
      expect(r.digits(6)).toMatch(/^[1-9]\d{5}$/);
      expect(r.chars(5, 'ab')).toMatch(/^[ab]{5}$/);
    }
  });

  it('skips as if it had drawn, and counts its draws against a reservation without changing them', () => {
    const drawn = new Random(5);
    const skipped = new Random(5);
    for (let i = 0; i < 10; i++) drawn.uint32();
    skipped.skipDraws(10);
    expect(skipped.hex(32)).toBe(drawn.hex(32));

    const extended: number[] = [];
    const reservation = new Reservation(8, (size) => {
      extended.push(size + 8);
      return size + 8;
    });
    const counted = new Random(5);
    counted.reserve(reservation);
    expect(counted.hex(32)).toBe(new Random(5).hex(32)); // 4 draws: within the reservation
    counted.hex(32); // 8
    expect(extended).toEqual([]);
    counted.uint32(); // the 9th draw extends it first
    expect(extended).toEqual([16]);
    reservation.renew(8); // a save: counts start again
    for (let i = 0; i < 8; i++) counted.uint32();
    expect(extended).toEqual([16]);
    counted.uint32();
    expect(extended).toEqual([16, 16]);
  });

  it('counts from a save in pieces’ snapshot, and on across a second one begun before the first completed', () => {
    const extended: number[] = [];
    const reservation = new Reservation(8, (size) => {
      extended.push(size + 8);
      return size + 8;
    });
    const counted = new Random(5);
    counted.reserve(reservation);
    for (let i = 0; i < 6; i++) counted.uint32();
    reservation.begin(); // a save's snapshot: counts start again from the positions it holds
    for (let i = 0; i < 8; i++) counted.uint32();
    expect(extended).toEqual([]);
    // Another save begun before the first completed (it failed): counts go on, the file holding what it held.
    reservation.begin();
    counted.uint32();
    expect(extended).toEqual([16]);
    reservation.commit(8);
    reservation.begin();
    for (let i = 0; i < 8; i++) counted.uint32();
    expect(extended).toEqual([16]);
  });
});
