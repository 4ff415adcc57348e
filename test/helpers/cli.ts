import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI as a user runs it: `node bin/crm-sandbox.js …` (the build is made by `npm test`). */
export const BIN = fileURLToPath(new URL('../../bin/crm-sandbox.js', import.meta.url));

export interface Cli {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  errors: () => string;
  exited: Promise<number | null>;
}

/** Spawned CLIs, to kill after each test: `afterEach(() => killAll(spawned))`. */
export function killAll(spawned: Cli[]): void {
  for (const cli of spawned.splice(0)) if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
}

export function runCli(args: string[], spawned: Cli[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // 'close', not 'exit': only then has all of stdout and stderr been read (a report can be megabytes).
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const cli = { child, output: () => stdout, errors: () => stderr, exited };
  spawned.push(cli);
  return cli;
}

/** Starts `serve --port 0 …` and waits for its whole banner. */
export async function serveCli(args: string[], spawned: Cli[], env: Record<string, string> = {}): Promise<Cli & { url: string }> {
  const cli = runCli(['serve', '--port', '0', ...args], spawned, env);
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Try: curl/.exec(cli.output());
      if (match) resolve(match[1]!);
    };
    cli.child.stdout.on('data', check);
    void cli.exited.then((code) => reject(new Error(`serve exited with ${code}: ${cli.errors()}`)));
  });
  return { ...cli, url };
}

/** One JSON call to a running server. */
export async function callApi(url: string, key: string, method: string, path: string, json?: unknown) {
  const response = await fetch(url + path, {
    method,
    headers: { 'service-api-token': key, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** Polls `check` (real time, for a spawned process) until it holds or `tries` run out. */
export async function eventually(check: () => boolean | Promise<boolean>, tries = 400, everyMs = 25): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error('condition never held');
}
