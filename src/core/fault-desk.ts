import { type DownstreamFault, type DownstreamFaultInput, downstreamFaultsBody, toFault } from '../downstream/faults.js';
import { checkOptionNames } from '../shared/option-names.js';
import { parseOrThrow } from '../shared/validation.js';
import type { FaultInjector, FaultRule } from './faults.js';
import { knownConnection } from './known-connection.js';
import type { SandboxParts } from './sandbox-parts.js';

/**
 * The faults a sandbox injects: the runtime rules of the service's endpoints (the injector's,
 * which a reset keeps) and each connection's pending downstream faults (on the current parts).
 */
export class FaultDesk {
  constructor(
    private readonly injector: FaultInjector,
    private readonly parts: () => SandboxParts,
  ) {}

  setFaults(rules: FaultRule | readonly FaultRule[] | { rules: readonly FaultRule[] }, given?: { apiKey?: string }): FaultRule[] {
    const options = checkOptionNames(given, ['apiKey'], 'setFaults()');
    return this.injector.set(rules, options.apiKey);
  }

  faultRules(given?: { apiKey?: string }): FaultRule[] {
    const options = checkOptionNames(given, ['apiKey'], 'faultRules()');
    return this.injector.current(options.apiKey);
  }

  standingFaultRules(): FaultRule[] {
    return this.injector.standingRules;
  }

  setDownstreamFaults(connectionId: string, faults: DownstreamFaultInput[]): DownstreamFault[] {
    const { faults: parsed } = parseOrThrow(downstreamFaultsBody(), { faults });
    const connection = knownConnection(this.parts().registry, connectionId);
    connection.downstreamFaults = parsed.map(toFault);
    return this.downstreamFaults(connectionId);
  }

  downstreamFaults(connectionId: string): DownstreamFault[] {
    return knownConnection(this.parts().registry, connectionId).downstreamFaults.map((fault) => ({ ...fault }));
  }
}
