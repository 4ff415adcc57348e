import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers of `src/`, lowest first: a module may import its own layer and those below it,
 * never one above; and no module may reach itself through its imports (no import cycle, within a
 * layer either). Type-only imports count too (a type is a dependency of the design, if not of the
 * running code), and so do dynamic imports. Tests (`*.test.ts`) may import anything.
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ['shared'], // errors, seeded random source, validation helpers, durations
  ['model'], // zod schemas and types of records, connections, events, requests
  ['ui'], // the inspector's browser modules: right above model, so they can take only shared/ and model/ (none of the server)
  ['clock'],
  ['store'],
  ['downstream'],
  ['unified'], // the service's unified objects: one description each, their views, filters, writes and field lists
  ['events'],
  ['webhooks'],
  ['scenarios'],
  ['client-check'], // the conduct rules and hard cases the core applies while client-check is on
  ['core'],
  ['testing', 'adapters', 'node', 'testcontainers'], // node/: what only Node has, injected by the Node entry; testcontainers/: crm-sandbox/testcontainers
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

/** A module's relative imports: each specifier and the path of the module it names (`./x.js` names `./x.ts`). */
function importsOf(file: string): Array<{ specifier: string; target: string }> {
  return [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((match) => ({
    specifier: match[1]!,
    target: normalize(join(dirname(file), match[1]!)).replace(/\.js$/, '.ts'),
  }));
}

/** Every import of a module of a higher layer, as `importer → imported (layers)`. */
function upwardImports(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = layerOf(file);
    for (const { specifier, target } of importsOf(file)) {
      if (!target.startsWith(SRC)) continue;
      const to = layerOf(target);
      if (to > from) found.push(`src/${relative(SRC, file)} imports ${specifier} (${LAYERS[from]!.join('/')} → ${LAYERS[to]!.join('/')})`);
    }
  }
  return found;
}

/** Who imports whom in src/ (tests left out), files as `src/…` paths, in name order. */
function importGraph(): Map<string, string[]> {
  const name = (file: string) => `src/${relative(SRC, file).split(/[/\\]/).join('/')}`;
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC).sort()) {
    const targets = importsOf(file).flatMap(({ target }) => (target.startsWith(SRC) ? [name(target)] : []));
    graph.set(name(file), [...new Set(targets)].sort());
  }
  return graph;
}

/**
 * The import cycles of a graph, each as a chain `a → b → a`: one for every import that leads
 * back to a module still being walked in a depth-first walk (a back edge). None means no cycle at
 * all, since every cycle holds at least one back edge of any such walk.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const walk = (module: string) => {
    path.push(module);
    for (const target of graph.get(module) ?? []) {
      const at = path.indexOf(target);
      if (at !== -1) found.push([...path.slice(at), target].join(' → '));
      else if (!done.has(target)) walk(target);
    }
    path.pop();
    done.add(module);
  };
  for (const module of graph.keys()) if (!done.has(module)) walk(module);
  return found;
}

describe('the layers of src/', () => {
  it('every import points down (or across its own layer)', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('no module imports itself, directly or through others (no import cycle)', () => {
    const graph = importGraph();
    // The scan sees the whole of src/: the downstream systems hang off DOWNSTREAM's table.
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/downstream/systems.ts')).toContain('src/downstream/hubspot/index.ts');
    expect(graph.get('src/core/passthrough-cache.ts')).toContain('src/downstream/types.ts'); // an `import type`
    expect(importCycles(graph)).toEqual([]);
  });

  it('every relative import names a module that exists (the graph misses no edge)', () => {
    const missing = sourceFiles(SRC).flatMap((file) =>
      importsOf(file).flatMap(({ specifier, target }) => (existsSync(target) ? [] : [`src/${relative(SRC, file)} imports ${specifier}`])),
    );
    expect(missing).toEqual([]);
  });

  it('sees an upward import when there is one', () => {
    // The check itself must be able to fail: core imports shared, so shared importing core would be caught.
    expect(layerOf(join(SRC, 'core/sandbox.ts'))).toBeGreaterThan(layerOf(join(SRC, 'shared/errors.ts')));
    expect([...`import { Sandbox } from '../core/sandbox.js';`.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['../core/sandbox.js']);
    expect([...`const m = await import('../scenarios/index.js');`.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['../scenarios/index.js']);
    expect([...`import type { X } from './x.js';`.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['./x.js']);
  });

  it('sees an import cycle when there is one, and reports it as a chain', () => {
    const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
    expect(importCycles(graph({ a: ['b'], b: ['c'], c: [] }))).toEqual([]);
    expect(importCycles(graph({ a: ['b', 'c'], b: ['c'], c: [] }))).toEqual([]);
    expect(importCycles(graph({ a: ['b'], b: ['a'] }))).toEqual(['a → b → a']);
    expect(importCycles(graph({ a: ['a'] }))).toEqual(['a → a']);
    expect(importCycles(graph({ index: ['system'], system: ['routes', 'leaf'], routes: ['leaf', 'system'], leaf: [] }))).toEqual(['system → routes → system']);
    // Two loops through one module: both reported.
    expect(importCycles(graph({ a: ['b', 'c'], b: ['a'], c: ['a'] }))).toEqual(['a → b → a', 'a → c → a']);
  });
});

/** The folders CONTRIBUTING.md's source tree names, in its order: the lines `  name/  …` of the block under "The source tree". */
function contributingTree(): string[] {
  const text = readFileSync(fileURLToPath(new URL('../CONTRIBUTING.md', import.meta.url)), 'utf8');
  const section = text.slice(text.indexOf('## The source tree'));
  const block = section.slice(section.indexOf('```'), section.indexOf('```', section.indexOf('```') + 3));
  return [...block.matchAll(/^ {2}([a-z-]+)\/ /gm)].map((match) => match[1]!);
}

describe("CONTRIBUTING.md's source tree", () => {
  it('names every folder of src/, in the order of LAYERS, and nothing else', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? [entry.name] : []));
    const layered = LAYERS.flat().filter((folder) => folder !== '.');
    expect([...layered].sort()).toEqual([...folders].sort());
    expect(contributingTree()).toEqual(layered);
  });
});
