import { readFileSync } from 'node:fs';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { DEFAULT_API_KEY } from '../core/options.js';
import { startDevServer } from '../node/dev-server.js';
import { SandboxConfigError } from '../shared/errors.js';
import { onCommandLine, readInteger, readUrl } from './flags.js';
import { createLineWriter } from './line-writer.js';
import { addressOptions, faultOptions, quietOption, sandboxFromArgs, sandboxOptions } from './serve.js';

const builder = (yargs: Argv) =>
  faultOptions(
    sandboxOptions(
      addressOptions(
        yargs
          .option('server', {
            requiresArg: true,
            describe: 'Drive a running dev server (crm-sandbox serve) at this URL instead of an in-process sandbox; give its --api-key',
            coerce: (value) => readUrl('server', value),
          })
          .option('clock', {
            requiresArg: true,
            type: 'string',
            choices: ['virtual', 'real'] as const,
            describe: 'Clock of the in-process sandbox: virtual moves only with the advance_clock tool [default: virtual; real with --port]',
          })
          .option('port', {
            requiresArg: true,
            describe:
              'Also serve the in-process sandbox over HTTP on this port (0 picks a free one), so your app sees the state the agent does [default: none]',
            coerce: (value) => readInteger('port', value, { min: 0, max: 65535 }),
          }),
      ).option('quiet', { ...quietOption, describe: 'Do not log the requests of --port (on stderr)' }),
    ),
  )
    .example('$0 mcp', 'An in-process sandbox on a virtual clock, for an MCP client (stdio)')
    .example('$0 mcp --port 4010', 'The same, also served on http://127.0.0.1:4010 (on the real clock) for your app')
    .example('$0 mcp --server http://127.0.0.1:4010 --api-key sandbox-api-key', 'Drive a running dev server')
    .epilogue(
      'An MCP server over stdio: stdout carries the protocol, logs go to stderr. The tools act as the first --api-key. Configure it in an MCP client (see the README, "For coding agents").',
    );

type McpArgs = ReturnType<typeof builder> extends Argv<infer T> ? T : never;

/** Options the tools may use with --server; every other one configures an in-process sandbox. */
const SERVER_MODE_OPTIONS = new Set(['server', 'api-key', 'admin-key']);

/**
 * With --server, an option of the in-process sandbox typed on the command line is refused (the
 * server has its own); the same options from CRM_SANDBOX_* variables are left alone, as a
 * container that configures serve with them may run `crm-sandbox mcp --server` too.
 */
function refuseInProcessOptions(args: Record<string, unknown>): void {
  for (const option of Object.keys(args)) {
    if (!/^[a-z][a-z-]*$/.test(option) || SERVER_MODE_OPTIONS.has(option)) continue;
    if (onCommandLine(option))
      throw new SandboxConfigError(`--${option} configures an in-process sandbox: with --server, pass it to the server's crm-sandbox serve`);
  }
}

/**
 * Resolves when the MCP client is gone (stdin closed) or the process is told to stop; then a
 * second signal ends the process at once, as signals do without a listener.
 */
function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (why: string) => {
      process.stdin.off('end', onEnd);
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerminate);
      resolve(why);
    };
    const onEnd = () => stop('stdin closed');
    const onInterrupt = () => stop('SIGINT');
    const onTerminate = () => stop('SIGTERM');
    process.stdin.once('end', onEnd);
    process.once('SIGINT', onInterrupt);
    process.once('SIGTERM', onTerminate);
  });
}

/**
 * `mcp --port P` where P is taken. A sandbox answering there (`crm-sandbox serve`, as the README
 * runs it beside its MCP configuration) is driven as `--server` drives one, said on stderr; any
 * other program there leaves the MCP server without a sandbox: it still answers `initialize` (its
 * instructions, and every tool, say why), and says it on stderr in one line naming `--server`.
 */
async function besideARunningServer(args: ArgumentsCamelCase<McpArgs>, apiKey: string, version: string, log: (line: string) => void): Promise<void> {
  const [{ serverApi, unavailableApi }, { serveOverStdio }] = await Promise.all([import('../mcp/api.js'), import('../mcp/server.js')]);
  const host = args.host === '0.0.0.0' || args.host === '::' ? '127.0.0.1' : args.host.includes(':') ? `[${args.host}]` : args.host;
  const url = `http://${host}:${args.port}`;
  const ownOptions = Object.keys(args).filter(
    (option) => /^[a-z][a-z-]*$/.test(option) && !['port', 'host', 'api-key', 'admin-key', 'quiet'].includes(option) && onCommandLine(option),
  );
  let mcp: Awaited<ReturnType<typeof serveOverStdio>>;
  if (await isSandbox(url)) {
    mcp = await serveOverStdio(serverApi(url, apiKey, args.adminKey), { version, url });
    log(
      `a sandbox already answers on ${url}: attaching to it, as --server ${url} does (the tools act as API key ${apiKey}; its own options hold` +
        (ownOptions.length > 0 ? `, not --${ownOptions.join(', --')}` : '') +
        ')',
    );
  } else {
    const problem = `port ${args.port} is taken by another program, not a crm-sandbox: stop it, give mcp another --port, or --server URL to drive a running sandbox`;
    mcp = await serveOverStdio(unavailableApi(apiKey, problem), { version, problem });
    log(problem);
  }
  log(`stopping: ${await untilStopped()}`);
  await mcp.close();
}

/** Whether a crm-sandbox answers at `url` (its health route's answer), within two seconds. */
async function isSandbox(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/sandbox/health`, { signal: AbortSignal.timeout(2_000) });
    return response.ok && ((await response.json()) as { status?: unknown }).status === 'ok';
  } catch {
    return false;
  }
}

export const mcpCommand: CommandModule<object, McpArgs> = {
  command: 'mcp',
  describe: 'Serve the sandbox to coding agents: an MCP server over stdio',
  builder,
  handler: async (args: ArgumentsCamelCase<McpArgs>) => {
    // stdout is the protocol's: whatever writes a line there (a library's console.log) would break it.
    console.log = console.error;
    console.info = console.error;
    const log = (line: string) => process.stderr.write(`crm-sandbox mcp: ${line}\n`);
    const apiKey = args.apiKey?.[0] ?? DEFAULT_API_KEY;
    // The SDK and the tools load here, from a chunk of their own: the other commands never pay for them.
    const [{ inProcessApi, serverApi }, { serveOverStdio }] = await Promise.all([import('../mcp/api.js'), import('../mcp/server.js')]);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    if (args.server !== undefined) {
      refuseInProcessOptions(args);
      const mcp = await serveOverStdio(serverApi(args.server, apiKey, args.adminKey), { version, url: args.server });
      log(`driving the dev server at ${args.server} as API key ${apiKey}`);
      log(`stopping: ${await untilStopped()}`);
      await mcp.close();
      return;
    }
    // Checked against its choices by main's middleware.
    const clock = (args.clock as 'virtual' | 'real' | undefined) ?? (args.port === undefined ? 'virtual' : 'real');
    // Deliveries go to receivers in other processes, which check x-service-timestamp against their own clock.
    const sandbox = sandboxFromArgs(args, { clock, ...(clock === 'virtual' ? { webhookTimestamps: 'real' as const } : {}) });
    const requestLog = args.quiet ? undefined : createLineWriter(process.stderr);
    let http: Awaited<ReturnType<typeof startDevServer>> | undefined;
    if (args.port !== undefined) {
      try {
        http = await startDevServer(sandbox, {
          port: args.port,
          host: args.host,
          ...(args.allowedHost ? { allowedHosts: args.allowedHost } : {}),
          ...(requestLog ? { log: requestLog } : {}),
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
        // The port is taken: by a sandbox (the README's `serve`), which the tools then drive, or by another program.
        sandbox.close();
        await besideARunningServer(args, apiKey, version, log);
        return;
      }
    }
    const mcp = await serveOverStdio(inProcessApi(sandbox, apiKey), { version, url: http?.url });
    const { options } = sandbox;
    log(
      `in-process sandbox, seed ${options.seed}, ${clock} clock${clock === 'virtual' ? ' (the advance_clock tool moves it)' : ''}; the tools act as API key ${apiKey}` +
        (http ? `; served on ${http.url} too (send service-api-token: ${apiKey})` : ''),
    );
    log(`stopping: ${await untilStopped()}`);
    requestLog?.flush();
    await mcp.close();
    if (http) await http.close();
    else sandbox.close();
  },
};
