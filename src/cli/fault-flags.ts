import { type FaultRule, parseLatency, parseRateLimit } from '../core/faults.js';
import { requireUnit } from '../shared/duration.js';
import { ApiError, SandboxConfigError } from '../shared/errors.js';
import { flagName, readText } from './flags.js';

/** The fault flags of `serve`, each already read by its reader below (`--error-rate` by readNumber). */
export interface FaultFlags {
  latency?: string | undefined;
  errorRate?: number | undefined;
  rateLimit?: string | undefined;
}

/** The rule checkers answer a 400 for a request body; on the command line it is a bad value (exit 2). */
function checked(work: () => unknown): void {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) throw new SandboxConfigError(error.message);
    throw error;
  }
}

/** `--latency 200ms` or a seeded range `50ms-400ms`, each end with its unit. */
export function readLatency(value: unknown): string {
  const name = flagName('latency');
  const text = readText('latency', value);
  requireUnit(text, name);
  checked(() => parseLatency(text, name));
  return text;
}

/** `--rate-limit 100/min` (also /s, /h). */
export function readRateLimit(value: unknown): string {
  const text = readText('rate-limit', value);
  checked(() => parseRateLimit(text, flagName('rate-limit')));
  return text;
}

/**
 * `--latency 50ms-400ms --error-rate 0.05 --rate-limit 100/min` → one fault rule over every
 * service endpoint (none when no flag is given): the sandbox's standing rules, which
 * `PUT /sandbox/faults` does not replace.
 */
export function faultRuleFromFlags(flags: FaultFlags): FaultRule[] {
  const rule: FaultRule = {};
  if (flags.latency !== undefined) rule.latency = flags.latency;
  if (flags.errorRate !== undefined) rule.errorRate = flags.errorRate;
  if (flags.rateLimit !== undefined) rule.rateLimit = flags.rateLimit;
  return Object.keys(rule).length === 0 ? [] : [rule];
}
