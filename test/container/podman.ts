import { execFile } from 'node:child_process';
import { explain, type Ran } from '../helpers/scratch-project.js';

/**
 * The container checks' commands. `.ci/container` builds the images and names them in these
 * variables; CONTAINERS_CONF (test/container/containers.conf) gives every podman this machine's
 * settings.
 */
export const IMAGE = required('CRM_SANDBOX_IMAGE');
/** The locally made stand-ins of the official node and python images (see .ci/container). */
export const NODE_BASE = required('NODE_BASE_IMAGE');
export const PYTHON_BASE = required('PYTHON_BASE_IMAGE');

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the container checks with .ci/container`);
  return value;
}

/** Runs a command to its end; never throws for an exit status (the caller asserts it). */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { env, cwd, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export const podman = (...args: string[]) => run('podman', args);

/** A podman command that must succeed: its stdout, trimmed. */
export async function podmanOk(...args: string[]): Promise<string> {
  const ran = await podman(...args);
  if (ran.code !== 0) throw new Error(explain(ran, `podman ${args.join(' ')}`));
  return ran.stdout.trim();
}

/** `podman inspect` of one container or image, parsed. */
export async function inspect(kind: 'container' | 'image', name: string) {
  return JSON.parse(await podmanOk(kind, 'inspect', name))[0] as any;
}
