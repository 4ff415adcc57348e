import { accessSync, appendFileSync, constants, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { SandboxConfigError } from '../../shared/errors.js';
import { flagName } from '../flags.js';
import { junitXml, type ReportSuite } from './junit.js';
import { markdownSummary } from './markdown.js';

/** The formats `--reporter` writes. */
export const REPORTERS = ['junit'] as const;

/** `--reporter` and `--output`, the same on every command that judges something (scenario run, client-check). */
export const REPORT_OPTIONS = {
  reporter: {
    requiresArg: true,
    type: 'string',
    choices: REPORTERS,
    describe: 'Also write the result as a report CI systems render, to --output: junit (JUnit XML: one testcase per expectation, probe or rule)',
  },
  output: { requiresArg: true, type: 'string', describe: "The file --reporter writes (its folder is made when missing); stdout's report stays as it is" },
} as const;

export interface ReportArgs {
  reporter?: string | undefined;
  output?: string | undefined;
}

/**
 * Checks `--reporter` and `--output` before the run starts, so that a run of minutes is not lost
 * to a file it cannot write: each needs the other, and the output's folder must be writable
 * (made when missing). Throws a SandboxConfigError (exit 2).
 */
export function checkReportArgs(args: ReportArgs): void {
  if (args.reporter !== undefined && args.output === undefined) {
    throw new SandboxConfigError(`${flagName('reporter')} ${args.reporter} needs ${flagName('output')}: the file to write the report to`);
  }
  if (args.output === undefined) return;
  if (args.reporter === undefined) throw new SandboxConfigError(`${flagName('output')} needs ${flagName('reporter')}: the format to write (junit)`);
  const file = resolve(args.output);
  try {
    mkdirSync(dirname(file), { recursive: true });
    accessSync(dirname(file), constants.W_OK);
  } catch (error) {
    throw new SandboxConfigError(
      `${flagName('output')} ${args.output}: cannot write in its folder (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new SandboxConfigError(`${flagName('output')} ${args.output} is a folder; name a file`);
}

/**
 * Writes what the run judged: the `--reporter` file, and, in a GitHub Actions job
 * (`GITHUB_STEP_SUMMARY` set), its Markdown summary appended to the job's summary. `suite` and
 * `lines` are built only when one of them is wanted. A summary that cannot be appended is a
 * warning on stderr: the run's verdict stands.
 */
export function writeReports(args: ReportArgs, suite: () => ReportSuite, lines: () => string[]): void {
  const summaryFile = process.env.GITHUB_STEP_SUMMARY;
  if (args.reporter === undefined && !summaryFile) return;
  const built = suite();
  if (args.reporter === 'junit' && args.output !== undefined) writeFileSync(args.output, junitXml(built));
  if (summaryFile) {
    try {
      appendFileSync(summaryFile, markdownSummary(built, lines()));
    } catch (error) {
      process.stderr.write(`crm-sandbox: warning: could not append the summary to GITHUB_STEP_SUMMARY (${summaryFile}): ${(error as Error).message}\n`);
    }
  }
}
