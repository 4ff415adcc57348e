import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../index.js';
import { applyJsonDiff, type Json, type JsonOp, jsonDiff } from '../shared/json-diff.js';
import { Reservation } from '../shared/reservation.js';

// Small data sets: the tests are about the streams that issue ids, not the seeded records.
const options = {
  clock: 'virtual' as const,
  tokens: 'seeded' as const,
  dataset: { engagement: { users: 2, mailboxes: 2 }, crm: { Contact: 3, Account: 2, Deal: 2 } },
};

/** A reservation of `size` draws that grows by `size` when a stream needs more, remembering its largest size (what a restart reads). */
function reservation(size: number) {
  const grown: number[] = [];
  const made = new Reservation(size, (current) => {
    grown.push(current + size);
    return current + size;
  });
  return { reservation: made, grown };
}

/** A run of calls that draws from every stream that issues ids; returns every id it was told of. */
function work(sandbox: Sandbox, round: number, creates = 40) {
  const told: string[] = [];
  const stop = sandbox.onEvent((event) => told.push(event.eventId));
  const link = sandbox.connect({ integrationId: 'pipedrive' });
  told.push(link.connectionId, link.accessToken);
  for (const { connectionId } of sandbox.connections()) {
    for (let i = 0; i < creates; i++) {
      const record = sandbox.createRecord(connectionId, 'Contact', { firstName: `R${round}-${i}` });
      told.push(record.id, `${connectionId}:Contact:${record.nativeId}`);
    }
    const deal = sandbox.createRecord(connectionId, 'Deal', { name: `D${round}` });
    told.push(deal.id, `${connectionId}:Deal:${deal.nativeId}`);
  }
  const webhook = sandbox.createWebhook(link.connectionId, 'http://127.0.0.1:9/webhooks');
  told.push(webhook.webhookId);
  stop();
  return told;
}

describe('a sandbox whose state a store saves', () => {
  it('draws exactly what one without a store draws: same seed, same calls, same bytes', () => {
    const plain = createSandbox(options);
    const saved = createSandbox(options);
    // A reservation so small that the streams extend it many times over.
    saved.persist(reservation(16).reservation);
    for (const sandbox of [plain, saved]) {
      sandbox.connect({ integrationId: 'hubspot' });
      work(sandbox, 1);
      work(sandbox, 2);
    }
    // Everything but where each delivery stands: the outbox holds the events until a save.
    const drawn = (sandbox: Sandbox) => {
      const { deliveries, ...rest } = sandbox.snapshot();
      return JSON.stringify({ ...rest, events: deliveries.map(({ eventId, body }) => ({ eventId, body })) });
    };
    expect(drawn(saved) === drawn(plain)).toBe(true);
    plain.close();
    saved.close();
  });

  it('after a crash, issues none of the ids of the lost run, native ids of six digits included', () => {
    const { reservation: first, grown } = reservation(64);
    const before = createSandbox(options);
    before.persist(first);
    before.connect({ integrationId: 'outreach' });
    work(before, 1);
    const file = before.snapshot(); // the last save before the crash
    first.renew();
    const lost = new Set(work(before, 2, 250)); // told to clients, then lost with the process
    const reserve = first.size;
    expect(grown.length).toBeGreaterThan(0); // the lost run went past its first reservation

    const after = createSandbox(options);
    after.persist(reservation(64).reservation);
    after.restore(file);
    after.recover(reserve);
    const reissued = [...work(after, 3, 2000), ...work(after, 4, 10)].filter((id) => lost.has(id));
    expect(reissued).toEqual([]);
    // Six-digit native ids (Pipedrive, Outreach): 4,000 new against 500 lost ones would have met one by chance.
    const runs = (after.snapshot().connections[0]!.data as { retired?: unknown[] }).retired;
    expect(runs).toHaveLength(1);
    before.close();
    after.close();
  });

  it('never gives a new record the native id of a deleted one of its type', () => {
    const sandbox = createSandbox(options);
    const { connectionId } = sandbox.connect({ integrationId: 'pipedrive' });
    const deleted = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const record = sandbox.createRecord(connectionId, 'Contact', { firstName: `Gone${i}` });
      deleted.add(record.nativeId);
      sandbox.deleteRecord(connectionId, 'Contact', record.id);
    }
    const reused = Array.from({ length: 3000 }, (_, i) => sandbox.createRecord(connectionId, 'Contact', { firstName: `New${i}` }).nativeId).filter((id) =>
      deleted.has(id),
    );
    expect(reused).toEqual([]);
    sandbox.close();
  });
});

describe("a journal's commits (jsonDiff between snapshots)", () => {
  it('turn each snapshot into the next, byte for byte, through writes, deletes, deliveries, moves and removals', async () => {
    const sandbox = createSandbox({ ...options, retrySchedule: ['1s', '2s'] });
    let before: unknown = sandbox.snapshot();
    const checks: string[] = [];
    const step = (name: string) => {
      const after = sandbox.snapshot();
      const applied = applyJsonDiff(JSON.parse(JSON.stringify(before)) as Json, JSON.parse(JSON.stringify(jsonDiff(before, after))) as JsonOp[]);
      checks.push(JSON.stringify(applied) === JSON.stringify(after) ? name : `${name}: differs`);
      before = after;
    };
    const hubspot = sandbox.connect({ integrationId: 'hubspot' });
    const outreach = sandbox.connect({ integrationId: 'outreach' });
    step('connect');
    await sandbox.advance('10s');
    step('status moves');
    const account = sandbox.createRecord(hubspot.connectionId, 'Account', { name: 'Acme' });
    const contact = sandbox.createRecord(hubspot.connectionId, 'Contact', { firstName: 'Ada', associations: { accountIds: [account.id] } });
    step('creates with links');
    sandbox.updateRecord(hubspot.connectionId, 'Account', account.id, { name: 'Acme 2' });
    const seeded = sandbox.listRecords(hubspot.connectionId, 'Contact')[0]!;
    sandbox.updateRecord(hubspot.connectionId, 'Contact', seeded.id, { lastName: 'Seeded' });
    step('updates, of a seeded record too');
    sandbox.deleteRecord(hubspot.connectionId, 'Contact', contact.id);
    sandbox.deleteRecord(hubspot.connectionId, 'Contact', sandbox.listRecords(hubspot.connectionId, 'Contact')[1]!.id);
    step('deletes');
    sandbox.createWebhook(hubspot.connectionId, 'http://127.0.0.1:9/webhooks');
    sandbox.setChaos(hubspot.connectionId, { delay: '10ms-20ms' });
    await sandbox.advance('100ms');
    step('deliveries failing');
    await sandbox.advance('5s');
    step('retries');
    sandbox.listRecords(outreach.connectionId, 'Contact');
    step('a data set built');
    sandbox.setStatus(outreach.connectionId, 'READY');
    sandbox.removeConnection(sandbox.parts.registry.find(outreach.connectionId)!);
    step('a connection removed');
    sandbox.connect({ integrationId: 'salesforce' });
    sandbox.recover(8);
    step('a recovery');
    expect(checks.filter((check) => check.includes('differs'))).toEqual([]);
    expect(checks).toHaveLength(10);
    sandbox.close();
  });
});
