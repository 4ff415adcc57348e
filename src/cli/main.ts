import type { ArgumentsCamelCase } from 'yargs';
import { exitOnUsersMistake } from './exit-on-mistake.js';
import { setCommandLine } from './flags.js';
import { readPlainArgs } from './plain-args.js';
import { SERVE_OPTIONS, type ServeArgs, serveCommand } from './serve.js';

/**
 * The `crm-sandbox` command. A `serve` given only plain options runs without yargs (plain-args.ts:
 * loading and running yargs was about a sixth of its start); every other command line, `--help`
 * and every mistake are read by yargs (yargs-cli.ts), which is imported then.
 */
export async function main(argv: string[] = process.argv): Promise<void> {
  const args = argv.slice(2);
  setCommandLine(args, process.env);
  const serveArgs = readPlainArgs(args, 'serve', SERVE_OPTIONS, process.env);
  if (serveArgs === undefined) return (await import('./yargs-cli.js')).runWithYargs(args);
  try {
    await serveCommand.handler(serveArgs as unknown as ArgumentsCamelCase<ServeArgs>);
  } catch (error) {
    exitOnUsersMistake(error);
    throw error;
  }
}
