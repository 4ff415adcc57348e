// Imports each module named on the command line alone, in a worker thread of its own: a fresh
// module registry and fresh globals each, as a fresh process would give, for a fraction of the
// cost (no process start, and several at a time). Prints one JSON line per module that threw:
// { module, error } with the error's first line. Exits 0 when every module imported.
//
//   node test/helpers/import-alone.mjs /abs/dist/a.js /abs/dist/b.js …
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

// The worker imports the module and leaves at once: a module that starts a timer or a server
// would otherwise keep it running. What the import threw goes back as text.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData).then(
  () => process.exit(0),
  (error) => {
    parentPort.postMessage(error instanceof Error ? String(error.stack ?? error) : String(error));
    process.exit(1);
  },
);
`;

/** The first line of what the import of `file` threw, or undefined when it imported. */
function importAlone(file) {
  return new Promise((resolve) => {
    // No inherited flags or loaders: the module is imported as plain Node imports it.
    const worker = new Worker(WORKER, { eval: true, workerData: pathToFileURL(file).href, execArgv: [], stdout: true, stderr: true });
    let thrown;
    worker.on('message', (message) => (thrown = message));
    worker.on('error', (error) => (thrown ??= String(error.stack ?? error)));
    worker.on('exit', (code) => resolve(code === 0 ? undefined : (thrown ?? `exited with code ${code} before its import settled`).split('\n')[0]));
  });
}

const queue = process.argv.slice(2);
let failed = false;
await Promise.all(
  Array.from({ length: Math.min(availableParallelism(), queue.length) }, async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const error = await importAlone(file);
      if (error === undefined) continue;
      failed = true;
      process.stdout.write(`${JSON.stringify({ module: file, error })}\n`);
    }
  }),
);
process.exitCode = failed ? 1 : 0;
