// The bench's table: every figure raw, its ratio to the same-run baseline, and PASS/FAIL against
// its target. A throughput ratio is refused when the load generator cannot drive 3x the sandbox's
// rate (measured against a raw socket replaying the same bytes): then the generator, not the
// servers, may have set both figures.
export const rows = [];

export const fmt = (value, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';

/**
 * Adds a row. `ratio` is sandbox/baseline (or whatever the target compares); `pass(ratio)` says
 * whether it meets `target`; `refused` replaces the ratio with the reason it cannot be trusted.
 */
export function row({ workload, sandbox, baseline, ratio, target, pass, refused }) {
  const verdict = refused ? 'REFUSED' : pass === undefined ? '' : pass(ratio) ? 'PASS' : 'FAIL';
  const shown = refused ? `refused: ${refused}` : Number.isFinite(ratio) ? `${fmt(ratio, 2)}x` : '';
  rows.push({ workload, sandbox, baseline, ratio: shown, target: target ?? '', verdict });
  console.log(`  ${workload}: ${sandbox} | ${baseline} | ${shown} | ${target ?? ''} | ${verdict}`);
}

/** How many rows passed, failed and were refused so far. */
export function summary() {
  const count = (verdict) => rows.filter((r) => r.verdict === verdict).length;
  return { passed: count('PASS'), failed: count('FAIL'), refused: count('REFUSED') };
}

export function table() {
  const lines = ['| workload | sandbox | baseline / ceiling | ratio | target | verdict |', '| --- | --- | --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.workload} | ${r.sandbox} | ${r.baseline} | ${r.ratio} | ${r.target} | ${r.verdict} |`);
  return lines.join('\n');
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
