import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which binaries the checks read, and how each runs here. `CRM_SANDBOX_BINARIES` is their folder
 * (default dist-bin/); `CRM_SANDBOX_BINARY_TARGETS` the targets expected there (default all five);
 * `CRM_SANDBOX_SMOKE_TARGETS` those whose smoke suite runs (default linux-x64): linux-arm64 runs
 * under qemu-user-static, with Debian's arm64 cross libraries as its root (-L).
 */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FOLDER = process.env.CRM_SANDBOX_BINARIES ?? join(ROOT, 'dist-bin');
const list = (value: string | undefined, fallback: string[]) => (value ? value.split(',').map((item) => item.trim()) : fallback);
export const TARGETS = list(process.env.CRM_SANDBOX_BINARY_TARGETS, ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win-x64']);
export const SMOKE_TARGETS = list(process.env.CRM_SANDBOX_SMOKE_TARGETS, ['linux-x64']);

/** The sysroot qemu-aarch64-static reads the arm64 binary's libc from (libc6-arm64-cross and friends). */
export const ARM64_ROOT = '/usr/aarch64-linux-gnu';

export const binaryPath = (target: string) => join(FOLDER, `crm-sandbox-${target}${target.startsWith('win') ? '.exe' : ''}`);

/** The command line that runs a target's binary on this machine. */
export function launcher(target: string): { command: string; prefix: string[] } {
  const binary = binaryPath(target);
  if (target === 'linux-x64') return { command: binary, prefix: [] };
  if (target === 'linux-arm64') return { command: 'qemu-aarch64-static', prefix: ['-L', ARM64_ROOT, binary] };
  throw new Error(`${target} binaries do not run here`);
}

/**
 * A PATH with no node on it, for the binary and what it runs: a folder holding only the tools the
 * smoke hands to client-check (python3), qemu where it is needed, and `tools`. Throws if a node is found on it.
 */
export function pathWithoutNode(tools: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-no-node-'));
  for (const tool of ['python3', 'qemu-aarch64-static', ...tools]) {
    // The system's own first (a pyenv shim would need pyenv on the PATH).
    const folders = ['/usr/bin', '/bin', ...(process.env.PATH ?? '').split(delimiter)];
    const found = folders.map((folder) => join(folder, tool)).find((path) => existsSync(path));
    if (found) symlinkSync(found, join(dir, tool));
  }
  if (existsSync(join(dir, 'node'))) throw new Error('node is on the smoke PATH');
  return dir;
}
