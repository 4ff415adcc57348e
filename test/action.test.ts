import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ActionJob } from './helpers/action-runner.js';
import { BIN } from './helpers/cli.js';
import { parseJunit } from './helpers/junit.js';
import { fencedBlocks } from './helpers/markdown.js';
import { SpecReceiver } from './helpers/spec-receiver.js';

/**
 * The GitHub Action (action.yml, its shell steps in scripts/action.sh; docs/ci.md, "The GitHub
 * Action", and the README's "In CI") run as the runner runs it (test/helpers/action-runner.ts): it starts the sandbox in
 * the background and prints its outputs, plays a scenario on it with a JUnit report, and says why
 * when the server cannot start. Here the server is this checkout's CLI: through the `binary`
 * input (a script that runs it), and through `npx crm-sandbox` when the action has no binary for
 * the runner (an npx on PATH that runs it; the project's own install in real use).
 * test/binaries/action.check.ts runs it with the single executable it finds beside itself.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = `access_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
const jobs: ActionJob[] = [];
const receivers: SpecReceiver[] = [];
afterEach(async () => {
  for (const job of jobs.splice(0)) if (existsSync(join(job.temp, 'crm-sandbox.pid'))) job.stopServer();
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

/** A folder with an executable script of that text. */
function script(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-action-bin-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}
/** This checkout's CLI, as a binary would run it. */
const cliScript = () => script('crm-sandbox', `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
const workspace = () => mkdtempSync(join(tmpdir(), 'crm-sandbox-action-workspace-'));

async function receiver(): Promise<SpecReceiver> {
  const started = new SpecReceiver([], { toleranceSeconds: 300 });
  started.accessToken = TOKEN;
  receivers.push(started);
  return started.start();
}

describe('the GitHub Action', () => {
  it('starts the sandbox with its inputs, waits for health and sets url and api-key, for the job too', async () => {
    const job = new ActionJob();
    jobs.push(job);
    const stateFile = join(job.temp, 'state.json');
    const use = await job.use({ binary: cliScript(), port: '0', 'api-key': 'ci-key', seed: '7', 'state-file': stateFile }, workspace());
    expect(use.failed, use.failed && `${use.failed.stdout}${use.failed.stderr}`).toBeUndefined();
    expect(use.steps.map((step) => step.id)).toEqual(['start']);
    expect(use.outputs).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), 'api-key': 'ci-key', report: '' });
    expect(job.env).toEqual({ CRM_SANDBOX_URL: use.outputs.url, CRM_SANDBOX_API_KEY: 'ci-key' });
    // Printed for the job's log too.
    expect(use.steps[0]!.stdout).toContain(`url=${use.outputs.url}\napi-key=ci-key\n`);
    const health = await fetch(`${use.outputs.url}/sandbox/health`);
    expect(health.status).toBe(200);
    // The inputs reached serve: its banner (the action's log) says the seed and the state file.
    const log = readFileSync(join(job.temp, 'crm-sandbox.log'), 'utf8');
    expect(log).toMatch(/^seed 7 /m);
    expect(log).toContain(`state file ${stateFile}`);
    const connections = await fetch(`${use.outputs.url}/connection/connections`, { headers: { 'service-api-token': 'ci-key' } });
    expect(connections.status).toBe(200);
  });

  it('plays a scenario on the sandbox it started, with a JUnit report and the job summary; a failing run fails the step, its report written', async () => {
    const job = new ActionJob();
    jobs.push(job);
    const binary = cliScript();
    const dir = workspace();
    const started = await job.use({ binary, port: '0' }, dir);
    expect(started.failed).toBeUndefined();
    const target = await receiver();

    const passing = await job.use({ binary, scenario: 'deal-won', 'webhook-url': target.url, 'access-token': TOKEN }, dir);
    expect(passing.failed, passing.failed && `${passing.failed.stdout}${passing.failed.stderr}`).toBeUndefined();
    expect(passing.steps.map((step) => step.id)).toEqual(['scenario']);
    expect(passing.outputs.report).toBe('crm-sandbox-reports/deal-won.xml');
    expect(passing.steps[0]!.stdout).toContain(`--server ${started.outputs.url}`);
    const [suite] = parseJunit(readFileSync(join(dir, passing.outputs.report!), 'utf8')).testsuites[0]!.testsuite;
    expect(suite).toMatchObject({ name: 'crm-sandbox scenario deal-won', failures: '0' });
    expect(target.processed.length).toBeGreaterThan(5);
    expect(readFileSync(job.summary, 'utf8')).toMatch(/^### ✅ crm-sandbox scenario deal-won: \d+ passed, 0 failed$/m);

    target.accessToken = 'access_not-the-token-the-run-signs-with';
    const failing = await job.use({ binary, scenario: 'receiver-check', 'webhook-url': target.url, 'access-token': TOKEN, report: 'out/rc.xml' }, dir);
    expect(failing.failed?.code).toBe(1);
    expect(failing.outputs.report).toBe('out/rc.xml');
    const [failed] = parseJunit(readFileSync(join(dir, 'out/rc.xml'), 'utf8')).testsuites[0]!.testsuite;
    expect(Number(failed!.failures)).toBeGreaterThan(0);
  });

  it('runs npx crm-sandbox when it has no binary for the runner, as a project that installed the package would', async () => {
    // The action alone, as a checkout of it without dist-bin/; npx on PATH runs this checkout's CLI and says how it was called.
    const actionPath = mkdtempSync(join(tmpdir(), 'crm-sandbox-action-path-'));
    mkdirSync(join(actionPath, 'scripts'));
    copyFileSync(join(ROOT, 'action.yml'), join(actionPath, 'action.yml'));
    copyFileSync(join(ROOT, 'scripts/action.sh'), join(actionPath, 'scripts/action.sh'));
    const calls = join(actionPath, 'npx-calls');
    const npx = script(
      'npx',
      `#!/bin/sh\necho "$@" >> ${JSON.stringify(calls)}\nshift 3\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`,
    );
    const job = new ActionJob(actionPath, { os: 'Linux', arch: 'X64' }, { PATH: `${join(npx, '..')}:${process.env.PATH}` });
    jobs.push(job);
    const use = await job.use({ port: '0' }, workspace());
    expect(use.failed, use.failed && `${use.failed.stdout}${use.failed.stderr}`).toBeUndefined();
    expect(readFileSync(calls, 'utf8')).toBe('--no -- crm-sandbox serve --quiet\n');
    expect((await fetch(`${use.outputs.url}/sandbox/health`)).status).toBe(200);
  });

  it('fails the step with the server’s own words when it cannot start', async () => {
    const job = new ActionJob();
    jobs.push(job);
    const use = await job.use({ binary: cliScript(), port: '0', seed: 'seven' }, workspace());
    expect(use.failed?.code).toBe(1);
    expect(use.failed!.stderr).toContain('crm-sandbox: CRM_SANDBOX_SEED must be');
    expect(use.failed!.stderr).toContain('::error title=crm-sandbox::crm-sandbox serve exited before it answered');
    expect(use.outputs.url).toBe('');
  });

  it('is used in the README and docs/ci.md with inputs action.yml declares, the scenario use after the start', () => {
    const declared = Object.keys((parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> }).inputs);
    const blocks = ['README.md', 'docs/ci.md'].flatMap((file) =>
      fencedBlocks(file, readFileSync(join(ROOT, file), 'utf8')).filter(
        (block) => block.marker?.kind === 'tested-by' && block.marker.argument === 'test/action.test.ts',
      ),
    );
    expect(blocks.map((block) => block.file)).toEqual(['README.md', 'docs/ci.md']);
    for (const block of blocks) {
      const uses = actionSteps(block.body);
      expect(uses.length, block.file).toBe(2);
      for (const step of uses) for (const input of Object.keys(step.with ?? {})) expect(declared, `${block.file}: input ${input}`).toContain(input);
      expect(uses.map((step) => step.with?.scenario ?? null)).toEqual([null, 'receiver-check']);
    }
  });

  it('refuses an input action.yml does not declare (the runner is strict, as GitHub warns)', async () => {
    await expect(new ActionJob().use({ 'api-keys': 'x' }, workspace())).rejects.toThrow('action.yml has no input api-keys');
  });
});

/** The steps of a workflow's text that use this action: each `- uses: OWNER/crm-sandbox@…` item with its more-indented lines, parsed. */
function actionSteps(text: string): Array<{ uses: string; with?: Record<string, string> }> {
  const lines = text.split('\n');
  return lines.flatMap((line, at) => {
    const item = /^(\s*)- (?:id: \w+\s*$|uses: OWNER\/crm-sandbox@)/.exec(line);
    if (!item) return [];
    const indent = item[1]!.length;
    const body = [line.slice(indent + 2)];
    for (const next of lines.slice(at + 1)) {
      if (next.trim() === '' || next.length - next.trimStart().length <= indent) break;
      body.push(next.slice(indent + 2));
    }
    const step = parseYaml(body.join('\n')) as { uses?: string; with?: Record<string, string> };
    return step.uses?.startsWith('OWNER/crm-sandbox@') ? [step as { uses: string; with?: Record<string, string> }] : [];
  });
}
