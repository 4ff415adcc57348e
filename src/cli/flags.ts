import { parseBoolean } from '../shared/boolean.js';
import { parseDuration, requireUnit, splitList } from '../shared/duration.js';
import { SandboxConfigError } from '../shared/errors.js';

/**
 * The CLI's checks of option values, so that every command words them the same way: a message
 * names the option as the user gave it (`--ready-delay`, or `CRM_SANDBOX_READY_DELAY` when the
 * value came from the environment) and quotes the value given. Each reader takes the option's
 * name and the value yargs read (the text, a default, or a list when the flag was repeated) and
 * returns the checked value or throws a SandboxConfigError (exit 2). Use them as yargs `coerce`
 * functions or in a handler:
 *
 * @example .option('port', { default: 4010, coerce: (value) => readInteger('port', value, { min: 0, max: 65535 }) })
 */

/** The prefix of the environment variables: `--ready-delay` is `CRM_SANDBOX_READY_DELAY`. */
export const ENV_PREFIX = 'CRM_SANDBOX';

/** What the CLI was started with: set by main() before it parses. */
let commandLine: { args: readonly string[]; env: Readonly<Record<string, string | undefined>> } = { args: process.argv.slice(2), env: process.env };

/** Tells the readers what the CLI parses, so they can say where a value came from. */
export function setCommandLine(args: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): void {
  commandLine = { args, env };
}

/** `ready-delay` → `CRM_SANDBOX_READY_DELAY`. */
export function envName(option: string): string {
  return `${ENV_PREFIX}_${option.toUpperCase().replace(/-/g, '_')}`;
}

/** `ready-delay` → `readyDelay`: yargs accepts (and keys its results by) both spellings. */
export function camelName(option: string): string {
  return option.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Whether the arguments name the option (`--ready-delay`, `--ready-delay=…`, `--no-ready-delay`, `--readyDelay`). */
export function onCommandLine(option: string, args: readonly string[] = commandLine.args): boolean {
  const names = [option, camelName(option)];
  for (const arg of args) {
    if (arg === '--') return false;
    const name = /^--(?:no-)?([^=]+)/.exec(arg)?.[1];
    if (name !== undefined && names.includes(name)) return true;
  }
  return false;
}

/**
 * How messages name an option: `--ready-delay`, or `CRM_SANDBOX_READY_DELAY` when the value came
 * from there (yargs takes the environment's value only when the arguments do not give one).
 */
export function flagName(option: string): string {
  const variable = envName(option);
  return commandLine.env[variable] !== undefined && !onCommandLine(option) ? variable : `--${option}`;
}

/**
 * The one text given for an option: refuses a repeated flag, a flag without its value, and an
 * empty value (`--access-token "$TOKEN"` with TOKEN unset), unless `allowEmpty` (where empty
 * means none: `--retry-schedule ""`).
 */
export function readText(option: string, value: unknown, { allowEmpty = false }: { allowEmpty?: boolean } = {}): string {
  if (Array.isArray(value)) {
    throw new SandboxConfigError(
      `${flagName(option)} is given ${value.length} times (${value.map((item) => JSON.stringify(String(item))).join(', ')}); give it once`,
    );
  }
  if (value === true || value === undefined) throw new SandboxConfigError(`${flagName(option)} needs a value`);
  const text = String(value);
  if (!allowEmpty && text.trim() === '') throw emptyValue(option);
  return text;
}

/** `--port was given an empty value (an unset variable, likely)`, or for the environment: `CRM_SANDBOX_PORT is set but empty`. */
export function emptyValue(option: string): SandboxConfigError {
  const name = flagName(option);
  return new SandboxConfigError(
    name.startsWith('--')
      ? `${name} was given an empty value (an unset variable, likely): give it one`
      : `${name} is set but empty: give it a value, or unset it`,
  );
}

export interface Range {
  min: number;
  /** Default: no bound (integers: the largest safe one). */
  max?: number;
}

/** A whole number in a range: `--port must be an integer from 0 to 65535, got "abc"`. */
export function readInteger(option: string, value: unknown, range: Range): number {
  const text = readText(option, value).trim();
  const number = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (!(number >= range.min && number <= max)) {
    const wanted = range.max === undefined ? `an integer of ${range.min} or more` : `an integer from ${range.min} to ${range.max}`;
    throw new SandboxConfigError(`${flagName(option)} must be ${wanted}, got ${JSON.stringify(text)}`);
  }
  return number;
}

/** A cap: a whole number of 1 or more, or `none` for no cap (null): `--record-limit must be an integer of 1 or more, or none, got "0"`. */
export function readLimit(option: string, value: unknown): number | null {
  const text = readText(option, value).trim();
  if (text === 'none') return null;
  const number = /^\+?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(number >= 1 && number <= Number.MAX_SAFE_INTEGER))
    throw new SandboxConfigError(`${flagName(option)} must be an integer of 1 or more, or none, got ${JSON.stringify(text)}`);
  return number;
}

/** A decimal number in a range: `--error-rate must be a number from 0 to 1, got "2"`. */
export function readNumber(option: string, value: unknown, range: Range): number {
  const text = readText(option, value).trim();
  const number = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
  const max = range.max ?? Infinity;
  if (!(number >= range.min && number <= max)) {
    const wanted = range.max === undefined ? `a number of ${range.min} or more` : `a number from ${range.min} to ${range.max}`;
    throw new SandboxConfigError(`${flagName(option)} must be ${wanted}, got ${JSON.stringify(text)}`);
  }
  return number;
}

/**
 * A duration with its unit, in milliseconds: `10s`, `500ms`; a bare number other than 0 is
 * refused (`--ready-delay needs a unit: 10ms, 10s, …; got "10"`), since 10 could mean either.
 */
export function readDuration(option: string, value: unknown, { min = 0 }: { min?: number } = {}): number {
  const name = flagName(option);
  const text = readText(option, value);
  requireUnit(text, name);
  const ms = parseDuration(text, name);
  if (ms < min) throw new SandboxConfigError(`${name} must be at least ${min}ms, got ${JSON.stringify(text)}`);
  return ms;
}

/** Comma-separated durations, each with its unit (`10s,1m,5m`); blank text is none; an empty item is refused. */
export function readDurationList(option: string, value: unknown): number[] {
  const name = flagName(option);
  return splitList(readText(option, value, { allowEmpty: true }), name).map((item, index) => {
    requireUnit(item, `${name} item ${index + 1}`);
    return parseDuration(item, `${name} item ${index + 1}`);
  });
}

/**
 * Items of a repeatable flag, each value also split on commas (so an environment variable can
 * list several: `CRM_SANDBOX_API_KEY=k1,k2`), trimmed; an empty item or no item is refused.
 */
export function readList(option: string, value: unknown): string[] {
  const name = flagName(option);
  const values = Array.isArray(value) ? value : [readText(option, value)];
  return values.flatMap((text) => {
    const items = splitList(String(text), name);
    if (items.length === 0) throw emptyValue(option);
    return items;
  });
}

/** An absolute http or https URL: `--server-url must be an absolute http or https URL, got "notaurl"`. */
export function readUrl(option: string, value: unknown): string {
  const text = readText(option, value);
  let protocol: string | undefined;
  try {
    protocol = new URL(text).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new SandboxConfigError(`${flagName(option)} must be an absolute http or https URL, got ${JSON.stringify(text)}`);
  return text;
}

/** One of a fixed set: `--integration must be one of salesforce, hubspot, …; got "sap"`. */
export function readChoice<T extends string>(option: string, value: unknown, choices: readonly T[]): T {
  const text = readText(option, value);
  if (!(choices as readonly string[]).includes(text)) {
    throw new SandboxConfigError(`${flagName(option)} must be one of ${choices.join(', ')}; got ${JSON.stringify(text)}`);
  }
  return text as T;
}

/**
 * A boolean option's value, read from the text given, as every boolean is (decision 0032):
 * `--quiet`, `--no-quiet`, `--quiet=yes`, `--quiet false`, or `CRM_SANDBOX_QUIET=1` when the
 * command line does not name it; `true/false/1/0/yes/no` in any case, anything else refused
 * naming the flag or the variable. yargs reads only `true` (so `CRM_SANDBOX_QUIET=1` was false):
 * the text is read again here. Undefined when neither gives it (the default stands).
 */
export function readBoolean(option: string, args: readonly string[] = commandLine.args): boolean | undefined {
  const names = [option, camelName(option)];
  let value: boolean | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    const match = /^--(no-)?([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!match || !names.includes(match[2]!)) continue;
    const [, negated, , text] = match;
    const next = args[i + 1];
    // yargs takes a following `true` or `false` as the flag's value.
    const given = text ?? (next === 'true' || next === 'false' ? next : undefined);
    const read = given === undefined ? true : parseBoolean(given, `--${negated ?? ''}${option}`);
    value = negated ? !read : read;
  }
  if (value !== undefined) return value;
  const variable = envName(option);
  const text = commandLine.env[variable];
  return text === undefined ? undefined : parseBoolean(text, variable);
}
