import { type ClientCheckReport, ruleFailureLines } from '../../client-check/report.js';
import type { ReportCase, ReportSuite } from './junit.js';

/** What became of the command client-check ran (src/cli/client-check.ts). */
export interface CommandRun {
  argv: string[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
}

/**
 * A client-check run as a report suite: one case for the command (it must succeed), then one per
 * conduct rule: passed, failed (the rule's summary, the requests that show it and the fix, as the
 * report prints them), or skipped when the run never exercised it (failed under `--strict`).
 */
export function clientCheckSuite(report: ClientCheckReport, command: CommandRun, outcome: string, timestamp: string): ReportSuite {
  const commandOk = command.exitCode === 0 && !command.timedOut;
  const cases: ReportCase[] = [
    { name: `command: ${command.argv.join(' ')}`, outcome: commandOk ? 'passed' : 'failed', detail: outcome, seconds: command.durationMs / 1000 },
  ];
  for (const rule of report.rules) {
    if (rule.status === 'pass') cases.push({ name: rule.rule, outcome: 'passed', detail: rule.summary });
    else if (rule.status === 'fail') cases.push({ name: rule.rule, outcome: 'failed', detail: [rule.summary, ...ruleFailureLines(rule)].join('\n') });
    else if (report.strict) cases.push({ name: rule.rule, outcome: 'failed', detail: `not exercised (--strict: a failure): ${rule.summary}` });
    else cases.push({ name: rule.rule, outcome: 'skipped', detail: `not exercised: ${rule.summary}` });
  }
  return {
    name: 'crm-sandbox client-check',
    classname: 'crm-sandbox.client-check',
    timestamp,
    seconds: command.durationMs / 1000,
    cases,
  };
}

/** What the run was, for a summary's lines. */
export function clientCheckLines(report: ClientCheckReport, outcome: string): string[] {
  const { settings, hardCases } = report;
  return [
    outcome,
    `${report.requests} request(s); hard cases: ${hardCases.rateLimited} answers 429, ${hardCases.unavailable} answers 503, pages of at most ${settings.pageSize}; seed ${settings.seed}`,
  ];
}
