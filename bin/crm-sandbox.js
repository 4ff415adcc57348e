#!/usr/bin/env node
// The CLI is compiled and bundled to dist/ by `npm install` (the prepare script) or `npm run
// build`: one bundle starts far faster than the ~250 modules it is made of (scripts/bundle.mjs).
import module from 'node:module';

// Node's compile cache (Node >= 22.1): a start after the first reads the bundle's compiled code
// instead of compiling it again (about 20 ms of every `serve` start). In NODE_COMPILE_CACHE's
// folder when set (the image's), else in the system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1
// turns it off. A cache that cannot be written is skipped quietly. See docs/decisions/0035.
module.enableCompileCache?.();

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
