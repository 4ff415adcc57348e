// The browser files, in dist/ui (through the build's staging folder: scripts/build-out.mjs), where the dev server
// finds them: the link widget's and the inspector's page, styles and the DOM helper they share, copied; and the
// inspector's TypeScript modules (src/ui/inspector/) bundled into inspector.js, one classic script as the page
// loads it. The bundle takes only the model's plain constant modules, never zod (test/inspector-bundle.test.ts).
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildOut } from './build-out.mjs';

const from = fileURLToPath(new URL('../src/ui/', import.meta.url));

/** esbuild's options for dist/ui/inspector.js: readable (not minified), like the files copied beside it. */
export const inspectorBundle = {
  entryPoints: [fileURLToPath(new URL('../src/ui/inspector/main.ts', import.meta.url))],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  charset: 'utf8',
  sourcemap: false,
  logLevel: 'warning',
};

async function main() {
  const to = buildOut('ui');
  mkdirSync(to, { recursive: true });
  for (const file of readdirSync(from)) if (/\.(html|js|css)$/.test(file)) cpSync(`${from}/${file}`, `${to}/${file}`);
  await build({ ...inspectorBundle, outfile: `${to}/inspector.js` });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
