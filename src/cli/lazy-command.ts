import type { Argv, CommandModule } from 'yargs';

/**
 * A command whose module is imported only when it is the one that runs: its builder (async, which
 * yargs waits for) and its handler load it. `serve` thus never evaluates client-check's, MCP's,
 * the scenario runner's or the OpenAPI command's modules. The name and description stay here, for
 * `crm-sandbox --help`; test/cli-lazy.test.ts checks they are the module's own.
 *
 * @example
 * cli.command(lazyCommand('mcp', 'Serve the sandbox to coding agents: an MCP server over stdio', async () => (await import('./mcp.js')).mcpCommand));
 */
export function lazyCommand<U>(command: string, describe: string, load: () => Promise<CommandModule<object, U>>): CommandModule {
  let loaded: Promise<CommandModule> | undefined;
  const module = () => (loaded ??= load() as unknown as Promise<CommandModule>);
  return {
    command,
    describe,
    builder: async (yargs: Argv) => {
      const { builder } = await module();
      if (typeof builder === 'function') return builder(yargs);
      return builder ? yargs.options(builder) : yargs;
    },
    handler: async (args) => (await module()).handler(args),
  };
}
