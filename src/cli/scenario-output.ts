import type { ScenarioReport } from '../scenarios/report.js';
import type { RunProgress } from '../scenarios/runner.js';

/** In a log (not a terminal), at most one "waiting on …" line this often, per step: a retry schedule makes many. */
const WAITING_LINE_EVERY_MS = 5_000;

/**
 * Progress of a run: one line updated in place on a terminal, plain lines otherwise (CI logs).
 * Writes to `stream` (stderr when stdout carries the `--json` report). While the run waits for
 * deliveries, the line says on what (event, attempt, the receiver's last answer).
 */
export function progressPrinter(stream: NodeJS.WriteStream): { update: (progress: RunProgress) => void; warn: (message: string) => void; end: () => void } {
  const tty = stream.isTTY === true;
  let last = '';
  let lastStep = -1;
  let lastWaitingLine = -Infinity;
  return {
    update(progress) {
      const line = `[${progress.step}/${progress.steps}] ${progress.detail}${progress.waiting ? `: ${progress.waiting}` : ''}`;
      if (line === last) return;
      if (!tty && progress.waiting) {
        const now = performance.now();
        if (progress.step === lastStep && now - lastWaitingLine < WAITING_LINE_EVERY_MS) return;
        lastWaitingLine = now;
      }
      last = line;
      lastStep = progress.step;
      if (tty) stream.write(`\r\x1b[2K${line.slice(0, (stream.columns || 100) - 1)}`);
      else stream.write(`${line}\n`);
    },
    warn(message) {
      // On its own line, and the progress line drawn again under it.
      stream.write(tty ? `\r\x1b[2K${message}\n${last.slice(0, (stream.columns || 100) - 1)}` : `${message}\n`);
    },
    end() {
      if (tty && last !== '') stream.write('\r\x1b[2K');
    },
  };
}

/** The summary a person reads at the end of a run. */
export function formatSummary(report: ScenarioReport): string {
  const lines: string[] = [];
  const delivered = report.events.filter((event) => event.state === 'succeeded').length;
  const attempts = report.events.reduce((sum, event) => sum + event.attempts.length, 0);
  lines.push(`${report.ok ? 'PASS' : 'FAIL'} ${report.scenario}${report.description ? `: ${report.description}` : ''}`);
  lines.push(`  connection   ${report.connection.connectionId} (${report.connection.integrationId})`);
  lines.push(`  accessToken  ${report.connection.accessToken}   (verifies the x-service-signature of each event)`);
  // A run without webhooks (receiver-check's) sends no event: "0 delivered" beside PASS would read as a failure.
  const probed = report.probes.length > 0 ? '; the probes went straight to the receiver' : '';
  lines.push(`  webhook      ${report.connection.webhookUrl ?? `none: the connection's events are not sent${probed}`}`);
  const unsent = Object.values(report.connections).every((connection) => connection.webhookUrl === null);
  const outcome = unsent ? 'none sent (no webhook)' : `${delivered} delivered, ${attempts} attempts`;
  lines.push(`  events       ${report.events.length} emitted, ${outcome}; ${report.speed}, started ${report.startTime}`);
  if (report.probes.length > 0) {
    lines.push('', formatProbes(report));
  }
  const passed = report.checks.filter((check) => check.ok && !check.kind.startsWith('probe')).length;
  const expectations = report.checks.filter((check) => !check.kind.startsWith('probe') && check.kind !== 'delivery');
  if (expectations.length > 0) lines.push(`  expectations ${passed} of ${expectations.length} held`);
  if (report.failures.length > 0) {
    lines.push('', 'Failures:');
    for (const failure of report.failures.slice(0, 20)) lines.push(`  ✗ ${failure}`);
    if (report.failures.length > 20) lines.push(`  … and ${report.failures.length - 20} more (see --json)`);
  }
  return lines.join('\n');
}

/** The receiver-check table. */
function formatProbes(report: ScenarioReport): string {
  const rows = report.probes.map((probe) => [
    probe.ok ? 'pass' : 'FAIL',
    probe.probe,
    probe.expected,
    probe.earlierAnswers ? `${probe.got} (after ${probe.earlierAnswers.join(', ')}: not ready yet)` : probe.got,
  ]);
  const header = ['', 'probe', 'expected', 'got'];
  const widths = header.map((_, column) => Math.max(header[column]!.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `  ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`.trimEnd();
  const out = [line(header), ...rows.map(line)];
  return out.join('\n');
}
