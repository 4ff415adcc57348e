import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers of `src/`, lowest first: a module may import its own layer and those below it,
 * never one above. Type-only imports count too (a type is a dependency of the design, if not of
 * the running code), and so do dynamic imports. Tests (`*.test.ts`) may import anything.
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ['shared'], // errors, seeded random source, validation helpers, durations
  ['model'], // zod schemas and types of records, connections, events, requests
  ['clock'],
  ['store'],
  ['downstream'],
  ['events'],
  ['webhooks'],
  ['scenarios'],
  ['core'],
  ['testing', 'adapters', 'node'], // node/: what only Node has, injected by the Node entry
  ['mcp'], // crm-sandbox mcp's tools and resources, over the HTTP API (the CLI loads the MCP SDK with them)
  ['cli'],
  ['.'], // the package's entry files: src/index.ts, src/server.ts
];

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function layerOf(file: string): number {
  const top = relative(SRC, file).split(/[/\\]/);
  const folder = top.length === 1 ? '.' : top[0]!;
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  if (index === -1) throw new Error(`${relative(SRC, file)}: folder "${folder}" has no layer; add it to LAYERS in test/layers.test.ts`);
  return index;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every import of a module of a higher layer, as `importer → imported (layers)`. */
function upwardImports(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = layerOf(file);
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = normalize(join(dirname(file), match[1]!));
      if (!target.startsWith(SRC)) continue;
      const to = layerOf(target);
      if (to > from) found.push(`src/${relative(SRC, file)} imports ${match[1]} (${LAYERS[from]!.join('/')} → ${LAYERS[to]!.join('/')})`);
    }
  }
  return found;
}

describe('the layers of src/', () => {
  it('every import points down (or across its own layer)', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('sees an upward import when there is one', () => {
    // The check itself must be able to fail: core imports shared, so shared importing core would be caught.
    expect(layerOf(join(SRC, 'core/sandbox.ts'))).toBeGreaterThan(layerOf(join(SRC, 'shared/errors.ts')));
    expect([...`import { Sandbox } from '../core/sandbox.js';`.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['../core/sandbox.js']);
    expect([...`const m = await import('../scenarios/index.js');`.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['../scenarios/index.js']);
    expect([...`import type { X } from './x.js';`.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['./x.js']);
  });
});
