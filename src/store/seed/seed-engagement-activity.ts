import {
  ENGAGEMENT_ACTION_KINDS,
  ENGAGEMENT_ACTION_STATES,
  ENGAGEMENT_SEQUENCES,
  ENGAGEMENT_TASK_KINDS,
  type EngagementAction,
  type EngagementTask,
  SEQUENCE_STEPS,
} from '../../model/engagement-activity.js';
import { INTEGRATIONS, type IntegrationId } from '../../model/integrations.js';
import type { FakerModule } from '../../model/platform.js';
import type { Random } from '../../shared/random.js';
import type { ConnectionData } from '../connection-data.js';
import { seededFaker } from './seeded-faker.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Up to this many tasks and actions per engagement user. */
const MAX_TASKS = 4;
const MAX_ACTIONS = 3;

const SUBJECTS: Record<EngagementTask['kind'], readonly string[]> = {
  call: ['Call to follow up', 'Discovery call', 'Check in by phone'],
  email: ['Send pricing', 'Email the case study', 'Reply to questions'],
  action_item: ['Update the opportunity', 'Research the account', 'Prepare the demo'],
  linkedin: ['Connect on LinkedIn', 'Send a LinkedIn message'],
};

/**
 * Seeds engagement tasks and actions for an engagement platform's connection and names them on
 * their users (`taskIds`, `actionIds`). Everything comes from its own fork of the seed stream,
 * so no other seeded record changes.
 *
 * @example seedEngagementActivity(data, 'outreach', random.fork('engagement-activity'), now, platform.loadFaker());
 */
export function seedEngagementActivity(data: ConnectionData, integrationId: IntegrationId, random: Random, now: number, fakerModule: FakerModule): void {
  if (INTEGRATIONS[integrationId].category !== 'engagement') return;
  // The same English faker, seeded the same way, from the module the platform loaded (not at start-up).
  const faker = seededFaker(fakerModule, random.uint32());
  const contacts = data.crm.Contact.entries().map((entry) => entry.record.id);
  const contact = () => (contacts.length > 0 ? faker.helpers.arrayElement(contacts) : null);
  for (const entry of data.users.entries()) {
    const user = entry.record;
    const taskIds: string[] = [];
    const actionIds: string[] = [];
    for (let i = faker.number.int({ min: 0, max: MAX_TASKS }); i > 0; i--) {
      const kind = faker.helpers.arrayElement(ENGAGEMENT_TASK_KINDS);
      const created = now - faker.number.int({ min: 2 * DAY, max: 60 * DAY });
      const done = faker.datatype.boolean(0.3);
      const completed = done ? created + faker.number.int({ min: DAY / 24, max: DAY }) : null;
      const task: EngagementTask = {
        id: random.hex(32),
        kind,
        subject: faker.helpers.arrayElement(SUBJECTS[kind]),
        note: faker.datatype.boolean(0.5) ? faker.lorem.sentence() : null,
        dueAt: iso(created + faker.number.int({ min: DAY, max: 30 * DAY })),
        state: done ? 'complete' : 'incomplete',
        completedAt: completed === null ? null : iso(completed),
        createdTime: iso(created),
        modifiedTime: iso(completed ?? created),
        associations: { userId: user.id, contactId: contact() },
      };
      data.engagementTasks.insert(task);
      taskIds.push(task.id);
    }
    for (let i = faker.number.int({ min: 0, max: MAX_ACTIONS }); i > 0; i--) {
      const created = now - faker.number.int({ min: DAY, max: 45 * DAY });
      const state = faker.helpers.arrayElement(ENGAGEMENT_ACTION_STATES);
      const action: EngagementAction = {
        id: random.hex(32),
        kind: faker.helpers.arrayElement(ENGAGEMENT_ACTION_KINDS),
        sequence: faker.number.int({ min: 1, max: ENGAGEMENT_SEQUENCES.length }),
        step: faker.number.int({ min: 1, max: SEQUENCE_STEPS }),
        state,
        dueAt: state === 'finished' ? null : iso(now + faker.number.int({ min: -DAY, max: 7 * DAY })),
        createdTime: iso(created),
        modifiedTime: iso(created + faker.number.int({ min: 0, max: DAY })),
        associations: { userId: user.id, contactId: contact() },
      };
      data.engagementActions.insert(action);
      actionIds.push(action.id);
    }
    if (taskIds.length > 0 || actionIds.length > 0) {
      data.users.replace({
        ...user,
        associations: { taskIds: [...user.associations.taskIds, ...taskIds], actionIds: [...user.associations.actionIds, ...actionIds] },
      });
    }
  }
}
