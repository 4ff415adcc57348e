// How many zod schemas `crm-sandbox serve` builds before its first answer, and in which modules:
// zod 4 binds every method of every schema to it as it is built, so each costs (~15 µs), and a
// module's top-level schemas are built as it loads whether a request reads them or not
// (docs/decisions/0035). The count is made in the spawned CLI (scripts/record-schemas.mjs); each
// schema is charged to the first frame of its stack outside zod, named by the `// dist/…` line
// esbuild writes above each source in a chunk. test/serve-schemas.test.ts keeps it low.
//
//   node scripts/serve-schemas.mjs          # the total and the count per module
//   node scripts/serve-schemas.mjs --json   # { total, byModule: { 'dist/…': n }, after }
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkMarkers, recordedServe, root } from './recorded-serve.mjs';

/**
 * Starts `crm-sandbox serve --port 0 --quiet` counting the zod schemas it builds, waits for the
 * first 200 of GET /sandbox/health, and resolves with what was built before that first request
 * (`total`, `byModule`). `afterFirst(url)`, if given, runs before the server stops; `after` then
 * counts what was built by the last request it made (that request's own work excluded).
 *
 * @example const { total, byModule } = await serveSchemas(); console.log(total, byModule);
 */
export async function serveSchemas({ args = [], afterFirst } = {}) {
  return recordedServe({ preload: 'scripts/record-schemas.mjs', logVariable: 'CRM_SANDBOX_RECORD_SCHEMAS', args }, async ({ url, log }) => {
    await afterFirst?.(url);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    const first = countByModule(JSON.parse(lines[0]));
    return { ...first, after: afterFirst ? countByModule(JSON.parse(lines.at(-1))) : first };
  });
}

/** `{ "<frames>": n }` → `{ total, byModule }`, each schema charged to its first frame in a source of dist/ (`?` when none). */
function countByModule(built) {
  const sourceAt = sourceLocator();
  const byModule = {};
  let total = 0;
  for (const [frames, count] of Object.entries(built)) {
    let owner = '?';
    for (const frame of frames.split(' ')) {
      const source = sourceAt(frame);
      if (source?.startsWith('dist/')) {
        owner = source;
        break;
      }
    }
    byModule[owner] = (byModule[owner] ?? 0) + count;
    total += count;
  }
  return { total, byModule: Object.fromEntries(Object.entries(byModule).sort((a, b) => b[1] - a[1])) };
}

/** A function from `file:///…:line` to the source esbuild marked above that line (`dist/…`, `node_modules/…`), or the file's own path in dist/. */
function sourceLocator() {
  const markers = new Map();
  return (frame) => {
    const match = /^(file:\/\/\/.*):(\d+)$/.exec(frame);
    if (!match) return undefined;
    const path = fileURLToPath(match[1]);
    if (!markers.has(path)) markers.set(path, chunkMarkers(path));
    let source = relative(root, path);
    for (const { line, source: marked } of markers.get(path)) {
      if (line > Number(match[2])) break;
      source = marked;
    }
    return source;
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await serveSchemas();
  if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`serve builds ${result.total} zod schemas before its first answer`);
    for (const [module, count] of Object.entries(result.byModule)) console.log(`  ${String(count).padStart(4)}  ${module}`);
  }
}
