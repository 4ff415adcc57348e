import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { launchChromium } from './helpers/browser.js';
import { BIN } from './helpers/cli.js';
import { parseJunit } from './helpers/junit.js';
import { type Block, brokenLink, documentedFiles, fencedBlocks, type MarkerKind, markdownFiles, markerProblem, relativeLinks } from './helpers/markdown.js';
import {
  Background,
  bash,
  explain,
  freePort,
  installedVersion,
  packPackage,
  Shell,
  testedRange,
  userEnv,
  waitForHttp,
  writeManifest,
} from './helpers/scratch-project.js';

/**
 * The README and the pages in docs/ run as written, as a user with only them would run them
 * (and CONTRIBUTING.md's blocks are marked too).
 *
 * Every fenced block has a marker line before it, `<!-- readme-test: KIND ARGUMENT -->` (see
 * test/helpers/markdown.ts for the kinds), saying how this test runs it, or why it cannot be
 * run (`skip REASON`). A block without one fails here, so a new block cannot slip through
 * untested. The scratch project is in the system's temp folder: the package packed from this
 * checkout's build (`npm pack`: run `npm run build` first when running this file alone), and
 * what "Use it in your project" says to install, as written: npm's latest (CI's older-majors leg
 * installs this checkout's majors instead: `testedRange` in test/helpers/scratch-project.ts).
 *
 * The `session` and `shell` blocks run in document order in one bash, as a newcomer types them into
 * one terminal (the README's receiver started where the README starts it, with `&`), against one
 * dev server. The one change made to the blocks: the fixed addresses `127.0.0.1:4010` (the dev
 * server) and `127.0.0.1:3000` (your app) become the free ports the test's servers got — in the
 * curl session that is its `URL=` line. The app, server.mjs, takes its port from PORT, as the
 * README shows.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const BLOCKS = documentedFiles(ROOT).flatMap((file) => fencedBlocks(file, read(file)));
const where = (block: Block) => `${block.file}:${block.line}`;
const marked = (kind: MarkerKind) => BLOCKS.filter((block) => block.marker?.kind === kind);
/** The `file` and `append` blocks, in document order: the scratch project's files. */
const FILE_BLOCKS = BLOCKS.filter((block) => block.marker?.kind === 'file' || block.marker?.kind === 'append');
const filePaths = [...new Set(FILE_BLOCKS.map((block) => block.marker!.argument))];
/** Blocks the test runs (their text may name a file another block writes). */
const RUN_KINDS: MarkerKind[] = ['file', 'append', 'session', 'shell', 'serve', 'ci'];

/** The packages of the `install` blocks' `npm install` lines. */
function packagesToInstall(): string[] {
  return marked('install').flatMap((block) =>
    block.body.split('\n').flatMap((line) => {
      const words = line.replace(/#.*$/, '').trim().split(/\s+/);
      return words[0] === 'npm' && words[1] === 'install' ? words.slice(2).filter((word) => !word.startsWith('-')) : [];
    }),
  );
}

/** The JSON answers a session's comments show (`# {"linkToken":"link_…"}`), each a pattern of a whole output line; `…` stands for anything. */
function shownAnswers(script: string): Array<{ line: string; pattern: RegExp }> {
  return script
    .split('\n')
    .filter((line) => /^# [{[]/.test(line))
    .map((line) => {
      const shown = line.slice(2);
      const source = shown
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^\\n]*?');
      return { line: shown, pattern: new RegExp(`^${source}$`, 'm') };
    });
}

/** The shown answers that do not appear, in order, among the output's lines. */
function missingAnswers(script: string, output: string): string[] {
  let rest = output;
  const missing: string[] = [];
  for (const { line, pattern } of shownAnswers(script)) {
    const match = pattern.exec(rest);
    if (!match) missing.push(line);
    else rest = rest.slice(match.index + match[0].length);
  }
  return missing;
}

/** `console.log(…); // 200 2`: what a script's comment says a line prints. */
function promisedLines(script: string): string[] {
  return script.split('\n').flatMap((line) => {
    const promise = /^\s*console\.log\(.*\);\s*\/\/\s*(.+)$/.exec(line);
    return promise ? [promise[1]!.trim()] : [];
  });
}

/** Each flag of a help text (before its examples) or of the README's summary of it, with the text that follows it up to the next flag. */
function flagTexts(text: string): Map<string, string> {
  const flags = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split('\nExamples:')[0]!.split('\n')) {
    const flag = /^ {0,6}(?:-\w, )?--([a-z][\w-]*)(.*)$/.exec(line); // a flag, not a wrapped line that starts with one
    if (flag) {
      current = flag[1]!;
      flags.set(current, flag[2]!);
    } else if (current !== undefined && /^\s{6,}/.test(line)) {
      flags.set(current, `${flags.get(current)} ${line}`);
    } else {
      current = undefined;
    }
  }
  for (const [flag, rest] of flags) flags.set(flag, rest.replace(/"/g, '').replace(/\s+/g, ' '));
  flags.delete('version');
  flags.delete('help');
  return flags;
}

describe('the README and docs/, block by block', () => {
  it('every fenced block has a marker saying how this test runs it, or why it cannot', () => {
    expect(BLOCKS.length).toBeGreaterThan(25);
    expect(BLOCKS.flatMap((block) => (markerProblem(block) ? [`${where(block)} (\`\`\`${block.lang}): ${markerProblem(block)}`] : []))).toEqual([]);
  });

  it('sees a block without a marker, and a marker without its argument (the check can fail)', () => {
    const [bare, noPath, skipped] = fencedBlocks(
      'x.md',
      '## A\n\n```ts\nlet a = 1;\n```\n<!-- readme-test: file -->\n```ts\n```\n<!-- readme-test: skip sample output -->\n```\nok\n```\n',
    );
    expect(markerProblem(bare!)).toBe('no <!-- readme-test: … --> marker line before it');
    expect(markerProblem(noPath!)).toBe('"file" needs a path');
    expect(markerProblem(skipped!)).toBeUndefined();
    expect(skipped!.marker).toEqual({ kind: 'skip', argument: 'sample output' });
    expect(bare!.heading).toBe('A');
  });

  it("reads a session's shown answers as patterns of whole output lines, in order", () => {
    const script = 'curl …\n# {"linkToken":"link_…"}\ncurl …\n# {"rules":[]}\n';
    expect(missingAnswers(script, '{"linkToken":"link_1a2b"}\n{"rules":[]}\n')).toEqual([]);
    expect(missingAnswers(script, '{"rules":[]}\n{"linkToken":"link_1a2b"}\n')).toEqual(['{"rules":[]}']);
    expect(missingAnswers(script, '{"linkToken":"public_1"}\n{"rules":[]}\n')).toEqual(['{"linkToken":"link_…"}']);
    expect(promisedLines('console.log(a, b); // 200 2\nsandbox.onEvent(() => console.log(x)); // not a promise\n')).toEqual(['200 2']);
  });

  it('every relative link and anchor in README.md and docs/ leads somewhere', () => {
    const files = ['README.md', 'CONTRIBUTING.md', ...markdownFiles(ROOT, 'docs')];
    const links = files.flatMap((file) => relativeLinks(read(file)).map((target) => ({ file, target })));
    expect(links.length).toBeGreaterThan(50);
    expect(
      links.flatMap(({ file, target }) => {
        const broken = brokenLink(ROOT, file, target);
        return broken ? [`${file}: ${broken}`] : [];
      }),
    ).toEqual([]);
    // The check can fail: a missing file, a missing heading.
    expect(brokenLink(ROOT, 'README.md', 'docs/reference/nothing.md')).toMatch(/no docs\/reference\/nothing\.md$/);
    expect(brokenLink(ROOT, 'README.md', '#no-such-heading')).toMatch(/README\.md has no heading #no-such-heading$/);
    expect(brokenLink(ROOT, 'docs/reference/state.md', '../../README.md#webhooks')).toBeUndefined();
  });

  it('the README is a path: at most 500 lines; its map of the docs lists every page, and each page starts with a link back', () => {
    const readme = read('README.md');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(500);
    const map = readme.slice(readme.indexOf('\n## The docs\n'));
    expect(map.length).toBeLessThan(readme.length);
    const pages = documentedFiles(ROOT).filter((file) => file.startsWith('docs/'));
    expect(pages.length).toBeGreaterThan(15);
    expect(pages.filter((page) => !relativeLinks(map).includes(page))).toEqual([]);
    expect(pages.filter((page) => !/^# .+\n\nPart of the \[crm-sandbox README\]\((\.\.\/)+README\.md\)/.test(read(page)))).toEqual([]);
  });

  it('.nvmrc and .node-version name one Node line, one the README names and `engines` takes; the README says how to get it and what EBADENGINE is', () => {
    const line = read('.nvmrc').trim();
    expect(read('.node-version').trim()).toBe(line);
    expect(line).toMatch(/^\d+$/);
    const readme = read('README.md');
    const named = /It needs Node (\d+), (\d+) or (\d+) \(22\.12 on; `\.nvmrc`\)/.exec(readme);
    expect(named, 'the README names the Node lines').not.toBeNull();
    expect(named!.slice(1)).toContain(line);
    // engines: each range's lowest major; the line is at or above one of them and within its range.
    const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };
    const majors = [...engines.node.matchAll(/(\^|>=)(\d+)/g)].map(([, kind, major]) => ({ kind, major: Number(major) }));
    expect(majors.some(({ kind, major }) => (kind === '^' ? major === Number(line) : Number(line) >= major))).toBe(true);
    for (const words of ['EBADENGINE', 'nvm install', 'fnm use', 'volta install', 'npx -p node@']) expect(readme).toContain(words);
  });

  it('a block run elsewhere is in the section its test reads', () => {
    const elsewhere = marked('tested-by');
    expect(elsewhere.length).toBeGreaterThan(0);
    for (const block of elsewhere) {
      const test = block.marker!.argument;
      expect(existsSync(join(ROOT, test)), `${where(block)}: ${test}`).toBe(true);
      expect(read(test), `${test} reads the section "${block.heading}"`).toContain(block.heading);
    }
  });

  it('every file a block writes is run or used by a block that runs', () => {
    const unused = filePaths.filter((path) => {
      if (path.endsWith('.ts') || path.endsWith('.mjs') || path === 'tsconfig.json') return false; // run by vitest, tsx or npm start; tsc reads tsconfig.json
      const others = BLOCKS.filter((block) => RUN_KINDS.includes(block.marker?.kind as MarkerKind) && block.marker!.argument !== path);
      return !others.some((block) => block.body.includes(path) || block.body.includes(`'${path.split('/')[0]}'`));
    });
    expect(unused).toEqual([]);
    expect(filePaths.filter((path) => path.endsWith('.mjs'))).toHaveLength(1); // the app `npm start` runs
    for (const block of marked('append')) {
      const first = FILE_BLOCKS.findIndex((candidate) => candidate.marker!.argument === block.marker!.argument);
      expect(FILE_BLOCKS[first]!.marker!.kind, `${where(block)} appends to a file an earlier block starts`).toBe('file');
    }
  });

  it('each CLI summary lists the flags the CLI has, with the same defaults', async () => {
    const summaries = marked('help');
    expect(summaries.map((block) => block.marker!.argument).sort()).toEqual(['client-check', 'listen', 'scenario run', 'serve', 'trigger']);
    for (const block of summaries) {
      const help = await bash(`${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${block.marker!.argument} --help`, ROOT);
      expect(help.code).toBe(0);
      const actual = flagTexts(help.stdout);
      const summary = flagTexts(block.body);
      expect([...summary.keys()].sort(), `${where(block)}: the flags of ${block.marker!.argument}`).toEqual([...actual.keys()].sort());
      for (const [flag, text] of summary) {
        const shown = /\[default: ([^\]\s]+)\]/.exec(text)?.[1];
        if (shown !== undefined) expect(actual.get(flag), `${where(block)}: --${flag} [default: ${shown}]`).toContain(shown);
      }
    }
  });
});

describe('the README run as a user runs it, in a scratch project', () => {
  let dir = '';
  let sandboxUrl = '';
  let appPort = 0;
  const running: Background[] = [];
  /** The CI example, parsed: its job's env (WEBHOOK_TOKEN, which the README's receiver verifies scenario runs with) and steps. */
  const ci = parseYaml(marked('ci')[0]!.body) as { jobs: Record<string, { env: Record<string, string>; steps: Array<{ run?: string; uses?: string }> }> };
  const job = Object.values(ci.jobs)[0]!;
  /** The environment of the app and of the commands beside it: the CI example's, and the app's port. */
  const appEnv = () => userEnv({ ...job.env, PORT: String(appPort) });

  /** The block's text with the fixed ports moved onto the test's servers. */
  const localize = (text: string) => text.replaceAll('127.0.0.1:4010', sandboxUrl.replace('http://', '')).replaceAll('127.0.0.1:3000', `127.0.0.1:${appPort}`);

  /** The README's app (`npm start`: server.mjs), up and answering. */
  async function startApp(): Promise<Background> {
    const app = new Background('npm start', dir, appEnv());
    running.push(app);
    await waitForHttp(appPort, app);
    return app;
  }

  /** A `serve` line, started on a free port (CRM_SANDBOX_PORT=0 stands in for --port 0); resolves with its URL. */
  async function serve(line: string): Promise<{ server: Background; url: string }> {
    const server = new Background(line, dir, userEnv({ CRM_SANDBOX_PORT: '0' }));
    running.push(server);
    const [, url] = await server.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Try: curl/);
    return { server, url: url! };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-readme-'));
    const tarball = await packPackage(ROOT, dir);
    writeManifest(dir, filePaths.find((path) => path.endsWith('.mjs'))!);
    const packages = packagesToInstall().map((name) => testedRange(ROOT, name));
    const installed = await bash(`npm install --no-audit --no-fund ./${tarball} ${packages.join(' ')}`, dir);
    if (installed.code !== 0) throw new Error(explain(installed, 'npm install'));
    // The dev server of "The two commands": the curl session, the link widget and the app call it.
    sandboxUrl = (await serve(marked('serve')[0]!.body.trim().split('\n')[0]!)).url;
    appPort = await freePort();
    for (const block of FILE_BLOCKS) {
      const path = join(dir, block.marker!.argument);
      mkdirSync(dirname(path), { recursive: true });
      const before = block.marker!.kind === 'append' ? `${readFileSync(path, 'utf8')}\n` : '';
      writeFileSync(path, before + localize(block.body));
    }
  }, 300_000);

  afterAll(async () => {
    for (const server of running.splice(0)) await server.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("installs the majors of TypeScript, vitest and msw this checkout's own tests run (npm's latest: the lockfile is on them)", () => {
    const major = (version: string | undefined) => version?.split('.')[0];
    for (const name of ['typescript', 'vitest', 'msw']) {
      const user = installedVersion(dir, name);
      const ours = installedVersion(ROOT, name);
      expect(major(user), `${name}: users get ${user}, the lockfile has ${ours}; move it (decision 0034)`).toBe(major(ours));
    }
  });

  it('installs what "Use it in your project" lists, and type-checks every TypeScript block and every entry of the package with its tsconfig (strict; no @types/express)', async () => {
    expect(packagesToInstall()).toEqual(expect.arrayContaining(['msw', 'vitest', 'typescript', 'express']));
    expect(existsSync(join(dir, 'node_modules/@types/express'))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')).compilerOptions.strict).toBe(true);
    // Every shipped .d.ts, also of the entries no example imports: the tsconfig has no skipLibCheck, so tsc checks them all.
    // crm-sandbox/testcontainers needs its optional peer, testcontainers, which no install line here lists (docs/testing.md says
    // to install it with it): test/public-types.test.ts checks its shipped .d.ts against testcontainers instead.
    const entries = Object.keys(JSON.parse(read('package.json')).exports as Record<string, unknown>).filter(
      (entry) => entry !== './package.json' && entry !== './testcontainers',
    );
    expect(entries.length).toBeGreaterThan(5);
    writeFileSync(
      join(dir, 'every-entry.ts'),
      entries.map((entry, i) => `import type * as Entry${i} from '${entry.replace(/^\./, 'crm-sandbox')}';\n`).join(''),
    );
    const checked = await bash('npx tsc', dir);
    expect(checked.code, explain(checked, 'npx tsc')).toBe(0);
  }, 120_000);

  it('runs the test files with npx vitest run, and they pass', async () => {
    const tests = filePaths.filter((path) => path.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThanOrEqual(3);
    const ran = await bash('npx vitest run', dir);
    expect(ran.code, explain(ran, 'npx vitest run')).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the terminal's colour codes (ESC [ … m)
    const report = ran.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    for (const test of tests) expect(report).toMatch(new RegExp(`✓ ${test.replaceAll('.', '\\.')} \\(\\d+ tests?\\)`));
  }, 120_000);

  it('runs each script with npx tsx, printing what its comments say', async () => {
    const scripts = filePaths.filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'));
    expect(scripts).toEqual(expect.arrayContaining(['drive.ts']));
    // Side by side: each is a process of its own, mostly waiting for npx and Node to start.
    const runs = await Promise.all(scripts.map((script) => bash(`npx tsx ${script}`, dir)));
    scripts.forEach((script, i) => {
      const ran = runs[i]!;
      expect(ran.code, explain(ran, `npx tsx ${script}`)).toBe(0);
      const printed = ran.stdout.split('\n');
      for (const line of promisedLines(readFileSync(join(dir, script), 'utf8'))) expect(printed, `${script} prints "${line}"`).toContain(line);
    });
  }, 120_000);

  it('starts every serve command on a free port, and stops it with SIGTERM', async () => {
    const lines = marked('serve').flatMap((block) => block.body.trim().split('\n'));
    expect(lines.length).toBeGreaterThan(3);
    // Side by side, each on its own free port.
    await Promise.all(
      lines.slice(1).map(async (line) => {
        const { server, url } = await serve(line);
        expect((await fetch(`${url}/sandbox/health`)).status).toBe(200);
        await server.stop();
        expect(server.output, line).toContain('SIGTERM: stopping');
      }),
    );
  }, 120_000);

  it("runs the README's blocks in order in one shell, as a newcomer does: the curl session, the receiver where it is started, the scenario runs, the pages' sessions; the receiver accepts every event of the session's connection", async () => {
    const shell = new Shell(dir, appEnv());
    try {
      // Document order: the README's blocks, then its pages' (which go on with the session's variables).
      const blocks = BLOCKS.filter((block) => block.marker?.kind === 'session' || block.marker?.kind === 'shell');
      expect(blocks.filter((block) => block.file === 'README.md').map((block) => `${block.marker!.kind} ${block.heading}`)).toEqual([
        'session A first session with curl',
        'session A receiver',
        'shell Writing one',
      ]);
      for (const block of blocks) {
        const script = localize(block.body);
        const ran = await shell.run(script);
        expect(ran.code, explain(ran, where(block))).toBe(0);
        if (block.marker!.kind === 'session') expect(missingAnswers(script, ran.stdout), `${where(block)}\n${ran.stdout}`).toEqual([]);
      }
      expect(blocks.filter((block) => block.marker!.kind === 'session').flatMap((block) => shownAnswers(block.body)).length).toBeGreaterThan(8);
      expect(JSON.parse(readFileSync(join(dir, 'openapi.json'), 'utf8')).openapi).toMatch(/^3\.1/);

      // The session's connection: every event it made, each accepted by the README's receiver (never a 401).
      const connectionId = (await shell.run('echo "$CONNECTION_ID"')).stdout.trim();
      expect(connectionId).toMatch(/^[0-9a-f]{32}$/);
      const headers = { 'service-api-token': 'sandbox-api-key' };
      const { deliveries } = (await fetch(`${sandboxUrl}/sandbox/connections/${connectionId}/deliveries`, { headers }).then((response) => response.json())) as {
        deliveries: Array<{
          state: string;
          event: { data: { status?: string; objectType?: string; eventType?: string } };
          attempts: Array<{ status: number | null }>;
        }>;
      };
      const events = deliveries.map(({ event }) => event.data.status ?? `${event.data.objectType} ${event.data.eventType}`);
      expect(events).toEqual(expect.arrayContaining(['NEW_CONNECTION', 'INITIAL_SYNCED', 'READY', 'Contact CREATE', 'Contact UPDATE']));
      expect(deliveries.filter((delivery) => delivery.state !== 'succeeded')).toEqual([]);
      expect(deliveries.flatMap((delivery) => delivery.attempts).filter((attempt) => attempt.status === 401)).toEqual([]);
    } finally {
      await shell.stop();
    }
  }, 240_000);

  it('links an account with the widget in Chromium: the backend exchanges it, the receiver accepts its signed events', async () => {
    const app = await startApp();
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`http://127.0.0.1:${appPort}/`);
      await page.waitForFunction(() => (window as unknown as { CrmSandboxLink?: { state: { isLoaded: boolean } } }).CrmSandboxLink?.state.isLoaded === true);
      await page.getByRole('button', { name: 'Connect your CRM' }).click();
      const widget = page.frameLocator('iframe[title="Link your account"]');
      await widget.getByRole('button', { name: 'Salesforce' }).click();
      await widget.getByLabel('Organisation name').press('Enter');
      await widget.getByRole('button', { name: 'Connect' }).click();
      await page.locator('#status', { hasText: 'Connected: ' }).waitFor();
      const connectionId = ((await page.locator('#status').textContent()) ?? '').replace('Connected: ', '');
      expect(connectionId).toMatch(/^[0-9a-f]{32}$/);
      expect(errors).toEqual([]);
      // The app stored the token at exchange, created the webhook, and verified NEW_CONNECTION with it (204, not 401).
      const headers = { 'service-api-token': 'sandbox-api-key' };
      let first: { state: string; attempts: Array<{ status: number | null }>; event: { data: { status: string } } } | undefined;
      await expect
        .poll(
          async () => {
            const { deliveries } = await fetch(`${sandboxUrl}/sandbox/connections/${connectionId}/deliveries`, { headers }).then((response) => response.json());
            first = deliveries[0];
            return first?.state;
          },
          { timeout: 20_000 },
        )
        .toBe('succeeded');
      expect(first!.event.data.status).toBe('NEW_CONNECTION');
      expect(first!.attempts.map((attempt) => attempt.status)).toEqual([204]);
    } finally {
      await browser.close();
      await app.stop();
    }
  }, 90_000);

  it("runs the CI example's commands against the README receiver (npm start): every probe and event accepted", async () => {
    // The set-up steps are the runner's: a checkout, Node, and `npm ci` — the scratch project's install.
    expect(job.steps.filter((step) => step.uses).map((step) => step.uses!.split('@')[0])).toEqual(['actions/checkout', 'actions/setup-node']);
    const commands = job.steps.flatMap((step) => (step.run === undefined || step.run.trim() === 'npm ci' ? [] : [localize(step.run)]));
    expect(commands[0]).toMatch(/^npm start &/);
    const run = new Background(`set -euo pipefail\n${commands.join('\n')}`, dir, appEnv());
    running.push(run);
    const code = await run.exited;
    await run.stop(); // and the app it started in the background
    expect(code, run.output).toBe(0);
    const transcript = JSON.parse(readFileSync(join(dir, 'transcript.json'), 'utf8')) as { failures: unknown[]; events: unknown[] };
    expect(transcript.failures).toEqual([]);
    expect(transcript.events.length).toBeGreaterThan(5);
    // receiver-check's JUnit report, for the CI system to render: a case per probe, none failed.
    const [suite] = parseJunit(readFileSync(join(dir, 'reports/receiver-check.xml'), 'utf8')).testsuites[0]!.testsuite;
    expect(suite).toMatchObject({ name: 'crm-sandbox scenario receiver-check', tests: '8', failures: '0' });
  }, 120_000);
});
