// Memory of a seeded connection (default data set, about 700 records) against the memory of the
// same records as plain JSON strings, measured in the same run. Run with --expose-gc for
// stable numbers: node --expose-gc bench/memory.mjs
import { createSandbox } from '../dist/index.js';

const count = 50;
const gc = globalThis.gc ?? (() => {});
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const sandbox = createSandbox({ clock: 'virtual' });
const before = heap();
const connections = [];
for (let i = 0; i < count; i++) {
  const connection = sandbox.connect();
  sandbox.setStatus(connection.connectionId, 'READY');
  sandbox.listRecords(connection.connectionId, 'Contact'); // seeds the data set
  connections.push(connection);
}
const perConnection = (heap() - before) / count;

// Baseline: the same records held as JSON text, the smallest form a mock could keep them in.
let jsonBytes = 0;
const texts = [];
for (const { connectionId } of connections.slice(0, 10)) {
  for (const type of ['Contact', 'Account', 'Deal', 'Lead', 'User', 'Note', 'Task', 'Event', 'EventAttendee']) {
    const text = JSON.stringify(sandbox.listRecords(connectionId, type));
    texts.push(text);
    jsonBytes += text.length;
  }
}
const jsonPerConnection = jsonBytes / 10;
console.log(
  `per seeded connection: ${(perConnection / 1024).toFixed(0)} KiB of heap (${count} connections${globalThis.gc ? '' : ', run with --expose-gc for stable numbers'})`,
);
console.log(`its CRM records as JSON text: ${(jsonPerConnection / 1024).toFixed(0)} KiB`);
console.log(`ratio heap/JSON: ${(perConnection / jsonPerConnection).toFixed(1)} (target <= 6)`);
sandbox.close();
