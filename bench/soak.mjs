// Bounded soak: alternating segments of page reads and record updates (each update emits an
// event delivered to a receiver) until a million requests or the time cap; RSS of the server
// sampled after each segment. Flat after warm-up means no growth from journals, logs, page
// caches or timers beyond their bounds (the delivery log keeps 10,000 finished entries).
import { fileURLToPath } from 'node:url';
import { drive } from './lib/load.mjs';
import { startNode } from './lib/procs.mjs';
import { fmt, median, row } from './lib/report.mjs';

const SANDBOX = fileURLToPath(new URL('./servers/sandbox.mjs', import.meta.url));
const RECEIVER = fileURLToPath(new URL('./servers/receiver.mjs', import.meta.url));
const KEY = { 'service-api-token': 'sandbox-api-key' };
/** The sandbox's default delivery log limit: finished deliveries kept. */
const LOG_LIMIT = 10_000;

export async function soak({ requests: wanted = 1_000_000, deliveries: wantedDeliveries = 100_000, seconds: cap = 150, segment = 5 } = {}) {
  const receiver = await startNode(RECEIVER, ['0'], { core: 'generator' });
  // Four connections with webhooks: deliveries of different connections go out in parallel.
  const server = await startNode(SANDBOX, [JSON.stringify({ integrations: ['hubspot', 'salesforce', 'pipedrive', 'hubspot'] })], { nodeArgs: ['--expose-gc'] });
  try {
    const json = { ...KEY, 'content-type': 'application/json' };
    const variants = [];
    for (const { accessToken, connectionId } of server.connections) {
      await fetch(`${server.url}/connection/webhook`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ accessToken, webhook: { webhookUrl: receiver.url } }),
      });
      const list = await (await fetch(`${server.url}/sandbox/connections/${connectionId}/records/Contact?limit=1`, { headers: KEY })).json();
      const path = `/sandbox/connections/${connectionId}/records/Contact/${list.records[0].id}`;
      // Alternating values: every update really changes the record, so every one is an event.
      variants.push({ path, body: JSON.stringify({ jobTitle: 'Soak tester' }) }, { path, body: JSON.stringify({ jobTitle: 'Soak lead' }) });
    }
    const read = { path: `/engagement/users?accessToken=${server.connections[0].accessToken}&limit=100`, headers: KEY };
    const update = { path: variants[0].path, method: 'PATCH', headers: json, variants };
    const delivered = async () => Number(await (await fetch(receiver.url)).text());
    const samples = [];
    const heaps = [];
    const deliveredAt = [];
    let total = 0;
    let errors = 0;
    let updates = 0;
    const started = performance.now();
    while ((total < wanted || updates < wantedDeliveries) && (performance.now() - started) / 1000 < cap) {
      const reads = await drive(server.url + read.path, { ...read, seconds: segment, connections: 50 });
      // Few connections for updates: each becomes a delivery, and deliveries go one at a time.
      const writes = await drive(server.url + update.path, { ...update, seconds: segment, connections: 4 });
      total += reads.requests + writes.requests;
      updates += writes.requests;
      errors += reads.errors + writes.errors;
      samples.push(server.rssMiB());
      heaps.push(await server.heapMiB());
      deliveredAt.push(await delivered());
    }
    // Let the deliveries catch up (bounded), then a last sample.
    const deadline = performance.now() + 30_000;
    while ((await delivered()) < updates && performance.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    samples.push(server.rssMiB());
    heaps.push(await server.heapMiB());
    const count = await delivered();
    // Warm-up ends when the delivery log is full (its documented bound: 10,000 finished
    // deliveries kept), and not before a third of the segments: before that, growth is the log
    // filling up and V8 sizing its heap to the load (the live heap below shows which is which).
    const full = deliveredAt.findIndex((n) => n >= LOG_LIMIT);
    const warmAt = Math.min(samples.length - 1, Math.max(full === -1 ? 1 : full, Math.floor(samples.length / 3)));
    // RSS after warm-up is a sawtooth (±25 MiB between samples here, the live heap flat): one
    // sample against another compares two points of it. Growth is the later half of the samples
    // sitting higher than the earlier half: their medians are compared.
    const after = samples.slice(warmAt);
    const earlier = median(after.slice(0, Math.ceil(after.length / 2)));
    const later = median(after.slice(Math.ceil(after.length / 2)));
    const peak = Math.max(...after);
    const flat = later <= earlier * 1.15 && errors === 0;
    row({
      workload: `soak: ${fmt(total)} requests (${fmt(errors)} failed), ${fmt(updates)} updates, ${fmt(count)} deliveries in ${fmt((performance.now() - started) / 1000)} s`,
      sandbox: `RSS ${samples.map((s) => fmt(s)).join(' → ')} MiB`,
      baseline: `after warm-up (from sample ${warmAt + 1}: delivery log full, a third of the run) median of the earlier half ${fmt(earlier)} MiB, of the later half ${fmt(later)}, peak ${fmt(peak)}`,
      ratio: later / earlier,
      target: `<= 1.15x, ${fmt(wanted)} requests and ${fmt(wantedDeliveries)} deliveries`,
      pass: () => flat && total >= wanted && count >= wantedDeliveries,
    });
    // The live heap after a full GC separates growth (a leak, an unbounded log) from garbage V8 has not returned yet.
    const heapWarm = heaps[warmAt];
    row({
      workload: 'soak: live heap after a full GC',
      sandbox: `${heaps.map((h) => fmt(h)).join(' → ')} MiB`,
      baseline: `after warm-up (sample ${warmAt + 1}) ${fmt(heapWarm)} MiB`,
      ratio: heaps.at(-1) / heapWarm,
      target: '<= 1.15x',
      pass: (r) => r <= 1.15,
    });
    return { total, count, samples, errors };
  } finally {
    await server.stop();
    await receiver.stop();
  }
}
