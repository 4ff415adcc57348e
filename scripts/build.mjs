// `npm run build` (also what `npm test`, `npm install`, `npm ci` and `npm pack` start with, through the prepare
// script): the steps of the build, and then the new build published into dist/ so that a CLI already running from
// this checkout (`npx crm-sandbox serve` in a clone runs the clone itself) goes on answering as it did.
//
// What a running CLI loads from dist/ after it started is the CLI bundle's lazy chunks (decision 0035), the vendored
// faker and the browser files. So:
// - Those are built into a staging folder beside dist/ (.dist-next-<pid>, at dist/'s depth, so the paths the code
//   finds from its own URL are the same) and moved into dist/ file by file at the end, each by a rename (a file is
//   always whole), the chunks before main.js, so a CLI started meanwhile gets one build or the other, whole.
// - tsc's output (dist/'s library modules, which no running CLI loads) is written in place, and what it no longer
//   emits is removed: a fresh tree, as the `rm -rf dist` this replaces left.
// - Each CLI marks dist/.in-use/<pid> while it runs (bin/crm-sandbox.js). While one lives, the files of the build
//   it came from stay: esbuild names chunks by their content, so the old names are still there and still theirs;
//   zod's entry is named by content too (scripts/bundle.mjs). Once none lives, the next build removes them.
// See docs/decisions/0051-a-running-cli-survives-builds-of-its-checkout.md.
//
//   node scripts/build.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');
/** The folders of dist/ a running CLI loads from; everything else in dist/ is tsc's. */
export const PUBLISHED = ['cli-bundle', 'vendor', 'ui'];
/** Where each running CLI marks itself: `dist/.in-use/<pid>`. */
export const IN_USE = '.in-use';
const STAGE_PREFIX = '.dist-next-';

/** Whether a process of this id runs (one of another user counts: it may be one). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The marks in `dist/.in-use` of CLIs that still run; the marks of those that ended without removing theirs are removed. */
export function liveHolders(dist) {
  const dir = join(dist, IN_USE);
  if (!existsSync(dir)) return [];
  const live = [];
  for (const name of readdirSync(dir)) {
    const pid = Number(name);
    if (Number.isSafeInteger(pid) && pid > 0 && alive(pid)) live.push(pid);
    else rmSync(join(dir, name), { force: true });
  }
  return live;
}

/** Every file under `dir`, as paths relative to it (none when it does not exist). */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** Removes the folders under `dir` left empty (not `dir` itself). */
function removeEmptyFolders(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    removeEmptyFolders(path);
    if (readdirSync(path).length === 0) rmdirSync(path);
  }
}

/**
 * Moves the staged build (`stage`: cli-bundle/, vendor/, ui/) into `dist`, each file by a rename: the chunks and
 * every other file first, `cli-bundle/main.js` last, so a CLI that starts meanwhile loads the old main.js with the
 * old chunks (still there) or the new one with the new chunks (all there). Then the files of the published folders
 * the new build does not have are removed, unless a CLI that may load them still runs. Returns what it did.
 */
export function publish(stage, dist) {
  const staged = filesUnder(stage);
  const last = join('cli-bundle', 'main.js');
  const ordered = [...staged.filter((file) => file !== last), ...staged.filter((file) => file === last)];
  for (const file of ordered) {
    mkdirSync(dirname(join(dist, file)), { recursive: true });
    renameSync(join(stage, file), join(dist, file));
  }
  rmSync(stage, { recursive: true, force: true });
  const fresh = new Set(staged);
  const stale = PUBLISHED.flatMap((folder) => filesUnder(join(dist, folder)).map((file) => join(folder, file))).filter((file) => !fresh.has(file));
  const holders = liveHolders(dist);
  if (holders.length === 0) {
    for (const file of stale) unlinkSync(join(dist, file));
    for (const folder of PUBLISHED) {
      removeEmptyFolders(join(dist, folder));
      if (existsSync(join(dist, folder)) && readdirSync(join(dist, folder)).length === 0) rmdirSync(join(dist, folder));
    }
  }
  return { published: staged.length, stale: stale.length, kept: holders.length === 0 ? 0 : stale.length, holders };
}

/** Removes tsc's files of an earlier build that it no longer emits (a module deleted or moved), outside the published folders. */
export function removeUnemitted(dist, emitted) {
  const kept = new Set(emitted.map((path) => relative(dist, path)));
  const outside = (file) => !PUBLISHED.includes(file.split(sep)[0]) && file.split(sep)[0] !== IN_USE;
  for (const file of filesUnder(dist).filter(outside)) if (!kept.has(file)) unlinkSync(join(dist, file));
  removeEmptyFolders(dist);
  mkdirSync(join(dist, IN_USE), { recursive: true });
}

/** Staging folders of builds that were interrupted (their process is gone). */
function removeAbandonedStages() {
  for (const name of readdirSync(root)) {
    if (!name.startsWith(STAGE_PREFIX)) continue;
    const pid = Number(name.slice(STAGE_PREFIX.length));
    if (!alive(pid)) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/** Runs a step (a Node script and its arguments) in the checkout, its output shown (but the lines `hide` matches); a failure ends the build. */
function step(args, { env = {}, hide } = {}) {
  const ran = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env }, encoding: 'utf8' });
  const shown = hide
    ? ran.stdout
        .split('\n')
        .filter((line) => !hide.test(line))
        .join('\n')
    : ran.stdout;
  if (shown.trim()) process.stdout.write(shown.endsWith('\n') ? shown : `${shown}\n`);
  if (ran.status !== 0) {
    console.error(`build: ${relative(root, args[0])} ${ran.signal ? `was stopped by ${ran.signal}` : `exited with ${ran.status}`}`);
    process.exit(ran.status || 1);
  }
  return ran.stdout;
}

/** The TypeScript compiler's command-line script, as the package names it (`tsc` in its bin). */
function tscScript() {
  const require = createRequire(join(root, 'package.json'));
  const manifest = require.resolve('typescript/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin.tsc);
}

function main() {
  const dist = join(root, 'dist');
  const stage = join(root, `${STAGE_PREFIX}${process.pid}`);
  removeAbandonedStages();
  rmSync(stage, { recursive: true, force: true });
  const staging = { CRM_SANDBOX_BUILD_OUT: stage };
  try {
    step([join(root, 'scripts/write-bundled-fixtures.mjs')]);
    const listed = step([tscScript(), '-p', 'tsconfig.build.json', '--listEmittedFiles'], { hide: /^TSFILE: / });
    const emitted = listed.split('\n').flatMap((line) => (line.startsWith('TSFILE: ') ? [line.slice('TSFILE: '.length).trim()] : []));
    if (emitted.length === 0) throw new Error('build: tsc listed no file it emitted');
    removeUnemitted(dist, emitted);
    step([join(root, 'scripts/write-scenario-schema.mjs')]);
    step([join(root, 'scripts/build-ui.mjs')], { env: staging });
    step([join(root, 'scripts/bundle.mjs')], { env: staging });
    step([join(root, 'scripts/startup-hints.mjs')], { env: staging });
    const { kept, holders } = publish(stage, dist);
    if (kept > 0) {
      console.log(
        `build: kept ${kept} file(s) of the build that running crm-sandbox process(es) ${holders.join(', ')} came from; the next build after they stop removes them`,
      );
    }
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main();
