import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, fsyncSync, lstatSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Sandbox } from '../core/sandbox.js';
import { ApiError, SandboxConfigError } from '../shared/errors.js';
import { jsonTooDeep, MAX_SNAPSHOT_DEPTH, tooDeepPhrase } from '../shared/json-depth.js';
import { flagName } from './flags.js';

/**
 * Loads a state file into the sandbox. A missing file is a fresh start (false). A file that is
 * not JSON, not a crm-sandbox state or not valid throws a SandboxConfigError naming the file and
 * what is wrong; the file is left untouched.
 */
export function loadStateFile(sandbox: Sandbox, path: string): boolean {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new SandboxConfigError(`${flagName('state-file')} ${path}: cannot read it: ${(error as Error).message}`);
  }
  const refuse = (why: string) => new SandboxConfigError(`${flagName('state-file')} ${path}: ${why}; the file was left as it is`);
  if (jsonTooDeep(text, MAX_SNAPSHOT_DEPTH)) throw refuse(`its JSON is ${tooDeepPhrase(MAX_SNAPSHOT_DEPTH)}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw refuse(`not valid JSON (${(error as Error).message})`);
  }
  const format = (value as { format?: unknown } | null)?.format;
  if (typeof value !== 'object' || value === null || format !== 'crm-sandbox-state') {
    throw refuse(`not a crm-sandbox state file (its "format" is ${JSON.stringify(format)}, expected "crm-sandbox-state")`);
  }
  try {
    sandbox.restore(value);
  } catch (error) {
    if (error instanceof ApiError) throw refuse(error.message);
    throw error;
  }
  return true;
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
  const temporary = `${path}.${randomBytes(8).toString('hex')}.tmp`;
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
 * Saves the sandbox's state to a file when it changes: at most once per `intervalMs` (debounced
 * on the sandbox's state revision), and once more by `flush()` at shutdown.
 *
 * @example const saver = new StateSaver(sandbox, 'state.json'); saver.start(); … saver.flush();
 */
export class StateSaver {
  private readonly sandbox: Sandbox;
  private readonly path: string;
  private readonly intervalMs: number;
  private saved: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly onError: (error: unknown) => void;

  constructor(sandbox: Sandbox, path: string, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}) {
    this.sandbox = sandbox;
    this.path = path;
    this.intervalMs = options.intervalMs ?? 250;
    // A file others may read (older versions wrote 0644) or a symlink is saved again at the first tick: 0600, a file of its own.
    this.saved = ownerOnlyFile(path) ? sandbox.stateRevision : Number.NaN;
    this.onError = options.onError ?? ((error) => console.error(`crm-sandbox: cannot save ${path}: ${(error as Error).message}`));
  }

  start(): void {
    // A real-time timer, not the sandbox clock: saving is about the process, not the simulation.
    this.timer = setInterval(() => this.saveIfChanged(), this.intervalMs);
    this.timer.unref();
  }

  /** Saves now if anything changed since the last save, and stops the timer. */
  flush(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.saveIfChanged();
  }

  private saveIfChanged(): void {
    const revision = this.sandbox.stateRevision;
    if (revision === this.saved) return;
    try {
      writeFileAtomic(this.path, JSON.stringify(this.sandbox.snapshot()));
      this.saved = revision;
    } catch (error) {
      this.onError(error);
    }
  }
}

/** Whether `path` is a regular file only its owner may read or write (or no file yet: it will be one). */
function ownerOnlyFile(path: string): boolean {
  try {
    const stats = lstatSync(path);
    return stats.isFile() && (stats.mode & 0o077) === 0;
  } catch {
    return true;
  }
}
