// The last step of `npm run build`, after scripts/bundle.mjs: the functions `crm-sandbox serve`
// runs before its first answer are compiled with the CLI bundle's chunk, so Node's compile cache
// holds them and a start does not compile them again.
//
// Node saves a module's compile cache as V8 compiles the module: its top level, and no function
// V8 left to compile on its first call (all of them, but those written in parentheses). So every
// start compiled again, one by one, the 67 top-level functions the start runs (~51 kB of the
// chunk's 507 kB). Here `serve` is started once with V8's coverage on, up to its first answer
// (GET /sandbox/health); each top-level function declaration that ran is then written as
// `var name = (function name(…) {…});`, which V8 compiles with the chunk, and moved above the
// chunk's first module. A function declaration is hoisted (defined before any code of the chunk
// runs); these assignments run first, before any code that could call or read them, so nothing
// sees a difference. Arrow functions and methods are left as they are (tried: arrows in
// parentheses gave nothing measurable). docs/decisions/0035 has the figures.
//
//   node scripts/startup-hints.mjs        # rewrites the chunks of dist/cli-bundle, then checks that serve still answers
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { buildOut } from './build-out.mjs';
import { recordedServe, root } from './recorded-serve.mjs';

const bundle = buildOut('cli-bundle');
export const HINTS_MARK = '// Run before serve first answers, so compiled with the chunk (scripts/startup-hints.mjs):';

/**
 * `source` (a chunk esbuild wrote) with each top-level function declaration that starts one of
 * `ranges` (V8 coverage ranges, `{ startOffset, endOffset }`, of functions that ran) rewritten as a
 * function expression in parentheses assigned to a `var` of its name, the lot moved above the
 * chunk's first `// dist/…` (or `// node_modules/…`) line. Top level is column 0: esbuild indents
 * all else. Returns the text and the names moved.
 *
 * @example hintFunctions(text, [{ startOffset: 120, endOffset: 180 }]) // { text: '…var f = (function f() {…});…', names: ['f'] }
 */
export function hintFunctions(source, ranges) {
  const found = [];
  for (const { startOffset: start, endOffset: end } of ranges) {
    if ((start > 0 && source[start - 1] !== '\n') || found.some((other) => other.start === start)) continue;
    const head = /^(?:async )?function ([\w$]+)\(/.exec(source.slice(start, start + 300));
    if (!head || source[end - 1] !== '}' || source[end] !== '\n') continue;
    const text = source.slice(start, end);
    if (!isOneFunction(text)) continue;
    found.push({ name: head[1], start, end, text });
  }
  const firstModule = source.search(/^\/\/ (?:dist|node_modules)\//m);
  if (found.length === 0 || firstModule === -1) return { text: source, names: [] };
  found.sort((a, b) => a.start - b.start);
  if (found.some(({ start }, i) => start < firstModule || (i > 0 && start < found[i - 1].end))) {
    throw new Error('startup-hints: a function range starts before the first module or inside another');
  }
  const hints = [HINTS_MARK, ...found.map(({ name, text }) => `var ${name} = (${text});`)].join('\n');
  let text = `${source.slice(0, firstModule)}${hints}\n\n`;
  let at = firstModule;
  for (const { start, end } of found) {
    text += source.slice(at, start);
    at = end + 1; // and its line's newline
  }
  return { text: text + source.slice(at), names: found.map(({ name }) => name) };
}

/** Whether `text` is one function, and nothing else: it compiles in parentheses (not run). */
function isOneFunction(text) {
  try {
    new Script(`(${text})`);
    return true;
  } catch {
    return false;
  }
}

/** The coverage ranges of the functions (not the top level) that ran in each chunk of dist/cli-bundle, by file, from the coverage `files`. */
function rangesRun(coverageDir, files) {
  const byFile = new Map();
  for (const name of files) {
    for (const { url, functions } of JSON.parse(readFileSync(join(coverageDir, name), 'utf8')).result) {
      if (!url.startsWith(pathToFileURL(bundle).href)) continue;
      const ranges = functions.map(({ ranges: [whole] }) => whole).filter((range) => range.count > 0 && range.startOffset > 0);
      byFile.set(url, [...(byFile.get(url) ?? []), ...ranges]);
    }
  }
  return byFile;
}

async function main() {
  const coverage = mkdtempSync(join(tmpdir(), 'crm-sandbox-startup-coverage-'));
  try {
    // Without the compile cache: the chunk is about to change, so a cache of it would only be left behind.
    const noCache = { NODE_COMPILE_CACHE: '', NODE_DISABLE_COMPILE_CACHE: '1' };
    const env = { ...noCache, NODE_V8_COVERAGE: coverage };
    // Only the file written at the first answer: the one Node writes as the process exits counts the stop too.
    const atFirstAnswer = await recordedServe(
      { preload: 'scripts/record-startup-coverage.mjs', logVariable: 'CRM_SANDBOX_RECORD_COVERAGE', env },
      async ({ log }) => {
        const deadline = Date.now() + 30_000;
        while (readFileSync(log, { encoding: 'utf8', flag: 'a+' }) !== 'taken') {
          if (Date.now() > deadline) throw new Error('startup-hints: serve answered, but its coverage was not written within 30 s');
          await new Promise((done) => setTimeout(done, 10));
        }
        return readdirSync(coverage);
      },
    );
    const lines = [];
    for (const [url, ranges] of rangesRun(coverage, atFirstAnswer)) {
      const path = fileURLToPath(url);
      const source = readFileSync(path, 'utf8');
      // Coverage offsets count the UTF-16 units of the source, as a string's indices do.
      const { text, names } = hintFunctions(source, ranges);
      if (names.length === 0) continue;
      writeFileSync(path, text);
      lines.push(`${relative(root, path)}: ${names.length} functions`);
    }
    // The chunk must still start and answer (a start that cannot evaluate it fails here, not later).
    await recordedServe({ env: noCache }, () => undefined);
    console.log(`startup-hints: ${lines.join('; ') || 'no function to move'}`);
  } finally {
    rmSync(coverage, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
