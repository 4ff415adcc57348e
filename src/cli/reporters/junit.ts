/**
 * JUnit XML, the report format every CI system renders (GitHub through a junit-report action,
 * GitLab's `artifacts:reports:junit`, Jenkins's `junit`, CircleCI's `store_test_results`): one
 * `<testsuite>` per run inside `<testsuites>`, one `<testcase>` per thing judged. A failing case
 * carries `<failure message="…">` with the report's own words; a case the run did not exercise
 * carries `<skipped>`.
 */

/** One thing a run judged: an expectation, a receiver probe or a conduct rule. */
export interface ReportCase {
  /** Stable across runs of the same input, so that CI systems can follow a case from run to run. */
  name: string;
  /** `failed`: `failure` says why (its first line is the `message` attribute). */
  outcome: 'passed' | 'failed' | 'skipped';
  /** The report's words: why it failed, or why it was skipped. */
  detail?: string;
  /** Real seconds it took, where the report measures it (a probe's answer); 0 otherwise. */
  seconds?: number;
}

/** One run: a scenario run, a receiver-check, a client-check. */
export interface ReportSuite {
  /** `crm-sandbox scenario deal-won`. */
  name: string;
  /** The `classname` of every case: `crm-sandbox.scenario.deal-won`. */
  classname: string;
  /** When the run started (ISO). */
  timestamp: string;
  /** Real seconds the run took. */
  seconds: number;
  cases: ReportCase[];
}

/** The suite's cases counted as JUnit counts them. */
export function counts(suite: ReportSuite): { tests: number; failures: number; skipped: number } {
  return {
    tests: suite.cases.length,
    failures: suite.cases.filter((item) => item.outcome === 'failed').length,
    skipped: suite.cases.filter((item) => item.outcome === 'skipped').length,
  };
}

/**
 * The suite as a JUnit XML document.
 *
 * @example writeFileSync('junit.xml', junitXml(suite))
 */
export function junitXml(suite: ReportSuite): string {
  const { tests, failures, skipped } = counts(suite);
  const time = suite.seconds.toFixed(3);
  const totals = `tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}"`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name=${attribute(suite.name)} ${totals}>`,
    `  <testsuite name=${attribute(suite.name)} ${totals} timestamp=${attribute(suite.timestamp)}>`,
  ];
  for (const item of suite.cases) {
    const open = `    <testcase name=${attribute(item.name)} classname=${attribute(suite.classname)} time="${(item.seconds ?? 0).toFixed(3)}"`;
    const detail = item.detail ?? '';
    if (item.outcome === 'passed') lines.push(`${open}/>`);
    else if (item.outcome === 'skipped') lines.push(`${open}>`, `      <skipped message=${attribute(firstLine(detail))}/>`, '    </testcase>');
    else lines.push(`${open}>`, `      <failure message=${attribute(firstLine(detail))} type="failure">${text(detail)}</failure>`, '    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

const firstLine = (detail: string) => detail.split('\n')[0]!;

/** Characters XML 1.0 cannot hold at all (control characters but tab, newline and carriage return; lone surrogates): written as U+FFFD. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters XML cannot hold are what it finds
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text content: `&`, `<` and `>` escaped. */
function text(value: string): string {
  return value.replace(NOT_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A quoted attribute value; newlines and tabs as character references, so that parsers keep them. */
function attribute(value: string): string {
  return `"${text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;')}"`;
}
