import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../index.js';
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
