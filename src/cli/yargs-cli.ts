import { readFileSync } from 'node:fs';
import yargs, { type Argv, type MiddlewareFunction } from 'yargs';
import { exitOnUsersMistake } from './exit-on-mistake.js';
import { camelName, ENV_PREFIX, emptyValue, onCommandLine, readBoolean, readChoice } from './flags.js';
import { lazyCommand } from './lazy-command.js';
import { serveCommand } from './serve.js';
import { type CommandKnown, usageError } from './usage-error.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Every command but `serve`, imported when it runs (see lazy-command.ts and docs/decisions/0035). */
export const LAZY_COMMANDS = [
  lazyCommand(
    'scenario <command>',
    'List, check and play scenarios: scripted stories of webhook events',
    async () => (await import('./scenario.js')).scenarioCommand,
  ),
  lazyCommand(
    'openapi',
    'Print the OpenAPI 3.1 document of the endpoints, the control API and the webhook events',
    async () => (await import('./openapi.js')).openApiCommand,
  ),
  lazyCommand(
    'client-check',
    "Run your client (a test suite, a sync script) against a sandbox that puts the service's hard cases in its way, and judge its conduct",
    async () => (await import('./client-check.js')).clientCheckCommand,
  ),
  lazyCommand('mcp', 'Serve the sandbox to coding agents: an MCP server over stdio', async () => (await import('./mcp.js')).mcpCommand),
  lazyCommand(
    'listen',
    "Print each webhook delivery attempt of a running dev server as it happens; --forward-to points the connections' webhooks at your receiver",
    async () => (await import('./listen.js')).listenCommand,
  ),
  lazyCommand(
    'trigger [what]',
    'Fire one webhook event on a running dev server (contact.created, deal.updated, connection.ready…) and print what the receiver answered',
    async () => (await import('./trigger.js')).triggerCommand,
  ),
];

/**
 * The `crm-sandbox` command, read by yargs (main.ts reads a plain `serve` without it). Options can
 * also come from CRM_SANDBOX_* environment variables. `args` are those after the program's name.
 */
export async function runWithYargs(args: string[]): Promise<void> {
  // What the command being parsed knows, kept by a middleware for a usage error found after it.
  let known: CommandKnown | undefined;
  const fail = (message: string, error: Error | undefined): never => {
    // A value an option's own check refused (yargs wraps it in a YError): printed as it is, exit 2.
    if (error?.name === 'YError' && !/^Not enough arguments following: /.test(error.message)) {
      console.error(`crm-sandbox: ${error.message}`);
      process.exit(2);
    }
    if (error && error.name !== 'YError') throw error;
    // yargs's own usage errors: one line naming the mistake and what was likely meant, no help dump (exit 2).
    console.error(`crm-sandbox: ${usageError(error?.message ?? message, args, known ?? { path: topCommand(args), options: [], commands: [] })}`);
    process.exit(2);
  };
  try {
    const cli = yargs(args);
    skipHelpCache(cli);
    await cli
      .scriptName('crm-sandbox')
      // Usage errors are matched in English (usage-error.ts), and every other message is English too.
      .locale('en')
      // Option values stay the text given (no `1e3` → 1000): the checks in flags.ts read them and quote them when refused.
      .parserConfiguration({ 'parse-numbers': false })
      .usage('$0 <command> [options]')
      .command(serveCommand)
      .command(LAZY_COMMANDS)
      .demandCommand(1, 'Name a command: serve, listen, trigger, scenario, openapi, client-check or mcp')
      .env(ENV_PREFIX)
      .middleware(
        asMiddleware((_argv, command) => {
          known = commandKnown(command);
        }),
        true,
      )
      .middleware(asMiddleware(ownEnvironmentOnly), true)
      .middleware(asMiddleware(checkChoices), true)
      .middleware(asMiddleware(checkBooleans), true)
      .middleware(asMiddleware(checkEmpty), true)
      .strict()
      .version(version)
      .help()
      .alias('h', 'help')
      .epilogue(
        "Every option can also be set as an environment variable: --ready-delay is CRM_SANDBOX_READY_DELAY (a command reads only its own options' variables).",
      )
      .fail(fail)
      .parseAsync();
  } catch (error) {
    // A lazily loaded command's builder is async: a check of its options that fails rejects the parse instead of calling fail.
    if ((error as Error)?.name === 'YError') fail('', error as Error);
    exitOnUsersMistake(error);
    throw error;
  }
}

/** What yargs passes a middleware besides the arguments: itself (its types leave that out). */
interface CommandInContext {
  getOptions(): { key: Record<string, unknown>; choices: Record<string, readonly string[]>; boolean: readonly string[]; string: readonly string[] };
  getInternalMethods?(): { getContext(): { commands: string[] }; getCommandInstance(): { getCommands(): string[] } };
}

/** The command's path, options and next commands, from yargs's instance for it. */
function commandKnown(command: CommandInContext): CommandKnown {
  const internal = command.getInternalMethods?.();
  return {
    path: [...(internal?.getContext().commands ?? [])],
    options: Object.keys(command.getOptions().key).filter((option) => !/[A-Z]/.test(option)),
    commands: [...(internal?.getCommandInstance().getCommands() ?? [])],
  };
}

/** The commands named first, as far as they are commands (for a usage error found before any middleware ran). */
function topCommand(args: readonly string[]): string[] {
  const [first, second] = args.filter((arg) => !arg.startsWith('-'));
  if (first === undefined || !['serve', 'scenario', 'openapi', 'client-check', 'mcp', 'listen', 'trigger'].includes(first)) return [];
  return first === 'scenario' && second !== undefined && ['list', 'validate', 'run'].includes(second) ? [first, second] : [first];
}
type Middleware = (argv: Record<string, unknown>, cli: CommandInContext) => void;
const asMiddleware = (middleware: Middleware) => middleware as unknown as MiddlewareFunction;

/**
 * yargs's `.env()` applies every CRM_SANDBOX_* variable to every command, and `.strict()` then
 * refuses those the command has no option for: a container that sets serve's variables could not
 * run `crm-sandbox scenario list` in it. So each command keeps only its own options' variables
 * (an option given on the command line stays, for strict to report if the command lacks it).
 */
function ownEnvironmentOnly(argv: Record<string, unknown>, cli: CommandInContext): void {
  const known = cli.getOptions().key;
  for (const variable of Object.keys(process.env)) {
    if (!variable.startsWith(`${ENV_PREFIX}_`)) continue;
    // As yargs names it: CRM_SANDBOX_READY_DELAY → readyDelay (and `__` nests: A__B → a.b).
    const option = variable
      .slice(ENV_PREFIX.length + 1)
      .split('__')[0]!
      .toLowerCase()
      .replace(/_/g, '-');
    if (option in known || onCommandLine(option)) continue;
    delete argv[option];
    delete argv[camelName(option)];
  }
}

/** A value outside an option's `choices` is a bad value (exit 2, where yargs would exit 1), worded like every other check. */
function checkChoices(argv: Record<string, unknown>, cli: CommandInContext): void {
  for (const [option, choices] of Object.entries(cli.getOptions().choices)) {
    const value = argv[option];
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) readChoice(option, item, choices);
  }
}

/** Options where empty means none, as documented: `-e CRM_SANDBOX_STATE_FILE=` keeps the container's state in memory only. */
const EMPTY_MEANS_NONE = new Set(['state-file']);

/** A text option given empty (`--access-token "$TOKEN"` with TOKEN unset) is refused, saying so; the checked options say it in readText. */
function checkEmpty(argv: Record<string, unknown>, cli: CommandInContext): void {
  for (const option of new Set(cli.getOptions().string)) {
    if (!/[A-Z]/.test(option) && !EMPTY_MEANS_NONE.has(option) && typeof argv[option] === 'string' && (argv[option] as string).trim() === '')
      throw emptyValue(option);
  }
}

/** Every boolean option of the command, read again from the text given: `CRM_SANDBOX_QUIET=1` is true, `=maybe` refused (exit 2). */
function checkBooleans(argv: Record<string, unknown>, cli: CommandInContext): void {
  for (const option of new Set(cli.getOptions().boolean)) {
    if (option === 'help' || option === 'version' || /[A-Z]/.test(option)) continue;
    const value = readBoolean(option);
    if (value === undefined) continue;
    argv[option] = value;
    argv[camelName(option)] = value;
  }
}

/**
 * yargs renders the whole help text right after a command starts, in case the command fails
 * later and help is to be shown: about 70 ms of every `serve` start. Ours report their own
 * errors without help (see `fail` above), so that text is never shown; `--help` still renders
 * it when asked. Skipped quietly if a yargs version has no such hook.
 */
function skipHelpCache(cli: Argv): void {
  const usage = (cli as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } })
    .getInternalMethods?.()
    .getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}
