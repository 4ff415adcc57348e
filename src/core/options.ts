import { CRM_OBJECT_TYPES } from '../model/crm.js';
import type { Platform } from '../model/platform.js';
import { type Duration, parseDuration, parseDurationList } from '../shared/duration.js';
import { SandboxConfigError } from '../shared/errors.js';
import { checkOptionNames } from '../shared/option-names.js';
import { BUNDLED_FIXTURE_SOURCES, BUNDLED_FIXTURES } from '../store/bundled-fixtures.js';
import { type FixtureFile, type FixtureSet, loadFixtures, validateFixture } from '../store/fixtures.js';
import { type DatasetSize, DEFAULT_DATASET } from '../store/seed/seed-connection.js';
import { type ChaosSettings, chaosSettingsSchema, resolveChaos } from '../webhooks/chaos.js';
import type { FaultRule } from './faults.js';
import type { JournalOptions } from './journal.js';

/** The API token accepted when none is configured. Send it as the `service-api-token` header. */
export const DEFAULT_API_KEY = 'sandbox-api-key';
/** The seed used when none is given: every run of a default sandbox has the same data. */
export const DEFAULT_SEED = 1;
/** Where a virtual clock starts when no `startTime` is given. */
export const DEFAULT_START_TIME = '2025-01-01T00:00:00.000Z';
/** Delays before each retry of a failed delivery: attempts at 0 s, 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h after the one before. */
export const DEFAULT_RETRY_SCHEDULE = ['10s', '1m', '5m', '30m', '2h', '6h', '12h'] as const;
/**
 * The retry schedule of a dev server on the real clock (`serve`, `mcp --port`): a developer's, as
 * many attempts as the service's but none more than 5 minutes after the one before, so a receiver
 * fixed at any moment gets what waited for it within minutes even untouched (decision 0053). The
 * code API, scenarios and virtual clocks keep the service's ({@link DEFAULT_RETRY_SCHEDULE}).
 */
export const DEV_RETRY_SCHEDULE = ['1s', '5s', '10s', '30s', '1m', '2m', '5m'] as const;

/**
 * The caps on what one tenant can make a shared sandbox hold or do (decision 0018). Each is far
 * above what a test suite needs and low enough that no tenant can exhaust the server; `null`
 * turns one off. Their CLI flags are the option's name in kebab case (`--record-limit`).
 */
export const DEFAULT_LIMITS = {
  /** Connections per API token. */
  connectionLimit: 1_000,
  /** Records a connection holds (its seeded data set included: about 650 by default). */
  recordLimit: 100_000,
  /**
   * Deliveries a connection keeps waiting (pending, retrying or in flight); over it the oldest are
   * dropped as failed. Twice the biggest burst a scenario run over HTTP may make, so none of those loses an event.
   */
  pendingDeliveryLimit: 20_000,
  /** Records one scenario run through the control API may create (the sum of its create steps' `repeat`). */
  scenarioRepeatLimit: 10_000,
  /**
   * Bytes of record fields one scenario run through the control API may write: each created
   * record's fields as JSON (UTF-8), summed. 16 MiB: 10,000 records of 1.6 kB each, while 10,000
   * records of 90 kB each (900 MB, from a request of 90 kB) would exhaust the server.
   */
  scenarioFieldBytesLimit: 16 * 1024 * 1024,
} as const;

/** The capped quantities, by option name. */
type LimitName = keyof typeof DEFAULT_LIMITS;

export interface SandboxOptions {
  /** Seed of every id and generated value. Default {@link DEFAULT_SEED}. */
  seed?: number;
  /** `'real'` (default) runs on wall-clock time; `'virtual'` moves only with `advance()`. */
  clock?: 'real' | 'virtual';
  /** Start of a virtual clock (ISO text, ms or Date). Default {@link DEFAULT_START_TIME}. */
  startTime?: string | number | Date;
  /** Accepted `service-api-token` values, one tenant each. Default `[DEFAULT_API_KEY]`. */
  apiKeys?: readonly string[];
  /**
   * The key of the operations over every tenant through the control API (`?all=true` on
   * snapshot, reset and faults), sent as `service-api-token`. It is not a tenant: the service's
   * endpoints refuse it. Default: none, so those operations are off (403). Code holding the
   * sandbox needs no key: `snapshot()`, `restore()`, `reset()` and `setFaults()` act on all.
   */
  adminKey?: string;
  /** From exchange to INITIAL_SYNCED. Default `3s`. */
  initialSyncDelay?: Duration;
  /** From exchange to READY. Default `10s`. */
  readyDelay?: Duration;
  /** Lifetime of link and public tokens. Default `30m`. */
  tokenTtl?: Duration;
  /**
   * Where link, public and access tokens come from. `'seeded'` (default): the seed, like every
   * id, so the same calls give the same tokens (tests, scenario transcripts). `'random'`: the
   * platform's cryptographic randomness, so no one can guess another's tokens (`serve`'s
   * default, a server others reach). Ids, records and events are the seed's either way.
   */
  tokens?: 'seeded' | 'random';
  /** Most connections per API token (the original's development cap was 5); `null` for no cap. Default 1000. */
  connectionLimit?: number | null;
  /** Most records one connection holds, seeded ones included; a create over it is a 400 `RECORD_LIMIT_REACHED`. `null` for no cap. Default 100000. */
  recordLimit?: number | null;
  /** Most deliveries one connection keeps waiting; over it the oldest waiting one is dropped (marked failed). `null` for no cap. Default 20000. */
  pendingDeliveryLimit?: number | null;
  /** Most records one scenario run through the control API creates (`POST /sandbox/scenarios/…/run`); `runScenario()` and the CLI are not capped. `null` for no cap. Default 10000. */
  scenarioRepeatLimit?: number | null;
  /** Most bytes of record fields (as JSON) one scenario run through the control API writes (`POST /sandbox/scenarios/…/run`); `runScenario()` and the CLI are not capped. `null` for no cap. Default 16777216 (16 MiB). */
  scenarioFieldBytesLimit?: number | null;
  /** Fixture directories, files (Node only) or objects; `false` for none. Default: the package's `fixtures/`. */
  fixtures?: false | ReadonlyArray<string | FixtureFile>;
  /** How many records a new connection gets; see `DEFAULT_DATASET`. */
  dataset?: { engagement?: Partial<DatasetSize['engagement']>; crm?: Partial<DatasetSize['crm']> };
  /** Delays before each retry, e.g. `'10s,1m,5m'`. Default {@link DEFAULT_RETRY_SCHEDULE}. */
  retrySchedule?: string | readonly Duration[];
  /** Timeout of one delivery attempt, in real time (it guards a socket). Default `10s`. */
  attemptTimeout?: Duration;
  /** PEM text of a CA certificate to trust for https webhook URLs (local https receivers). */
  webhookCa?: string;
  /**
   * Where each attempt's `x-service-timestamp` comes from. `'clock'` (default): the sandbox's
   * clock, so a virtual clock's runs are byte-identical and in-process receivers (MSW handlers,
   * `crm-sandbox/testing`) see the time they advanced to. `'real'`: the real current time, which
   * a receiver in another process accepts with a timestamp tolerance however far a virtual clock
   * has moved (the scenario CLI's default). On a real clock both are the same.
   */
  webhookTimestamps?: 'clock' | 'real';
  /** Most finished deliveries kept in the log per API token, so no tenant evicts another's (oldest succeeded evicted first, then oldest failed); unfinished ones are always kept. Default 10000. */
  deliveryLogLimit?: number;
  /** Delivery chaos for every connection without its own (duplicates, delays, reordering, outages). Default: none. */
  deliveryChaos?: ChaosSettings;
  /** Called with unexpected internal errors (a bug). Default: printed to stderr. */
  onError?: (error: unknown) => void;
  /** Faults to inject into the service's endpoints from the start; see `sandbox.setFaults()`. */
  faults?: FaultRule | readonly FaultRule[];
  /** Size of the request journal: `{ limit: 1000, bodyLimit: 4096 }` by default. */
  journal?: JournalOptions;
  /**
   * Emit OBJECT_CHANGE events for Email records too (`objectType: 'Email'`). Off by default: the
   * spec's objectType values are the nine other types; the service added Email to its webhooks later.
   */
  emailEvents?: boolean;
}

/** The names {@link SandboxOptions} takes, for refusing any other with the nearest (`apiKey`: did you mean apiKeys?). */
export const SANDBOX_OPTION_NAMES = Object.keys({
  seed: true,
  clock: true,
  startTime: true,
  apiKeys: true,
  adminKey: true,
  initialSyncDelay: true,
  readyDelay: true,
  tokenTtl: true,
  tokens: true,
  connectionLimit: true,
  recordLimit: true,
  pendingDeliveryLimit: true,
  scenarioRepeatLimit: true,
  scenarioFieldBytesLimit: true,
  fixtures: true,
  dataset: true,
  retrySchedule: true,
  attemptTimeout: true,
  webhookCa: true,
  webhookTimestamps: true,
  deliveryLogLimit: true,
  deliveryChaos: true,
  onError: true,
  faults: true,
  journal: true,
  emailEvents: true,
} satisfies Record<keyof SandboxOptions, true>) as ReadonlyArray<keyof SandboxOptions>;

/** createSandbox()'s options are a start-up mistake: a SandboxConfigError, as every other bad option. */
const configError = (_field: string, message: string) => new SandboxConfigError(message);

/** Options with every default applied and every value checked. */
export interface ResolvedOptions {
  seed: number;
  clock: 'real' | 'virtual';
  startTime: number;
  apiKeys: readonly string[];
  adminKey: string | undefined;
  initialSyncDelayMs: number;
  readyDelayMs: number;
  tokenTtlMs: number;
  tokens: 'seeded' | 'random';
  /** The caps ({@link DEFAULT_LIMITS}); `Infinity` where turned off. */
  connectionLimit: number;
  recordLimit: number;
  pendingDeliveryLimit: number;
  scenarioRepeatLimit: number;
  scenarioFieldBytesLimit: number;
  /** The fixture sets, read when the first data set is built (the bundled ones are checked then, once per process). */
  fixtures: () => readonly FixtureSet[];
  dataset: DatasetSize;
  retryScheduleMs: number[];
  attemptTimeoutMs: number;
  webhookCa: string | undefined;
  webhookTimestamps: 'clock' | 'real';
  deliveryLogLimit: number;
  deliveryChaos: ChaosSettings | undefined;
  emailEvents: boolean;
  onError: (error: unknown) => void;
}

/**
 * Applies defaults and checks every option; a bad one throws a SandboxConfigError naming it.
 * Fixture paths are read with `platform` (only where it reads files).
 */
export function resolveOptions(given: SandboxOptions | undefined, platform: Pick<Platform, 'readFixturePath'>): ResolvedOptions {
  const options = checkOptionNames(given, SANDBOX_OPTION_NAMES, 'createSandbox()', configError);
  const seed = options.seed ?? DEFAULT_SEED;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new SandboxConfigError(`seed must be a non-negative integer, got ${seed}`);
  const clock = options.clock ?? 'real';
  if (clock !== 'real' && clock !== 'virtual') throw new SandboxConfigError(`clock must be 'real' or 'virtual', got ${String(clock)}`);
  const startTime = new Date(options.startTime ?? DEFAULT_START_TIME).getTime();
  if (Number.isNaN(startTime)) throw new SandboxConfigError(`startTime is not a valid time: ${String(options.startTime)}`);
  if (options.apiKeys !== undefined && !Array.isArray(options.apiKeys)) {
    throw new SandboxConfigError(`apiKeys must be a list of API tokens (apiKeys: [${JSON.stringify(options.apiKeys)}]), got ${typeof options.apiKeys}`);
  }
  const apiKeys = [...(options.apiKeys ?? [DEFAULT_API_KEY])];
  if (apiKeys.length === 0 || apiKeys.some((key) => typeof key !== 'string' || key.trim() === '')) {
    throw new SandboxConfigError('apiKeys must list at least one non-empty API token');
  }
  const adminKey = options.adminKey;
  if (adminKey !== undefined && (typeof adminKey !== 'string' || adminKey.trim() === '')) throw new SandboxConfigError('adminKey must be a non-empty string');
  // Who sends it must be told apart from every tenant (and no tenant may act as the admin).
  if (adminKey !== undefined && apiKeys.includes(adminKey)) throw new SandboxConfigError('adminKey must differ from every API key (the admin is not a tenant)');
  const initialSyncDelayMs = parseDuration(options.initialSyncDelay ?? '3s', 'initialSyncDelay');
  const readyDelayMs = parseDuration(options.readyDelay ?? '10s', 'readyDelay');
  if (readyDelayMs < initialSyncDelayMs) {
    throw new SandboxConfigError(`readyDelay (${readyDelayMs}ms) must not be shorter than initialSyncDelay (${initialSyncDelayMs}ms)`);
  }
  const deliveryLogLimit = options.deliveryLogLimit ?? 10_000;
  if (!Number.isSafeInteger(deliveryLogLimit) || deliveryLogLimit < 1) {
    throw new SandboxConfigError(`deliveryLogLimit must be a positive integer, got ${deliveryLogLimit}`);
  }
  const attemptTimeoutMs = parseDuration(options.attemptTimeout ?? '10s', 'attemptTimeout');
  if (attemptTimeoutMs < 1) throw new SandboxConfigError('attemptTimeout must be at least 1ms');
  const tokens = options.tokens ?? 'seeded';
  if (tokens !== 'seeded' && tokens !== 'random') throw new SandboxConfigError(`tokens must be 'seeded' or 'random', got ${String(tokens)}`);
  const webhookTimestamps = options.webhookTimestamps ?? 'clock';
  if (webhookTimestamps !== 'clock' && webhookTimestamps !== 'real') {
    throw new SandboxConfigError(`webhookTimestamps must be 'clock' or 'real', got ${String(webhookTimestamps)}`);
  }
  const emailEvents = options.emailEvents ?? false;
  if (typeof emailEvents !== 'boolean') throw new SandboxConfigError(`emailEvents must be true or false, got ${String(emailEvents)}`);
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw new SandboxConfigError(`onError must be a function, got ${typeof options.onError}`);
  if (options.webhookCa !== undefined && typeof options.webhookCa !== 'string') {
    throw new SandboxConfigError(`webhookCa must be the PEM text of a CA certificate, got ${typeof options.webhookCa}`);
  }
  if (options.journal !== undefined) checkOptionNames(options.journal, ['limit', 'bodyLimit'], 'journal', configError);
  return {
    seed,
    clock,
    startTime,
    apiKeys,
    adminKey,
    initialSyncDelayMs,
    readyDelayMs,
    tokenTtlMs: parseDuration(options.tokenTtl ?? '30m', 'tokenTtl'),
    tokens,
    connectionLimit: resolveLimit(options, 'connectionLimit'),
    recordLimit: resolveLimit(options, 'recordLimit'),
    pendingDeliveryLimit: resolveLimit(options, 'pendingDeliveryLimit'),
    scenarioRepeatLimit: resolveLimit(options, 'scenarioRepeatLimit'),
    scenarioFieldBytesLimit: resolveLimit(options, 'scenarioFieldBytesLimit'),
    fixtures: resolveFixtures(options.fixtures, platform),
    dataset: resolveDataset(options.dataset),
    retryScheduleMs: parseDurationList(options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE, 'retrySchedule'),
    attemptTimeoutMs,
    webhookCa: options.webhookCa,
    webhookTimestamps,
    deliveryLogLimit,
    deliveryChaos: checkChaos(options.deliveryChaos),
    emailEvents,
    onError: options.onError ?? ((error) => console.error('crm-sandbox internal error:', error)),
  };
}

/** A cap as a number: its default when not given, `Infinity` for `null` (no cap). */
function resolveLimit(options: SandboxOptions, name: LimitName): number {
  const value = options[name];
  if (value === undefined) return DEFAULT_LIMITS[name];
  if (value === null) return Infinity;
  if (!Number.isSafeInteger(value) || value < 1) throw new SandboxConfigError(`${name} must be a positive integer or null (no cap), got ${String(value)}`);
  return value;
}

let bundledSets: readonly FixtureSet[] | undefined;

/**
 * Fixtures as sets: the bundled ones (as data, no file read) unless told otherwise; paths only
 * where the platform reads files. Given fixtures are read and checked now, so a bad one stops
 * the start; the bundled ones (checked by the tests) only when a data set first needs them.
 */
function resolveFixtures(fixtures: SandboxOptions['fixtures'], platform: Pick<Platform, 'readFixturePath'>): () => readonly FixtureSet[] {
  if (fixtures === undefined) {
    return () => (bundledSets ??= BUNDLED_FIXTURES.map((fixture, index) => validateFixture(fixture, BUNDLED_FIXTURE_SOURCES[index]!)));
  }
  if (fixtures !== false && !Array.isArray(fixtures)) {
    throw new SandboxConfigError(`fixtures must be false (none) or a list of fixture directories, files or objects, got ${typeof fixtures}`);
  }
  const sets = fixtures === false ? [] : loadFixtures(fixtures, platform.readFixturePath);
  return () => sets;
}

function resolveDataset(given: SandboxOptions['dataset']): DatasetSize {
  const dataset = checkOptionNames(given, ['engagement', 'crm'], 'dataset', configError);
  checkOptionNames(dataset.engagement, Object.keys(DEFAULT_DATASET.engagement), 'dataset.engagement', configError);
  checkOptionNames(dataset.crm, CRM_OBJECT_TYPES, 'dataset.crm', configError);
  const size: DatasetSize = {
    engagement: { ...DEFAULT_DATASET.engagement, ...dataset.engagement },
    crm: { ...DEFAULT_DATASET.crm, ...dataset.crm },
  };
  const counts: Array<[string, number]> = [
    ['dataset.engagement.users', size.engagement.users],
    ['dataset.engagement.mailboxes', size.engagement.mailboxes],
    ...CRM_OBJECT_TYPES.map((type): [string, number] => [`dataset.crm.${type}`, size.crm[type]]),
  ];
  for (const [name, count] of counts) {
    if (!Number.isSafeInteger(count) || count < 0) throw new SandboxConfigError(`${name} must be a non-negative integer, got ${count}`);
  }
  return size;
}

function checkChaos(settings: ChaosSettings | undefined): ChaosSettings | undefined {
  if (settings === undefined) return undefined;
  const parsed = chaosSettingsSchema().safeParse(settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SandboxConfigError(`deliveryChaos.${issue.path.join('.')}: ${issue.message}`);
  }
  resolveChaos(parsed.data, 0);
  return parsed.data;
}
