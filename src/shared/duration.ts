import { SandboxConfigError } from './errors.js';

/** A length of time: milliseconds as a number, or a string such as `500ms`, `3s`, `2m`, `1h`, `1d`. */
export type Duration = number | string;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

/**
 * Converts a duration to whole milliseconds.
 *
 * @example parseDuration('2m') // 120000
 * @example parseDuration(250) // 250
 */
export function parseDuration(value: Duration, name = 'duration'): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) {
      throw new SandboxConfigError(`${name} must be a non-negative number of milliseconds, got ${value}`);
    }
    return Math.round(value);
  }
  const match = DURATION.exec(value.trim());
  if (!match) {
    throw new SandboxConfigError(`${name} must look like 500ms, 3s, 2m, 1h or 1d, got "${value}"`);
  }
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!);
}

/**
 * Refuses a bare number other than 0 in a duration (or a range such as `100ms-2s`) typed on a
 * command line or in an environment variable: there `10` could mean 10 ms or 10 s. Code and
 * request bodies keep reading a bare number as milliseconds.
 *
 * @example requireUnit('10', '--ready-delay') // throws: --ready-delay needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"
 */
export function requireUnit(text: string, name: string): void {
  // Durations are never negative, so a '-' only ever separates the two ends of a range.
  for (const end of text.split('-').map((part) => part.trim())) {
    if (/^\d+(?:\.\d+)?$/.test(end) && Number(end) !== 0) {
      throw new SandboxConfigError(`${name} needs a unit: ${end}ms, ${end}s, ${end}m, ${end}h or ${end}d; got "${text}"`);
    }
  }
}

/**
 * Splits comma-separated text into trimmed items: blank text is no items, and an empty item
 * (`10s,,1m`, a trailing comma) is refused naming it, as it is almost always a typo.
 *
 * @example splitList('k1, k2', 'apiKeys') // ['k1', 'k2']
 */
export function splitList(text: string, name: string): string[] {
  if (text.trim() === '') return [];
  const items = text.split(',').map((item) => item.trim());
  const empty = items.indexOf('');
  if (empty !== -1) throw new SandboxConfigError(`${name}: item ${empty + 1} of "${text}" is empty`);
  return items;
}

/** Parses a comma-separated list of durations, e.g. `10s,1m,5m` (blank text: none). */
export function parseDurationList(value: string | readonly Duration[], name = 'durations'): number[] {
  const items = typeof value === 'string' ? splitList(value, name) : value;
  return items.map((item, index) => parseDuration(item, `${name}[${index}]`));
}

/** Formats milliseconds the way parseDuration reads them, choosing the largest exact unit. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit]!;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * A time still to wait, for a person to read: to the nearest second, in units from days down to
 * seconds (`27m54s`, `5m`); under a second, milliseconds. On a real clock the time left is
 * rarely a round number (`1673981ms`).
 */
export function formatTimeLeft(ms: number): string {
  if (ms < UNIT_MS.s!) return `${Math.max(0, Math.round(ms))}ms`;
  let rest = Math.round(ms / UNIT_MS.s!) * UNIT_MS.s!;
  let text = '';
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit]!;
    if (rest >= size) {
      text += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return text;
}
