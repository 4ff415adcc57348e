import { describe, expect, it } from 'vitest';
import { createSandbox } from '../index.js';

const TOKEN = `access_${'ab'.repeat(20)}`;

describe('a snapshot keeps what chaos, the link widget and fixed tokens added', () => {
  it('restores per-connection chaos where its stream stood, org names, fixed tokens and used link tokens', async () => {
    const build = () => createSandbox({ clock: 'virtual', seed: 11 });
    const original = build();
    const { registry } = original.parts;
    const linkToken = registry.linkTokens.create(original.options.apiKeys[0]!);
    const publicToken = registry.createPublicTokenForLink(linkToken, { integrationId: 'zoho', orgName: 'Initech' });
    const linked = original.exchange(original.options.apiKeys[0]!, publicToken);
    const fixed = original.connect({ accessToken: TOKEN });
    original.setChaos(fixed.connectionId, { duplicate: 0.5, delay: '1s-9s', outage: '1h' });
    // An outage: attempts fail without the network, each drawing its chaos delay from the stream.
    original.parts.registry.find(fixed.connectionId)!.webhook = {
      webhookId: 'w',
      connectionId: fixed.connectionId,
      webhookUrl: 'http://127.0.0.1:9/x',
      createdTime: '',
    };
    original.parts.dispatcher.webhookCreated(fixed.connectionId);
    for (let i = 0; i < 3; i++) original.createRecord(fixed.connectionId, 'Note', {});
    await original.advance('30s');
    expect(original.deliveries(fixed.connectionId)[0]!.attempts.length).toBeGreaterThan(1);

    const snapshot = JSON.parse(JSON.stringify(original.snapshot()));
    const restored = build();
    restored.restore(snapshot);

    expect(restored.chaos(fixed.connectionId)).toEqual({ duplicate: 0.5, delay: '1s-9s', outage: '1h' });
    expect(restored.parts.registry.find(fixed.connectionId)!.accessToken).toBe(TOKEN);
    expect(restored.parts.registry.find(linked.connectionId)!.orgName).toBe('Initech');
    expect(() => restored.parts.registry.createPublicTokenForLink(linkToken, { integrationId: 'zoho' })).toThrow('linkToken has already been used');

    // Both go on identically: the same chaos delays, drawn from the same stream position.
    const afterwards = async (sandbox: typeof original) => {
      await sandbox.advance('20m');
      return sandbox.deliveries(fixed.connectionId).map((delivery) => delivery.attempts.map((attempt) => [attempt.time, attempt.chaos]));
    };
    expect(await afterwards(restored)).toEqual(await afterwards(original));
    original.close();
    restored.close();
  });

  it('round-trips a state that uses every feature: restored, it snapshots to the very same JSON', async () => {
    const original = createSandbox({ clock: 'virtual', seed: 5 });
    const outreach = original.connect({ integrationId: 'outreach' });
    const hubspot = original.connect({ integrationId: 'hubspot', accessToken: TOKEN });
    const contact = original.listRecords(hubspot.connectionId, 'Contact')[0]!; // builds the data sets
    original.listRecords(outreach.connectionId, 'Contact');
    original.deleteRecord(hubspot.connectionId, 'Contact', contact.id); // kept for archived reads
    original.setDownstreamFaults(hubspot.connectionId, [{ kind: 'rate-limit', count: 2 }]);
    original.setChaos(outreach.connectionId, { duplicate: 0.5, reorder: true });
    await original.advance('5s');

    const saved = JSON.stringify(original.snapshot());
    const restored = createSandbox({ clock: 'virtual', seed: 5 });
    restored.restore(JSON.parse(saved));
    expect(JSON.stringify(restored.snapshot())).toBe(saved);
    // The outreach connection's seeded tasks are in its rebuilt base, not in the snapshot, and come back.
    expect(JSON.parse(saved).connections[0].data.engagementTasks.base).toBeGreaterThan(0);
    const tasks = (sandbox: typeof original) => sandbox.parts.registry.find(outreach.connectionId)!.data!.engagementTasks.entries();
    expect(tasks(restored)).toEqual(tasks(original));
    expect(restored.downstreamFaults(hubspot.connectionId)).toEqual(original.downstreamFaults(hubspot.connectionId));
    original.close();
    restored.close();
  });
});
