import { describe, expect, it, vi } from 'vitest';
import type { IntegrationId } from '../../model/integrations.js';

/**
 * Engagement tasks and actions come from their own random stream: seeding them changes nothing
 * else — every CRM record, engagement user (bar taskIds/actionIds) and mailbox, and the values a
 * later write generates, are byte-identical to a seed without them.
 */

async function seededSnapshot(integrationId: IntegrationId) {
  const { seededData } = await import('../../../test/helpers/seeded-data.js');
  const { data } = seededData(integrationId);
  const crm = Object.fromEntries(Object.entries(data.crm).map(([type, collection]) => [type, collection.entries()]));
  const users = data.users.entries().map((entry) => ({ ...entry, record: { ...entry.record, associations: null } }));
  const later = data.create('Contact', {});
  return { json: JSON.stringify({ crm, users, mailboxes: data.mailboxes.entries(), later }), tasks: data.engagementTasks.size };
}

describe('seedEngagementActivity', () => {
  it.each(['outreach', 'salesloft', 'apollo', 'hubspot'] as const)('%s: leaves every other seeded value byte-identical', async (integrationId) => {
    vi.resetModules();
    const withActivity = await seededSnapshot(integrationId);
    vi.resetModules();
    vi.doMock('./seed-engagement-activity.js', () => ({ seedEngagementActivity: () => undefined }));
    const without = await seededSnapshot(integrationId);
    vi.doUnmock('./seed-engagement-activity.js');
    // The mock took: only the real seeding made tasks (on engagement platforms).
    expect(without.tasks).toBe(0);
    if (integrationId !== 'hubspot') expect(withActivity.tasks).toBeGreaterThan(0);
    expect(withActivity.json).toBe(without.json);
  });

  it('is deterministic: the same seed gives the same tasks and actions', async () => {
    vi.resetModules();
    const { seededData } = await import('../../../test/helpers/seeded-data.js');
    const a = seededData('outreach').data;
    const b = seededData('outreach').data;
    expect(JSON.stringify(a.engagementTasks.entries())).toBe(JSON.stringify(b.engagementTasks.entries()));
    expect(JSON.stringify(a.engagementActions.entries())).toBe(JSON.stringify(b.engagementActions.entries()));
    expect(a.engagementTasks.size).toBeGreaterThan(0);
  });
});
