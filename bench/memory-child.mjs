// Memory per idle connection: 10,000 linked connections that nobody has read data from yet.
// Run with --expose-gc. Prints { heapKiB, rssKiB } per connection.
import { createSandbox } from '../dist/index.js';

const count = Number(process.argv[2] ?? 10_000);
const gc = globalThis.gc ?? (() => {});
const measure = () => {
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
};
// 10,000 connections of one API token: ten times the default cap, which this measure is not about.
const sandbox = createSandbox({ clock: 'virtual', connectionLimit: null });
sandbox.connect(); // the first connection pays for what every sandbox loads once
const before = measure();
for (let i = 0; i < count; i++) sandbox.connect();
const after = measure();
console.log(JSON.stringify({ count, heapKiB: (after.heapUsed - before.heapUsed) / count / 1024, rssKiB: (after.rss - before.rss) / count / 1024 }));
sandbox.close();
