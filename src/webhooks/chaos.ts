import * as z from 'zod';
import { parseDuration, requireUnit, splitList } from '../shared/duration.js';
import { ApiError, SandboxConfigError } from '../shared/errors.js';
import { once } from '../shared/once.js';
import { parseOrThrow } from '../shared/validation.js';

/*
 * Delivery chaos settings: what they are, how they are read and what they resolve to. The chaos
 * applied to deliveries, each connection's with its own seeded stream, is ./delivery-chaos.ts.
 */

export const chaosSettingsSchema = once(() =>
  z
    .object({
      duplicate: z.number().min(0).max(1).optional().describe('Chance (0-1) that an accepted event is delivered again: same eventId and body'),
      delay: z.string().min(1).optional().describe('Extra delay before each attempt: "500ms" or a range "100ms-2s"'),
      reorder: z.boolean().optional().describe("Do not hold a connection's events in order"),
      outage: z.string().min(1).optional().describe('Attempts fail without reaching the receiver for this long from now: "30m"'),
    })
    .strict(),
);

/**
 * Delivery chaos: what at-least-once delivery does to a receiver, on purpose and seeded, so
 * idempotency and ordering assumptions fail in a test before they fail in production.
 *
 * - `duplicate`: the chance (0–1) that an accepted event is sent again at once: same eventId,
 *   same body, signed afresh.
 * - `delay`: every automatic attempt waits an extra random time in this range (`100ms-2s`).
 * - `reorder`: a connection's events no longer wait for the ones before them; with `delay` (or
 *   its default spread of 0–1 s) they arrive shuffled.
 * - `outage`: for this long from now, attempts fail without reaching the receiver, as if it were
 *   down; the retry schedule carries the events through.
 */
export type ChaosSettings = z.infer<ReturnType<typeof chaosSettingsSchema>>;

/** What chaos did to one attempt, as the delivery log shows it (and a snapshot keeps it). */
export const attemptChaosSchema = once(() =>
  z
    .object({
      /** Extra wait before the attempt (ms of sandbox time). */
      delayMs: z.number().int().nonnegative().optional(),
      /** The attempt is a duplicate of an accepted one. */
      duplicate: z.literal(true).optional(),
      /** The attempt failed as a simulated outage: the receiver was not contacted. */
      outage: z.literal(true).optional(),
    })
    .strict(),
);
export type AttemptChaos = z.infer<ReturnType<typeof attemptChaosSchema>>;

/** Chaos as the dispatcher applies it. */
export interface Chaos {
  duplicate: number;
  delayMs: { min: number; max: number } | null;
  reorder: boolean;
  /** Sandbox time (ms) until which attempts fail as an outage; null for none. */
  outageUntil: number | null;
  /** The settings as given, for reading back. */
  settings: ChaosSettings;
}

const RANGE = /^\s*([^-\s]+)\s*(?:-\s*([^-\s]+)\s*)?$/;

/** `100ms-2s` or `1s` → a range in ms; throws a SandboxConfigError naming `name`. */
export function parseDelayRange(text: string, name = 'delay'): { min: number; max: number } {
  const match = RANGE.exec(text);
  if (!match) throw new SandboxConfigError(`${name} must be a duration or a range such as 100ms-2s, got "${text}"`);
  const min = parseDuration(match[1]!, name);
  const max = match[2] === undefined ? min : parseDuration(match[2], name);
  if (max < min) throw new SandboxConfigError(`${name}: the range ${text} ends before it starts`);
  return { min, max };
}

/** Checks chaos settings from a request or a test: a 400 naming the bad field. */
export function parseChaos(value: unknown): ChaosSettings {
  const settings = parseOrThrow(chaosSettingsSchema(), value);
  for (const field of ['delay', 'outage'] as const) {
    const text = settings[field];
    if (text === undefined) continue;
    try {
      if (field === 'delay') parseDelayRange(text, field);
      else parseDuration(text, field);
    } catch (error) {
      if (error instanceof SandboxConfigError) throw ApiError.invalidField(field, error.message);
      throw error;
    }
  }
  return settings;
}

/** Turns settings into chaos at sandbox time `now`; `null` when they ask for nothing. */
export function resolveChaos(settings: ChaosSettings, now: number): Chaos | null {
  const delayMs = settings.delay === undefined ? null : parseDelayRange(settings.delay, 'delay');
  const outage = settings.outage === undefined ? null : parseDuration(settings.outage, 'outage');
  const chaos: Chaos = {
    duplicate: settings.duplicate ?? 0,
    delayMs,
    reorder: settings.reorder ?? false,
    outageUntil: outage ? now + outage : null,
    settings,
  };
  const idle = chaos.duplicate === 0 && (!delayMs || delayMs.max === 0) && !chaos.reorder && chaos.outageUntil === null;
  return idle ? null : chaos;
}

const CHAOS_FLAG_EXAMPLE = 'duplicate=0.2,delay=100ms-2s,reorder,outage=5m';

/**
 * `serve --delivery-chaos` text: `duplicate=0.2,delay=100ms-2s,reorder,outage=5m`. A bad setting
 * throws a SandboxConfigError that says what is wrong with it, after `name` (the flag, or the
 * environment variable it came from); durations need their unit, as everywhere on the command line.
 *
 * @example parseChaosFlag('duplicate=0.5,reorder') // { duplicate: 0.5, reorder: true }
 */
export function parseChaosFlag(text: string, name = '--delivery-chaos'): ChaosSettings {
  const refused = (why: string) => new SandboxConfigError(`${name}: ${why}`);
  const settings: ChaosSettings = {};
  for (const part of splitList(text, name)) {
    const equals = part.indexOf('=');
    const key = (equals === -1 ? part : part.slice(0, equals)).trim();
    const value = equals === -1 ? undefined : part.slice(equals + 1).trim();
    if (key === 'reorder') {
      if (value !== undefined && value !== 'true' && value !== 'false') throw refused(`reorder takes no value, or true or false; got "${value}"`);
      settings.reorder = value !== 'false';
    } else if (key === 'duplicate' || key === 'delay' || key === 'outage') {
      if (!value) throw refused(`${key} needs a value, as in ${CHAOS_FLAG_EXAMPLE}`);
      if (key === 'duplicate') settings.duplicate = chanceFrom(value, refused);
      else settings[key] = durationFrom(key, value, refused);
    } else {
      throw refused(`unknown setting "${key}"; the settings are duplicate, delay, reorder and outage: ${CHAOS_FLAG_EXAMPLE}`);
    }
  }
  return settings;
}

function chanceFrom(value: string, refused: (why: string) => Error): number {
  const chance = /^(?:\d+\.?\d*|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
  if (!(chance >= 0 && chance <= 1)) throw refused(`duplicate must be a number from 0 to 1, got "${value}"`);
  return chance;
}

/** `delay` (a duration or a range) or `outage` (a duration), each with its unit. */
function durationFrom(key: 'delay' | 'outage', value: string, refused: (why: string) => Error): string {
  try {
    requireUnit(value, key);
    if (key === 'delay') parseDelayRange(value, key);
    else parseDuration(value, key);
  } catch (error) {
    if (error instanceof SandboxConfigError) throw refused(error.message);
    throw error;
  }
  return value;
}
