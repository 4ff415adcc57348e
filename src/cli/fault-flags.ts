import { ApiError, SandboxConfigError } from '../shared/errors.js';
import { parseLatency, parseRateLimit, type FaultRule } from '../core/faults.js';

/** The fault flags of `serve`, as yargs reads them. */
export interface FaultFlags {
  latency?: string | undefined;
  errorRate?: number | undefined;
  rateLimit?: string | undefined;
}

/**
 * `--latency 50ms-400ms --error-rate 0.05 --rate-limit 100/min` → one fault rule over every
 * service endpoint (none when no flag is given). A bad value names its flag.
 */
export function faultRuleFromFlags(flags: FaultFlags): FaultRule[] {
  const rule: FaultRule = {};
  const check = (flag: string, work: () => unknown) => {
    try {
      work();
    } catch (error) {
      if (error instanceof ApiError || error instanceof SandboxConfigError) throw new SandboxConfigError(`${flag}: ${error.message}`);
      throw error;
    }
  };
  if (flags.latency !== undefined) {
    check('--latency', () => parseLatency(flags.latency!, 'latency'));
    rule.latency = flags.latency;
  }
  if (flags.errorRate !== undefined) {
    if (!Number.isFinite(flags.errorRate) || flags.errorRate < 0 || flags.errorRate > 1) {
      throw new SandboxConfigError(`--error-rate must be a number from 0 to 1, got ${flags.errorRate}`);
    }
    rule.errorRate = flags.errorRate;
  }
  if (flags.rateLimit !== undefined) {
    check('--rate-limit', () => parseRateLimit(flags.rateLimit!, 'rateLimit'));
    rule.rateLimit = flags.rateLimit;
  }
  return Object.keys(rule).length === 0 ? [] : [rule];
}
