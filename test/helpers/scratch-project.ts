import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * A user's project in a temp folder, driven as a user drives it: commands through bash, the
 * package from a tarball. Children get the user's environment, not the one of the `npm test`
 * and vitest that run this test (no npm_* or VITEST* variables, which would steer the npm and
 * vitest they start).
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|TEST$|NODE_ENV$|INIT_CWD$|NODE_OPTIONS$)/i.test(name)) continue;
    env[name] = value;
  }
  // No audit or funding requests to the registry, no update check: quieter, and nothing it needs.
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a bash script to its end (stdout and stderr closed) in `cwd`. */
export function bash(script: string, cwd: string, env: NodeJS.ProcessEnv = userEnv()): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A failed command's report, for an assertion message. */
export function explain(ran: Ran, what: string): string {
  return `${what} exited with ${ran.code}\n--- stdout\n${ran.stdout.slice(-6000)}\n--- stderr\n${ran.stderr.slice(-6000)}`;
}

/**
 * A long-running command (a server) in its own process group, so that `stop()` ends it and
 * everything it started (npx → node, npm start → node).
 */
export class Background {
  readonly child: ChildProcess;
  private out = '';
  readonly exited: Promise<number | null>;

  constructor(script: string, cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn('bash', ['-c', script], { cwd, env, detached: true });
    this.child.stdout!.on('data', (chunk) => (this.out += chunk));
    this.child.stderr!.on('data', (chunk) => (this.out += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  /** stdout and stderr so far, interleaved. */
  get output(): string {
    return this.out;
  }

  /** Resolves with the first match of `pattern` in the output; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.out);
        if (match) resolve(match);
        return match;
      };
      if (check()) return;
      this.child.stdout!.on('data', check);
      this.child.stderr!.on('data', check);
      void this.exited.then((code) => reject(new Error(`exited with ${code} before printing ${pattern}:\n${this.out}`)));
    });
  }

  /**
   * SIGTERM to the whole group (also what the shell left running in the background); resolves
   * once every process of it has closed the output: the shell (or npx) may exit before the server
   * it started has written its last lines.
   */
  async stop(): Promise<void> {
    try {
      process.kill(-this.child.pid!, 'SIGTERM');
    } catch {
      // The group is gone already.
    }
    await this.exited;
    if (!this.child.stdout!.closed || !this.child.stderr!.closed) await new Promise((resolve) => this.child.once('close', resolve));
  }
}

/**
 * One bash, fed script after script as a reader types the README's blocks into one terminal: what
 * a block sets (variables, `export`s, a server started with `&`) is there for the next. The shell
 * runs with `set -euo pipefail`, so a failing command ends it, and `run` resolves with its exit
 * status; `stop()` ends it and all it started (its process group).
 */
export class Shell {
  private readonly child: ChildProcess;
  private out = '';
  private err = '';
  private count = 0;
  private readonly exited: Promise<number | null>;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn('bash', [], { cwd, env, detached: true });
    this.child.stdout!.on('data', (chunk) => (this.out += chunk));
    this.child.stderr!.on('data', (chunk) => (this.err += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    this.child.stdin!.write('set -euo pipefail\n');
  }

  /** Runs `script` in the shell: its output, and 0, or the status the shell exited with when a command failed. */
  async run(script: string): Promise<Ran> {
    const marker = `__readme_block_${++this.count}_done__`;
    const [out, err] = [this.out.length, this.err.length];
    this.child.stdin!.write(`${script}\nprintf '\\n%s\\n' '${marker}'\n`);
    const done = new Promise<void>((resolve) => {
      const check = () => {
        if (!this.out.includes(marker, out)) return;
        this.child.stdout!.off('data', check);
        resolve();
      };
      this.child.stdout!.on('data', check);
      check();
    });
    const code = await Promise.race([done.then(() => 0), this.exited]);
    const stdout = this.out.slice(out);
    const end = stdout.indexOf(`\n${marker}`);
    return { code, stdout: end === -1 ? stdout : stdout.slice(0, end), stderr: this.err.slice(err) };
  }

  /** Ends the shell and everything it started. */
  async stop(): Promise<void> {
    try {
      process.kill(-this.child.pid!, 'SIGTERM');
    } catch {
      // Gone already.
    }
    await this.exited;
  }
}

/** A port nothing listens on right now, for a server the test starts through a command (which takes a port, not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits until something answers HTTP on the port (any status), for up to 30 s. */
export async function waitForHttp(port: number, server: Background): Promise<void> {
  for (const deadline = Date.now() + 30_000; ; ) {
    if (server.child.exitCode !== null) throw new Error(`the server exited with ${server.child.exitCode}:\n${server.output}`);
    if (Date.now() > deadline) throw new Error(`nothing answered on port ${port} within 30 s:\n${server.output}`);
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Packs the built package as `npm publish` would (`npm pack`; the build is already in dist/, so
 * its prepare script is not run again) into `into`, and returns the tarball's file name.
 */
export async function packPackage(root: string, into: string): Promise<string> {
  const packed = await bash(`npm pack --ignore-scripts --silent --pack-destination ${JSON.stringify(into)}`, root);
  if (packed.code !== 0) throw new Error(explain(packed, 'npm pack'));
  const tarball = readdirSync(into).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball:\n${packed.stdout}`);
  return tarball;
}

/**
 * The package as `npm pack` makes it, installed in `dir` with its production dependencies only
 * (what the Dockerfile's image holds after `npm prune --omit=dev`; no devDependency anywhere it
 * could be found), without a registry: the tarball unpacked into node_modules/crm-sandbox, each
 * dependency linked from this checkout's node_modules (they find their own from there), and the
 * bin linked into node_modules/.bin as npm links it. Returns the path of the package's bin.
 */
export async function installPackedWithProductionDependencies(root: string, dir: string): Promise<string> {
  const modules = join(dir, 'node_modules');
  const tarball = await packPackage(root, dir);
  mkdirSync(join(modules, 'crm-sandbox'), { recursive: true });
  const unpacked = await bash(`tar -xzf ${JSON.stringify(join(dir, tarball))} -C node_modules/crm-sandbox --strip-components=1`, dir);
  if (unpacked.code !== 0) throw new Error(explain(unpacked, 'tar'));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies)) {
    mkdirSync(join(modules, name, '..'), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
  }
  mkdirSync(join(modules, '.bin'));
  symlinkSync('../crm-sandbox/bin/crm-sandbox.js', join(modules, '.bin/crm-sandbox'));
  return join(modules, 'crm-sandbox/bin/crm-sandbox.js');
}

/**
 * What the scratch project installs for a package the README's `npm install` lines name. By
 * default the name as written: npm's latest, what a newcomer gets today (the lockfile is on the
 * same majors: decision 0034). With `CRM_SANDBOX_README_PEERS=installed` (CI's older-majors leg,
 * which installs msw 2, vitest 4 and TypeScript 5.9 into its copy) the major installed in this
 * checkout, at its newest release; a package not installed here stays as written.
 */
export function testedRange(root: string, name: string): string {
  if (process.env.CRM_SANDBOX_README_PEERS !== 'installed') return name;
  const version = installedVersion(root, name);
  return version === undefined ? name : `${name}@^${version}`;
}

/** The version of `name` in this checkout's node_modules, or undefined. */
export function installedVersion(root: string, name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

/** Writes the scratch project's package.json: an ES module project whose `npm start` is `node <start>`. */
export function writeManifest(dir: string, start: string): void {
  const manifest = { name: 'readme-scratch', private: true, type: 'module', scripts: { start: `node ${start}` } };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}
