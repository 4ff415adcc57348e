import type { CheckResult, ScenarioReport } from '../../scenarios/report.js';
import type { ReportCase, ReportSuite } from './junit.js';

/** The kinds of an `expect` step's verdicts (src/scenarios/expect.ts); every other kind of check is a step that failed, or the run's stop. */
const EXPECTATIONS = new Set(['events', 'deliveries', 'receiver']);
/** The case that stands for the receiver's acceptance of every event (its `delivery` checks, and a receiver that never answered). */
export const DELIVERIES_CASE = 'deliveries: every event accepted by the receiver';

/**
 * A scenario run (receiver-check's too) as a report suite: one case per expectation and per
 * receiver probe, one per step that failed, and one for the deliveries (every event the run sent
 * was accepted) when the run sent events or failed to. A failing case carries the report's failure
 * line (with its fix, for a probe); a passing one the check's own message.
 */
export function scenarioSuite(report: ScenarioReport, run: { timestamp: string; seconds: number }): ReportSuite {
  const unused = [...report.failures];
  const take = (message: string): string => {
    const at = unused.findIndex((line) => line.includes(message));
    return at === -1 ? message : unused.splice(at, 1)[0]!;
  };
  const seconds = new Map(report.probes.map((probe) => [`probe ${probe.probe}`, probe.durationMs / 1000]));
  const cases: ReportCase[] = [];
  const names = new Map<string, number>();
  const named = (check: CheckResult): string => {
    const what = EXPECTATIONS.has(check.kind) ? `expect ${check.kind}` : check.kind;
    const name = check.step === null ? what : `steps[${check.step}] ${what}`;
    const seen = (names.get(name) ?? 0) + 1;
    names.set(name, seen);
    return seen === 1 ? name : `${name} (${seen})`;
  };
  const deliveries = report.checks.filter((check) => check.kind === 'delivery');
  for (const check of report.checks) {
    if (check.kind === 'delivery') continue;
    const probeSeconds = seconds.get(check.kind);
    cases.push({
      name: named(check),
      outcome: check.ok ? 'passed' : 'failed',
      detail: check.ok ? check.message : take(check.message),
      ...(probeSeconds === undefined ? {} : { seconds: probeSeconds }),
    });
  }
  // What is left of the failures: the events never accepted, a receiver that never answered.
  const left = unused.length > 0 ? unused : deliveries.map((check) => check.message);
  // Events were sent where a connection has a webhook (receiver-check's own connection has none: its probes go straight to the receiver).
  const sent = report.events.length > 0 && Object.values(report.connections).some((connection) => connection.webhookUrl !== null);
  if (sent || left.length > 0) {
    cases.push(
      left.length === 0
        ? { name: DELIVERIES_CASE, outcome: 'passed', detail: deliveredLine(report) }
        : { name: DELIVERIES_CASE, outcome: 'failed', detail: left.join('\n') },
    );
  }
  return {
    name: `crm-sandbox scenario ${report.scenario}`,
    classname: `crm-sandbox.scenario.${report.scenario}`,
    timestamp: run.timestamp,
    seconds: run.seconds,
    cases,
  };
}

/** What the run was, for a summary's lines. */
export function scenarioLines(report: ScenarioReport): string[] {
  const { connection } = report;
  return [
    `${report.description || report.scenario}`,
    `connection \`${connection.connectionId}\` (${connection.integrationId}), accessToken \`${connection.accessToken}\``,
    `${deliveredLine(report)}; ${report.speed}${report.seed === null ? '' : `, seed ${report.seed}`}`,
  ];
}

function deliveredLine(report: ScenarioReport): string {
  const delivered = report.events.filter((event) => event.state === 'succeeded').length;
  return `${report.events.length} event(s) emitted, ${delivered} delivered`;
}
