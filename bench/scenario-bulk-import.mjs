// Events per second of an instant `bulk-import` scenario (10,000 CREATEs, delivered in order to
// a receiver in another process), against a plain sequential keep-alive POST loop sending
// bodies of the same size to the same receiver in the same run: the ceiling of one ordered stream.
// `npm run bench` runs it (--only=scenarios); alone: node bench/scenario-bulk-import.mjs
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../dist/index.js';

/** Best-of-`rounds` rates: `{ scenario, ceiling, events }` in events per second. */
export async function bulkImport({ rounds: roundCount = 2 } = {}) {
  const receiverSource = `
    const { createServer } = require('node:http');
    const server = createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); });
    server.listen(0, '127.0.0.1', () => process.send(server.address().port));
  `;
  const receiver = fork('-e', [receiverSource], { execArgv: ['-e', receiverSource] });
  const port = await new Promise((resolve) => receiver.once('message', resolve));
  const url = `http://127.0.0.1:${port}/webhooks`;

  async function scenarioRun() {
    const sandbox = createSandbox({ clock: 'virtual', deliveryLogLimit: 1_000_000 });
    const started = performance.now();
    const report = await sandbox.runScenario('bulk-import', { webhookUrl: url });
    const seconds = (performance.now() - started) / 1000;
    sandbox.close();
    if (!report.ok) throw new Error(`bulk-import failed: ${report.failures[0]}`);
    const bytes = report.events.reduce((sum, event) => sum + event.body.length, 0) / report.events.length;
    return { events: report.events.length, seconds, bytes };
  }

  async function postLoop(count, bytes) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const body = JSON.stringify({ pad: 'x'.repeat(Math.max(0, Math.round(bytes) - 10)) });
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      await new Promise((resolve, reject) => {
        const req = request(
          url,
          { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    }
    agent.destroy();
    return (performance.now() - started) / 1000;
  }

  const rounds = [];
  for (let round = 0; round < roundCount; round++) {
    const run = await scenarioRun();
    const loopSeconds = await postLoop(run.events, run.bytes);
    rounds.push({ scenario: run.events / run.seconds, ceiling: run.events / loopSeconds, events: run.events });
  }
  receiver.kill();
  const best = (key) => Math.max(...rounds.map((round) => round[key]));
  return { scenario: best('scenario'), ceiling: best('ceiling'), events: rounds[0].events };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { scenario, ceiling, events } = await bulkImport();
  console.log(`bulk-import, instant: ${events} events in order to a receiver in another process`);
  console.log(`  scenario run          ${scenario.toFixed(0)} events/s (create + sign + deliver)`);
  console.log(`  ceiling (POST loop)   ${ceiling.toFixed(0)} events/s (sequential keep-alive node:http, same body size)`);
  console.log(`  ratio                 ${(scenario / ceiling).toFixed(2)}x`);
}
