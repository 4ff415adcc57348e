import { spawn } from 'node:child_process';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { DEFAULT_PAGE_SIZE, DEFAULT_RETRY_AFTER, parseRetryAfter } from '../client-check/client-check.js';
import { formatReport } from '../client-check/report.js';
import { parseRuleList, RULE_IDS } from '../client-check/rules.js';
import { loadClientCheckCode } from '../core/client-check-slot.js';
import { DEFAULT_API_KEY, DEFAULT_SEED } from '../core/options.js';
import { MAX_LIMIT } from '../core/routes/pagination.js';
import { startDevServer } from '../node/dev-server.js';
import { createSandbox } from '../node/sandbox.js';
import { formatDuration, requireUnit } from '../shared/duration.js';
import { SandboxConfigError } from '../shared/errors.js';
import { flagName, readDuration, readInteger, readList, readText } from './flags.js';
import { createLineWriter } from './line-writer.js';
import { type CommandRun, clientCheckLines, clientCheckSuite } from './reporters/client-check.js';
import { checkReportArgs, REPORT_OPTIONS, writeReports } from './reporters/output.js';

/** After the timeout's SIGTERM, how long the command has to exit before it is killed. */
const KILL_AFTER_MS = 5_000;

/** Writes and waits until it is flushed: a piped report must not be cut by the exit. */
const write = (stream: NodeJS.WriteStream, text: string) => new Promise<void>((resolve) => stream.write(text, () => resolve()));

const builder = (yargs: Argv) =>
  yargs
    .usage('$0 client-check [options] -- <command …>')
    .option('json', { type: 'boolean', default: false, describe: "Print the report as JSON on stdout (the command's own stdout goes to stderr)" })
    .option('rules', {
      requiresArg: true,
      describe: `Only these rules, comma-separated: ${RULE_IDS.join(', ')} [default: all]`,
      coerce: (value) => parseRuleList(readText('rules', value), flagName('rules')),
    })
    .option('strict', { type: 'boolean', default: false, describe: 'Fail the rules the run never exercised too' })
    .option('seed', {
      requiresArg: true,
      default: DEFAULT_SEED,
      describe: 'Seed of the data, the tokens and the hard cases: the same seed and requests meet the same hard cases',
      coerce: (value) => readInteger('seed', value, { min: 0 }),
    })
    .option('api-key', {
      requiresArg: true,
      default: DEFAULT_API_KEY,
      describe: 'The service-api-token the sandbox accepts, given to the command as CRM_SANDBOX_API_KEY (of a comma-separated list, the first)',
      coerce: (value) => readList('api-key', value)[0]!,
    })
    .option('page-size', {
      requiresArg: true,
      default: DEFAULT_PAGE_SIZE,
      describe: 'Most records a page of a list or search holds, whatever limit asks, so paging is exercised',
      coerce: (value) => readInteger('page-size', value, { min: 1, max: MAX_LIMIT }),
    })
    .option('retry-after', {
      requiresArg: true,
      default: DEFAULT_RETRY_AFTER,
      describe: 'Retry-After of the injected 429s: whole seconds, or a seeded range',
      coerce: (value) => readRetryAfter(value),
    })
    .option('faults', { type: 'boolean', default: true, describe: 'Inject 429s and 503s into reads now and then (seeded); --no-faults for none' })
    .option('delete-connection', {
      requiresArg: true,
      describe: 'Delete each connection this long after its exchange (5s), as DELETE /connection/connection does [default: never]',
      coerce: (value) => readDuration('delete-connection', value),
    })
    .option('initial-sync-delay', {
      requiresArg: true,
      default: '3s',
      describe: 'Exchange to INITIAL_SYNCED: reads answer 409 until then',
      coerce: (value) => readDuration('initial-sync-delay', value),
    })
    .option('ready-delay', { requiresArg: true, default: '5s', describe: 'Exchange to READY', coerce: (value) => readDuration('ready-delay', value) })
    .option('timeout', {
      requiresArg: true,
      default: '10m',
      describe: 'Real time the command may take; then it is stopped and the report printed (0: no limit)',
      coerce: (value) => ({ text: String(value), ms: readDuration('timeout', value) }),
    })
    .option('log', { type: 'boolean', default: false, describe: 'Log each request the sandbox answers, on stderr' })
    .options(REPORT_OPTIONS)
    .example('$0 client-check -- npm test', 'Run your test suite against a sandbox that puts hard cases in its way, then judge its conduct')
    .example('$0 client-check --delete-connection 5s --strict -- node sync.mjs', 'Also delete each connection mid-run; fail rules the run did not exercise')
    .example('$0 client-check --seed 7 --json -- python3 sync.py > report.json', 'Reproduce a run; a machine-readable report')
    .example('$0 client-check --reporter junit --output reports/client-check.xml -- npm test', 'Also write JUnit XML for CI: one testcase per rule')
    .epilogue(
      'The command runs with CRM_SANDBOX_URL (the sandbox, on a free port of 127.0.0.1) and CRM_SANDBOX_API_KEY in its environment. ' +
        'Exit status: 0 when the command succeeded and every exercised rule held, 1 when a rule failed or the command failed, 2 for bad usage. The rules: see the README.',
    );

type ClientCheckArgs = ReturnType<typeof builder> extends Argv<infer T> ? T : never;

/** `--retry-after 2s` or `1s-2s`: whole seconds, each with its unit. */
function readRetryAfter(value: unknown): string {
  const name = flagName('retry-after');
  const text = readText('retry-after', value);
  requireUnit(text, name);
  parseRetryAfter(text, name);
  return text;
}

async function run(args: ArgumentsCamelCase<ClientCheckArgs>): Promise<number> {
  const command = args._.slice(1).map(String);
  if (command.length === 0) throw new SandboxConfigError('client-check needs the command to run after --: crm-sandbox client-check [options] -- npm test');
  if (args.readyDelay < args.initialSyncDelay) {
    throw new SandboxConfigError(
      `${flagName('ready-delay')} (${formatDuration(args.readyDelay)}) must not be shorter than ${flagName('initial-sync-delay')} (${formatDuration(args.initialSyncDelay)})`,
    );
  }
  checkReportArgs(args);
  const apiKey = args.apiKey;
  // A sandbox for this run only: tokens from the seed too, so a seed replays the whole run.
  const sandbox = createSandbox({
    seed: args.seed,
    tokens: 'seeded',
    apiKeys: [apiKey],
    initialSyncDelay: formatDuration(args.initialSyncDelay),
    readyDelay: formatDuration(args.readyDelay),
  });
  await loadClientCheckCode(); // the core does not import client-check's code (decision 0035)
  const check = sandbox.startClientCheck({
    pageSize: args.pageSize,
    retryAfter: args.retryAfter,
    faults: args.faults,
    ...(args.deleteConnection === undefined ? {} : { deleteConnectionAfter: formatDuration(args.deleteConnection) }),
  });
  const log = args.log ? createLineWriter(process.stderr) : undefined;
  const server = await startDevServer(sandbox, { port: 0, host: '127.0.0.1', ...(log ? { log } : {}) });
  process.stderr.write(`client-check: sandbox at ${server.url} (CRM_SANDBOX_URL), API key ${apiKey} (CRM_SANDBOX_API_KEY); running: ${command.join(' ')}\n`);
  let outcome: CommandRun;
  const timestamp = new Date().toISOString();
  try {
    outcome = await runCommand(command, { ...process.env, CRM_SANDBOX_URL: server.url, CRM_SANDBOX_API_KEY: apiKey }, args.json, args.timeout);
  } catch (error) {
    await server.close();
    throw error;
  } finally {
    log?.flush();
  }
  const report = check.report(apiKey, { final: true, strict: args.strict, ...(args.rules ? { rules: args.rules } : {}) });
  await server.close();
  const commandOk = outcome.exitCode === 0 && !outcome.timedOut;
  const exitCode = report.ok && commandOk ? 0 : 1;
  const ran = commandLine(outcome).trim();
  writeReports(
    args,
    () => clientCheckSuite(report, outcome, ran, timestamp),
    () => clientCheckLines(report, ran),
  );
  await write(
    process.stdout,
    args.json
      ? `${JSON.stringify({ ...report, ok: report.ok && commandOk, command: outcome, exitCode }, null, 2)}\n`
      : `${commandLine(outcome)}\n${formatReport(report)}\n`,
  );
  return exitCode;
}

/** `command: node client.mjs — exited with 0 after 8.412 s`. */
function commandLine(outcome: CommandRun): string {
  const how = outcome.timedOut
    ? `stopped after --timeout (${outcome.signal ?? `exit ${outcome.exitCode}`})`
    : outcome.signal !== null
      ? `ended by ${outcome.signal}`
      : `exited with ${outcome.exitCode}`;
  return `\ncommand: ${outcome.argv.join(' ')} — ${how} after ${(outcome.durationMs / 1000).toFixed(3)} s${outcome.exitCode === 0 && !outcome.timedOut ? '' : ' (a failure)'}`;
}

/**
 * Runs the command with the sandbox's URL and key in its environment; with `--json` its stdout
 * goes to stderr, so stdout carries the report only. SIGINT and SIGTERM are passed on to it (a
 * second one exits at once); the timeout stops it (SIGTERM, then SIGKILL). A command that cannot
 * be started is a usage error (exit 2).
 */
function runCommand(argv: string[], env: NodeJS.ProcessEnv, json: boolean, timeout: { text: string; ms: number }): Promise<CommandRun> {
  const started = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['inherit', json ? 2 : 'inherit', 'inherit'] });
  let timedOut = false;
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(130);
    signalled = true;
    child.kill(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let killer: NodeJS.Timeout | undefined;
  const timer =
    timeout.ms > 0
      ? setTimeout(() => {
          timedOut = true;
          process.stderr.write(`client-check: the command took longer than ${flagName('timeout')} ${timeout.text}: stopping it\n`);
          child.kill('SIGTERM');
          killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
        }, timeout.ms)
      : undefined;
  return new Promise<CommandRun>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      clearTimeout(killer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      done();
      reject(new SandboxConfigError(`cannot run ${argv[0]}: ${error.code === 'ENOENT' ? 'command not found' : error.message}`));
    });
    child.once('exit', (exitCode, signal) => {
      done();
      resolve({ argv, exitCode, signal, timedOut, durationMs: Math.round(performance.now() - started) });
    });
  });
}

/** `crm-sandbox client-check [options] -- <command …>`. */
export const clientCheckCommand: CommandModule<object, ClientCheckArgs> = {
  command: 'client-check',
  describe: "Run your client (a test suite, a sync script) against a sandbox that puts the service's hard cases in its way, and judge its conduct",
  builder,
  handler: async (args) => {
    process.exitCode = await run(args);
  },
};
