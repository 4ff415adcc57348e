// How the dev server answers others while one tenant plays the biggest scenario the control API
// allows (10,000 creates, each event delivered to a receiver in another process): p99 of
// GET /sandbox/health sent one after another (every 5 ms) during the run, against the same
// requests to the same server idle just before, and the longest of them while the run's delivery
// log is read after it (GET /sandbox/connections/{id}/deliveries), and while searches walk its contacts
// (POST /crm/contacts/search, then HubSpot's own search through POST /crm/passthrough, finding nothing). Then the same while the server takes the first
// snapshot of 100 seeded data sets and restores it (GET and PUT /sandbox/snapshot).
// `npm run bench` runs both (--only=responsiveness); alone: node bench/scenario-responsiveness.mjs
import { fileURLToPath } from 'node:url';
import { INTEGRATION_IDS } from '../dist/model/integrations.js';
import { onGeneratorCore, startNode } from './lib/procs.mjs';
import { median } from './lib/report.mjs';

const SANDBOX = fileURLToPath(new URL('./servers/sandbox.mjs', import.meta.url));
const RECEIVER = fileURLToPath(new URL('./servers/receiver.mjs', import.meta.url));
const HEADERS = { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' };
/** Searches made after the run, each finding nothing among its contacts. */
const SEARCHES = 5;

const p99 = (values) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))];

/** Health requests one after another, `gapMs` apart, until `done()`: their latencies in ms. */
async function sample(url, done, gapMs = 5) {
  const latencies = [];
  while (!done()) {
    const started = performance.now();
    await (await fetch(`${url}/sandbox/health`)).arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return latencies;
}

/** Runs `work` with health requests beside it: its value, how long it took (ms), and the health requests' latencies. */
async function beside(url, work) {
  let finished = false;
  const started = performance.now();
  const done = work().finally(() => (finished = true));
  const latencies = await sample(url, () => finished);
  return { value: await done, ms: performance.now() - started, latencies };
}

/**
 * Median over `rounds` of the idle and busy p99 (ms), the busy maximum, and the run's length. Each round has a server of
 * its own: after a run the server is busy for seconds with its collector (the run's garbage; a major GC the memory
 * reducer starts), so a later round's idle window would time that instead of an idle server.
 */
export async function responsiveness({ rounds = 3, creates = 10_000 } = {}) {
  const receiver = await startNode(RECEIVER, ['0'], { core: 'generator' });
  try {
    const results = [];
    // The health requests come from this process: on the generator's core, as wrk's are, never on the server's.
    await onGeneratorCore(async () => {
      for (let round = 0; round < rounds; round++) results.push(await oneRound(receiver, creates));
    });
    return {
      idleP99: median(results.map((r) => r.idle)),
      busyP99: median(results.map((r) => r.busy)),
      busyMax: median(results.map((r) => r.max)),
      seconds: median(results.map((r) => r.seconds)),
      events: results[0].events,
      listBytes: results[0].listBytes,
      listMax: median(results.map((r) => r.listMax)),
      searchMs: median(results.map((r) => r.searchMs)),
      searchMax: median(results.map((r) => r.searchMax)),
      nativeMs: median(results.map((r) => r.nativeMs)),
      nativeMax: median(results.map((r) => r.nativeMax)),
      rounds: results,
    };
  } finally {
    await receiver.stop();
  }
}

/**
 * SEARCHES searches that find nothing among a connection's contacts, one after another: each walks all of them. The
 * unified ones (docs/decisions/0041), and HubSpot's own through the passthrough (docs/decisions/0042).
 */
function searchesOf(server, accessToken) {
  const searches = (path, bodyOf) => async () => {
    for (let i = 0; i < SEARCHES; i++) {
      const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: HEADERS, body: JSON.stringify(bodyOf(`Nobody ${i}`)) });
      const answer = await res.json();
      if (res.status !== 200 || (answer.statusCode ?? 200) !== 200)
        throw new Error(`the search answered ${res.status}: ${JSON.stringify(answer).slice(0, 200)}`);
    }
  };
  return {
    unified: searches('/crm/contacts/search', (name) => ({ accessToken, filters: { lastName: { equals: name } } })),
    native: searches('/crm/passthrough', (name) => ({
      accessToken,
      method: 'POST',
      path: 'crm/v3/objects/contacts/search',
      body: { filterGroups: [{ filters: [{ propertyName: 'lastname', operator: 'EQ', value: name }] }] },
    })),
  };
}

/** One round on a server of its own: warm-up, 2 s idle, then the run with health requests beside it. */
async function oneRound(receiver, creates) {
  const server = await startNode(SANDBOX, [JSON.stringify({ integrations: ['hubspot'] })]);
  try {
    const play = async (steps) => {
      const res = await fetch(`${server.url}/sandbox/scenarios/run`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ webhookUrl: receiver.url, definition: { steps } }),
      });
      const report = await res.json();
      if (res.status !== 200 || !report.ok) throw new Error(`the run failed: ${res.status} ${report.message ?? report.failures?.[0]}`);
      return report;
    };
    // Loads the scenario engine and warms the routes: what every later run finds done. (The searches load their parts
    // on first use, the simulated systems among them: done here, on the server's own READY connection.)
    await play([{ create: { type: 'Contact', repeat: 100 } }]);
    const warm = searchesOf(server, server.connections[0].accessToken);
    await warm.unified();
    await warm.native();
    const started = performance.now();
    const idle = await sample(server.url, () => performance.now() - started > 2_000);
    const steps = [{ create: { type: 'Contact', repeat: creates, fields: { lastName: 'Load ${i}' } } }, { wait: 'deliveries' }];
    const run = await beside(server.url, () => play(steps));
    const report = run.value;
    // Then the run's connection's delivery log (10,000 deliveries, 8 MB of JSON) read while the health requests go on.
    const listing = await beside(server.url, async () => {
      const res = await fetch(`${server.url}/sandbox/connections/${report.events[0].connectionId}/deliveries`, { headers: HEADERS });
      if (res.status !== 200) throw new Error(`the delivery log answered ${res.status}`);
      return (await res.arrayBuffer()).byteLength;
    });
    // Then searches that find nothing among the run's contacts (searchesOf).
    const { unified, native } = searchesOf(server, Object.values(report.connections)[0].accessToken);
    const searching = await beside(server.url, unified);
    const nativeSearching = await beside(server.url, native);
    return {
      idle: p99(idle),
      busy: p99(run.latencies),
      max: Math.max(...run.latencies),
      samples: run.latencies.length,
      seconds: run.ms / 1000,
      events: report.events.length,
      listBytes: listing.value,
      listMax: Math.max(...listing.latencies),
      searchMs: searching.ms / SEARCHES,
      searchMax: Math.max(...searching.latencies),
      nativeMs: nativeSearching.ms / SEARCHES,
      nativeMax: Math.max(...nativeSearching.latencies),
    };
  } finally {
    await server.stop();
  }
}

/**
 * Median over `rounds` of the idle p99 and, while the server takes the first snapshot of `connections` seeded data sets
 * (GET /sandbox/snapshot: their digests are worked out then) and restores it (PUT), each one's p99 and longest wait (ms).
 */
export async function snapshotResponsiveness({ rounds = 3, connections = 100 } = {}) {
  const results = [];
  await onGeneratorCore(async () => {
    for (let round = 0; round < rounds; round++) results.push(await snapshotRound(connections));
  });
  const of = (pick) => median(results.map(pick));
  return {
    idleP99: of((r) => r.idle),
    takeP99: of((r) => r.take.p99),
    takeMax: of((r) => r.take.max),
    takeMs: of((r) => r.take.ms),
    restoreP99: of((r) => r.restore.p99),
    restoreMax: of((r) => r.restore.max),
    restoreMs: of((r) => r.restore.ms),
    bytes: results[0].bytes,
    rounds: results,
  };
}

/** One round on a server of its own, its connections seeded as it starts: 2 s idle, then the snapshot, then its restore. */
async function snapshotRound(connections) {
  // The seven simulated systems in turn, as the snapshots section's connections.
  const integrations = Array.from({ length: connections }, (_, i) => INTEGRATION_IDS[i % INTEGRATION_IDS.length]);
  const server = await startNode(SANDBOX, [JSON.stringify({ integrations })]);
  try {
    const started = performance.now();
    const idle = await sample(server.url, () => performance.now() - started > 2_000);
    const take = await beside(server.url, async () => {
      const res = await fetch(`${server.url}/sandbox/snapshot`, { headers: HEADERS });
      if (res.status !== 200) throw new Error(`GET /sandbox/snapshot answered ${res.status}`);
      return res.text();
    });
    const restore = await beside(server.url, async () => {
      const res = await fetch(`${server.url}/sandbox/snapshot`, { method: 'PUT', headers: HEADERS, body: take.value });
      if (res.status !== 200) throw new Error(`PUT /sandbox/snapshot answered ${res.status}: ${await res.text()}`);
      return res.json();
    });
    if (restore.value.restored.connections !== connections) throw new Error(`restored ${restore.value.restored.connections} connections`);
    const figures = ({ ms, latencies }) => ({ ms, p99: p99(latencies), max: Math.max(...latencies) });
    return { idle: p99(idle), take: figures(take), restore: figures(restore), bytes: take.value.length };
  } finally {
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await responsiveness();
  for (const round of result.rounds)
    console.log(
      `  round: idle p99 ${round.idle.toFixed(2)} ms; during the run p99 ${round.busy.toFixed(2)} ms, max ${round.max.toFixed(1)} ms (${round.samples} requests, ${round.seconds.toFixed(1)} s); longest while its delivery log is read ${round.listMax.toFixed(1)} ms, while searches walk its contacts ${round.searchMax.toFixed(1)} ms (unified), ${round.nativeMax.toFixed(1)} ms (native)`,
    );
  console.log(
    `median: idle p99 ${result.idleP99.toFixed(2)} ms, during a ${result.events}-event run ${result.busyP99.toFixed(2)} ms (max ${result.busyMax.toFixed(1)} ms)`,
  );
  const snapshots = await snapshotResponsiveness();
  for (const round of snapshots.rounds)
    console.log(
      `  round: idle p99 ${round.idle.toFixed(2)} ms; first snapshot ${round.take.ms.toFixed(0)} ms (p99 ${round.take.p99.toFixed(2)}, max ${round.take.max.toFixed(1)} ms); restore ${round.restore.ms.toFixed(0)} ms (p99 ${round.restore.p99.toFixed(2)}, max ${round.restore.max.toFixed(1)} ms)`,
    );
}
