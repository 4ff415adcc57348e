import { closeSync, fsyncSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { SandboxConfigError } from '../shared/errors.js';
import { type JsonOp, jsonDiff } from '../shared/json-diff.js';
import { flagName } from './flags.js';
import { writeFileAtomic } from './state-file.js';

/*
 * The journal of `serve --state-file --state-sync always` (`state.json.journal`, docs/decisions/0031):
 * what changed since the state file was last written whole, one line per commit, each fsynced
 * before the writes it holds are answered. Its first line names the state file it goes on from
 * (the SHA-256 of its text), so a journal left behind by a crash between a full save and its
 * removal is told apart and ignored: that save already holds it. A last line cut short by a crash
 * was never complete, so never acknowledged: it is left out.
 */

const FORMAT = 'crm-sandbox-journal';

/** The journal's path beside the state file. */
export const journalPath = (path: string): string => `${path}.journal`;

/** The digest that ties a journal to the state file text it goes on from. */
// node:crypto on first use, not at import: `serve` without a state file never loads it (docs/decisions/0035).
export const stateDigest = (text: string): string => process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex');

/**
 * The commits of the journal that goes on from the state file's `text`, in order; none when
 * there is no journal or it goes on from another state file. A line in the middle that is not a
 * commit stops the start, naming the journal and the line (nothing is changed).
 */
export function readJournal(path: string, text: string): JsonOp[][] {
  const journal = journalPath(path);
  let content: string;
  try {
    content = readFileSync(journal, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new SandboxConfigError(`${flagName('state-file')} ${path}: cannot read ${journal}: ${(error as Error).message}`);
  }
  // Every whole line ends with a newline: what follows the last one (nothing, or a line a crash cut short) is left out.
  const complete = content.split('\n').slice(0, -1);
  const header = parseLine(complete[0]) as { format?: unknown; snapshot?: unknown } | undefined;
  if (header?.format !== FORMAT || typeof header.snapshot !== 'string') {
    if (complete.length === 0) return []; // cut short before its first line was whole
    throw new SandboxConfigError(`${flagName('state-file')} ${path}: ${journal} line 1 is not a crm-sandbox journal's; the files were left as they are`);
  }
  if (header.snapshot !== stateDigest(text)) return [];
  return complete.slice(1).map((line, i) => {
    const commit = parseLine(line) as { ops?: unknown } | undefined;
    if (!Array.isArray(commit?.ops)) {
      throw new SandboxConfigError(`${flagName('state-file')} ${path}: ${journal} line ${i + 2} is not a commit; the files were left as they are`);
    }
    return commit.ops as JsonOp[];
  });
}

function parseLine(line: string | undefined): unknown {
  if (line === undefined) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Removes the journal beside the state file, if there is one. */
export function removeJournal(path: string): void {
  unlinkIfThere(journalPath(path));
}

function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Appends commits to the journal of the state file last written whole. {@link restart} after
 * each full save; {@link append} writes one commit and fsyncs it.
 *
 * @example const journal = new Journal('state.json'); journal.restart(text, snapshot); journal.append(next);
 */
export class Journal {
  private readonly path: string;
  /** The state as of the last commit (or full save): the next commit is what changed from it. */
  private last: unknown;
  private digest = '';
  private fd: number | undefined;
  /** Commits since the last full save, and their bytes. */
  commits = 0;
  bytes = 0;

  constructor(path: string) {
    this.path = journalPath(path);
  }

  /** The state file was just written whole as `text` (the JSON of `state`): the journal starts again from it, and the old one goes. */
  restart(text: string, state: unknown): void {
    this.close();
    this.last = state;
    this.digest = stateDigest(text);
    this.commits = 0;
    this.bytes = 0;
    unlinkIfThere(this.path);
  }

  /** Writes what changed from the last commit to `state`, and fsyncs it. */
  append(state: unknown): void {
    const line = `${JSON.stringify({ ops: jsonDiff(this.last, state) })}\n`;
    if (this.fd === undefined && this.commits > 0) throw new Error('the journal was closed after a failed commit: write the state whole');
    if (this.fd === undefined) {
      // The first commit writes the journal whole (header and line, atomically), then it is appended to.
      writeFileAtomic(this.path, `${JSON.stringify({ format: FORMAT, snapshot: this.digest })}\n${line}`);
      this.fd = openSync(this.path, 'a');
    } else {
      writeSync(this.fd, line);
      fsyncSync(this.fd);
    }
    this.last = state;
    this.commits++;
    this.bytes += line.length;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
