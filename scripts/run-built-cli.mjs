// Runs the CLI from the build's output (scripts/build-out.mjs) instead of dist/: how `npm run build` starts the
// `serve` it has just bundled in its staging folder, before publishing it (scripts/startup-hints.mjs). The
// arguments are the CLI's: `node scripts/run-built-cli.mjs serve --port 0`.
import { pathToFileURL } from 'node:url';
import { buildOut } from './build-out.mjs';

const { main } = await import(pathToFileURL(buildOut('cli-bundle/main.js')).href);
await main();
