import { ApiError } from '../shared/errors.js';
import { checkOptionNames } from '../shared/option-names.js';
import { sandboxTarget } from './api-target.js';
import { checkScenario, type Scenario } from './load.js';
import type { ScenarioReport } from './report.js';
import { type RunOptions, runScenarioOn } from './runner.js';
import type { ScenarioDefinition } from './schema.js';
import type { ScenarioSandbox } from './target.js';

/** Options of `sandbox.runScenario()`. */
export interface RunScenarioOptions
  extends Pick<
    RunOptions,
    | 'webhookUrl'
    | 'connectionId'
    | 'accessToken'
    | 'integrationId'
    | 'nativeOrgId'
    | 'maxWait'
    | 'seed'
    | 'onProgress'
    | 'onWarning'
    | 'signal'
    | 'fieldBytesLimit'
  > {
  /** API token the scenario acts as. Default: the sandbox's first. */
  apiKey?: string;
  /** On a virtual clock: `'instant'` (default) or how many times faster than real time. */
  speed?: 'instant' | number;
}

const RUN_SCENARIO_OPTION_NAMES = Object.keys({
  webhookUrl: true,
  connectionId: true,
  accessToken: true,
  integrationId: true,
  nativeOrgId: true,
  maxWait: true,
  seed: true,
  onProgress: true,
  onWarning: true,
  signal: true,
  fieldBytesLimit: true,
  apiKey: true,
  speed: true,
} satisfies Record<keyof RunScenarioOptions, true>);

/** A definition, checked (a scenario already checked as it is). Names and files are the platform's: `ScenarioFiles.findScenario`. */
export function resolveScenario(scenario: ScenarioDefinition | Scenario): Scenario {
  if (typeof scenario === 'object' && scenario !== null && 'definition' in scenario && 'source' in scenario) return scenario;
  return checkScenario(scenario, '(code)', (scenario as ScenarioDefinition | null)?.name ?? 'scenario');
}

/**
 * Plays a scenario on a sandbox of this process; see `Sandbox.runScenario`. Receiver probes go
 * out on a transport of the sandbox's platform, as its deliveries do.
 */
export function runScenario(sandbox: ScenarioSandbox, scenario: ScenarioDefinition | Scenario, given?: RunScenarioOptions): Promise<ScenarioReport> {
  const options = checkOptionNames(given, RUN_SCENARIO_OPTION_NAMES, 'runScenario()');
  if (
    options.speed !== undefined &&
    options.speed !== 'instant' &&
    !(typeof options.speed === 'number' && options.speed > 0 && Number.isFinite(options.speed))
  ) {
    throw ApiError.invalidField(
      'speed',
      `speed must be 'instant' or how many times faster than real time (a number above 0), got ${JSON.stringify(options.speed)}`,
    );
  }
  const resolved = resolveScenario(scenario);
  const speed = options.speed === undefined || options.speed === 'instant' ? Infinity : options.speed;
  const target = sandboxTarget(sandbox, { apiKey: options.apiKey, speed, signal: options.signal });
  const realClock = sandbox.parts.clock.kind === 'real';
  return runScenarioOn(resolved, target, {
    ...options,
    speedLabel: realClock ? 'realtime' : speed === Infinity ? 'instant' : `${speed}x`,
    reportSeed: sandbox.options.seed,
    transport: sandbox.platform.createTransport({ ca: sandbox.options.webhookCa }),
  });
}

export { checkScenario, parseScenario, type Scenario, ScenarioError, type ScenarioFiles } from './load.js';
export type { CheckResult, ProbeResult, ScenarioReport, TranscriptAttempt, TranscriptEvent } from './report.js';
export { reportJson } from './report.js';
export { fieldBytesOver } from './runner.js';
export type { ProbeName, ScenarioDefinition, ScenarioStep, StepKind } from './schema.js';
export { PROBES, STEP_KINDS, scenarioJsonSchema } from './schema.js';
