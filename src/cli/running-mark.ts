import { readFileSync, unlinkSync } from 'node:fs';
import { SandboxConfigError } from '../shared/errors.js';
import { flagName } from './flags.js';
import { writeFileAtomic } from './state-file.js';

/*
 * The mark a server keeps beside its state file while it runs (`state.json.running`): a clean
 * stop saves the state and removes it, so a mark found at start means the last run ended
 * without that final save (kill -9, a crash, the machine lost). It also holds the reservation:
 * how many draws any stream that issues ids may have made past the state saved, which a restart
 * after a crash moves every stream past (docs/decisions/0030).
 */

const FORMAT = 'crm-sandbox-running';

/** What the mark says: every stream that issues ids is at most `reserve` draws past the saved state. */
export interface RunningMark {
  reserve: number;
}

/** The mark's path beside the state file. */
export const markPath = (path: string): string => `${path}.running`;

/** The mark of a run that did not stop cleanly, or undefined when there is none. One that is not a mark of ours stops the start. */
export function readRunningMark(path: string): RunningMark | undefined {
  const mark = markPath(path);
  let text: string;
  try {
    text = readFileSync(mark, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxConfigError(`${flagName('state-file')} ${path}: cannot read ${mark}: ${(error as Error).message}`);
  }
  let value: { format?: unknown; reserve?: unknown } | undefined;
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    value = undefined;
  }
  const reserve = value?.reserve;
  if (value?.format !== FORMAT || typeof reserve !== 'number' || !Number.isSafeInteger(reserve) || reserve < 0) {
    throw new SandboxConfigError(
      `${flagName('state-file')} ${path}: ${mark} is not the mark a crm-sandbox server keeps beside its state file; remove it if no server uses the file`,
    );
  }
  return { reserve };
}

/** Writes the mark (atomically, 0600): a server now runs on the file, and its streams may go `reserve` draws past it. */
export function writeRunningMark(path: string, mark: RunningMark): void {
  writeFileAtomic(markPath(path), `${JSON.stringify({ format: FORMAT, reserve: mark.reserve })}\n`);
}

/** Removes the mark: the state file holds everything the run did (a clean stop). */
export function removeRunningMark(path: string): void {
  try {
    unlinkSync(markPath(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
