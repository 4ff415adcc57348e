import * as z from 'zod';
import { SandboxConfigError } from './errors.js';

/**
 * A length of time: a number with its unit, `500ms`, `3s`, `2m`, `1h` or `1d` (`0` alone needs
 * none). The one grammar of every duration the sandbox reads: options in code, the CLI, the
 * environment, scenario files, the control API and MCP (decision 0032). A bare number such as
 * `10` is refused everywhere, as it could mean 10 ms or 10 s.
 */
export type Duration = string;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const BARE_NUMBER = /^\d+(?:\.\d+)?$/;

/** A duration's text, for JSON Schema (`pattern`) and zod: a number with its unit, or `0`. */
export const DURATION_PATTERN = '^(?:0|\\d+(?:\\.\\d+)?(?:ms|s|m|h|d))$';

/**
 * What is wrong with a value as a duration, as the end of a sentence that starts with its name
 * (`needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"`), or undefined when it is one.
 */
export function durationProblem(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  const got = typeof value === 'string' ? JSON.stringify(value) : String(value);
  if (text === undefined) {
    const kind =
      value === null || value === undefined ? String(value) : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
    return `must be a duration such as 500ms, 3s, 2m, 1h or 1d, got ${kind}`;
  }
  if (BARE_NUMBER.test(text)) return Number(text) === 0 ? undefined : `needs a unit: ${text}ms, ${text}s, ${text}m, ${text}h or ${text}d; got ${got}`;
  if (!DURATION.test(text)) return `must look like 500ms, 3s, 2m, 1h or 1d, got ${got}`;
  return undefined;
}

/**
 * The zod schema of a duration in a request body or a scenario file: it takes a number too, only
 * to refuse it with the message that says which unit to add (`needs a unit: 10ms, 10s, …; got 10`).
 * Its JSON Schema is text with {@link DURATION_PATTERN} (see `scenarioJsonSchema`).
 */
export function durationSchema(): z.ZodType<Duration> {
  return z.union([z.string(), z.number()]).superRefine((value, ctx) => {
    const problem = durationProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, input: value });
  }) as unknown as z.ZodType<Duration>;
}

/**
 * Converts a duration to whole milliseconds; anything else throws a SandboxConfigError naming
 * `name`. A number is read as its text: `0` is 0, any other is refused for want of a unit.
 *
 * @example parseDuration('2m') // 120000
 * @example parseDuration('10', '--ready-delay') // throws: --ready-delay needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"
 */
export function parseDuration(value: unknown, name = 'duration'): number {
  const problem = durationProblem(value);
  if (problem !== undefined) throw new SandboxConfigError(`${name} ${problem}`);
  const match = DURATION.exec(String(value).trim());
  return match ? Math.round(Number(match[1]) * UNIT_MS[match[2]!]!) : 0;
}

/**
 * Refuses a bare number other than 0 on either end of a range such as `100ms-2s`, quoting the
 * whole text (each end is then read with {@link parseDuration}).
 *
 * @example requireUnit('100-2s', '--latency') // throws: --latency needs a unit: 100ms, 100s, 100m, 100h or 100d; got "100-2s"
 */
export function requireUnit(text: string, name: string): void {
  // Durations are never negative, so a '-' only ever separates the two ends of a range.
  for (const end of text.split('-').map((part) => part.trim())) {
    if (BARE_NUMBER.test(end) && Number(end) !== 0) {
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
