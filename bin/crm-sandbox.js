#!/usr/bin/env node
// The CLI is compiled and bundled to dist/ by `npm install` (the prepare script) or `npm run
// build`: one bundle starts far faster than the ~250 modules it is made of (scripts/bundle.mjs).
import module from 'node:module';

// Node's compile cache (Node >= 22.1): a start after the first reads the bundle's compiled code
// instead of compiling it again (about 20 ms of every `serve` start). In NODE_COMPILE_CACHE's
// folder when set (the image's), else in the system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1
// turns it off. A cache that cannot be written is skipped quietly. See docs/decisions/0035.
module.enableCompileCache?.();

// While it runs, this CLI holds the build it was started from: `npm run build` in this checkout (which npm test,
// install and pack run too) keeps the files of dist/ it may still load, its lazy chunks, until it exits
// (scripts/build.mjs, docs/decisions/0051). A folder that cannot be written (an installed package) holds nothing.
holdBuild();

// V8's young generation grows under allocation-heavy load to two 32-MiB semi-spaces (~50 MiB of RSS it keeps). Held
// near the size it starts with (a new space of 4 MiB after a load), `serve` spends less CPU per request as well (18.4
// against 23.5 µs per GET users page with two semi-spaces of 8 MiB) and its pieces of work wait behind shorter
// scavenges. The cap is a node flag, read before any script runs, but the growth factor is read at each growth: set to
// 1, the semi-spaces stop growing (V8 still grows them once). See docs/decisions/0039.
// Set on the event loop's first turn, when `serve` is listening and waits for its first request: loading node:v8 before
// the bundle cost about 1 ms of every start, and the start allocates too little to grow them.
setImmediate(() => process.getBuiltinModule?.('node:v8')?.setFlagsFromString('--semi-space-growth-factor=1'));

/** Marks dist/.in-use/<pid> (the folder the build makes) for as long as the process runs. */
function holdBuild() {
  const fs = process.getBuiltinModule?.('node:fs');
  const mark = new URL(`../dist/.in-use/${process.pid}`, import.meta.url);
  try {
    fs.writeFileSync(mark, '');
  } catch {
    return;
  }
  process.on('exit', () => {
    try {
      fs.unlinkSync(mark);
    } catch {
      // Already gone.
    }
  });
}

import('../dist/cli-bundle/main.js').then(
  ({ main }) => main(),
  (error) => {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli-bundle/main.js')) {
      console.error('crm-sandbox: not built yet; run `npm install` or `npm run build` in the package first.');
      process.exit(1);
    }
    throw error;
  },
);
