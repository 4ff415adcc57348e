import { base, en, Faker, generateMersenne53Randomizer } from '@faker-js/faker';
import { VirtualClock } from '../../src/clock/clock.js';
import type { DownstreamContext } from '../../src/downstream/types.js';
import type { IntegrationId } from '../../src/model/integrations.js';
import { Random } from '../../src/shared/random.js';
import { ConnectionData, type RecordChange } from '../../src/store/connection-data.js';
import { type DatasetSize, DEFAULT_DATASET, seedConnection } from '../../src/store/seed/seed-connection.js';

export const SEED_TIME = Date.parse('2025-01-01T00:00:00Z');

/**
 * One connection's data on a virtual clock at SEED_TIME, seeded with the default data set (or
 * `size`, or nothing), capped at `recordLimit` records (none by default), with the changes it reports collected in `changes`, and a downstream
 * context over it.
 */
export function seededData(integrationId: IntegrationId = 'hubspot', options: { size?: DatasetSize | null; recordLimit?: number } = {}) {
  const clock = new VirtualClock(SEED_TIME, (error) => {
    throw error;
  });
  const changes: RecordChange[] = [];
  const faker = new Faker({ locale: [en, base] });
  faker.seed(7);
  const data = new ConnectionData({
    connectionId: 'c'.repeat(32),
    integrationId,
    clock,
    random: new Random(1),
    faker,
    ...(options.recordLimit === undefined ? {} : { recordLimit: options.recordLimit }),
    events: { recordChanged: (_connectionId, _integrationId, change) => changes.push(change) },
  });
  const size = options.size === undefined ? DEFAULT_DATASET : options.size;
  if (size)
    seedConnection({
      data,
      integrationId,
      faker,
      fakerModule: { Faker, base, en, generateMersenne53Randomizer },
      random: new Random(2),
      now: SEED_TIME,
      orgDomain: 'acme.com',
      size,
      fixtures: [],
    });
  const context: DownstreamContext = {
    org: { nativeOrgId: '00D000000000001AAA', nativeUserId: '005000000000001AAA', slug: 'acme' },
    data,
    now: clock.now(),
  };
  return { data, changes, clock, context };
}
