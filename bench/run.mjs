// Runs every bench in turn. Needs a build: `npm run build` (or `npm install`) first.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

for (const bench of ['page-cost.mjs', 'dev-server.mjs', 'memory.mjs', 'scenario-bulk-import.mjs', 'passthrough-queries.mjs']) {
  console.log(`\n== ${bench}`);
  execFileSync(process.execPath, [...process.execArgv, fileURLToPath(new URL(bench, import.meta.url)), ...process.argv.slice(2)], { stdio: "inherit" });
}
