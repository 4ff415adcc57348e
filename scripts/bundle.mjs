// Two bundles for Node, built after tsc (esbuild):
//
// dist/cli-bundle/: the compiled CLI (dist/cli/main.js), which bin/crm-sandbox.js runs. One chunk
// (importsMainFirst) loads far faster than the ~250 separate ES modules it is made of (zod
// alone is ~95 files, most of them locales `serve` never uses): most of a cold start. What a
// command loads on demand (the scenario engine, the OpenAPI document, yargs when the command line
// is not a plain `serve`: src/cli/plain-args.ts) stays in lazy chunks.
// dist/cli-bundle sits as deep as dist/cli, so the paths the code finds from its own URL
// (../../package.json, ../../fixtures/, ../../scenarios/, ../ui/, ../vendor/) are the same.
// The MCP SDK (a devDependency) is bundled in too, for `crm-sandbox mcp` only: its stdio server,
// in a chunk loaded when that command runs (checked below), on the package's own zod; the
// package does not carry the SDK or its HTTP transports' dependencies (express, hono, …).
//
// dist/vendor/faker-en.js: the part of faker the sandbox uses (Faker, en, base, the Mersenne
// randomizer). faker's package entry loads all its ~70 locales: in Node that costs about 300 ms
// and 38 MiB of RSS when the first data set is built; this file costs about 80 ms and 9 MiB, and
// draws the very same values.
//
// Each folder gets THIRD-PARTY-LICENSES.txt: the licence of every package whose code esbuild put
// in its files (the MCP SDK and ajv are in no package a user installs: their notices ship here).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildOut } from './build-out.mjs';

/** tsc's output, which the bundles are made of (the bundles themselves go to buildOut: a staging folder under npm run build). */
const dist = (path) => fileURLToPath(new URL(`../dist/${path}`, import.meta.url));
const MAIN = dist('cli/main.js');
const root = fileURLToPath(new URL('..', import.meta.url));
// No source maps, like the rest of dist/ (tsconfig.build.json): the package does not ship src/.
const common = { bundle: true, format: 'esm', platform: 'node', target: 'node22', logLevel: 'warning', sourcemap: false };

/**
 * Node's built-ins through `require`, not `import`: an ES import of a built-in builds its ESM
 * facade, which reads every export, getters included, and some load what they stand for:
 * node:http's WebSocket, CloseEvent and MessageEvent load undici (~40 ms and ~15 MiB of RSS at
 * start on Node 26, for a server that never uses them), node:fs's ReadStream and promises, and
 * node:crypto's webcrypto. `require` reads an export only when the code uses it (undici loads
 * when fetch is first used: a webhook delivery).
 */
const builtinsThroughRequire = {
  name: 'builtins-through-require',
  setup(build) {
    const names = builtinModules.filter((name) => !name.startsWith('_')).map((name) => name.replace(/[/]/g, '\\/'));
    build.onResolve({ filter: new RegExp(`^(node:)?(${names.join('|')})$`) }, (args) => {
      const path = args.path.startsWith('node:') ? args.path : `node:${args.path}`;
      return args.namespace === 'builtin' ? { path, external: true } : { path, namespace: 'builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/**
 * string-width (yargs's, for help text) builds an Intl.Segmenter and Unicode property regexps
 * (\p{RGI_Emoji}, …) as it loads: ~35 ms and ~5 MiB at every start, for help that `serve` never
 * prints. Its body is built on the first call instead (the same code, run later).
 */
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/](?:.+[\\/])?string-width[\\/]index\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const lines = source.split('\n');
      const imports = lines.filter((line) => line.startsWith('import '));
      const body = lines.filter((line) => !line.startsWith('import ')).join('\n');
      const head = 'export default function stringWidth(';
      if (body.split(head).length !== 2 || /^export /m.test(body.replace(head, ''))) {
        throw new Error(`bundle: ${args.path} is no longer one default export stringWidth: see lazyStringWidth in scripts/bundle.mjs`);
      }
      const contents = [
        ...imports,
        'let built;',
        'export default function stringWidth(...args) {',
        '  built ??= build();',
        '  return built(...args);',
        '}',
        'function build() {',
        body.replace(head, 'function stringWidth('),
        '  return stringWidth;',
        '}',
      ].join('\n');
      return { contents, loader: 'js' };
    });
  },
};

/**
 * zod loaded at its first use, not at start: the modules of dist/ build their schemas on first
 * use (src/shared/once.ts), so `serve` needs none before its first answer, but their static
 * `import * as z from 'zod'` still loaded and evaluated zod's 207 kB (about 5 ms and 1 MiB of every
 * start). In this bundle they get a `z` that loads zod when first read (a Proxy over the real
 * namespace, synchronously: Node's require() of an ES module, which every Node the package
 * supports has), from dist/cli-bundle/zod.js, an entry of its own that exports what dist/ reads
 * of `z` (`z.object`, `z.iso`, …: found in its text; all of zod would bring its ~750 kB of
 * locales); the rest of the bundle (the MCP SDK) imports that same zod. The library's dist/ (not
 * bundled) imports zod as written.
 */
const ZOD_ON_FIRST_USE = 'crm-sandbox:zod-on-first-use';
const ZOD_ENTRY = 'crm-sandbox:zod-entry';

/** The names dist/'s modules read of zod's namespace (`z.object` → object), each checked to be one of zod's exports. */
async function zodNamesRead() {
  const names = new Set();
  for (const entry of readdirSync(dist(''), { recursive: true })) {
    if (!entry.endsWith('.js') || entry.startsWith('cli-bundle') || entry.startsWith('vendor')) continue;
    for (const [, name] of readFileSync(dist(entry), 'utf8').matchAll(/\bz\.([A-Za-z_$][\w$]*)/g)) names.add(name);
  }
  const zod = await import('zod');
  const unknown = [...names].filter((name) => !(name in zod));
  if (unknown.length > 0) throw new Error(`bundle: dist/ reads z.${unknown.join(', z.')}, which zod does not export: see zodOnFirstUse`);
  return [...names].sort();
}
/** A module of dist/ with its `import * as z from 'zod'` turned into zodOnFirstUse's `z`. */
function zodImportOnFirstUse(path, source) {
  const statement = "import * as z from 'zod';";
  if (!source.includes(statement)) return source;
  if (/from ['"]zod(\/[^'"]*)?['"]/.test(source.replace(statement, ''))) {
    throw new Error(`bundle: ${path} imports zod otherwise than \`${statement}\`: see zodOnFirstUse in scripts/bundle.mjs`);
  }
  return source.replace(statement, `import { z } from '${ZOD_ON_FIRST_USE}';`);
}
const zodOnFirstUse = {
  name: 'zod-on-first-use',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^${ZOD_ON_FIRST_USE}$`) }, () => ({ path: ZOD_ON_FIRST_USE, namespace: 'zod-on-first-use' }));
    build.onResolve({ filter: new RegExp(`^${ZOD_ENTRY}$`) }, () => ({ path: ZOD_ENTRY, namespace: 'zod-on-first-use' }));
    build.onLoad({ filter: new RegExp(`^${ZOD_ENTRY}$`), namespace: 'zod-on-first-use' }, async () => ({
      contents: `export { ${(await zodNamesRead()).join(', ')} } from 'zod';`,
      resolveDir: root,
      loader: 'js',
    }));
    build.onLoad({ filter: new RegExp(`^${ZOD_ON_FIRST_USE}$`), namespace: 'zod-on-first-use' }, () => ({
      contents: [
        "import { createRequire } from 'node:module';",
        'let zod;',
        "const load = () => (zod ??= createRequire(import.meta.url)('./zod.js'));",
        'export const z = new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() });',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * One chunk for what `serve` loads at start. esbuild's code splitting puts each module in the chunk
 * of the exact set of entries that reach it (main.js, zod.js and each target of an `import()`), so
 * the modules main.js imports were spread over 35 chunks (20 of them under 3 kB) by which lazy
 * commands also reach them; resolving, reading and linking each file cost about 14 ms of an 80 ms
 * `serve` start. Each `import()` target of the CLI gets `import "dist/cli/main.js"` at its top:
 * every entry but zod.js then reaches all that main.js reaches, so those modules share one chunk.
 * Nothing runs in another order or twice: a lazy module is imported only after main.js's modules
 * have run, and that import finds them done. The targets come from a first build that writes
 * nothing (`importTargets`), so the chunks do not depend on the order esbuild loads files in.
 */
function importsMainFirst(targets) {
  return (path, source) => (targets.has(path) ? `import ${JSON.stringify(MAIN)};\n${source}` : source);
}

/** The modules the CLI reaches through an `import()` (the lazy chunks' entries), as absolute paths, from a build of `options` that writes nothing. */
async function importTargets(options) {
  const { metafile } = await build({ ...options, write: false, metafile: true });
  const targets = new Set();
  for (const { imports } of Object.values(metafile.inputs)) {
    for (const { path, kind, external } of imports) if (kind === 'dynamic-import' && !external) targets.add(resolve(root, path));
  }
  return targets;
}

/** dist/'s modules as the CLI bundle reads them: each of `transforms` takes (path, source) and returns the source. */
function distSources(...transforms) {
  return {
    name: 'dist-sources',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(dist(''))) return undefined;
        const source = readFileSync(args.path, 'utf8');
        const contents = transforms.reduce((text, transform) => transform(args.path, text), source);
        return contents === source ? undefined : { contents, loader: 'js' };
      });
    },
  };
}

const REQUIRE_BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

rmSync(buildOut('cli-bundle'), { recursive: true, force: true });
const cliOptions = {
  ...common,
  absWorkingDir: root,
  entryPoints: [
    { in: MAIN, out: 'main' },
    { in: ZOD_ENTRY, out: 'zod' },
  ],
  outdir: buildOut('cli-bundle'),
  splitting: true,
  // Not bundled: msw (an optional peer); faker, loaded on demand from dist/vendor. express (an
  // optional peer, for createApp) is no part of the CLI: `serve` runs on plain node:http.
  external: ['@faker-js/faker', 'msw'],
  // CommonJS packages inside (yaml) and the built-ins above need a `require`: the chunks that use one get it (finishChunks).
  banner: { js: REQUIRE_BANNER },
};
const plugins = [builtinsThroughRequire, lazyStringWidth, zodOnFirstUse];
const targets = await importTargets({ ...cliOptions, plugins: [...plugins, distSources(zodImportOnFirstUse)] });
const cli = await build({
  ...cliOptions,
  metafile: true,
  plugins: [...plugins, distSources(zodImportOnFirstUse, importsMainFirst(targets))],
});
checkMcpSdk(cli.metafile);
checkImportTargetsLazy(cli.metafile, targets);
finishChunks(Object.keys(cli.metafile.outputs).filter((path) => path.endsWith('.js')));
zodNamedByContent(cli.metafile);
writeLicenses(cli.metafile, buildOut('cli-bundle'));

const faker = await build({
  ...common,
  metafile: true,
  stdin: {
    contents: "export { Faker, en, base, generateMersenne53Randomizer } from '@faker-js/faker';",
    resolveDir: root,
  },
  outfile: buildOut('vendor/faker-en.js'),
});
writeLicenses(faker.metafile, buildOut('vendor'));

/**
 * What esbuild leaves for every chunk that only some need, taken out of the others:
 * - The banner's `require` (a `createRequire` at each chunk's load, about 30 µs each): kept where
 *   the chunk's code names `require`, 4 chunks of about 70.
 * - Non-ASCII characters. esbuild writes code in ASCII (its default charset escapes the rest) but
 *   keeps some comments as they are: one `…` or `×` in a comment made V8 hold the whole chunk's
 *   source as a two-byte string (zod's 212 kB chunk: 415 KiB of heap at every start). Each one
 *   left, all in comments, is written as its `\\u` code; one outside a comment fails the build, so
 *   code is never changed.
 */
function finishChunks(paths) {
  for (const path of paths) {
    const text = readFileSync(path, 'utf8');
    if (!text.startsWith(`${REQUIRE_BANNER}\n`)) throw new Error(`bundle: ${path} does not start with the require banner`);
    const body = text.slice(REQUIRE_BANNER.length + 1);
    const lines = body.split('\n').map((line, index) => {
      const first = line.search(/[\u0080-\uffff]/);
      if (first === -1) return line;
      const comment = /^\s*(\*|\/\*|\/\/)/.test(line) || line.lastIndexOf('//', first) !== -1;
      if (!comment) throw new Error(`bundle: ${path}:${index + 2} has a non-ASCII character outside a comment: ${line.trim().slice(0, 120)}`);
      return line.replace(/[\u{80}-\u{10ffff}]/gu, (char) => `\\u${char.codePointAt(0).toString(16).padStart(4, '0')}`);
    });
    writeFileSync(path, (/\brequire\b/.test(body) ? `${REQUIRE_BANNER}\n` : '') + lines.join('\n'));
  }
}

/**
 * zod.js renamed zod-<hash of its text>.js, as esbuild names the chunks: a running `serve` loads it when zod is first
 * used, which may come after `npm run build` has published a new build into dist/ (scripts/build.mjs, which keeps
 * the files of the build a running CLI came from), and it must get its own build's zod.js, which exports the names
 * its code reads. The one reference to it, in zodOnFirstUse's loader, is in a chunk main.js loads at start, so no
 * chunk a CLI loads later changes under its name.
 */
function zodNamedByContent(metafile) {
  const outputs = Object.keys(metafile.outputs).filter((path) => path.endsWith('.js'));
  const entry = outputs.find((path) => path.endsWith('/zod.js'));
  const text = readFileSync(entry, 'utf8');
  const named = `zod-${createHash('sha256').update(text).digest('hex').slice(0, 8).toUpperCase()}.js`;
  const referring = outputs.filter((path) => readFileSync(path, 'utf8').includes('"./zod.js"'));
  const atStart = startOutputs(metafile);
  if (referring.length !== 1 || !atStart.includes(referring[0])) {
    throw new Error(`bundle: "./zod.js" is named in ${referring.join(', ') || 'no chunk'}; expected one chunk main.js loads at start: see zodNamedByContent`);
  }
  writeFileSync(referring[0], readFileSync(referring[0], 'utf8').replace('"./zod.js"', JSON.stringify(`./${named}`)));
  renameSync(entry, entry.replace(/zod\.js$/, named));
}

/**
 * THIRD-PARTY-LICENSES.txt in `dir`: for each package bundled (name, version, licence), its
 * licence file as the package ships it. A package without one fails the build: its code must not
 * ship without its notice.
 */
function writeLicenses(metafile, dir) {
  const roots = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) roots.add(match[1]);
  }
  // By name and version: two copies of one release (nested in two packages) are one notice.
  const sections = new Map();
  for (const root of roots) {
    const { name, version, license } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
    const file = readdirSync(root).find((entry) => /^(licen[cs]e|copying)/i.test(entry));
    if (!file) throw new Error(`bundle: ${name} has no licence file to ship with its bundled code (${root})`);
    sections.set(`${name} ${version}`, `${name} ${version} (${license})\n\n${readFileSync(`${root}/${file}`, 'utf8').trim()}\n`);
  }
  const ordered = [...sections.keys()].sort().map((key) => sections.get(key));
  const intro = "Third-party packages bundled into this folder's files by esbuild (scripts/bundle.mjs), and their licences.";
  writeFileSync(`${dir}/THIRD-PARTY-LICENSES.txt`, [intro, ...ordered].join(`\n${'='.repeat(78)}\n\n`));
}

/** The files of the CLI bundle that main.js loads as it starts: itself and what it imports statically, as the metafile names them. */
function startOutputs(metafile) {
  const main = Object.keys(metafile.outputs).find((path) => path.endsWith('/main.js'));
  const loaded = new Set();
  const load = (output) => {
    if (loaded.has(output)) return;
    loaded.add(output);
    for (const { path, kind } of metafile.outputs[output].imports) if (kind === 'import-statement' && path in metafile.outputs) load(path);
  };
  load(main);
  return [...loaded];
}

/**
 * No `import()` target is among what main.js loads as it starts: `importsMainFirst` would have made
 * it a cycle through main.js, where esbuild may order modules otherwise than Node would.
 */
function checkImportTargetsLazy(metafile, targets) {
  const early = startOutputs(metafile).flatMap((output) => Object.keys(metafile.outputs[output].inputs).filter((input) => targets.has(resolve(root, input))));
  if (early.length > 0) throw new Error(`bundle: ${early.join(', ')} is imported with import() and also statically from main.js: see importsMainFirst`);
}

/**
 * The MCP SDK is in the CLI bundle, in chunks that main.js does not import statically (so `serve`
 * never loads it), and none of its HTTP transports' packages came with it.
 */
function checkMcpSdk(metafile) {
  const isSdk = (input) => input.includes('node_modules/@modelcontextprotocol/sdk/');
  if (!Object.keys(metafile.inputs).some(isSdk)) throw new Error('bundle: the MCP SDK is missing from dist/cli-bundle (crm-sandbox mcp needs it)');
  const transports = Object.keys(metafile.inputs).filter((input) =>
    /node_modules\/(express|hono|@hono|cors|express-rate-limit|raw-body|eventsource|cross-spawn|jose)\//.test(input),
  );
  if (transports.length > 0) throw new Error(`bundle: the MCP SDK brought in its HTTP transports' dependencies: ${transports.join(', ')}`);
  const eager = startOutputs(metafile).filter((output) => Object.keys(metafile.outputs[output].inputs).some(isSdk));
  if (eager.length > 0) throw new Error(`bundle: main.js loads the MCP SDK at start (${eager.join(', ')}): import it only in crm-sandbox mcp's handler`);
}
