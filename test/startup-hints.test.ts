import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types
import { HINTS_MARK, hintFunctions } from '../scripts/startup-hints.mjs';

// The build's last step (scripts/startup-hints.mjs, docs/decisions/0035): the top-level functions
// `serve` runs before its first answer become parenthesised function expressions, which V8
// compiles with the chunk (so the compile cache holds them). The chunk must do what it did.

/** A chunk as esbuild writes one: a module reads a function declared below it (hoisting), another is async, one is nested. */
const CHUNK = [
  'import { helper } from "./chunk-HELP.js";',
  '',
  '// dist/a.js',
  'var early = [later, typeof later];',
  'function later(n) {',
  '  return helper(n) + 1;',
  '}',
  'async function run() {',
  '  return later(1);',
  '}',
  'function outer() {',
  '  function nested() {',
  '    return 2;',
  '  }',
  '  return nested();',
  '}',
  'var arrow = (a) => {',
  '  return a;',
  '};',
  'function notRun() {',
  '  return 3;',
  '}',
  '',
  '// dist/b.js',
  'var fromB = outer() + arrow(1);',
  'export { early, fromB, later, notRun, run };',
].join('\n');

/** The coverage range of the function whose text starts with `head` (to its closing `}` line, or the arrow's `};`). */
function rangeOf(text: string, head: string): { startOffset: number; endOffset: number } {
  const startOffset = text.indexOf(head);
  if (startOffset === -1) throw new Error(`no ${head}`);
  const indent = /^ */.exec(head)![0];
  const close = text.indexOf(`\n${indent}}`, startOffset) + 1 + indent.length + 1;
  return { startOffset: startOffset + indent.length, endOffset: close };
}

/** Runs a chunk's text with `helper` as its import: what its exports show. */
async function evaluate(text: string) {
  const body = text.replace(/^import .*$/m, '').replace(/^export \{ (.*) \};$/m, 'return { $1 };');
  const { early, fromB, later, notRun, run } = new Function('helper', body)((n: number) => n * 10);
  return { early: [typeof early[0], early[1]], earlyIsLater: early[0] === later, laterName: later.name, ran: await run(), fromB, notRun: notRun() };
}

describe('startup hints', () => {
  const ran = ['function later(', 'async function run(', 'function outer(', '  function nested(', '(a) =>'].map((head) => rangeOf(CHUNK, head));

  it('moves the top-level declarations that ran above the first module, as `var name = (function …)`, and nothing else', () => {
    const { text, names } = hintFunctions(CHUNK, ran);
    expect(names).toEqual(['later', 'run', 'outer']);
    const hints = text.slice(text.indexOf(HINTS_MARK), text.indexOf('// dist/a.js'));
    expect(hints).toContain('var later = (function later(n) {\n  return helper(n) + 1;\n});');
    expect(hints).toContain('var run = (async function run() {');
    expect(hints).toContain('var outer = (function outer() {\n  function nested() {');
    // Each moved once: its declaration is gone from its module.
    expect(text.match(/function later\(/g)).toHaveLength(1);
    // Nested, arrow and not-run functions stay where and as they were.
    expect(text).toContain('var arrow = (a) => {');
    expect(text).toContain('// dist/a.js\nvar early = [later, typeof later];\nvar arrow');
    expect(text).toContain('function notRun() {\n  return 3;\n}');
    // The import stays first.
    expect(text.startsWith('import { helper } from "./chunk-HELP.js";\n\n// Run before')).toBe(true);
  });

  it('leaves a chunk that behaves as before: a function read above its declaration is the function', async () => {
    const before = await evaluate(CHUNK);
    const after = await evaluate(hintFunctions(CHUNK, ran).text);
    expect(after).toEqual(before);
    expect(after).toEqual({ early: ['function', 'function'], earlyIsLater: true, laterName: 'later', ran: 11, fromB: 3, notRun: 3 });
  });

  it('moves nothing for a range that is not one whole top-level function, or when nothing ran', () => {
    const later = rangeOf(CHUNK, 'function later(');
    const cut = { startOffset: later.startOffset, endOffset: later.endOffset - 2 };
    const twoAtOnce = { startOffset: later.startOffset, endOffset: rangeOf(CHUNK, 'async function run(').endOffset };
    for (const ranges of [[cut], [twoAtOnce], []]) expect(hintFunctions(CHUNK, ranges)).toEqual({ text: CHUNK, names: [] });
    // Run on its own output, it finds nothing more to move.
    const once = hintFunctions(CHUNK, ran).text;
    expect(
      hintFunctions(
        once,
        ['function later(', 'function outer('].map((head) => rangeOf(once, head)),
      ).names,
    ).toEqual([]);
  });

  it('is in the built CLI chunk that serve loads', () => {
    const main = readFileSync(new URL('../dist/cli-bundle/main.js', import.meta.url), 'utf8');
    const chunk = /from "\.\/(chunk-[\w-]+\.js)"/.exec(main)![1];
    const text = readFileSync(new URL(`../dist/cli-bundle/${chunk}`, import.meta.url), 'utf8');
    const block = text.slice(text.indexOf(HINTS_MARK), text.search(/^\/\/ dist\//m));
    expect(text).toContain(HINTS_MARK);
    // serve's own start is among them.
    expect(block.match(/^var [\w$]+ = \((async )?function /gm)!.length).toBeGreaterThan(30);
    expect(block).toMatch(/^var startDevServer = \(async function startDevServer\(/m);
  });
});
