// Snapshots of 100 used connections (each exchanged, READY, one engagement read, one new contact),
// in this process, for bench/snapshots.mjs. Prints one JSON line: bytes per connection in the
// version-2 layout (what changed since seeding) and in the version-1 layout (every record, built
// here from the same state); milliseconds to save (snapshot + JSON.stringify) the first time after
// seeding and again after one more write (what --state-file does at most every 250 ms), in both
// layouts; to load (JSON.parse + restore); and the first reads that seeded the same data sets.
import { createSandbox } from '../dist/index.js';
import { INTEGRATION_IDS } from '../dist/model/integrations.js';

const CONNECTIONS = 100;
const KEY = { 'service-api-token': 'sandbox-api-key' };

const time = (work) => {
  const started = performance.now();
  const value = work();
  return { ms: performance.now() - started, value };
};

async function usedSandbox() {
  const sandbox = createSandbox({ clock: 'virtual' });
  const connections = [];
  for (let i = 0; i < CONNECTIONS; i++) connections.push(sandbox.connect({ integrationId: INTEGRATION_IDS[i % INTEGRATION_IDS.length] }));
  await sandbox.advance('10s');
  const started = performance.now();
  for (const { connectionId, accessToken } of connections) {
    const read = await sandbox.handle({ method: 'GET', path: '/engagement/users', query: `accessToken=${accessToken}&limit=5`, headers: KEY });
    if (read.status !== 200) throw new Error(`engagement read answered ${read.status}`);
    sandbox.createRecord(connectionId, 'Contact', { firstName: 'Ada' });
  }
  return { sandbox, connections, firstReadsMs: performance.now() - started };
}

/** The same state in the version-1 layout: every collection in full, each tenant named by its API key. */
function versionOne(sandbox) {
  const { seeding: _, scope: __, ...server } = sandbox.snapshot();
  const byKey = ({ tenant: ___, ...item }) => ({ ...item, apiKey: KEY['service-api-token'] });
  const { linkTokens, publicTokens } = server.registry;
  const snapshot = {
    ...server,
    registry: { ...server.registry, linkTokens: linkTokens.map(byKey), publicTokens: publicTokens.map(byKey) },
    connections: server.connections.map(byKey),
  };
  const full = (collection) => ({
    nextSeq: collection.delta().nextSeq,
    entries: collection.entries().map(({ seq, record, extra }) => ({ seq, record, extra })),
  });
  const connections = sandbox.parts.registry.all().map((connection, i) => {
    const { data } = connection;
    if (!data) return snapshot.connections[i];
    const crm = Object.fromEntries(Object.entries(data.crm).map(([type, collection]) => [type, full(collection)]));
    const { random, faker } = snapshot.connections[i].data;
    const collections = {
      crm,
      mailboxes: full(data.mailboxes),
      users: full(data.users),
      engagementTasks: full(data.engagementTasks),
      engagementActions: full(data.engagementActions),
    };
    return { ...snapshot.connections[i], data: { random, faker, ...collections, archived: data.archived } };
  });
  return { ...snapshot, version: 1, connections };
}

const { sandbox, connections, firstReadsMs } = await usedSandbox();
const first = time(() => JSON.stringify(sandbox.snapshot()));
const firstV1 = time(() => JSON.stringify(versionOne(sandbox)));
sandbox.createRecord(connections[0].connectionId, 'Contact', { firstName: 'Grace' });
const again = time(() => JSON.stringify(sandbox.snapshot()));
const againV1 = time(() => JSON.stringify(versionOne(sandbox)));
const saved = again.value;
const restored = createSandbox({ clock: 'virtual' });
const load = time(() => restored.restore(JSON.parse(saved)));
if (JSON.stringify(restored.snapshot()) !== saved) throw new Error('the restored sandbox does not snapshot to what was saved');
// The version-1 figures are those of a real version-1 snapshot: it loads, to the same state.
const fromV1 = createSandbox({ clock: 'virtual' });
fromV1.restore(JSON.parse(againV1.value));
if (JSON.stringify(fromV1.snapshot()) !== saved) throw new Error('the version-1 layout does not load to the same state');

console.log(
  JSON.stringify({
    connections: CONNECTIONS,
    bytes: Buffer.byteLength(saved) / CONNECTIONS,
    bytesV1: Buffer.byteLength(againV1.value) / CONNECTIONS,
    firstSaveMs: first.ms,
    firstSaveV1Ms: firstV1.ms,
    saveMs: again.ms,
    saveV1Ms: againV1.ms,
    loadMs: load.ms,
    firstReadsMs,
  }),
);
for (const each of [sandbox, restored, fromV1]) each.close();
