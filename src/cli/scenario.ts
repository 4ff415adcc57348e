import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { SandboxConfigError } from '../shared/errors.js';
import { readCa } from './read-ca.js';
import { DEFAULT_API_KEY, DEFAULT_RETRY_SCHEDULE, DEFAULT_START_TIME } from '../core/options.js';
import { createSandbox } from '../core/sandbox.js';
import { ACCESS_TOKEN_PATTERN } from '../model/connection.js';
import { INTEGRATION_IDS } from '../model/integrations.js';
import { DEFAULT_MAX_WAIT, DEFAULT_REAL_MAX_WAIT, DEFAULT_RUN_TIMEOUT } from '../scenarios/defaults.js';
import { parseDuration } from '../shared/duration.js';
import { createHttpTransport } from '../webhooks/http-transport.js';

/** The engine, loaded when a scenario command runs: `serve` never pays for it or for YAML. */
const engine = async () => ({
  ...(await import('../scenarios/api-target.js')),
  ...(await import('../scenarios/load.js')),
  ...(await import('../scenarios/runner.js')),
  ...(await import('./scenario-output.js')),
});



/** Finished deliveries an in-process run keeps: all of them, so the report sees every event (bulk-import makes 10,000). */
const RUN_LOG_LIMIT = 10_000_000;

/** Writes and waits until it is flushed: a piped 10 MB report must not be cut by the exit. */
const write = (stream: NodeJS.WriteStream, text: string) => new Promise<void>((resolve) => stream.write(text, () => resolve()));

const runBuilder = (yargs: Argv) =>
  yargs
    .positional('scenario', { type: 'string', demandOption: true, describe: 'A built-in name (see `scenario list`) or a scenario file' })
    .option('webhook-url', { type: 'string', describe: 'Where events go (your receiver); required unless the connection or the file has one' })
    .option('seed', { type: 'number', describe: "Seed of the in-process sandbox [default: the file's seed, else 1]" })
    .option('speed', { type: 'string', default: 'instant', describe: 'instant (virtual time jumps), realtime, or a factor such as 10 (10x real time)' })
    .option('start-time', { type: 'string', describe: `Where an instant run's clock starts [default: ${DEFAULT_START_TIME}; realtime: now]` })
    .option('json', { type: 'boolean', default: false, describe: 'Print one machine-readable report on stdout' })
    .option('server', { type: 'string', describe: 'Drive a running dev server (crm-sandbox serve) at this URL instead of an in-process sandbox' })
    .option('api-key', { type: 'string', default: DEFAULT_API_KEY, describe: 'service-api-token to act as' })
    .option('connection-id', { type: 'string', describe: 'With --server: play on this existing connection (one your app linked) instead of linking one' })
    .option('access-token', { type: 'string', describe: 'The accessToken the linked connection gets (access_ + 40 hex), so your receiver can know it ahead' })
    .option('integration', { type: 'string', choices: INTEGRATION_IDS, describe: "Integration of the linked connection [default: the file's, else hubspot]" })
    .option('retry-schedule', { type: 'string', describe: `In-process: delays before each retry [default: ${DEFAULT_RETRY_SCHEDULE.join(',')}]` })
    .option('attempt-timeout', { type: 'string', default: '10s', describe: 'Timeout of one delivery attempt (and of each receiver probe)' })
    .option('webhook-ca', { type: 'string', describe: 'PEM file of a CA to trust for an https receiver' })
    .option('timestamps', {
      type: 'string',
      default: 'real',
      describe: 'In-process: x-service-timestamp of each attempt: real (the current time, which receivers accept) or virtual (the run clock: byte-identical transcripts)',
    })
    .option('max-wait', {
      type: 'string',
      describe: `How long an expectation and the end of the run let sandbox time pass for deliveries [default: ${DEFAULT_MAX_WAIT} instant (milliseconds of real time), ${DEFAULT_REAL_MAX_WAIT} when time is real]`,
    })
    .option('timeout', { type: 'string', default: DEFAULT_RUN_TIMEOUT, describe: 'Real time the whole run may take; then it stops and reports what happened so far (0: no limit)' })
    .example('$0 scenario run deal-won --webhook-url http://127.0.0.1:3000/webhooks', 'Play a built-in, instantly')
    .example('$0 scenario run receiver-check --webhook-url http://127.0.0.1:3000/webhooks --access-token access_<40 hex>', 'Probe your receiver')
    .example('$0 scenario run ./my-story.yaml --server http://127.0.0.1:4010 --connection-id <id>', "Play a file on a running server's connection");

type RunArgs = ReturnType<typeof runBuilder> extends Argv<infer T> ? T : never;

/** `instant` → Infinity, `realtime` → 1, `10` or `10x` → 10. */
function parseSpeed(text: string): number {
  if (text === 'instant') return Infinity;
  if (text === 'realtime') return 1;
  const factor = Number(text.replace(/x$/, ''));
  if (!Number.isFinite(factor) || factor <= 0) throw new SandboxConfigError(`--speed must be instant, realtime or a positive factor such as 10, got "${text}"`);
  return factor;
}

function checkUrl(text: string | undefined, name: string): string | undefined {
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new SandboxConfigError(`${name} must be an absolute http or https URL, got "${text}"`);
  return text;
}

async function run(args: ArgumentsCamelCase<RunArgs>): Promise<number> {
  const { findScenario, sandboxTarget, serverTarget, runScenarioOn, progressPrinter, formatSummary } = await engine();
  const scenario = findScenario(args.scenario);
  const speed = parseSpeed(args.speed);
  const webhookUrl = checkUrl(args.webhookUrl, '--webhook-url');
  checkUrl(args.server, '--server');
  const fileWebhook = scenario.definition.connection?.webhook;
  if (webhookUrl === undefined && args.connectionId === undefined && typeof fileWebhook !== 'string') {
    throw new SandboxConfigError('--webhook-url is required: it is where the events go (your receiver)');
  }
  if (args.accessToken !== undefined && !ACCESS_TOKEN_PATTERN.test(args.accessToken)) {
    throw new SandboxConfigError(`--access-token must be access_ followed by 40 lowercase hex characters, like a real one; got "${args.accessToken}"`);
  }
  if (args.server === undefined && args.connectionId !== undefined) {
    throw new SandboxConfigError('--connection-id needs --server: an in-process sandbox has no connections of yours; use --access-token to fix the token of the one it links');
  }
  if (args.timestamps !== 'real' && args.timestamps !== 'virtual') throw new SandboxConfigError(`--timestamps must be real or virtual, got "${args.timestamps}"`);
  if (args.maxWait !== undefined) parseDuration(args.maxWait, '--max-wait');
  const timeoutMs = parseDuration(args.timeout, '--timeout');
  if (args.server !== undefined) {
    for (const [flag, value] of [['--seed', args.seed], ['--start-time', args.startTime], ['--retry-schedule', args.retrySchedule]] as const) {
      if (value !== undefined) throw new SandboxConfigError(`${flag} belongs to the server: pass it to crm-sandbox serve`);
    }
    if (args.timestamps === 'virtual') throw new SandboxConfigError('--timestamps virtual: a server signs with its own real clock; leave --timestamps out with --server');
    if (speed !== Infinity && speed !== 1) throw new SandboxConfigError('--speed: a server runs on its own real clock; leave --speed out with --server');
  }
  const ca = args.webhookCa === undefined ? undefined : readCa(args.webhookCa);
  const seed = args.seed ?? scenario.definition.seed ?? 1;
  const realtime = speed !== Infinity;
  const sandbox =
    args.server === undefined
      ? createSandbox({
          clock: 'virtual',
          seed,
          startTime: args.startTime ?? (realtime ? Date.now() : DEFAULT_START_TIME),
          apiKeys: [args.apiKey],
          attemptTimeout: args.attemptTimeout,
          deliveryLogLimit: RUN_LOG_LIMIT,
          // A receiver in another process checks x-service-timestamp against its own clock.
          webhookTimestamps: args.timestamps === 'virtual' ? 'clock' : 'real',
          ...(args.retrySchedule === undefined ? {} : { retrySchedule: args.retrySchedule }),
          ...(ca === undefined ? {} : { webhookCa: ca }),
        })
      : undefined;
  const stop = new AbortController();
  const target = sandbox ? sandboxTarget(sandbox, { speed, signal: stop.signal }) : serverTarget(args.server!, args.apiKey, stop.signal);
  const progress = progressPrinter(process.stderr);
  // Ctrl+C, SIGTERM and --timeout end the run with the report of what happened so far (exit 1); a second signal exits at once.
  const halt = (reason: string) => {
    stop.abort(reason);
    sandbox?.close();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(130);
    halt(`interrupted by ${signal}`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const timer = timeoutMs > 0 ? setTimeout(() => halt(`the run took longer than --timeout ${args.timeout}`), timeoutMs) : undefined;
  timer?.unref();
  try {
    const report = await runScenarioOn(scenario, target, {
      webhookUrl,
      connectionId: args.connectionId,
      accessToken: args.accessToken,
      integrationId: args.integration as (typeof INTEGRATION_IDS)[number] | undefined,
      maxWait: args.maxWait,
      seed,
      reportSeed: sandbox ? seed : null,
      speedLabel: args.server !== undefined ? 'server' : speed === Infinity ? 'instant' : speed === 1 ? 'realtime' : `${speed}x`,
      transport: createHttpTransport({ ca }),
      probeTimeoutMs: sandbox?.options.attemptTimeoutMs ?? 10_000,
      onProgress: progress.update,
      onWarning: (message) => progress.warn(`crm-sandbox: warning: ${message}`),
      signal: stop.signal,
    });
    progress.end();
    await write(process.stdout, args.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatSummary(report)}\n`);
    return report.exitCode;
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    sandbox?.close();
  }
}


/** `crm-sandbox scenario list | validate | run`. */
export const scenarioCommand: CommandModule = {
  command: 'scenario <command>',
  describe: 'List, check and play scenarios: scripted stories of webhook events',
  builder: (yargs) =>
    yargs
      .command({
        command: 'list',
        describe: 'The built-in scenarios and what each shows',
        handler: async () => {
          const builtIns = (await engine()).listBuiltIns();
          const width = Math.max(...builtIns.map((item) => item.name.length));
          await write(process.stdout, `${builtIns.map((item) => `${item.name.padEnd(width)}  ${item.description}`).join('\n')}\n`);
        },
      })
      .command({
        command: 'validate <file>',
        describe: 'Check a scenario file without running it (exit 2 naming the step and field when it is invalid)',
        builder: (inner) => inner.positional('file', { type: 'string', demandOption: true }),
        handler: async (args) => {
          const scenario = (await engine()).loadScenarioFile(String(args.file));
          const description = scenario.description ? `: ${scenario.description}` : '';
          await write(process.stdout, `${scenario.source}: valid, ${scenario.definition.steps.length} step(s)${description}\n`);
        },
      })
      .command({
        command: 'run <scenario>',
        describe: 'Play a scenario against your webhook receiver; exit 0 when everything held, 1 when not, 2 for bad input',
        builder: runBuilder,
        handler: async (args) => {
          process.exitCode = await run(args as ArgumentsCamelCase<RunArgs>);
        },
      })
      .demandCommand(1, 'Name a scenario command: list, validate or run'),
  handler: () => undefined,
};
