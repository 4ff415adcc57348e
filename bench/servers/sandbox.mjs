// The dev server under test, in its own process: `startDevServer` exactly as `crm-sandbox serve`
// runs it (no request log), with READY connections made up front. Prints one JSON line:
// { url, connections: [{ integrationId, accessToken, connectionId }] }.
// Usage: node bench/servers/sandbox.mjs '{"users":250,"integrations":["hubspot"]}' ("recordLimit": null
// takes the record cap off, for a load that creates records as fast as it can).
import '../lib/young-generation.mjs';
import { createSandbox } from '../../dist/index.js';
import { startDevServer } from '../../dist/server.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const sandbox = createSandbox({
  ...(config.users ? { dataset: { engagement: { users: config.users } } } : {}),
  ...(config.retrySchedule ? { retrySchedule: config.retrySchedule } : {}),
  ...('recordLimit' in config ? { recordLimit: config.recordLimit } : {}),
});
const connections = (config.integrations ?? ['hubspot']).map((integrationId) => {
  const { connectionId, accessToken } = sandbox.connect({ integrationId });
  sandbox.setStatus(connectionId, 'READY');
  if (config.seed !== false) sandbox.listRecords(connectionId, 'Contact'); // builds the data set now, not in the first timed request
  return { integrationId, connectionId, accessToken };
});
const server = await startDevServer(sandbox, { port: 0 });
console.log(JSON.stringify({ url: server.url, connections }));
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
// With --expose-gc: SIGUSR2 collects garbage and prints the live heap, for the soak to sample.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  console.log(JSON.stringify({ heapMiB: process.memoryUsage().heapUsed / 2 ** 20 }));
});
