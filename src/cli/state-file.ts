import { accessSync, closeSync, constants, fsyncSync, lstatSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Sandbox } from '../core/sandbox.js';
import { ApiError, SandboxConfigError } from '../shared/errors.js';
import { jsonTooDeep, MAX_SNAPSHOT_DEPTH, tooDeepPhrase } from '../shared/json-depth.js';
import { applyJsonDiff, type Json, type JsonOp } from '../shared/json-diff.js';
import { JsonTooDeepError, parseJsonInPieces } from '../shared/json-text-in-pieces.js';
import { type Pieces, runInTurns, runToEnd } from '../shared/pieces.js';
import { flagName } from './flags.js';

/** What loading a state file found: whether there was one, and how many commits of its journal were laid over it. */
export interface LoadedState {
  loaded: boolean;
  /** Commits of the journal (`--state-sync always`) applied over the file. */
  commits: number;
}

/**
 * Loads a state file into the sandbox, with the commits of its journal (`--state-sync always`)
 * laid over it. A missing file is a fresh start. A file that is not JSON, not a crm-sandbox
 * state or not valid, or a journal that is broken, throws a SandboxConfigError naming the file
 * and what is wrong; the files are left untouched.
 */
export function loadStateFile(sandbox: Sandbox, path: string, readCommits: (text: string) => JsonOp[][] = () => []): LoadedState {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return notRead(path, error);
  }
  const refuse = refusal(path);
  if (jsonTooDeep(text, MAX_SNAPSHOT_DEPTH)) throw refuse(`its JSON is ${tooDeepPhrase(MAX_SNAPSHOT_DEPTH)}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw refuse(`not valid JSON (${(error as Error).message})`);
  }
  const state = runToEnd(withCommits(path, value, readCommits(text)));
  try {
    sandbox.restore(state.value);
  } catch (error) {
    if (error instanceof ApiError) throw refuse(error.message);
    throw error;
  }
  return { loaded: true, commits: state.commits };
}

/**
 * {@link loadStateFile} with turns of the event loop between its pieces, so that a server that listens while it loads
 * answers others meanwhile (docs/decisions/0050): the file read by the thread pool, its JSON parsed in pieces, the
 * journal's commits laid over it one at a time, the state restored in pieces (`Sandbox.restoreInTurns`). The same
 * state and the same refusals.
 */
export async function loadStateFileInTurns(sandbox: Sandbox, path: string, readCommits: (text: string) => JsonOp[][] = () => []): Promise<LoadedState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return notRead(path, error);
  }
  const refuse = refusal(path);
  let value: unknown;
  try {
    value = await runInTurns(parseJsonInPieces(text, MAX_SNAPSHOT_DEPTH));
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw refuse(`its JSON is ${tooDeepPhrase(MAX_SNAPSHOT_DEPTH)}`);
    throw refuse(`not valid JSON (${(error as Error).message})`);
  }
  const state = await runInTurns(withCommits(path, value, readCommits(text)));
  try {
    await sandbox.restoreInTurns(state.value);
  } catch (error) {
    if (error instanceof ApiError) throw refuse(error.message);
    throw error;
  }
  return { loaded: true, commits: state.commits };
}

/** A file that could not be read: a fresh start when there is none, else a SandboxConfigError naming it. */
function notRead(path: string, error: unknown): LoadedState {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { loaded: false, commits: 0 };
  throw new SandboxConfigError(`${flagName('state-file')} ${path}: cannot read it: ${(error as Error).message}`);
}

const refusal = (path: string) => (why: string) => new SandboxConfigError(`${flagName('state-file')} ${path}: ${why}; the file was left as it is`);

/** A parsed state file checked as one, with its journal's commits laid over it, one a piece. */
function* withCommits(path: string, parsed: unknown, commits: JsonOp[][]): Pieces<{ value: unknown; commits: number }> {
  const refuse = refusal(path);
  let value = parsed;
  const format = (value as { format?: unknown } | null)?.format;
  if (typeof value !== 'object' || value === null || format !== 'crm-sandbox-state') {
    throw refuse(`not a crm-sandbox state file (its "format" is ${JSON.stringify(format)}, expected "crm-sandbox-state")`);
  }
  for (const [i, ops] of commits.entries()) {
    try {
      value = applyJsonDiff(value as Json, ops);
    } catch (error) {
      throw refuse(`its journal's commit ${i + 1} does not fit it (${(error as Error).message})`);
    }
    yield;
  }
  return { value, commits: commits.length };
}

/**
 * Removes what saves interrupted by a crash left beside the state file: its temporary files, and
 * those of its mark and journal (`state.json.<16 hex>.tmp`). Returns their names.
 */
export function removeTempFiles(path: string): string[] {
  const dir = dirname(path);
  const base = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const temporary = new RegExp(`^${base}(?:\\.running|\\.journal)?\\.[0-9a-f]{16}\\.tmp$`);
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!temporary.test(name)) continue;
    try {
      unlinkSync(join(dir, name));
      removed.push(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return removed;
}

/** Refuses to start with a state file that could never be saved (its directory missing or read-only). */
export function checkStateFileWritable(path: string): void {
  try {
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    throw new SandboxConfigError(
      `${flagName('state-file')} ${path}: cannot write to its directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/**
 * Writes a file so that a crash at any moment leaves either the old content or the new one, and
 * only its owner can read it (it holds API keys and access tokens): a temporary file beside it,
 * created exclusively under a random name with mode 0600 (a file or symlink planted at that name
 * makes it fail, never written through), fsynced, renamed over the target (which replaces a
 * symlink there rather than writing where it points, and a looser file's mode with 0600), and
 * the directory fsynced.
 */
export function writeFileAtomic(path: string, text: string): void {
  // node:crypto on first use, not at import: `serve` without a state file never loads it (docs/decisions/0035).
  const temporary = `${path}.${process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
  try {
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // Some file systems cannot fsync a directory; the rename is still atomic.
  }
}

/**
 * {@link writeFileAtomic} with the writing and the fsyncs done by the thread pool, so the event loop goes on meanwhile;
 * the rename over the target is made at once, and only unless `abandoned()` says a later save took its place (then the
 * temporary file goes). Whether the file was replaced.
 */
export async function writeFileAtomicInTurns(path: string, text: string, abandoned: () => boolean): Promise<boolean> {
  const temporary = `${path}.${process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex')}.tmp`;
  const file = await open(temporary, 'wx', 0o600);
  try {
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    if (abandoned()) {
      unlinkSync(temporary);
      return false;
    }
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // gone already (renamed, or never made)
    }
    throw error;
  }
  try {
    const dir = await open(dirname(path), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // Some file systems cannot fsync a directory; the rename is still atomic.
  }
  return true;
}

/** Whether `path` is a regular file only its owner may read or write (or no file yet: it will be one). */
export function ownerOnlyFile(path: string): boolean {
  try {
    const stats = lstatSync(path);
    return stats.isFile() && (stats.mode & 0o077) === 0;
  } catch {
    return true;
  }
}
