// How the dev server answers others while one tenant plays the biggest scenario the control API
// allows (10,000 creates, each event delivered to a receiver in another process): p99 of
// GET /sandbox/health sent one after another (every 5 ms) during the run, against the same
// requests to the same server idle just before. `npm run bench` runs it (--only=responsiveness);
// alone: node bench/scenario-responsiveness.mjs
import { fileURLToPath } from 'node:url';
import { onGeneratorCore, startNode } from './lib/procs.mjs';
import { median } from './lib/report.mjs';

const SANDBOX = fileURLToPath(new URL('./servers/sandbox.mjs', import.meta.url));
const RECEIVER = fileURLToPath(new URL('./servers/receiver.mjs', import.meta.url));
const HEADERS = { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' };

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
      rounds: results,
    };
  } finally {
    await receiver.stop();
  }
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
    // Loads the scenario engine and warms the routes: what every later run finds done.
    await play([{ create: { type: 'Contact', repeat: 100 } }]);
    const started = performance.now();
    const idle = await sample(server.url, () => performance.now() - started > 2_000);
    let finished = false;
    const runStarted = performance.now();
    const steps = [{ create: { type: 'Contact', repeat: creates, fields: { lastName: 'Load ${i}' } } }, { wait: 'deliveries' }];
    const run = play(steps).finally(() => (finished = true));
    const busy = await sample(server.url, () => finished);
    const report = await run;
    return {
      idle: p99(idle),
      busy: p99(busy),
      max: Math.max(...busy),
      samples: busy.length,
      seconds: (performance.now() - runStarted) / 1000,
      events: report.events.length,
    };
  } finally {
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await responsiveness();
  for (const round of result.rounds)
    console.log(
      `  round: idle p99 ${round.idle.toFixed(2)} ms; during the run p99 ${round.busy.toFixed(2)} ms, max ${round.max.toFixed(1)} ms (${round.samples} requests, ${round.seconds.toFixed(1)} s)`,
    );
  console.log(
    `median: idle p99 ${result.idleP99.toFixed(2)} ms, during a ${result.events}-event run ${result.busyP99.toFixed(2)} ms (max ${result.busyMax.toFixed(1)} ms)`,
  );
}
