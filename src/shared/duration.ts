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

/** Parses a comma-separated list of durations, e.g. `10s,1m,5m`. */
export function parseDurationList(value: string | readonly Duration[], name = 'durations'): number[] {
  const items = typeof value === 'string' ? value.split(',').filter((part) => part.trim() !== '') : value;
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
