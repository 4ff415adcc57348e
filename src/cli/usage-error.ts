import { closest } from '../shared/closest.js';

/** What the command being parsed knows, as yargs had it before it validated the arguments. */
export interface CommandKnown {
  /** The command path: `['scenario', 'run']`; `[]` at the top. */
  path: readonly string[];
  /** Its options' names (kebab case). */
  options: readonly string[];
  /** The commands it takes next: `['run', 'list', 'validate']` after `scenario`; `[]` for none. */
  commands: readonly string[];
}

/**
 * yargs's usage error as one line that names the user's mistake and what was likely meant,
 * instead of the help text with the error at its bottom (decision 0033):
 *
 * - `unknown option --prot; did you mean --port? See crm-sandbox serve --help`
 * - `unknown command srve; did you mean serve? See crm-sandbox --help`
 * - `client-check runs the command given after --: crm-sandbox client-check -- npx tsx sync-users.ts`
 * - `--access-token was given no value (an unset or empty variable, likely); …`
 *
 * `args` are the arguments as given (after the program's name). English messages of yargs are
 * matched (the CLI sets its locale to English); any other is passed on, with the help to see.
 */
export function usageError(message: string, args: readonly string[], known: CommandKnown): string {
  const see = `see crm-sandbox${known.path.map((word) => ` ${word}`).join('')} --help`;
  const beforeDashes = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;

  const empty = /^Not enough arguments following: (.+)$/.exec(message);
  if (empty) return `--${empty[1]} was given no value (an unset or empty variable, likely): give it one; ${see}`;

  if (/^Not enough non-option arguments/.test(message)) return `${known.path.join(' ')} is missing its argument; ${see}`;

  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  // A command word where the command takes one (`scenario rn`), though yargs names a later word.
  if (unknown && known.commands.length > 0) {
    const word = beforeDashes.filter((arg) => !arg.startsWith('-'))[known.path.length];
    if (word !== undefined && !known.commands.includes(word)) return unknownCommand(word, known.commands, see);
  }
  if (!unknown) return `${message.replace(/\.$/, '')}; ${see}`;
  const words = unknown[1]!.split(', ');
  const flags = words.filter((word) => isFlag(word, beforeDashes));
  if (flags.length > 0) {
    const first = flags[0]!;
    const dashes = first.length === 1 ? '-' : '--';
    const meant = closest(
      first,
      known.options.filter((option) => option.length > 1),
    );
    const more =
      flags.length > 1
        ? ` (and ${flags
            .slice(1)
            .map((flag) => (flag.length === 1 ? `-${flag}` : `--${flag}`))
            .join(', ')})`
        : '';
    return `unknown option ${dashes}${first}${more}${suggest(meant && `--${meant}`, see)}`;
  }
  const positionals = words.filter((word) => !isFlag(word, beforeDashes));
  if (known.path[0] === 'client-check') {
    return `client-check runs the command given after --: crm-sandbox client-check [options] -- ${positionals.join(' ')}`;
  }
  if (known.path.length === 0) return unknownCommand(positionals[0]!, known.commands, see);
  return `${known.path.join(' ')} takes no argument ${JSON.stringify(positionals[0])}${positionals.length > 1 ? ` (nor ${positionals.slice(1).join(', ')})` : ''}; ${see}`;
}

function unknownCommand(word: string, commands: readonly string[], see: string): string {
  const meant = closest(word, commands);
  return `unknown command ${word}${meant ? '' : ` (the commands: ${commands.join(', ')})`}${suggest(meant, see)}`;
}

/** `; did you mean --port? See crm-sandbox serve --help`, or `; see …` when nothing is near. */
function suggest(meant: string | undefined, see: string): string {
  return meant ? `; did you mean ${meant}? S${see.slice(1)}` : `; ${see}`;
}

/** Whether yargs's unknown word was given as a flag (`--prot`, `--prot=1`, `--no-prot`, `-x`), not as a positional. */
function isFlag(word: string, args: readonly string[]): boolean {
  return args.some((arg) => arg === `--${word}` || arg.startsWith(`--${word}=`) || arg === `--no-${word}` || arg === `-${word}`);
}
