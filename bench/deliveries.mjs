// Webhook delivery rate: events queued before the webhook exists, then delivered to a bare
// receiver in its own process; against a plain sequential keep-alive POST loop of the same
// bodies; and 10 connections at once against one (the receiver then takes 5 ms per answer, as a
// real one does, so that one connection's in-order wait shows).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pinned, startNode } from './lib/procs.mjs';
import { fmt, median, row } from './lib/report.mjs';

const CHILD = fileURLToPath(new URL('./deliveries-child.mjs', import.meta.url));
const RECEIVER = fileURLToPath(new URL('./servers/receiver.mjs', import.meta.url));
const run = promisify(execFile);

async function child(receiverUrl, connections, perConnection, baseline = false) {
  const argv = pinned('server', [process.execPath, CHILD, receiverUrl, String(connections), String(perConnection), ...(baseline ? ['--baseline'] : [])]);
  const { stdout } = await run(argv[0], argv.slice(1), { maxBuffer: 1 << 20 });
  const { events, seconds, cpuMs } = JSON.parse(stdout);
  return { events, rate: events / seconds, cpuUs: (cpuMs * 1000) / events };
}

/** The receiver goes on the generator core: the sandbox has the server core to itself. */
async function receiver(delayMs) {
  return startNode(RECEIVER, [String(delayMs)], { core: 'generator' });
}

export async function deliveries({ rounds = 7, slowRounds = 3 } = {}) {
  const fast = await receiver(0);
  const sandbox = [];
  const loop = [];
  try {
    for (let i = 0; i < rounds; i++) {
      // Each round runs both, back to back, first one then the other in turn (a machine that slows down or speeds up
      // within a round favours neither side over the run); each round's ratio is of two runs a second apart.
      const sandboxFirst = i % 2 === 1;
      if (sandboxFirst) sandbox.push(await child(fast.url, 1, 2000));
      loop.push(await child(fast.url, 1, 2000, true));
      if (!sandboxFirst) sandbox.push(await child(fast.url, 1, 2000));
      // Each round on the console (not in the table): how far the machine moved the figures.
      const [l, sb] = [loop.at(-1), sandbox.at(-1)];
      console.log(
        `    round ${i + 1}: loop ${fmt(l.rate)} /s, ${fmt(l.cpuUs)} µs CPU each; sandbox ${fmt(sb.rate)} /s, ${fmt(sb.cpuUs)} µs CPU each; ${fmt(sb.rate / l.rate, 2)}x`,
      );
    }
  } finally {
    await fast.stop();
  }
  const rate = median(sandbox.map((r) => r.rate));
  const loopRate = median(loop.map((r) => r.rate));
  row({
    workload: `webhook deliveries, ${sandbox[0].events} queued events, one connection (ratio: median of ${rounds} rounds' own)`,
    sandbox: `${fmt(rate)} /s`,
    baseline: `${fmt(loopRate)} /s (sequential keep-alive POST loop)`,
    ratio: median(sandbox.map((sb, i) => sb.rate / loop[i].rate)),
    target: '>= 0.9x',
    pass: (r) => r >= 0.9,
  });
  // CPU per delivery is steadier than a rate on a shared machine: it shows what each one costs.
  const cpu = median(sandbox.map((r) => r.cpuUs));
  const loopCpu = median(loop.map((r) => r.cpuUs));
  row({
    workload: 'CPU per delivery (sender process)',
    sandbox: `${fmt(cpu)} µs`,
    baseline: `${fmt(loopCpu)} µs (the POST loop)`,
    ratio: cpu / loopCpu,
    target: '',
  });

  const slow = await receiver(5);
  const one = [];
  const ten = [];
  try {
    for (let i = 0; i < slowRounds; i++) {
      one.push(await child(slow.url, 1, 200));
      ten.push(await child(slow.url, 10, 200));
    }
  } finally {
    await slow.stop();
  }
  const oneRate = median(one.map((r) => r.rate));
  const tenRate = median(ten.map((r) => r.rate));
  row({
    workload: 'deliveries, 10 connections at once vs one (receiver answers in 5 ms)',
    sandbox: `${fmt(tenRate)} /s`,
    baseline: `${fmt(oneRate)} /s (one connection)`,
    ratio: tenRate / oneRate,
    target: '>= 5x',
    pass: (r) => r >= 5,
  });
  return { rate, loopRate, oneRate, tenRate };
}
