import { readFileSync } from 'node:fs';
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { SandboxConfigError } from '../shared/errors.js';
import { openApiCommand } from './openapi.js';
import { scenarioCommand } from './scenario.js';
import { serveCommand } from './serve.js';
// The CLI runs in Node: fixture paths from disk, webhooks over node:http.
import '../node/platform.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** The `crm-sandbox` command. Options can also come from CRM_SANDBOX_* environment variables. */
export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    const cli = yargs(hideBin(argv));
    skipHelpCache(cli);
    await cli
      .scriptName('crm-sandbox')
      .usage('$0 <command> [options]')
      .command(serveCommand)
      .command(scenarioCommand)
      .command(openApiCommand)
      .demandCommand(1, 'Name a command: serve, scenario or openapi')
      .env('CRM_SANDBOX')
      .strict()
      .version(version)
      .help()
      .alias('h', 'help')
      .epilogue('Every option can also be set as an environment variable: --ready-delay is CRM_SANDBOX_READY_DELAY.')
      .fail((message, error, cli) => {
        // A value an option's own check refused (yargs wraps it in a YError): a bad value, exit 2.
        if (error?.name === 'YError') {
          console.error(`crm-sandbox: ${error.message}`);
          process.exit(2);
        }
        if (error) throw error;
        cli.showHelp();
        console.error(`\n${message}`);
        process.exit(1);
      })
      .parseAsync();
  } catch (error) {
    // A ScenarioError is matched by name: its module is loaded only when a scenario command runs.
    if (error instanceof SandboxConfigError || (error as Error)?.name === 'ScenarioError') {
      console.error(`crm-sandbox: ${(error as Error).message}`);
      process.exit(2);
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      console.error(`crm-sandbox: cannot listen: ${(error as Error).message}`);
      process.exit(2);
    }
    throw error;
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
