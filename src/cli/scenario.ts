import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { DEFAULT_API_KEY, DEFAULT_RETRY_SCHEDULE, DEFAULT_START_TIME } from '../core/options.js';
import { ACCESS_TOKEN_PATTERN } from '../model/connection.js';
import { INTEGRATION_IDS } from '../model/integrations.js';
import { createHttpTransport } from '../node/http-transport.js';
import { createSandbox } from '../node/sandbox.js';
import { DEFAULT_MAX_WAIT, DEFAULT_REAL_MAX_WAIT, DEFAULT_RUN_TIMEOUT } from '../scenarios/defaults.js';
import { formatDuration } from '../shared/duration.js';
import { SandboxConfigError } from '../shared/errors.js';
import { Random } from '../shared/random.js';
import { flagName, onCommandLine, readChoice, readDuration, readInteger, readList, readText, readUrl } from './flags.js';
import { readCa } from './read-ca.js';
import { checkReportArgs, REPORT_OPTIONS, writeReports } from './reporters/output.js';
import { scenarioLines, scenarioSuite } from './reporters/scenario.js';
import { readRetrySchedule } from './serve.js';

/** The engine, loaded when a scenario command runs: `serve` never pays for it or for YAML. */
const engine = async () => ({
  ...(await import('../scenarios/api-target.js')),
  ...(await import('../node/scenario-files.js')),
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
    .option('webhook-url', {
      requiresArg: true,
      describe: 'Where events go (your receiver); required unless the connection or the file has one',
      coerce: (value) => readUrl('webhook-url', value),
    })
    .option('seed', {
      requiresArg: true,
      describe: "Seed of the in-process sandbox [default: the file's seed, else 1]",
      coerce: (value) => readInteger('seed', value, { min: 0 }),
    })
    .option('speed', {
      requiresArg: true,
      default: 'instant',
      describe: 'instant (virtual time jumps), realtime, or a factor such as 10 (10x real time)',
      coerce: (value) => readSpeed(value),
    })
    .option('start-time', {
      requiresArg: true,
      describe: `Where an instant run's clock starts [default: ${DEFAULT_START_TIME}; realtime: now]`,
      coerce: (value) => readTime('start-time', value),
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print one machine-readable report on stdout' })
    .option('server', {
      requiresArg: true,
      describe: 'Drive a running dev server (crm-sandbox serve) at this URL instead of an in-process sandbox',
      coerce: (value) => readUrl('server', value),
    })
    .option('api-key', {
      requiresArg: true,
      default: DEFAULT_API_KEY,
      describe: 'service-api-token to act as (of a comma-separated list, the first)',
      // A container's CRM_SANDBOX_API_KEY=k1,k2 configures serve; a run acts as the first key.
      coerce: (value) => readList('api-key', value)[0]!,
    })
    .option('connection-id', {
      requiresArg: true,
      type: 'string',
      describe: 'With --server: play on this existing connection (one your app linked) instead of linking one',
    })
    .option('access-token', {
      requiresArg: true,
      type: 'string',
      describe: 'The accessToken the linked connection gets (access_ + 40 hex), so your receiver can know it ahead',
    })
    .option('integration', {
      requiresArg: true,
      type: 'string',
      choices: INTEGRATION_IDS,
      describe: "Integration of the linked connection [default: the file's, else hubspot]",
    })
    .option('retry-schedule', {
      requiresArg: true,
      describe: `In-process: delays before each retry, or dev or service [default: service, ${DEFAULT_RETRY_SCHEDULE.join(',')}]`,
      coerce: (value) => readRetrySchedule('retry-schedule', value),
    })
    .option('attempt-timeout', {
      requiresArg: true,
      default: '10s',
      describe: 'Timeout of one delivery attempt (and of each receiver probe)',
      coerce: (value) => readDuration('attempt-timeout', value, { min: 1 }),
    })
    .option('webhook-ca', { requiresArg: true, type: 'string', describe: 'PEM file of a CA to trust for an https receiver' })
    .option('timestamps', {
      requiresArg: true,
      default: 'real',
      describe:
        'In-process: x-service-timestamp of each attempt: real (the current time, which receivers accept) or virtual (the run clock: byte-identical transcripts)',
      coerce: (value) => readChoice('timestamps', value, ['real', 'virtual'] as const),
    })
    .option('max-wait', {
      requiresArg: true,
      describe: `How long an expectation and the end of the run let sandbox time pass for deliveries [default: ${DEFAULT_MAX_WAIT} instant (milliseconds of real time), ${DEFAULT_REAL_MAX_WAIT} when time is real]`,
      coerce: (value) => readDuration('max-wait', value),
    })
    .option('timeout', {
      requiresArg: true,
      default: DEFAULT_RUN_TIMEOUT,
      describe: 'Real time the whole run may take; then it stops and reports what happened so far (0: no limit)',
      coerce: (value) => ({ text: String(value), ms: readDuration('timeout', value) }),
    })
    .options(REPORT_OPTIONS)
    .example('$0 scenario run deal-won --webhook-url http://127.0.0.1:3000/webhooks', 'Play a built-in, instantly')
    .example('$0 scenario run receiver-check --webhook-url http://127.0.0.1:3000/webhooks --access-token access_<40 hex>', 'Probe your receiver')
    .example('$0 scenario run ./my-story.yaml --server http://127.0.0.1:4010 --connection-id <id>', "Play a file on a running server's connection")
    .example(
      '$0 scenario run deal-won --webhook-url http://127.0.0.1:3000/webhooks --reporter junit --output reports/deal-won.xml',
      'Also write JUnit XML for CI',
    );

type RunArgs = ReturnType<typeof runBuilder> extends Argv<infer T> ? T : never;

/** An ISO time such as 2025-01-01T00:00:00Z, in ms. */
function readTime(option: string, value: unknown): number {
  const text = readText(option, value);
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new SandboxConfigError(`${flagName(option)} must be a time such as ${DEFAULT_START_TIME}, got ${JSON.stringify(text)}`);
  return ms;
}

/**
 * The seed of an in-process run's own sandbox: the run's seed in a namespace of the scenario's name
 * (decision 0052). A `serve` of the same seed hands out other connection ids, tokens and event ids,
 * so a receiver that keeps a dev server's connections never mistakes a run's for one of them; the
 * same scenario and seed still give the same ids on every run.
 */
export function runSandboxSeed(seed: number, scenarioName: string): number {
  return new Random(seed).fork(`scenario:${scenarioName}`).seed;
}

/** `instant` → Infinity, `realtime` → 1, `10` or `10x` → 10. */
function readSpeed(value: unknown): number {
  const text = readText('speed', value);
  if (text === 'instant') return Infinity;
  if (text === 'realtime') return 1;
  const factor = /^\d+(\.\d+)?x?$/.test(text) ? Number(text.replace(/x$/, '')) : Number.NaN;
  if (!(factor > 0))
    throw new SandboxConfigError(`${flagName('speed')} must be instant, realtime or a positive factor such as 10, got ${JSON.stringify(text)}`);
  return factor;
}

async function run(args: ArgumentsCamelCase<RunArgs>): Promise<number> {
  const { findScenario, sandboxTarget, serverTarget, runScenarioOn, progressPrinter, formatSummary } = await engine();
  const scenario = findScenario(args.scenario);
  const speed = args.speed;
  const webhookUrl = args.webhookUrl;
  const fileWebhook = scenario.definition.connection?.webhook;
  if (webhookUrl === undefined && args.connectionId === undefined && typeof fileWebhook !== 'string') {
    throw new SandboxConfigError(`${flagName('webhook-url')} is required: it is where the events go (your receiver)`);
  }
  if (args.accessToken !== undefined && !ACCESS_TOKEN_PATTERN.test(args.accessToken)) {
    throw new SandboxConfigError(
      `${flagName('access-token')} must be access_ followed by 40 lowercase hex characters, like a real one; got "${args.accessToken}"`,
    );
  }
  if (args.server === undefined && args.connectionId !== undefined) {
    throw new SandboxConfigError(
      `${flagName('connection-id')} needs --server: an in-process sandbox has no connections of yours; use --access-token to fix the token of the one it links`,
    );
  }
  if (args.server !== undefined) {
    // Only what the command line says: a container's environment may configure serve with the same variables.
    for (const option of ['seed', 'start-time', 'retry-schedule'] as const) {
      if (onCommandLine(option)) throw new SandboxConfigError(`--${option} belongs to the server: pass it to crm-sandbox serve`);
    }
    if (onCommandLine('timestamps') && args.timestamps === 'virtual') {
      throw new SandboxConfigError('--timestamps virtual: a server signs with its own real clock; leave --timestamps out with --server');
    }
    if (speed !== Infinity && speed !== 1) throw new SandboxConfigError('--speed: a server runs on its own real clock; leave --speed out with --server');
  }
  checkReportArgs(args);
  const ca = args.webhookCa === undefined ? undefined : readCa(args.webhookCa);
  const seed = (args.server === undefined ? args.seed : undefined) ?? scenario.definition.seed ?? 1;
  const realtime = speed !== Infinity;
  const sandbox =
    args.server === undefined
      ? createSandbox({
          clock: 'virtual',
          seed: runSandboxSeed(seed, scenario.name),
          startTime: args.startTime ?? (realtime ? Date.now() : DEFAULT_START_TIME),
          apiKeys: [args.apiKey],
          attemptTimeout: formatDuration(args.attemptTimeout),
          deliveryLogLimit: RUN_LOG_LIMIT,
          // The sandbox of one run, shared with no one: the caps on tenants do not apply (a repeat may go to 1,000,000).
          connectionLimit: null,
          recordLimit: null,
          pendingDeliveryLimit: null,
          // A receiver in another process checks x-service-timestamp against its own clock.
          webhookTimestamps: args.timestamps === 'virtual' ? 'clock' : 'real',
          ...(args.retrySchedule === undefined ? {} : { retrySchedule: args.retrySchedule.map(formatDuration) }),
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
  const timer =
    args.timeout.ms > 0 ? setTimeout(() => halt(`the run took longer than ${flagName('timeout')} ${args.timeout.text}`), args.timeout.ms) : undefined;
  timer?.unref();
  const timestamp = new Date().toISOString();
  const started = performance.now();
  try {
    const report = await runScenarioOn(scenario, target, {
      webhookUrl,
      connectionId: args.connectionId,
      accessToken: args.accessToken,
      integrationId: args.integration as (typeof INTEGRATION_IDS)[number] | undefined,
      maxWait: args.maxWait === undefined ? undefined : formatDuration(args.maxWait),
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
    const seconds = (performance.now() - started) / 1000;
    writeReports(
      args,
      () => scenarioSuite(report, { timestamp, seconds }),
      () => scenarioLines(report),
    );
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
