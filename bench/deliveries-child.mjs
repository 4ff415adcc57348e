// Runs in its own process (on the server core): queues events on CONNECTIONS connections with no
// webhook, then creates their webhooks and times until every event is delivered to the receiver.
// With --baseline it instead POSTs the same signed bodies, with the very headers the sandbox sends
// (signed beforehand), in a plain sequential keep-alive loop.
// Prints { events, seconds, cpuMs } (cpuMs: CPU this process spent in the timed part).
// Usage: node bench/deliveries-child.mjs RECEIVER_URL CONNECTIONS EVENTS_PER_CONNECTION [--baseline]
import './lib/young-generation.mjs';
import http from 'node:http';
import { createSandbox } from '../dist/index.js';
import { signedHeaders } from '../dist/webhooks/signed-headers.js';

const [receiverUrl, connectionCount, perConnection, mode] = process.argv.slice(2);
const sandbox = createSandbox({ dataset: { engagement: { users: 1, mailboxes: 1 }, crm: {} }, fixtures: false });
const connections = [];
for (let i = 0; i < Number(connectionCount); i++) {
  const { connectionId, accessToken } = sandbox.connect({ integrationId: 'hubspot' });
  sandbox.setStatus(connectionId, 'READY');
  for (let n = 0; n < Number(perConnection); n++) sandbox.createRecord(connectionId, 'Contact', { firstName: `F${n}` });
  connections.push({ connectionId, accessToken });
}
const events = sandbox.deliveries().length;

if (mode === '--baseline') {
  // The same bodies, already signed, one after another on one keep-alive socket; the same headers as the sandbox's
  // requests (the spec's four and content-length), so both put the same bytes on the wire.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const tokens = new Map(connections.map(({ connectionId, accessToken }) => [connectionId, accessToken]));
  const requests = sandbox.deliveries().map((d) => {
    const body = JSON.stringify(d.event);
    const headers = signedHeaders(tokens.get(d.connectionId), d.connectionId, body, '1735689600');
    return { body, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } };
  });
  const target = new URL(receiverUrl);
  const post = ({ body, headers }) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers,
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  // Untimed, as the sandbox's warm-up below: two posts (the first two bodies) open the connection and run node:http once.
  for (const request of requests.slice(0, 2)) await post(request);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const request of requests) await post(request);
  console.log(JSON.stringify({ events, seconds: (performance.now() - started) / 1000, cpuMs: cpuMs(cpu) }));
  agent.destroy();
} else {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 10));
  const createWebhook = async (accessToken) => {
    const res = await sandbox.handle({
      method: 'POST',
      path: '/connection/webhook',
      query: '',
      headers: { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' },
      body: JSON.stringify({ accessToken, webhook: { webhookUrl: receiverUrl } }),
    });
    if (res.status !== 200) throw new Error(res.body);
  };
  // Untimed: the webhook route's first call, on a connection of its own (its two status events go to the receiver and
  // are done before the count is read). The route's checks are made on their first use, 5-8 ms here: 2.5-4 µs a delivery
  // of 2,000 that were not the deliveries' (the loop creates no webhook). Its two deliveries open the connection, as the
  // loop's two untimed posts do.
  // Waited for with settle() and the receiver's count, not by reading the log: a read of the whole log in a loop
  // has V8 compile it in the background (OSR), on this core, while the timed part runs.
  const beforeSpare = await received(receiverUrl);
  const spare = sandbox.connect({ integrationId: 'hubspot' });
  sandbox.setStatus(spare.connectionId, 'READY');
  await createWebhook(spare.accessToken);
  await sandbox.settle();
  const before = await received(receiverUrl);
  if (before !== beforeSpare + 2) throw new Error(`the warm-up's two events did not arrive (${before - beforeSpare})`);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const { accessToken } of connections) await createWebhook(accessToken);
  // Done when the receiver has them all (it answers 200 to each), as the loop is done when its last answer is in: one
  // GET that the receiver answers then (polling it, or reading the log, would be work in this process the loop does not do).
  await received(receiverUrl, before + events);
  const seconds = (performance.now() - started) / 1000;
  const cpuMsTimed = cpuMs(cpu);
  // Then, untimed, the log must say so too (the last outcome is recorded just after the receiver answers).
  for (;;) {
    const open = sandbox.deliveries().filter((d) => d.state !== 'succeeded');
    if (open.length === 0) break;
    if (open.some((d) => d.state === 'failed' || d.state === 'retrying')) throw new Error(`a delivery failed: ${JSON.stringify(open[0].attempts)}`);
    await pause();
  }
  console.log(JSON.stringify({ events, seconds, cpuMs: cpuMsTimed }));
}
sandbox.close();
process.exit(0);

/** How many deliveries the receiver has got (once it has got `until`, when given). */
function received(url, until = 0) {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}?until=${until}`, { agent: false }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve(Number(text)));
      })
      .on('error', reject);
  });
}

function cpuMs(since) {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
}
