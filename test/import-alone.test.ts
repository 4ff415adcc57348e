import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Every module of the build imports on its own: whichever a user (or a bundler's chunk, or a unit
 * test) loads first must not throw — as an import cycle makes it (`Cannot access 'PREFIX' before
 * initialization`). The built modules of dist/, not src/ through vitest: vitest's loader rewrites
 * imports into property reads of module objects, which can hide exactly the evaluation-order
 * errors this looks for; dist/ is what Node runs for the package's users. `npm test` builds first.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNNER = fileURLToPath(new URL('helpers/import-alone.mjs', import.meta.url));

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

/**
 * What tsc built from src/ (each module of src/, tests left out, as dist/….js), then the CLI's
 * esbuild bundle with its chunks and the vendored faker, which the build remakes every time.
 * dist/ui/ is not among them: browser scripts, served to the widget's and the inspector's pages,
 * not modules (src/ui/'s TypeScript is bundled into dist/ui/inspector.js, which tsc does not emit).
 */
function builtModules(): string[] {
  const browser = join(ROOT, 'src', 'ui');
  const sources = files(join(ROOT, 'src'), (name) => name.endsWith('.ts') && !name.endsWith('.test.ts')).filter((source) => !source.startsWith(browser));
  const compiled = sources.map((source) => ({
    source,
    built: join(ROOT, 'dist', relative(join(ROOT, 'src'), source)).replace(/\.ts$/, '.js'),
  }));
  const unbuilt = compiled.filter(({ source, built }) => !existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs);
  if (unbuilt.length > 0)
    throw new Error(`dist/ is missing or older than ${relative(ROOT, unbuilt[0]!.source)} (and ${unbuilt.length - 1} more): run npm run build`);
  const bundled = ['cli-bundle', 'vendor'].flatMap((dir) => files(join(ROOT, 'dist', dir), (name) => name.endsWith('.js')));
  return [...compiled.map(({ built }) => built), ...bundled];
}

/** Each module that threw when imported alone, as `path: first line of the error`. */
function importEachAlone(modules: string[]): string[] {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const run = spawnSync(process.execPath, [RUNNER, ...modules], { env, encoding: 'utf8' });
  if (run.status !== 0 && run.stdout === '') throw new Error(`the import runner failed: ${run.stderr}`);
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { module: string; error: string })
    .map(({ module, error }) => `${relative(ROOT, module)}: ${error}`);
}

const scratch = mkdtempSync(join(tmpdir(), 'crm-sandbox-import-alone-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('every module of the build imports alone', () => {
  it('imports each built module alone, in a fresh module registry, without a throw', () => {
    const modules = builtModules();
    expect(modules.length).toBeGreaterThan(150);
    expect(importEachAlone(modules)).toEqual([]);
  }, 300_000);

  it('sees a module that throws when imported alone (the check is not vacuous)', () => {
    // Two modules in a cycle: imported first, `routes.mjs` runs `system.mjs` before its own PREFIX is set.
    writeFileSync(join(scratch, 'system.mjs'), "import { routes } from './routes.mjs';\nexport const ROUTES = routes();\n");
    writeFileSync(join(scratch, 'routes.mjs'), "import './system.mjs';\nconst PREFIX = 'crm/v3';\nexport function routes() {\n  return [PREFIX];\n}\n");
    writeFileSync(join(scratch, 'throws.mjs'), "throw new TypeError('no platform set');\n");
    writeFileSync(join(scratch, 'fine.mjs'), 'export const fine = true;\nsetInterval(() => {}, 1000);\n');
    const failures = importEachAlone(['routes.mjs', 'system.mjs', 'throws.mjs', 'fine.mjs'].map((name) => join(scratch, name))).sort();
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/routes\.mjs: ReferenceError: Cannot access 'PREFIX' before initialization$/);
    expect(failures[1]).toMatch(/throws\.mjs: TypeError: no platform set$/);
  });
});
