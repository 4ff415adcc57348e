#!/usr/bin/env node
// The CLI is compiled and bundled to dist/ by `npm install` (the prepare script) or `npm run
// build`: one bundle starts far faster than the ~250 modules it is made of (scripts/bundle.mjs).
import module from 'node:module';

// Node's compile cache (Node >= 22.1): a start after the first reads the bundle's compiled code
// instead of compiling it again (about 20 ms of every `serve` start). In NODE_COMPILE_CACHE's
// folder when set (the image's), else in the system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1
// turns it off. A cache that cannot be written is skipped quietly. See docs/decisions/0035.
module.enableCompileCache?.();

// V8's young generation grows under allocation-heavy load to two 32-MiB semi-spaces (~50 MiB of RSS it keeps);
// past two of 8 MiB it bought no throughput here (smaller did cost some). Its cap is a node flag, read before any
// script runs, but its growth factor is read at each growth: 1 once a doubling would pass the cap. See docs/decisions/0039.
// Set on the event loop's first turn, when `serve` is listening and waits for its first request: loading node:v8 before
// the bundle cost about 1 ms of every start, and nothing the start allocates comes near the cap.
setImmediate(() => youngGenerationCap(8 << 20));

/** Lets V8's semi-spaces grow (doubling) up to `bytes` each, by setting the growth factor after each GC. */
function youngGenerationCap(bytes) {
  const v8 = process.getBuiltinModule?.('node:v8');
  const perf = process.getBuiltinModule?.('node:perf_hooks');
  if (!v8 || !perf) return;
  let growing = true;
  new perf.PerformanceObserver(() => {
    // A semi-space's capacity: what it holds and what is left (committed pages may be fewer).
    const space = v8.getHeapSpaceStatistics().find(({ space_name }) => space_name === 'new_space');
    const grow = (space.space_used_size + space.space_available_size) * 2 <= bytes * 1.1;
    if (grow !== growing) v8.setFlagsFromString(`--semi-space-growth-factor=${grow ? 2 : 1}`);
    growing = grow;
  }).observe({ entryTypes: ['gc'] });
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
