import type { Evidence, InjectedCase, TenantConduct } from './conduct.js';
import { short } from './request-facts.js';
import { RULE_IDS, RULES, type RuleId } from './rules.js';

export type RuleStatus = 'pass' | 'fail' | 'not-exercised';

/** A request or fact behind a verdict, with its time twice: ISO, and from the start of the check. */
export interface ReportEvidence {
  at: string;
  /** `+3.201s`: from the start of the check. */
  since: string;
  /** The request, tokens and cursors cut short: `GET /engagement/users?accessToken=access_1a2b…&limit=10`; '' when the evidence is no single request. */
  request: string;
  /** Its answer's status (0 when none applies). */
  status: number;
  detail: string;
}

export interface RuleReport {
  rule: RuleId;
  title: string;
  status: RuleStatus;
  /** How many times the run put the rule to the test (see the rule's unit in the summary). */
  exercised: number;
  failures: number;
  /** One line: the first failure, or what the run showed. */
  summary: string;
  /** Up to five failures, or up to three examples of the rule holding. */
  evidence: ReportEvidence[];
  /** What a fix looks like: with a failure only. */
  hint?: string;
}

export interface ReportCase extends Omit<InjectedCase, 'at'> {
  at: string;
  since: string;
}

/** The client-check report of one tenant (API token). */
export interface ClientCheckReport {
  /** No rule failed (with `strict`, and none went unexercised). */
  ok: boolean;
  strict: boolean;
  /** Judged as if the client is done: a walk of pages still open counts as abandoned. */
  final: boolean;
  startedAt: string;
  at: string;
  settings: ClientCheckSettings;
  /** Requests of this API token to the service's endpoints since the check started. */
  requests: number;
  hardCases: {
    /** Answers a 429 (the first of each hard case and those that followed while it lasted). */
    rateLimited: number;
    /** Answers a 503. */
    unavailable: number;
    connectionsDeleted: number;
    /** Each hard case, as it started (at most 100). */
    cases: ReportCase[];
  };
  rules: RuleReport[];
}

/** What hard cases the check puts in a client's way, as the report states them. */
export interface ClientCheckSettings {
  seed: number;
  /** Most records per page of a list or search. */
  pageSize: number;
  /** Retry-After of the injected 429s: `1s-2s`. */
  retryAfter: string;
  /** Whether 429s and 503s are injected. */
  faults: boolean;
  /** Each connection is deleted this long after its exchange (`6s`), or null. */
  deleteConnectionAfter: string | null;
}

export interface ReportOptions {
  /** Judge open walks as abandoned (the client is done). Default false: they are "in progress". */
  final?: boolean;
  /** A rule never exercised fails the report too. */
  strict?: boolean;
  /** Only these rules (default: all). */
  rules?: readonly RuleId[];
}

/** Builds a tenant's report: each rule's verdict with its evidence. */
export function buildReport(
  conduct: TenantConduct,
  context: { settings: ClientCheckSettings; startedAt: number; now: number; exists: (connectionId: string) => boolean },
  options: ReportOptions = {},
): ClientCheckReport {
  const final = options.final === true;
  const strict = options.strict === true;
  const evidence = (item: Evidence): ReportEvidence => ({
    at: new Date(item.at).toISOString(),
    since: conduct.since(item.at),
    request: item.request,
    status: item.status,
    detail: item.detail,
  });
  const standing = conduct.standingPasses();
  // Walks still open: abandoned when the client is done (unless their connection is gone), else in progress.
  const open = [...conduct.walks.values()].filter((walk) => context.exists(walk.connectionId));
  const abandoned: Evidence[] = final
    ? open.map((walk) => ({
        at: walk.cursorAt,
        request: '',
        status: 0,
        detail: `the ${walk.list} of connection ${short(walk.connectionId, 8)} stopped at page ${walk.pages}: its nextPageCursor (${short(walk.cursor, 8)}, answered at ${conduct.since(walk.cursorAt)}) was never requested`,
      }))
    : [];
  const rules = (options.rules ?? RULE_IDS).map((id): RuleReport => {
    const info = RULES[id];
    const tally = conduct.tallies[id];
    const extra = id === 'pages-to-the-end' ? abandoned : [];
    const failures = tally.failures + extra.length;
    const failed = [...tally.failed, ...extra].slice(0, 5);
    const passed = [...(standing[id] ?? []), ...tally.passed].slice(0, 3);
    const status: RuleStatus = failures > 0 ? 'fail' : tally.exercised > 0 ? 'pass' : 'not-exercised';
    const count = `${tally.exercised} ${info.unit[tally.exercised === 1 ? 0 : 1]}`;
    const progress = id === 'pages-to-the-end' && !final && open.length > 0 ? `; ${open.length} walk${open.length > 1 ? 's' : ''} still in progress` : '';
    const summary =
      status === 'fail'
        ? `${told(failed[0]!)}${failures > 1 ? ` (${failures} times)` : ''}`
        : status === 'pass'
          ? `${count}${passed[0] ? `; e.g. ${told(passed[0])}` : ', none broke it'}${progress}`
          : info.unexercised;
    return {
      rule: id,
      title: info.title,
      status,
      exercised: tally.exercised,
      failures,
      summary,
      evidence: (status === 'fail' ? failed : passed).map(evidence),
      ...(status === 'fail' ? { hint: info.hint } : {}),
    };
  });
  const ok = rules.every((rule) => rule.status === 'pass' || (rule.status === 'not-exercised' && !strict));
  return {
    ok,
    strict,
    final,
    startedAt: new Date(context.startedAt).toISOString(),
    at: new Date(context.now).toISOString(),
    settings: context.settings,
    requests: conduct.requests,
    hardCases: {
      rateLimited: conduct.answersInjected['rate-limit'],
      unavailable: conduct.answersInjected['server-error'],
      connectionsDeleted: conduct.connectionsDeleted,
      cases: conduct.cases.map((item) => ({ ...item, at: new Date(item.at).toISOString(), since: conduct.since(item.at) })),
    },
    rules,
  };
}

/** Evidence in one line: the request, then what it showed. */
function told(item: { request: string; detail: string }): string {
  return item.request ? `${item.request}: ${item.detail}` : item.detail;
}

const LABELS: Record<RuleStatus, string> = { pass: 'PASS', fail: 'FAIL', 'not-exercised': 'NOT EXERCISED' };

/**
 * The report as a person reads it: a headline, one row per rule (result, rule, evidence), then
 * each failure with its requests and a fix hint.
 *
 * @example console.log(formatReport(report))
 */
export function formatReport(report: ClientCheckReport): string {
  const failed = report.rules.filter((rule) => rule.status === 'fail');
  const unexercised = report.rules.filter((rule) => rule.status === 'not-exercised');
  const { settings, hardCases } = report;
  const lines = [
    `client-check: ${failed.length === 0 ? 'no rule failed' : `${failed.length} of ${report.rules.length} rules failed`}` +
      `${unexercised.length > 0 ? `, ${unexercised.length} not exercised${report.strict ? ' (--strict: a failure)' : ''}` : ''}; ${report.requests} request${report.requests === 1 ? '' : 's'}`,
    `  hard cases: ${hardCases.rateLimited} answers 429 (Retry-After ${settings.retryAfter}), ${hardCases.unavailable} answers 503` +
      `, pages of at most ${settings.pageSize}${settings.deleteConnectionAfter === null ? '' : `, ${hardCases.connectionsDeleted} connection(s) deleted ${settings.deleteConnectionAfter} after linking`}` +
      `${settings.faults ? '' : ' (--no-faults)'}; seed ${settings.seed}`,
    '',
  ];
  const width = Math.max(...report.rules.map((rule) => rule.rule.length));
  for (const rule of report.rules) lines.push(`  ${LABELS[rule.status].padEnd(13)}  ${rule.rule.padEnd(width)}  ${rule.summary}`);
  for (const rule of failed) lines.push('', ...ruleFailureLines(rule));
  return lines.join('\n');
}

/**
 * A failed rule as the report prints it: its title, the requests that show it, and the fix.
 *
 * @example ruleFailureLines(report.rules.find((rule) => rule.status === 'fail')!).join('\n')
 */
export function ruleFailureLines(rule: RuleReport): string[] {
  const lines = [`${rule.rule}: ${rule.title}`];
  for (const item of rule.evidence) lines.push(`  ${item.since.padStart(9)}  ${item.status ? `[${item.status}] ` : ''}${told(item)}`);
  if (rule.failures > rule.evidence.length) lines.push(`  … and ${rule.failures - rule.evidence.length} more`);
  lines.push(`  fix: ${rule.hint}`);
  return lines;
}
