import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { bash, type Ran, userEnv } from './scratch-project.js';

/**
 * action.yml run as GitHub's runner runs a composite action, for what it uses: each step's `if`
 * (`inputs.NAME == ''` or `!= ''`), its `env` with `${{ inputs.NAME }}` in place, its `run` in
 * bash with GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STEP_SUMMARY, RUNNER_TEMP,
 * RUNNER_OS and RUNNER_ARCH set; then the action's outputs from `${{ steps.ID.outputs.NAME }}`.
 * A job keeps what the steps wrote to GITHUB_ENV for its later uses, as GitHub does.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

interface ActionFile {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Array<{ id: string; if?: string; shell: string; run: string; env?: Record<string, string> }> };
}

export interface ActionUse {
  /** The action's outputs. */
  outputs: Record<string, string>;
  /** Each step that ran, as bash ran it. */
  steps: Array<{ id: string } & Ran>;
  /** The first step that failed, or undefined. */
  failed: ({ id: string } & Ran) | undefined;
}

export class ActionJob {
  /** What earlier steps wrote to GITHUB_ENV: the job's environment from then on. */
  readonly env: Record<string, string> = {};
  readonly temp = mkdtempSync(join(tmpdir(), 'crm-sandbox-action-'));
  readonly summary = join(this.temp, 'step-summary.md');

  /**
   * `actionPath`: the folder holding action.yml and scripts/ (the repository, or a copy without
   * dist-bin); `runner`: RUNNER_OS and RUNNER_ARCH; `extraEnv`: the machine's (a PATH).
   */
  readonly actionPath: string;

  constructor(
    actionPath = ROOT,
    private readonly runner = { os: 'Linux', arch: 'X64' },
    private readonly extraEnv: Record<string, string> = {},
  ) {
    this.actionPath = actionPath.replace(/\/$/, ''); // as GitHub sets GITHUB_ACTION_PATH
    writeFileSync(this.summary, '');
  }

  /** One `uses:` of the action with these `with:` inputs, in `cwd` (the job's workspace). */
  async use(inputs: Record<string, string>, cwd: string): Promise<ActionUse> {
    const action = parseYaml(readFileSync(join(this.actionPath, 'action.yml'), 'utf8')) as ActionFile;
    if (action.runs.using !== 'composite') throw new Error('action.yml: not a composite action');
    for (const name of Object.keys(inputs)) if (!(name in action.inputs)) throw new Error(`action.yml has no input ${name}`);
    const values = Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, inputs[name] ?? input.default ?? '']));
    const expand = (text: string) =>
      text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => {
        if (!(name in values)) throw new Error(`action.yml reads inputs.${name}, which it does not declare`);
        return values[name]!;
      });
    const stepOutputs: Record<string, Record<string, string>> = {};
    const steps: ActionUse['steps'] = [];
    for (const step of action.runs.steps) {
      if (step.if !== undefined && !condition(step.if, values)) continue;
      if (step.shell !== 'bash') throw new Error(`step ${step.id}: shell ${step.shell}`);
      const output = join(this.temp, `output-${step.id}-${steps.length}`);
      const envFile = join(this.temp, `env-${step.id}-${steps.length}`);
      writeFileSync(output, '');
      writeFileSync(envFile, '');
      const env = userEnv({
        ...this.extraEnv,
        ...this.env,
        ...Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(String(value))])),
        GITHUB_ACTION_PATH: this.actionPath,
        GITHUB_OUTPUT: output,
        GITHUB_ENV: envFile,
        GITHUB_STEP_SUMMARY: this.summary,
        RUNNER_TEMP: this.temp,
        RUNNER_OS: this.runner.os,
        RUNNER_ARCH: this.runner.arch,
      });
      const ran = await bash(expand(step.run), cwd, env);
      steps.push({ id: step.id, ...ran });
      stepOutputs[step.id] = keyValues(readFileSync(output, 'utf8'));
      Object.assign(this.env, keyValues(readFileSync(envFile, 'utf8')));
      if (ran.code !== 0) break;
    }
    const outputs = Object.fromEntries(
      Object.entries(action.outputs).map(([name, { value }]) => {
        const match = /^\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}$/.exec(value);
        if (!match) throw new Error(`output ${name}: ${value} is not steps.ID.outputs.NAME`);
        return [name, stepOutputs[match[1]!]?.[match[2]!] ?? ''];
      }),
    );
    return { outputs, steps, failed: steps.find((step) => step.code !== 0) };
  }

  /** Stops the server a `start` left running (its pid in RUNNER_TEMP, as the script wrote it). */
  stopServer(): void {
    const pid = Number(readFileSync(join(this.temp, 'crm-sandbox.pid'), 'utf8'));
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

/** The `if:` forms the action uses. */
function condition(text: string, inputs: Record<string, string>): boolean {
  const match = /^inputs\.([\w-]+) (==|!=) ''$/.exec(text.trim());
  if (!match) throw new Error(`if: ${text} is not a form this runner reads`);
  const empty = (inputs[match[1]!] ?? '') === '';
  return match[2] === '==' ? empty : !empty;
}

/** GITHUB_OUTPUT and GITHUB_ENV lines: NAME=value. */
function keyValues(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}
