import type { Options } from 'yargs';
import { camelName, ENV_PREFIX, readBoolean } from './flags.js';

/**
 * A command's arguments read without yargs, when they are plain: `serve --port 0 --api-key k1`.
 * Loading and running yargs is about a sixth of every `serve` start (decision 0035); most starts
 * give a few options in their plain form, and those are read here, with the option table yargs
 * reads (defaults, `coerce` checks, choices), into what yargs would hand the command's handler.
 *
 * Anything else is left to yargs (undefined is returned), so that every message, check and
 * exit code stays yargs's: another command, `--help` or `--version`, a short flag, `--no-…`,
 * `--`, an unknown option, a positional argument, a value that starts with `-` or a quote or is
 * `true`/`false` (yargs reads those its own way), a boolean given a value, a repeated option
 * that is not a list, a nested (`__`) or help/version CRM_SANDBOX_* variable, and any
 * value a check refuses (yargs then reports it, with the same message). test/plain-args.test.ts
 * compares both readings on thousands of command lines.
 *
 * @example
 * readPlainArgs(['serve', '--port', '0'], 'serve', SERVE_OPTIONS, process.env); // { port: 0, host: '127.0.0.1', … }
 * readPlainArgs(['serve', '--help'], 'serve', SERVE_OPTIONS, process.env); // undefined: yargs prints the help
 */
export function readPlainArgs(
  args: readonly string[],
  command: string,
  options: Readonly<Record<string, Options>>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, unknown> | undefined {
  if (args[0] !== command) return undefined;
  const texts = new Map<string, string[]>();
  const named = new Set<string>();
  for (let i = 1; i < args.length; i++) {
    const match = /^--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?:=(.*))?$/s.exec(args[i]!);
    if (!match || match[1]!.startsWith('no-')) return undefined;
    const [, name, inline] = match as unknown as [string, string, string | undefined];
    const option = Object.hasOwn(options, name) ? options[name]! : undefined;
    if (!option || (named.has(name) && !option.array)) return undefined;
    named.add(name);
    if (option.type === 'boolean') {
      // Only the bare flag: `--quiet=no`, `--quiet false` are yargs's (and decision 0032's) to read.
      if (inline !== undefined) return undefined;
      continue;
    }
    const text = inline ?? args[++i];
    if (text === undefined || !isPlainValue(text)) return undefined;
    texts.set(name, [...(texts.get(name) ?? []), text]);
  }
  for (const variable of Object.keys(env)) {
    if (!variable.startsWith(`${ENV_PREFIX}_`)) continue;
    const name = variable
      .slice(ENV_PREFIX.length + 1)
      .toLowerCase()
      .replace(/_/g, '-');
    if (variable.includes('__') || YARGS_OWN.has(name)) return undefined;
    // Another command's variable (or a tool's: CRM_SANDBOX_RECORD_LOADS): yargs-cli.ts's ownEnvironmentOnly drops it too.
    if (!Object.hasOwn(options, name)) continue;
    const text = env[variable]!;
    if (named.has(name) || options[name]!.type === 'boolean') continue;
    if (!isPlainValue(text)) return undefined;
    texts.set(name, [text]);
  }
  try {
    const read: Record<string, unknown> = { _: [] };
    for (const [name, option] of Object.entries(options)) {
      const given = texts.get(name);
      let value: unknown;
      if (option.type === 'boolean') value = readBoolean(name) ?? option.default;
      else if (given !== undefined) value = option.array ? given : given.length === 1 ? given[0] : undefined;
      else value = option.default;
      if (value === undefined) continue;
      if (option.choices && !(option.choices as readonly unknown[]).includes(value)) return undefined;
      if (option.type === 'string' && typeof value === 'string' && value.trim() === '' && given !== undefined) return undefined;
      if (option.coerce) value = option.coerce(value);
      read[name] = value;
      read[camelName(name)] = value;
    }
    return read;
  } catch {
    // A check refused a value: yargs reads the arguments again and reports it as it always has.
    return undefined;
  }
}

/** Options yargs adds to every command: their variables are left to it. */
const YARGS_OWN = new Set(['help', 'h', 'version']);

/** A value yargs takes as the text given: not `-…` (a flag to it), not quoted (it strips quotes), not `true`/`false` (a boolean). */
function isPlainValue(text: string): boolean {
  return !/^[-'"]/.test(text) && text !== 'true' && text !== 'false';
}
