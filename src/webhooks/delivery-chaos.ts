import * as z from 'zod';
import { once } from '../shared/once.js';
import { Random, randomStateSchema } from '../shared/random.js';
import { timeMsSchema } from '../shared/state-schemas.js';
import { type Chaos, type ChaosSettings, chaosSettingsSchema, resolveChaos } from './chaos.js';

/** A connection's chaos as a snapshot keeps it: its settings, when its outage ends, and where its stream stands. */
export const chaosRecordSchema = once(() =>
  z
    .object({
      connectionId: z.string().min(1),
      settings: chaosSettingsSchema(),
      outageUntil: timeMsSchema().nullable(),
      stream: randomStateSchema().nullable(),
    })
    .strict(),
);
export type ChaosRecord = z.infer<ReturnType<typeof chaosRecordSchema>>;

/** Reordering without a delay range still needs a spread to shuffle over. */
const REORDER_SPREAD_MS = { min: 0, max: 1_000 };

/**
 * The chaos deliveries are under: each connection's own (`setChaos`), else the sandbox's default
 * (`serve --delivery-chaos`). Each connection draws its delays and duplicates from its own
 * stream, forked from the chaos root on its first draw, so one connection's chaos never shifts
 * another's and a seed replays them all.
 */
export class DeliveryChaos {
  private readonly own = new Map<string, Chaos>();
  private readonly streams = new Map<string, Random>();
  private readonly fallback: Chaos | null;
  private readonly random: Random;

  /** `random`: the root of the streams; `defaults`: the chaos of connections without their own, resolved at sandbox time `now`. */
  constructor(random: Random, defaults: ChaosSettings | undefined, now: number) {
    this.random = random;
    this.fallback = defaults ? resolveChaos(defaults, now) : null;
  }

  /** Sets a connection's chaos (`{}` for none) at sandbox time `now`; returns the settings now in force. */
  set(connectionId: string, settings: ChaosSettings, now: number): ChaosSettings {
    const chaos = resolveChaos(settings, now);
    if (chaos) this.own.set(connectionId, chaos);
    else this.own.delete(connectionId);
    return chaos?.settings ?? {};
  }

  /** The settings a connection's deliveries are under (its own, else the default). */
  settingsOf(connectionId: string): ChaosSettings {
    return this.active(connectionId)?.settings ?? {};
  }

  /** Whether a connection's events no longer wait for the ones before them. */
  reorders(connectionId: string): boolean {
    return this.active(connectionId)?.reorder ?? false;
  }

  /** Whether an attempt starting at sandbox time `now` falls in the connection's outage. */
  inOutage(connectionId: string, now: number): boolean {
    const outageUntil = this.active(connectionId)?.outageUntil;
    return outageUntil != null && now < outageUntil;
  }

  /** The extra wait of one automatic attempt (ms), drawn from the connection's stream; 0 without a delay. */
  delay(connectionId: string): number {
    const chaos = this.active(connectionId);
    if (!chaos) return 0;
    const random = this.stream(connectionId);
    const range = chaos.delayMs ?? (chaos.reorder ? REORDER_SPREAD_MS : null);
    if (!range || range.max === 0) return 0;
    return range.min + (random.uint32() % (range.max - range.min + 1));
  }

  /** Whether an accepted attempt is sent again, drawn from the connection's stream. */
  duplicates(connectionId: string): boolean {
    const chaos = this.active(connectionId);
    if (!chaos) return false;
    const random = this.stream(connectionId);
    if (chaos.duplicate === 0) return false;
    return random.uint32() / 0x1_0000_0000 < chaos.duplicate;
  }

  /** The connection is gone: its chaos and stream too. */
  forget(connectionId: string): void {
    this.own.delete(connectionId);
    this.streams.delete(connectionId);
  }

  /** Each connection's own chaos and where its stream stands, for a snapshot. */
  exportState(): ChaosRecord[] {
    return [...this.own].map(([connectionId, chaos]) => ({
      connectionId,
      settings: chaos.settings,
      outageUntil: chaos.outageUntil,
      stream: this.streams.get(connectionId)?.state() ?? null,
    }));
  }

  /** Takes over a snapshot's chaos (before its deliveries go on), at sandbox time `now`. */
  importState(records: readonly ChaosRecord[], now: number): void {
    for (const record of records) {
      const chaos = resolveChaos(record.settings, now);
      if (!chaos) continue;
      this.own.set(record.connectionId, { ...chaos, outageUntil: record.outageUntil });
      if (record.stream) this.streams.set(record.connectionId, Random.fromState(record.stream));
    }
  }

  private active(connectionId: string): Chaos | null {
    return this.own.get(connectionId) ?? this.fallback;
  }

  /**
   * The connection's stream, forked on first use. Asked for whenever the connection is under
   * chaos, whether or not a value is drawn: a snapshot then holds the stream as it was.
   */
  private stream(connectionId: string): Random {
    let random = this.streams.get(connectionId);
    if (!random) {
      random = this.random.fork(`chaos:${connectionId}`);
      this.streams.set(connectionId, random);
    }
    return random;
  }
}
