import { describe, expect, it, vi } from 'vitest';
import type { IntegrationId } from '../../model/integrations.js';

/**
 * Sequences, calls, engagement emails and call dispositions come from their own random stream:
 * seeding them changes nothing else — every record seeded before them, and the values a later
 * write generates, are byte-identical to a seed without them.
 */

async function seededSnapshot(integrationId: IntegrationId) {
  const { seededData } = await import('../../../test/helpers/seeded-data.js');
  const { data } = seededData(integrationId);
  const crm = Object.fromEntries(Object.entries(data.crm).map(([type, collection]) => [type, collection.entries()]));
  const engagement = {
    users: data.users.entries(),
    mailboxes: data.mailboxes.entries(),
    tasks: data.engagementTasks.entries(),
    actions: data.engagementActions.entries(),
  };
  const later = data.create('Contact', {});
  return {
    json: JSON.stringify({ crm, engagement, later }),
    added: data.sequences.size + data.calls.size + data.engagementEmails.size + data.callDispositions.size,
  };
}

describe('seedEngagementObjects', () => {
  it.each(['outreach', 'salesloft', 'apollo', 'hubspot'] as const)('%s: leaves every other seeded value byte-identical', async (integrationId) => {
    vi.resetModules();
    const withObjects = await seededSnapshot(integrationId);
    vi.resetModules();
    vi.doMock('./seed-engagement-objects.js', () => ({ seedEngagementObjects: () => undefined }));
    const without = await seededSnapshot(integrationId);
    vi.doUnmock('./seed-engagement-objects.js');
    expect(without.added).toBe(0);
    // Only engagement platforms have them.
    if (integrationId === 'hubspot') expect(withObjects.added).toBe(0);
    else expect(withObjects.added).toBeGreaterThan(0);
    expect(withObjects.json).toBe(without.json);
  });

  it('is deterministic, numbers the sequences as the seeded actions name them, and links what exists', async () => {
    vi.resetModules();
    const { seededData } = await import('../../../test/helpers/seeded-data.js');
    const a = seededData('salesloft').data;
    const b = seededData('salesloft').data;
    for (const name of ['sequences', 'calls', 'engagementEmails', 'callDispositions'] as const) {
      expect(JSON.stringify(a[name].entries())).toBe(JSON.stringify(b[name].entries()));
    }
    const sequences = a.sequences.entries();
    for (const action of a.engagementActions.values()) expect(sequences.some((entry) => entry.seq === action.sequence && entry.record.enabled)).toBe(true);
    expect(sequences.filter((entry) => !entry.record.enabled)).toHaveLength(1);
    for (const call of a.calls.values()) {
      if (call.associations.taskId !== null) expect(a.engagementTasks.has(call.associations.taskId)).toBe(true);
      if (call.associations.contactId !== null) expect(a.crm.Contact.has(call.associations.contactId)).toBe(true);
      expect(a.callDispositions.has(call.dispositionId!)).toBe(true);
    }
    for (const email of a.engagementEmails.values()) {
      if (email.associations.actionId !== null) expect(a.engagementActions.has(email.associations.actionId)).toBe(true);
      if (email.associations.sequenceId !== null) expect(a.sequences.has(email.associations.sequenceId)).toBe(true);
      if (email.associations.mailboxId !== null)
        expect(a.mailboxes.get(email.associations.mailboxId)!.associations.ownerUserId).toBe(email.associations.userId);
    }
  });
});
