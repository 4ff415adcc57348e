// Two bundles for Node, built after tsc (esbuild):
//
// dist/cli-bundle/: the compiled CLI (dist/cli/main.js), which bin/crm-sandbox.js runs. One file
// and a few shared chunks load far faster than the ~250 separate ES modules it is made of (zod
// alone is ~95 files, most of them locales `serve` never uses): most of a cold start. What a
// command loads on demand (the scenario engine, the OpenAPI document) stays in lazy chunks.
// dist/cli-bundle sits as deep as dist/cli, so the paths the code finds from its own URL
// (../../package.json, ../../fixtures/, ../../scenarios/, ../ui/, ../vendor/) are the same.
//
// dist/vendor/faker-en.js: the part of faker the sandbox uses (Faker, en, base, the Mersenne
// randomizer). faker's package entry loads all its ~70 locales: in Node that costs about 300 ms
// and 38 MiB of RSS when the first data set is built; this file costs about 80 ms and 9 MiB, and
// draws the very same values.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = (path) => fileURLToPath(new URL(`../dist/${path}`, import.meta.url));
// No source maps, like the rest of dist/ (tsconfig.build.json): the package does not ship src/.
const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning', sourcemap: false };

rmSync(dist('cli-bundle'), { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [dist('cli/main.js')],
  outdir: dist('cli-bundle'),
  splitting: true,
  // Not bundled: msw (an optional peer); faker, loaded on demand from dist/vendor. express (an
  // optional peer, for createApp) is no part of the CLI: `serve` runs on plain node:http.
  external: ['@faker-js/faker', 'msw'],
  // CommonJS packages inside (yaml) require node built-ins: give the ESM chunks a `require`.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

await build({
  ...common,
  stdin: { contents: "export { Faker, en, base, generateMersenne53Randomizer } from '@faker-js/faker';", resolveDir: fileURLToPath(new URL('..', import.meta.url)) },
  outfile: dist('vendor/faker-en.js'),
});
