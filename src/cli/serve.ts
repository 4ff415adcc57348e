import type { ArgumentsCamelCase, Argv, CommandModule, Options } from 'yargs';
import { loadClientCheckCode } from '../core/client-check-slot.js';
import { DEFAULT_API_KEY, DEFAULT_LIMITS, DEFAULT_RETRY_SCHEDULE, DEFAULT_SEED, DEV_RETRY_SCHEDULE, type SandboxOptions } from '../core/options.js';
import type { Sandbox } from '../core/sandbox.js';
import { parseAllowedHost } from '../node/allowed-hosts.js';
import { startDevServer } from '../node/dev-server.js';
import { createSandbox } from '../node/sandbox.js';
import { formatDuration } from '../shared/duration.js';
import { SandboxConfigError } from '../shared/errors.js';
import { eventSummary } from '../webhooks/attempt-feed.js';
import { parseChaosFlag } from '../webhooks/chaos.js';
import { attemptLine } from './delivery-line.js';
import { faultRuleFromFlags, readLatency, readRateLimit } from './fault-flags.js';
import { flagName, readDuration, readDurationList, readInteger, readLimit, readList, readNumber, readText } from './flags.js';
import { createLineWriter } from './line-writer.js';
import { readCa } from './read-ca.js';
import { checkStateFileWritable } from './state-file.js';
import { type OpenedState, STATE_SYNC_MODES, StateStore } from './state-store.js';

/**
 * A command's options as data: yargs reads them (`.options(table)`, in this order, which is
 * --help's), and so does the plain reading of `serve`'s arguments (plain-args.ts), with the same
 * defaults and checks.
 */
type OptionTable = Record<string, Options>;

/** Where the dev server listens and the names it answers to (`serve`'s, and `mcp --port`'s). */
export const ADDRESS_OPTIONS = {
  host: { requiresArg: true, type: 'string', default: '127.0.0.1', describe: 'Address to bind' },
  'allowed-host': {
    type: 'string',
    array: true,
    describe:
      'A host name clients reach the server by, besides localhost, *.localhost, 127.0.0.1, [::1] and --host (repeat, or separate with commas); others get a 421. In a container: the name other containers use (crm-sandbox). * allows any host: no guard against DNS rebinding',
    coerce: (value: unknown) => readList('allowed-host', value).map((name) => parseAllowedHost(name, flagName('allowed-host'))),
  },
} as const satisfies OptionTable;
export const addressOptions = <T>(yargs: Argv<T>) => yargs.options(ADDRESS_OPTIONS);

/** The sandbox's own options (seed, keys, delays, fixtures, caps, chaos, tokens): `serve`'s, and `mcp`'s in-process. */
export const SANDBOX_OPTIONS = {
  seed: {
    requiresArg: true,
    default: DEFAULT_SEED,
    describe: 'Seed of all ids and generated data',
    coerce: (value: unknown) => readInteger('seed', value, { min: 0 }),
  },
  'api-key': {
    type: 'string',
    array: true,
    describe: `Accepted service-api-token value (repeat, or separate with commas, for several) [default: ${DEFAULT_API_KEY}]`,
    coerce: (value: unknown) => readList('api-key', value),
  },
  'admin-key': {
    requiresArg: true,
    type: 'string',
    describe:
      'Key of the operations over every tenant (GET/PUT /sandbox/snapshot?all=true, POST /sandbox/reset?all=true, PUT /sandbox/faults?all=true), sent as service-api-token; not a tenant [default: none, those are off]',
    coerce: (value: unknown) => readAdminKey(value),
  },
  'initial-sync-delay': {
    requiresArg: true,
    default: '3s',
    describe: 'Exchange to INITIAL_SYNCED (500ms, 3s, 2m…)',
    coerce: (value: unknown) => readDuration('initial-sync-delay', value),
  },
  'ready-delay': { requiresArg: true, default: '10s', describe: 'Exchange to READY', coerce: (value: unknown) => readDuration('ready-delay', value) },
  'retry-schedule': {
    requiresArg: true,
    describe: `Delays before each webhook retry, comma-separated ("" for none), or dev (${DEV_RETRY_SCHEDULE.join(',')}) or service (the service's: ${DEFAULT_RETRY_SCHEDULE.join(',')}) [default: dev on the real clock, service on a virtual one]`,
    coerce: (value: unknown) => readRetrySchedule('retry-schedule', value),
  },
  'attempt-timeout': {
    requiresArg: true,
    default: '10s',
    describe: 'Timeout of one webhook delivery attempt',
    coerce: (value: unknown) => readDuration('attempt-timeout', value, { min: 1 }),
  },
  'webhook-ca': { requiresArg: true, type: 'string', describe: 'PEM file of a CA to trust for https webhook URLs' },
  fixtures: {
    type: 'string',
    array: true,
    describe: 'Fixture directory or file (repeatable); --no-fixtures for none [default: the bundled fixtures]',
  },
  'connection-limit': {
    requiresArg: true,
    default: DEFAULT_LIMITS.connectionLimit,
    describe: 'Most connections per API token, or none (the original capped development tokens at 5)',
    coerce: (value: unknown) => readLimit('connection-limit', value),
  },
  'record-limit': {
    requiresArg: true,
    default: DEFAULT_LIMITS.recordLimit,
    describe: 'Most records one connection holds, seeded ones included, or none',
    coerce: (value: unknown) => readLimit('record-limit', value),
  },
  'pending-delivery-limit': {
    requiresArg: true,
    default: DEFAULT_LIMITS.pendingDeliveryLimit,
    describe: 'Most deliveries one connection keeps waiting, or none; over it the oldest is dropped (failed)',
    coerce: (value: unknown) => readLimit('pending-delivery-limit', value),
  },
  'scenario-repeat-limit': {
    requiresArg: true,
    default: DEFAULT_LIMITS.scenarioRepeatLimit,
    describe: 'Most records one scenario run through the control API creates, or none',
    coerce: (value: unknown) => readLimit('scenario-repeat-limit', value),
  },
  'scenario-field-bytes-limit': {
    requiresArg: true,
    default: DEFAULT_LIMITS.scenarioFieldBytesLimit,
    describe: 'Most bytes of record fields (as JSON) one scenario run through the control API writes, or none',
    coerce: (value: unknown) => readLimit('scenario-field-bytes-limit', value),
  },
  'delivery-log-limit': {
    requiresArg: true,
    default: 10_000,
    describe: 'Most finished deliveries kept in the log, per API token',
    coerce: (value: unknown) => readInteger('delivery-log-limit', value, { min: 1 }),
  },
  'delivery-chaos': {
    requiresArg: true,
    describe: 'Delivery chaos for every connection: duplicate=0.2,delay=100ms-2s,reorder,outage=5m (per connection: PUT /sandbox/connections/{id}/chaos)',
    coerce: (value: unknown) => parseChaosFlag(readText('delivery-chaos', value), flagName('delivery-chaos')),
  },
  'seeded-tokens': {
    type: 'boolean',
    default: false,
    describe: 'Draw link, public and access tokens from --seed, to reproduce a server run exactly; by default they are random, so no one can guess them',
  },
  'email-events': {
    type: 'boolean',
    default: false,
    describe: "Emit OBJECT_CHANGE events for Email records too (objectType Email; off: the spec's objectType values are the nine others)",
  },
} as const satisfies OptionTable;
export const sandboxOptions = <T>(yargs: Argv<T>) => yargs.options(SANDBOX_OPTIONS);

/** The standing faults of the service's endpoints: part of the sandbox's options too (`serve`'s and `mcp`'s). */
export const FAULT_OPTIONS = {
  latency: { requiresArg: true, describe: "Added latency of the service's endpoints: 200ms, or a seeded range 50ms-400ms", coerce: readLatency },
  'error-rate': {
    requiresArg: true,
    describe: "Share of the service's requests answered 503, 0 to 1 (seeded)",
    coerce: (value: unknown) => readNumber('error-rate', value, { min: 0, max: 1 }),
  },
  'rate-limit': {
    requiresArg: true,
    describe: 'Requests per API token: 100/min (also /s, /h); over it a 429 with Retry-After',
    coerce: readRateLimit,
  },
} as const satisfies OptionTable;
export const faultOptions = <T>(yargs: Argv<T>) => yargs.options(FAULT_OPTIONS);

const sandboxAndFaultOptions = <T>(yargs: Argv<T>) => faultOptions(sandboxOptions(yargs));
/** The options of {@link sandboxOptions} and {@link faultOptions}, as a handler gets them. */
export type SandboxArgs = ArgumentsCamelCase<ReturnType<typeof sandboxAndFaultOptions<object>> extends Argv<infer T> ? T : never>;

/** The dev server's request log (`serve`'s, and `mcp --port`'s). */
export const quietOption = { type: 'boolean', default: false, describe: 'Do not log requests' } as const;

/** `serve`'s options, in --help's order. */
export const SERVE_OPTIONS = {
  port: {
    requiresArg: true,
    default: 4010,
    describe: 'Port to listen on (0 picks a free one)',
    coerce: (value: unknown) => readInteger('port', value, { min: 0, max: 65535 }),
  },
  ...ADDRESS_OPTIONS,
  ...SANDBOX_OPTIONS,
  quiet: quietOption,
  'state-file': {
    requiresArg: true,
    type: 'string',
    describe: 'Load the state from this file at start (if it exists) and save it there on change and at shutdown',
  },
  'state-sync': {
    requiresArg: true,
    type: 'string',
    choices: STATE_SYNC_MODES,
    describe:
      'How --state-file saves: batched (at most every 250 ms: a crash loses at most the last 250 ms, and nothing it loses was delivered as an event) or always (a write is saved before it is answered)',
  },
  'client-check': {
    type: 'boolean',
    default: false,
    describe:
      "Judge each tenant's client against the conduct rules, putting the service's hard cases in its way (429s, 503s, pages of 10; seeded by --seed): GET /sandbox/client-check answers the report (see crm-sandbox client-check)",
  },
  ...FAULT_OPTIONS,
} as const satisfies OptionTable;

const builder = (yargs: Argv) =>
  yargs
    .options(SERVE_OPTIONS)
    .example('$0 serve', 'Start on http://127.0.0.1:4010 with the default API key')
    .example('$0 serve --port 0 --api-key k1 --api-key k2', 'Pick a free port; accept two API keys')
    .example('$0 serve --initial-sync-delay 500ms --ready-delay 1s --retry-schedule 1s,2s', 'Fast lifecycle and retries')
    .example('$0 serve --state-file .crm-sandbox.json', 'Keep connections, records and pending deliveries across restarts')
    .example('$0 serve --latency 50ms-400ms --error-rate 0.05 --rate-limit 100/min', 'A slow, flaky, rate-limited service (seeded: --seed replays it)')
    .example('$0 serve --host 0.0.0.0 --allowed-host crm-sandbox', 'In a container that others reach as http://crm-sandbox:4010')
    .epilogue('The server also serves the inspector at /sandbox/ui and the link widget at /link/init.js (see the README).');

export type ServeArgs = ReturnType<typeof builder> extends Argv<infer T> ? T : never;

export const serveCommand: CommandModule<object, ServeArgs> = {
  command: 'serve',
  describe: 'Start the dev server',
  builder,
  handler: async (args: ArgumentsCamelCase<ServeArgs>) => {
    if (args.stateSync !== undefined && !args.stateFile) {
      throw new SandboxConfigError(`${flagName('state-sync')} ${args.stateSync} needs ${flagName('state-file')}: without it there is no file to save to`);
    }
    const sandbox = sandboxFromArgs(args);
    // client-check's code loads only when asked for (decision 0035): the core does not import it.
    if (args.clientCheck) {
      await loadClientCheckCode();
      sandbox.startClientCheck();
    }
    if (args.stateFile) checkStateFileWritable(args.stateFile);
    const store = args.stateFile ? new StateStore(sandbox, args.stateFile, { sync: args.stateSync ?? 'batched' }) : undefined;
    // The server listens while the state file loads in pieces: health is answered at once, the rest waits for the state
    // (docs/decisions/0050). The banner comes once it is loaded.
    const opening = store?.openInTurns();
    const log = args.quiet ? undefined : createLineWriter(process.stdout);
    // A line per outgoing delivery attempt beside the request lines: what reached the receiver, and what it answered.
    if (log) logDeliveries(sandbox, log);
    const server = await startDevServer(sandbox, {
      port: args.port,
      host: args.host,
      ...(args.allowedHost ? { allowedHosts: args.allowedHost } : {}),
      ...(log ? { log } : {}),
      ...(store?.sync === 'always' ? { beforeAnswer: (request, response) => store.durable(request.method, response) } : {}),
      ...(opening ? { loading: opening } : {}),
    }).catch(async (error: unknown) => {
      // The port was taken, say: the load goes on to its end (or its own error) before the command stops.
      await opening?.catch(() => undefined);
      throw error;
    });
    let opened: OpenedState | undefined;
    try {
      opened = await opening;
    } catch (error) {
      await server.close();
      throw error;
    }
    const { options } = sandbox;
    const keys = options.apiKeys;
    // One write, so whoever reads the output sees the whole banner at once.
    console.log(
      [
        `crm-sandbox listening on ${server.url}`,
        `API key${keys.length > 1 ? 's' : ''}: ${keys.join(', ')} (send as the service-api-token header)`,
        // The admin key itself is not printed: output is often shared, and it can act on every tenant.
        `admin operations (?all=true): ${options.adminKey === undefined ? 'off (--admin-key turns them on)' : 'on, with the --admin-key'}`,
        `seed ${options.seed} (tokens ${options.tokens}); initial sync ${formatDuration(options.initialSyncDelayMs)}, ready ${formatDuration(options.readyDelayMs)}; ` +
          `retries ${retriesLine(options.retryScheduleMs)}` +
          (options.deliveryChaos ? `; delivery chaos ${JSON.stringify(options.deliveryChaos)}` : ''),
        // With a key of its own, the inspector's address carries it, so the page opens without asking (it takes the default key by itself).
        `Inspector: ${server.url}/sandbox/ui${keys[0] === DEFAULT_API_KEY ? '' : `?token=${encodeURIComponent(keys[0]!)}`}; link widget: <script src="${server.url}/link/init.js">`,
        ...(store && opened ? stateFileLines(store, opened) : []),
        ...(sandbox.clientCheck
          ? [`client-check: on; each API token's report at GET ${server.url}/sandbox/client-check (the inspector's Client check tab)`]
          : []),
        `Try: curl -X POST ${server.url}/link/token -H 'service-api-token: ${keys[0]}'`,
      ].join('\n'),
    );
    store?.start();
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        log?.flush();
        console.log(`${signal}: stopping`);
        // Requests and timers stop first, so the last save holds all the state answers told of; then the file is marked as cleanly stopped.
        const closed = server.close();
        store?.close();
        void closed.then(resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
  },
};

/** Writes a line per delivery attempt to the request log: `webhook OBJECT_CHANGE Contact CREATE 3f2a91c0… connection … → http://… 204 in 12ms (attempt 1 of 8)`. */
function logDeliveries(sandbox: Sandbox, log: (line: string) => void): void {
  const maxAttempts = sandbox.options.retryScheduleMs.length + 1;
  sandbox.onDeliveryAttempt((attempt, delivery) => {
    log(`webhook ${attemptLine({ ...delivery, event: eventSummary(delivery.event), attempt, maxAttempts }, { url: true })}`);
  });
}

/** The retry schedule as the banner says it: the delays, and which named schedule they are. */
function retriesLine(scheduleMs: readonly number[]): string {
  const text = scheduleMs.map(formatDuration).join(',');
  if (text === DEV_RETRY_SCHEDULE.join(',')) return `${text} (a developer's; --retry-schedule service for the service's 10s…12h)`;
  if (text === DEFAULT_RETRY_SCHEDULE.join(',')) return `${text} (the service's)`;
  return text || 'none';
}

/** The banner's lines about the state file: loaded or new, how it saves, and what a start after a crash did. */
function stateFileLines(store: StateStore, opened: OpenedState): string[] {
  const how = store.sync === 'always' ? 'each write saved before it is answered (--state-sync always)' : 'saved on change, at most every 250 ms';
  const journal = opened.commits > 0 ? ` with ${opened.commits} commit${opened.commits === 1 ? '' : 's'} of its journal` : '';
  return [
    `state file ${store.path} (${opened.loaded ? 'loaded' : 'new'})${journal}, ${how}`,
    ...(opened.recovered === undefined
      ? []
      : [
          `the last run did not stop cleanly: what it did after its last save is lost, and ids move past the ${opened.recovered} draws it may have made, so none is issued twice`,
        ]),
    ...(opened.removed.length > 0 ? [`removed what interrupted saves left: ${opened.removed.join(', ')}`] : []),
  ];
}

/**
 * The sandbox of the options of {@link sandboxOptions} and {@link faultOptions} (with `extra`
 * options of the command's own, such as mcp's clock), after the checks that span two of them.
 */
export function sandboxFromArgs(args: SandboxArgs, extra: Pick<SandboxOptions, 'clock' | 'webhookTimestamps'> = {}) {
  if (args.readyDelay < args.initialSyncDelay) {
    throw new SandboxConfigError(
      `${flagName('ready-delay')} (${formatDuration(args.readyDelay)}) must not be shorter than ${flagName('initial-sync-delay')} (${formatDuration(args.initialSyncDelay)})`,
    );
  }
  const apiKeys = args.apiKey ?? [DEFAULT_API_KEY];
  if (args.adminKey !== undefined && apiKeys.includes(args.adminKey)) {
    throw new SandboxConfigError(`${flagName('admin-key')} must differ from every ${flagName('api-key')} (the admin is not a tenant)`);
  }
  return createWithFixtureFlag({
    ...extra,
    seed: args.seed,
    tokens: args.seededTokens ? 'seeded' : 'random',
    emailEvents: args.emailEvents,
    apiKeys,
    ...(args.adminKey === undefined ? {} : { adminKey: args.adminKey }),
    initialSyncDelay: formatDuration(args.initialSyncDelay),
    readyDelay: formatDuration(args.readyDelay),
    // A developer's schedule where time is real (decision 0053); the service's where an agent or a test moves it.
    retrySchedule: args.retrySchedule?.map(formatDuration) ?? (extra.clock === 'virtual' ? DEFAULT_RETRY_SCHEDULE : DEV_RETRY_SCHEDULE),
    attemptTimeout: formatDuration(args.attemptTimeout),
    ...(args.webhookCa ? { webhookCa: readCa(args.webhookCa) } : {}),
    ...fixturesOption(args.fixtures),
    connectionLimit: args.connectionLimit,
    recordLimit: args.recordLimit,
    pendingDeliveryLimit: args.pendingDeliveryLimit,
    scenarioRepeatLimit: args.scenarioRepeatLimit,
    scenarioFieldBytesLimit: args.scenarioFieldBytesLimit,
    deliveryLogLimit: args.deliveryLogLimit,
    ...(args.deliveryChaos === undefined ? {} : { deliveryChaos: args.deliveryChaos }),
    faults: faultRuleFromFlags({ latency: args.latency, errorRate: args.errorRate, rateLimit: args.rateLimit }),
  });
}

/**
 * The sandbox of the flags, each already checked by its reader. What createSandbox can still
 * refuse is a fixture file it reads (`--fixtures`): that message names the flag too.
 */
function createWithFixtureFlag(options: SandboxOptions) {
  try {
    return createSandbox(options);
  } catch (error) {
    if (error instanceof SandboxConfigError && /^fixtures?\b/.test(error.message)) {
      throw new SandboxConfigError(`${flagName('fixtures')}: ${error.message.replace(/^fixtures: /, '')}`);
    }
    throw error;
  }
}

/** The schedules `--retry-schedule` takes by name. */
export const RETRY_SCHEDULES: Record<string, readonly string[]> = { dev: DEV_RETRY_SCHEDULE, service: DEFAULT_RETRY_SCHEDULE };

/** `--retry-schedule`: `dev`, `service`, or delays each with its unit (`1s,1m`; "" for no retries), in ms. */
export function readRetrySchedule(option: string, value: unknown): number[] {
  const text = readText(option, value, { allowEmpty: true }).trim();
  const named = Object.hasOwn(RETRY_SCHEDULES, text) ? RETRY_SCHEDULES[text] : undefined;
  if (named) return readDurationList(option, named.join(','));
  if (/^[a-z]+$/i.test(text)) {
    throw new SandboxConfigError(`${flagName(option)} must be dev, service or delays such as 1s,30s,5m; got ${JSON.stringify(text)}`);
  }
  return readDurationList(option, value);
}

/** The admin key: one non-blank value. */
function readAdminKey(value: unknown): string {
  const text = readText('admin-key', value);
  if (text.trim() === '') throw new SandboxConfigError(`${flagName('admin-key')} must not be empty`);
  return text;
}

/** `--fixtures a --fixtures b` lists paths; yargs reads `--no-fixtures` as a `false` among them. */
function fixturesOption(values: ReadonlyArray<string | number | boolean> | undefined): { fixtures?: false | string[] } {
  if (values === undefined) return {};
  if (values.some((value) => value === false || value === 'false')) return { fixtures: false };
  return { fixtures: values.map(String) };
}
