#!/usr/bin/env node
// The CLI is compiled and bundled to dist/ by `npm install` (the prepare script) or `npm run
// build`: one bundle starts far faster than the ~250 modules it is made of (scripts/bundle.mjs).
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
