import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The core and everything below it run in browsers: no `node:` module and no Buffer there. Node's
// own parts (file reading, the node:http transport) live in src/node/ and are injected.
const root = new URL('../', import.meta.url).pathname;
const PORTABLE = ['src/core', 'src/store', 'src/model', 'src/events', 'src/clock', 'src/downstream', 'src/webhooks', 'src/client-check'];
/** The injected Node-only transport (the browser entry uses transport.ts's fetch one). */
const NODE_ONLY = new Set(['src/webhooks/http-transport.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Each offending line, as `file:line: text`. */
function offences(file: string): string[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  return lines.flatMap((line, index) => {
    // Comments may name Buffer (to say what replaced it); code may not.
    const code = /^\s*(\*|\/\*)/.test(line) ? '' : line.replace(/\/\/.*$/, '');
    const nodeImport = /(?:from\s+|import\s*\(\s*|import\s+|require\s*\(\s*)['"](node:[^'"]+|fs|path|http|https|url|module|crypto|os|net)['"]/.test(code);
    const buffer = /\bBuffer\b/.test(code);
    return nodeImport || buffer ? [`${file}:${index + 1}: ${line.trim()}`] : [];
  });
}

describe('the portable core', () => {
  it('imports no node: module and uses no Buffer below src/node', () => {
    const files = PORTABLE.flatMap(sourceFiles).filter((file) => !NODE_ONLY.has(file));
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap(offences)).toEqual([]);
  });

  it('catches an offending line (the scan is not vacuous)', () => {
    expect(relative(root, join(root, 'src/webhooks/http-transport.ts'))).toBe('src/webhooks/http-transport.ts');
    expect(offences('src/webhooks/http-transport.ts').some((line) => line.includes("from 'node:http'"))).toBe(true);
    expect(offences('src/node/fixture-files.ts').length).toBeGreaterThan(0);
  });
});
