import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Random } from '../src/shared/random.js';
import { type Cli, killAll, runCli } from './helpers/cli.js';
import { freePort } from './helpers/raw-http.js';
import { readSignedDelivery } from './helpers/signed-delivery.js';

/*
 * A crash soak (issue 47, item 6): `serve --state-file` takes a seeded sequence of creates, updates and deletes
 * (through the control API and HubSpot's own API through the passthrough), the webhook receiver goes down now and then,
 * and the server is killed with SIGKILL five times in the middle of the writes, restarted on the same file each time.
 * Whatever the moments, judged from the end state and the events alone:
 * - a record that is there had its CREATE event, and the event of the update that set its value, if one did;
 * - a record that is gone, whose create survived a crash (its CREATE event came), had its DELETE event;
 * - a record whose create was lost had no event at all, and no record had an event of a change it does not show.
 * While each restart loads the state, /sandbox/health is answered (the longest wait is printed). About 25 s here.
 * SOAK_SEED=… npx vitest run test/crash-soak.test.ts tries another seed (the seed is printed on a failure).
 */

const SEED = Number(process.env.SOAK_SEED ?? 47);
const KEY = 'sandbox-api-key';
const spawned: Cli[] = [];
const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-soak-'));
afterEach(() => killAll(spawned));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An event as the receiver kept it: its record's id, and the order it first arrived in. */
interface Arrived {
  eventType: 'CREATE' | 'UPDATE' | 'DELETE';
  id: string;
  jobTitle?: string;
  firstName?: string;
  order: number;
}

/** A receiver that checks signatures, keeps each eventId's first arrival, and can be down for a while (refusing connections). */
class Receiver {
  readonly events = new Map<string, Arrived>();
  readonly problems: string[] = [];
  readonly tokens = new Map<string, string>();
  private server: Server | undefined;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer(async (req, res) => {
      const { body, connectionId, signed } = await readSignedDelivery(req, this.tokens);
      if (!signed) this.problems.push(`a delivery for ${connectionId} with a bad signature`);
      const event = JSON.parse(body) as { eventId: string; type: string; data: { eventType: Arrived['eventType']; record: Record<string, string> } };
      if (event.type === 'OBJECT_CHANGE' && !this.events.has(event.eventId)) {
        const { record } = event.data;
        this.events.set(event.eventId, {
          eventType: event.data.eventType,
          id: record.id!,
          ...(record.jobTitle === undefined ? {} : { jobTitle: record.jobTitle }),
          ...(record.firstName === undefined ? {} : { firstName: record.firstName }),
          order: this.events.size,
        });
      }
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => {
      this.server?.close(resolve);
      this.server?.closeAllConnections();
    });
  }

  /** Down for `ms`: connections refused, then up again on the same port. */
  async outage(ms: number): Promise<void> {
    await this.stop();
    await new Promise((resolve) => setTimeout(resolve, ms));
    await this.start();
  }
}

/** `serve` on the file and port; resolves once its banner is out, with the health answers seen while it loaded. */
async function start(port: number, file: string): Promise<{ cli: Cli; healthDuringLoad: number[] }> {
  const cli = runCli(
    [
      'serve',
      ...['--port', String(port), '--quiet', '--state-file', file],
      ...['--initial-sync-delay', '10ms', '--ready-delay', '20ms', '--attempt-timeout', '2s'],
      ...['--retry-schedule', '100ms,200ms,300ms,500ms,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s'],
    ],
    spawned,
  );
  // Health asked every 10 ms from the start: the time each answer took, once the port is open and until the banner.
  let loaded = false;
  const healthDuringLoad: number[] = [];
  const poll = (async () => {
    while (!loaded) {
      const sent = performance.now();
      try {
        const response = await fetch(`http://127.0.0.1:${port}/sandbox/health`, { signal: AbortSignal.timeout(5000) });
        if (!loaded) healthDuringLoad.push(response.status === 200 ? performance.now() - sent : Number.NaN);
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  await new Promise<void>((resolve, reject) => {
    const check = () => cli.output().includes('Try: curl') && resolve();
    cli.child.stdout.on('data', check);
    void cli.exited.then((code) => reject(new Error(`serve exited with ${code}: ${cli.errors()}`)));
  });
  loaded = true;
  await poll;
  return { cli, healthDuringLoad };
}

async function call(port: number, method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { 'service-api-token': KEY, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: response.status, body: await response.json() };
}

describe(`a crash soak: writes, deletes, receiver outages and kill -9 (seed ${SEED})`, () => {
  it('every write whose effect survives has its event, and no event tells of one that did not', { timeout: 120_000 }, async () => {
    const random = new Random(SEED);
    const draw = (min: number, max: number) => min + (random.uint32() % (max - min + 1));
    const receiver = new Receiver();
    await receiver.start();
    const file = join(dir, 'soak.json');
    const port = await freePort();
    let { cli: server } = await start(port, file);
    const health: number[] = [];

    // Two HubSpot connections with webhooks, saved before the first crash.
    const connections: Array<{ connectionId: string; accessToken: string }> = [];
    for (let i = 0; i < 2; i++) {
      const { body: token } = await call(port, 'POST', '/sandbox/public-token', { integrationId: 'hubspot' });
      const { body: connection } = await call(port, 'POST', '/link/exchange', { publicToken: token.publicToken });
      receiver.tokens.set(connection.connectionId, connection.accessToken);
      await call(port, 'POST', '/connection/webhook', {
        accessToken: connection.accessToken,
        webhook: { webhookUrl: `http://127.0.0.1:${receiver.port}/hooks` },
      });
      connections.push(connection);
    }
    await new Promise((resolve) => setTimeout(resolve, 400));

    /** Records a create was answered for, and not yet answered deleted: the ones updates and deletes pick from. */
    const known: Array<{ id: string; nativeId: string; connection: number }> = [];
    let written = 0;
    /** Set when a write found the server down: the lanes stop until the restart. */
    let down = false;
    const write = async () => {
      const n = written++;
      const roll = random.uint32() % 100;
      try {
        if (roll < 50 || known.length < 5) {
          const connection = random.uint32() % connections.length;
          const { status, body } = await call(port, 'POST', `/sandbox/connections/${connections[connection]!.connectionId}/records/Contact`, {
            firstName: `s${n}`,
            jobTitle: 'v0',
          });
          if (status === 201) known.push({ id: body.record.id, nativeId: body.record.nativeId, connection });
        } else if (roll < 70) {
          const target = known[random.uint32() % known.length]!;
          await call(port, 'PATCH', `/sandbox/connections/${connections[target.connection]!.connectionId}/records/Contact/${target.id}`, { jobTitle: `u${n}` });
        } else {
          const target = known.splice(random.uint32() % known.length, 1)[0]!;
          // Half the deletes through HubSpot's own API (an archive), half through the control API.
          if (roll < 85) {
            await call(port, 'POST', '/crm/passthrough', {
              accessToken: connections[target.connection]!.accessToken,
              method: 'DELETE',
              path: `crm/v3/objects/contacts/${target.nativeId}`,
            });
          } else {
            await call(port, 'DELETE', `/sandbox/connections/${connections[target.connection]!.connectionId}/records/Contact/${target.id}`);
          }
        }
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        down = true; // the server is down: the write's outcome is unknown
      }
    };
    /** `count` writes, `lanes` at a time; `reached` once `killAfter` were sent. */
    const burst = (count: number, lanes: number, killAfter: number) => {
      let sent = 0;
      let reach: () => void;
      const reached = new Promise<void>((resolve) => {
        reach = resolve;
      });
      const lane = async () => {
        while (sent < count && !down) {
          if (++sent === killAfter) reach();
          await write();
        }
      };
      const done = Promise.all(Array.from({ length: lanes }, lane)).then(() => reach());
      return { reached, done };
    };

    for (let round = 0; round < 5; round++) {
      // Writes a save takes in before the crash (a batched save runs every 250 ms): on a fast machine a crash loses most
      // of a burst's writes, so without these the soak would see few deletes of records whose create survived.
      await burst(40, 4, 40).done;
      await new Promise((resolve) => setTimeout(resolve, 600));
      const count = draw(150, 250);
      const { reached, done } = burst(count, 6, draw(40, count - 20));
      // Two rounds of five with the receiver down for a while in the middle of the writes.
      const outage = round % 2 === 1 ? receiver.outage(draw(200, 900)) : Promise.resolve();
      await reached;
      server.child.kill('SIGKILL');
      await server.exited;
      await done;
      await outage;
      const restarted = await start(port, file);
      down = false;
      server = restarted.cli;
      health.push(...restarted.healthDuringLoad);
    }
    await burst(60, 4, 60).done;

    // The end state: every contact the soak wrote that is there, with its job title.
    const present = new Map<string, string>();
    for (const { connectionId } of connections) {
      let cursor = '';
      for (;;) {
        const { body } = await call(
          port,
          'GET',
          `/sandbox/connections/${connectionId}/records/Contact?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        for (const record of body.records) if (/^s\d+$/.test(record.firstName ?? '')) present.set(record.id, record.jobTitle);
        if (!body.nextPageCursor) break;
        cursor = body.nextPageCursor;
      }
    }
    const byRecord = () => {
      const out = new Map<string, Arrived[]>();
      for (const event of receiver.events.values()) {
        if (event.eventType === 'CREATE' && !/^s\d+$/.test(event.firstName ?? '')) continue;
        out.set(event.id, [...(out.get(event.id) ?? []), event]);
      }
      return out;
    };
    /** What the end state and the events say went wrong. */
    const problems = () => {
      const found: string[] = [];
      const events = byRecord();
      for (const [id, jobTitle] of present) {
        const mine = events.get(id) ?? [];
        if (!mine.some((event) => event.eventType === 'CREATE')) found.push(`${id} is there without its CREATE event`);
        if (mine.some((event) => event.eventType === 'DELETE')) found.push(`${id} is there but a DELETE event came`);
        const updates = mine.filter((event) => event.eventType === 'UPDATE');
        const last = updates.at(-1)?.jobTitle ?? 'v0';
        if (last !== jobTitle) found.push(`${id} shows jobTitle ${jobTitle}, its last event ${last}`);
      }
      for (const [id, mine] of events) {
        if (present.has(id)) continue;
        const created = mine.some((event) => event.eventType === 'CREATE');
        const deleted = mine.some((event) => event.eventType === 'DELETE');
        if (created && !deleted) found.push(`${id} is gone, its create survived, and no DELETE event came`);
        if (!created) found.push(`${id}: events of a record whose create was lost (${mine.map((event) => event.eventType).join(', ')})`);
      }
      return found;
    };
    // The receiver is up again: wait for the deliveries the end state calls for.
    for (let i = 0; i < 300 && problems().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await receiver.stop();

    const events = byRecord();
    const deletes = [...receiver.events.values()].filter((event) => event.eventType === 'DELETE').length;
    const waits = health.filter((ms) => !Number.isNaN(ms));
    console.log(
      `crash soak, seed ${SEED}: ${written} writes sent, ${present.size} records left, ${events.size} records with events, ${deletes} deletes delivered; ` +
        `health during 5 restarts: ${waits.length} answers, the longest ${Math.max(...waits).toFixed(1)} ms`,
    );
    try {
      expect(receiver.problems).toEqual([]);
      expect(problems()).toEqual([]);
      // The restarts listened while they loaded (before issue 47 the port opened only once the state was in: none came),
      // and every health request sent meanwhile was answered 200.
      expect(waits.length).toBeGreaterThan(5);
      expect(health.filter((ms) => Number.isNaN(ms))).toEqual([]);
      // The soak did what it says: deletes were delivered, and records are left.
      expect(deletes).toBeGreaterThan(15);
      expect(present.size).toBeGreaterThan(30);
    } catch (error) {
      (error as Error).message = `crash soak seed ${SEED} (SOAK_SEED=${SEED} replays it): ${(error as Error).message}`;
      throw error;
    }
  });
});
