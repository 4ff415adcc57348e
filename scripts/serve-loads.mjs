// What `crm-sandbox serve` loads before its first answer: the files of dist/ (bundle chunks, the
// vendored faker) it has loaded when GET /sandbox/health first answers 200, their bytes, and the
// sources each chunk holds (esbuild names them in a `// dist/…` or `// node_modules/…` line). The
// issue asks for this figure (issue 30, item 1); test/serve-lazy.test.ts keeps it honest.
//
//   node scripts/serve-loads.mjs          # a summary: files, bytes, the lazy chunks left unloaded
//   node scripts/serve-loads.mjs --json   # { files: [{ file, bytes, sources }], bytes, lazyBytes }
//
// The bench can call serveLoads() (bench/run.mjs belongs to the budget's owner).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkMarkers, recordedServe, root } from './recorded-serve.mjs';

const bundle = join(root, 'dist/cli-bundle');

/** The sources esbuild put in a chunk of dist/, as `dist/…` and `node_modules/<package>` names. */
export function chunkSources(file) {
  const sources = new Set();
  for (const { source } of chunkMarkers(file)) {
    const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
    sources.add(pkg ? `node_modules/${pkg[1]}` : source);
  }
  return [...sources];
}

/**
 * Starts `crm-sandbox serve --port 0 --quiet` (plus `args`) with a loader hook recording each
 * module it loads, waits for the first 200 of GET /sandbox/health, and resolves with the files of
 * dist/ loaded by then. `afterFirst(url)`, if given, runs before the server stops (its loads are in
 * `after`).
 *
 * @example const { bytes, files } = await serveLoads(); console.log(bytes, files.length);
 */
export async function serveLoads({ args = [], afterFirst } = {}) {
  // Recorded without the compile cache, whatever an earlier start left in it.
  const env = { NODE_COMPILE_CACHE: '', NODE_DISABLE_COMPILE_CACHE: '1' };
  return recordedServe({ preload: 'scripts/record-loads.mjs', logVariable: 'CRM_SANDBOX_RECORD_LOADS', args, env }, async ({ url, log }) => {
    const first = loadedFiles(log);
    await afterFirst?.(url);
    const after = afterFirst ? loadedFiles(log) : first;
    const bytes = first.reduce((sum, { bytes }) => sum + bytes, 0);
    const all = readdirSync(bundle).filter((name) => name.endsWith('.js'));
    const lazyBytes =
      all.reduce((sum, name) => sum + statSync(join(bundle, name)).size, 0) -
      first.filter(({ file }) => file.startsWith('dist/cli-bundle/')).reduce((sum, { bytes }) => sum + bytes, 0);
    return { files: first, bytes, lazyBytes, after, builtins: builtinsAtFirstRequest(log) };
  });
}

/** The files of dist/ in the log, in load order, each with its bytes and sources. */
function loadedFiles(log) {
  const seen = new Set();
  const files = [];
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    if (!url.startsWith('file:') || seen.has(url)) continue;
    seen.add(url);
    const path = fileURLToPath(url);
    const file = relative(root, path);
    if (!file.startsWith('dist/')) continue;
    files.push({ file, bytes: statSync(path).size, sources: chunkSources(path) });
  }
  return files;
}

/** The built-in modules (`crypto`, `http`, `internal/…`) loaded when the first request arrived. */
function builtinsAtFirstRequest(log) {
  const line = readFileSync(log, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('builtins: '));
  return line ? line.slice('builtins: '.length).split(',') : [];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await serveLoads();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    const kB = (bytes) => `${(bytes / 1000).toFixed(0)} kB`;
    console.log(
      `serve loads ${result.files.length} files of dist/ before its first answer: ${kB(result.bytes)} (lazy chunks left unloaded: ${kB(result.lazyBytes)})`,
    );
    for (const { file, bytes } of [...result.files].sort((a, b) => b.bytes - a.bytes).slice(0, 8)) console.log(`  ${kB(bytes).padStart(7)}  ${file}`);
  }
}
