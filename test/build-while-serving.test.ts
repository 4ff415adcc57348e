import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types
import { IN_USE, liveHolders, publish, removeUnemitted } from '../scripts/build.mjs';
import { Background, bash, explain, userEnv } from './helpers/scratch-project.js';

/**
 * A `serve` started from a checkout goes on answering as it did while `npm run build` runs in that
 * checkout, and after (docs/decisions/0051): the build publishes its output into dist/ at the end,
 * file by file, and keeps the files of the build a running CLI came from (dist/.in-use/<pid>).
 * The checkout is a copy of this one (its sources, scripts, bin and build; node_modules linked),
 * where a source the server loads on first use is changed before the build, so the new build's
 * chunks differ from the ones the server came from.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const KEY = 'sandbox-api-key';
const scratch = mkdtempSync(join(tmpdir(), 'crm-sandbox-build-while-serving-'));
const running: Background[] = [];

afterAll(async () => {
  for (const process of running.splice(0)) await process.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** A checkout-like copy of this one, built as this one is (its dist/ copied), with node_modules linked. */
function copyCheckout(into: string): void {
  for (const path of ['bin', 'dist', 'fixtures', 'scenarios', 'scripts', 'src', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(ROOT, path), join(into, path), { recursive: true, filter: (source) => !source.includes(`/dist/${IN_USE}/`) });
  }
  mkdirSync(join(into, 'dist', IN_USE), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(into, 'node_modules'), 'dir');
}

async function serveFrom(checkout: string): Promise<string> {
  const server = new Background(`exec node bin/crm-sandbox.js serve --port 0 --quiet`, checkout, userEnv());
  running.push(server);
  const [, url] = await server.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Try: curl/);
  return url!;
}

async function call(url: string, method: string, path: string, json?: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(url + path, {
    method,
    headers: { 'service-api-token': KEY, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: response.status, text: await response.text() };
}

/** A connection of `integrationId`, READY. */
async function link(url: string, integrationId: string): Promise<{ connectionId: string; accessToken: string }> {
  const { publicToken } = JSON.parse((await call(url, 'POST', '/sandbox/public-token', { integrationId })).text);
  const connection = JSON.parse((await call(url, 'POST', '/link/exchange', { publicToken })).text);
  expect((await call(url, 'POST', `/sandbox/connections/${connection.connectionId}/status`, { status: 'READY' })).status).toBe(200);
  return connection;
}

describe('a running serve and a build of its checkout', () => {
  it('answers every route, first use included, while `npm run build` runs and after it has published a changed build', async () => {
    const checkout = join(scratch, 'checkout');
    mkdirSync(checkout);
    copyCheckout(checkout);
    const url = await serveFrom(checkout);
    const crm = await link(url, 'salesforce');
    const engagement = await link(url, 'outreach');
    const inspectorBefore = (await call(url, 'GET', '/sandbox/ui/inspector.js')).text;

    // The change: the OpenAPI document's title, in a module `serve` loads on first use (so in a lazy chunk).
    const documentSource = join(checkout, 'src/core/openapi/build-document.ts');
    const source = readFileSync(documentSource, 'utf8');
    expect(source).toContain("title: 'crm-sandbox',");
    writeFileSync(documentSource, source.replace("title: 'crm-sandbox',", "title: 'crm-sandbox rebuilt',"));
    // And the inspector's token form, in one of the modules its bundle is made of.
    const inspectorSource = join(checkout, 'src/ui/inspector/session.ts');
    writeFileSync(inspectorSource, readFileSync(inspectorSource, 'utf8').replace("text: 'Open inspector'", "text: 'Open inspector (rebuilt)'"));
    const chunksBefore = readdirSync(join(checkout, 'dist/cli-bundle'));

    // Routes whose code loads on first use, each asked once, in turn, while the build runs; the rest after it.
    const during: Array<[string, string, unknown?]> = [
      ['GET', `/crm/contact/details?accessToken=${crm.accessToken}`],
      ['POST', '/crm/passthrough', { accessToken: crm.accessToken, method: 'GET', path: 'services/data/v53.0/sobjects/Account/describe' }],
      ['POST', '/crm/contact', { accessToken: crm.accessToken, contact: { firstName: 'Ada', lastName: 'During' } }],
    ];
    const after: Array<[string, string, unknown?]> = [
      ['GET', '/openapi.json'],
      ['GET', '/sandbox/scenarios'],
      ['POST', '/engagement/contact', { accessToken: engagement.accessToken, contact: { firstName: 'Ada', lastName: 'After' } }],
      ['GET', `/crm/contacts?accessToken=${crm.accessToken}&limit=5`],
    ];
    const answers: Array<{ route: string; status: number; text: string }> = [];
    const ask = async ([method, path, body]: [string, string, unknown?]) => {
      const { status, text } = await call(url, method, path, body);
      answers.push({ route: `${method} ${path.split('?')[0]}`, status, text });
    };

    const build = new Background('npm run build', checkout, userEnv());
    running.push(build);
    let built = false;
    const exited = build.exited.then((code) => {
      built = true;
      return code;
    });
    // Steady traffic through the whole build: cheap routes, and the first uses spread over it.
    let asked = 0;
    while (!built) {
      const next = during[asked];
      if (next && asked < during.length) await ask(next);
      else await ask(['GET', `/crm/contacts?accessToken=${crm.accessToken}&limit=5`]);
      asked++;
      await new Promise((resolve) => setTimeout(resolve, asked <= during.length ? 1_500 : 50));
    }
    expect(await exited, explain({ code: build.child.exitCode, stdout: build.output, stderr: '' }, 'npm run build')).toBe(0);
    for (const route of during.slice(asked)) await ask(route);
    for (const route of after) await ask(route);

    expect(answers.filter(({ status }) => status >= 500)).toEqual([]);
    expect(answers.length).toBeGreaterThan(during.length + after.length);
    const document = JSON.parse(answers.find(({ route }) => route === 'GET /openapi.json')!.text);
    // The server answers with its own build's document, and its own inspector…
    expect(document.info.title).toBe('crm-sandbox');
    expect((await call(url, 'GET', '/sandbox/ui/inspector.js')).text).toBe(inspectorBefore);
    // …which the build did change: a server started now answers the new one.
    const fresh = await serveFrom(checkout);
    expect(JSON.parse((await call(fresh, 'GET', '/openapi.json')).text).info.title).toBe('crm-sandbox rebuilt');
    expect((await call(fresh, 'GET', '/sandbox/ui/inspector.js')).text).toContain('Open inspector (rebuilt)');
    // The old build's chunks stayed for the server that came from it, beside the new ones.
    const chunksAfter = readdirSync(join(checkout, 'dist/cli-bundle'));
    expect(chunksAfter).toEqual(expect.arrayContaining(chunksBefore));
    expect(chunksAfter.length).toBeGreaterThan(chunksBefore.length);
    expect(build.output).toMatch(/build: kept \d+ file\(s\) of the build that running crm-sandbox process/);
  }, 240_000);
});

describe("the build's publishing step", () => {
  const files = (dir: string) => readdirSync(dir, { recursive: true, withFileTypes: true }).flatMap((entry) => (entry.isFile() ? [entry.name] : []));
  const write = (path: string, text = '') => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  };

  it("moves the staged files in, and removes the old build's files once no CLI that came from it runs", () => {
    const dir = mkdtempSync(join(scratch, 'publish-'));
    const dist = join(dir, 'dist');
    const stage = join(dir, '.dist-next-1');
    write(join(dist, 'cli-bundle/main.js'), 'old main');
    write(join(dist, 'cli-bundle/chunk-OLD.js'), 'old chunk');
    write(join(dist, 'ui/inspector.js'), 'old inspector');
    write(join(stage, 'cli-bundle/main.js'), 'new main');
    write(join(stage, 'cli-bundle/chunk-NEW.js'), 'new chunk');
    write(join(stage, 'ui/inspector.js'), 'new inspector');
    // A CLI that runs (this process) holds the old build: its files stay, beside the new ones.
    write(join(dist, IN_USE, String(process.pid)));
    // One that ended without removing its mark (killed) holds nothing: its mark goes.
    write(join(dist, IN_USE, '999999999'));
    expect(publish(stage, dist)).toMatchObject({ published: 3, stale: 1, kept: 1, holders: [process.pid] });
    expect(files(join(dist, 'cli-bundle')).sort()).toEqual(['chunk-NEW.js', 'chunk-OLD.js', 'main.js']);
    expect(readFileSync(join(dist, 'cli-bundle/main.js'), 'utf8')).toBe('new main');
    expect(readFileSync(join(dist, 'ui/inspector.js'), 'utf8')).toBe('new inspector');
    expect(readdirSync(join(dist, IN_USE))).toEqual([String(process.pid)]);
    expect(readdirSync(dir)).not.toContain('.dist-next-1');

    // No CLI holds it any more: the next build leaves only its own files.
    rmSync(join(dist, IN_USE, String(process.pid)));
    write(join(stage, 'cli-bundle/main.js'), 'newer main');
    write(join(stage, 'cli-bundle/chunk-NEW.js'), 'new chunk');
    expect(publish(stage, dist)).toMatchObject({ published: 2, stale: 2, kept: 0, holders: [] });
    expect(files(join(dist, 'cli-bundle')).sort()).toEqual(['chunk-NEW.js', 'main.js']);
    expect(readdirSync(dist).sort()).toEqual([IN_USE, 'cli-bundle']);
    expect(liveHolders(dist)).toEqual([]);
  });

  it("removes tsc's files it no longer emits, and keeps the published folders and the marks", () => {
    const dir = mkdtempSync(join(scratch, 'unemitted-'));
    const dist = join(dir, 'dist');
    write(join(dist, 'core/kept.js'));
    write(join(dist, 'core/kept.d.ts'));
    write(join(dist, 'core/gone.js'));
    write(join(dist, 'moved/away.js'));
    write(join(dist, 'cli-bundle/main.js'));
    write(join(dist, IN_USE, '1'));
    removeUnemitted(dist, [join(dist, 'core/kept.js'), join(dist, 'core/kept.d.ts')]);
    expect(readdirSync(dist).sort()).toEqual([IN_USE, 'cli-bundle', 'core']);
    expect(readdirSync(join(dist, 'core')).sort()).toEqual(['kept.d.ts', 'kept.js']);
    expect(readdirSync(join(dist, IN_USE))).toEqual(['1']);
  });

  it('packs no mark of a running CLI', async () => {
    const dir = mkdtempSync(join(scratch, 'pack-'));
    for (const path of ['bin', 'dist', 'fixtures', 'scenarios', 'package.json', 'README.md', 'LICENSE']) {
      cpSync(join(ROOT, path), join(dir, path), { recursive: true });
    }
    write(join(dir, 'dist', IN_USE, String(process.pid)));
    const packed = await bash('npm pack --dry-run --json --ignore-scripts', dir);
    expect(packed.code, explain(packed, 'npm pack --dry-run')).toBe(0);
    const paths = (JSON.parse(packed.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path);
    expect(paths).toContain('dist/cli-bundle/main.js');
    expect(paths.filter((path) => path.includes(IN_USE))).toEqual([]);
  });
});
