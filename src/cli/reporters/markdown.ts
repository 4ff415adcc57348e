import { counts, type ReportSuite } from './junit.js';

/** Rows a summary shows before it says how many more there are (GitHub takes 1 MiB of summary per step). */
const MAX_ROWS = 100;
const ICONS = { passed: '✅', failed: '❌', skipped: '➖' } as const;

/**
 * The suite as the Markdown of a CI job's summary (GitHub's `GITHUB_STEP_SUMMARY`): a headline
 * with the counts, `lines` (what the run was: its connection, its command), then one row per case,
 * failures first, each with the report's words.
 */
export function markdownSummary(suite: ReportSuite, lines: readonly string[] = []): string {
  const { tests, failures, skipped } = counts(suite);
  const ok = failures === 0;
  const tally = `${tests - failures - skipped} passed, ${failures} failed${skipped > 0 ? `, ${skipped} not exercised` : ''}`;
  const out = [`### ${ok ? ICONS.passed : ICONS.failed} ${suite.name}: ${tally}`, ''];
  if (lines.length > 0) out.push(...lines.map((line) => `- ${line}`), '');
  const order = { failed: 0, skipped: 1, passed: 2 } as const;
  const rows = [...suite.cases].sort((a, b) => order[a.outcome] - order[b.outcome]);
  if (rows.length > 0) {
    out.push('| | check | detail |', '| --- | --- | --- |');
    for (const item of rows.slice(0, MAX_ROWS)) out.push(`| ${ICONS[item.outcome]} | ${cell(item.name)} | ${cell(item.detail ?? '')} |`);
    if (rows.length > MAX_ROWS) out.push('', `… and ${rows.length - MAX_ROWS} more (see the JUnit report or --json)`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

/** Text in a table cell: pipes escaped, lines joined with <br>, HTML and Markdown's own characters kept as text. */
function cell(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/`/g, '\\`').trim().replace(/\r?\n/g, '<br>');
}
