import type { CrmRecord } from '../../model/crm.js';
import type { Mailbox } from '../../model/engagement.js';
import {
  type CallDisposition,
  ENGAGEMENT_SEQUENCES,
  type EngagementCall,
  type EngagementEmail,
  type EngagementSequence,
  SEQUENCE_STEPS,
} from '../../model/engagement-activity.js';
import { INTEGRATIONS, type IntegrationId } from '../../model/integrations.js';
import type { FakerModule } from '../../model/platform.js';
import type { Random } from '../../shared/random.js';
import type { ConnectionData } from '../connection-data.js';
import { seededFaker } from './seeded-faker.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Each seeded sequence's tags, by number; and a fifth, archived one, which takes no new contacts. */
const SEQUENCE_TAGS: readonly string[][] = [['outbound', 'cold'], ['re-engage'], ['events'], ['inbound']];
const ARCHIVED_SEQUENCE = { name: 'Q3 Webinar Invite (archived)', tags: ['events', 'archived'] };

/** The call dispositions every seeded org has, in their order. */
export const CALL_DISPOSITIONS: ReadonlyArray<{ name: string; key: string }> = [
  { name: 'Answered - Meeting Set', key: 'answered_meeting_set' },
  { name: 'Answered - Not Interested', key: 'answered_not_interested' },
  { name: 'Answered - Call Back Later', key: 'answered_call_back_later' },
  { name: 'Left Voicemail', key: 'left_voicemail' },
  { name: 'No Answer', key: 'no_answer' },
  { name: 'Wrong Number', key: 'wrong_number' },
];

/** Up to this many calls and one-off emails per engagement user, beside those of their tasks and sequences. */
const MAX_OWN_CALLS = 2;
const MAX_OWN_EMAILS = 1;

/**
 * Seeds an engagement platform's sequences (numbered as the seeded actions name them, and one
 * archived), call dispositions, the calls that completed its call tasks and finished call steps
 * and a few more, and the emails its sequences sent (one for the last step each active or
 * finished sequence state passed) and a few one-off ones. Everything comes from its own fork of
 * the seed stream, so every record seeded before these existed stays byte-identical.
 *
 * @example seedEngagementObjects(data, { integrationId: 'outreach', random: random.fork('engagement-objects'), now, fakerModule });
 */
export function seedEngagementObjects(
  data: ConnectionData,
  options: { integrationId: IntegrationId; random: Random; now: number; fakerModule: FakerModule },
): void {
  if (INTEGRATIONS[options.integrationId].category !== 'engagement') return;
  const { random, now } = options;
  const faker = seededFaker(options.fakerModule, random.uint32());
  const past = (minDays: number, maxDays: number) => now - faker.number.int({ min: minDays * DAY, max: maxDays * DAY });

  const sequences: EngagementSequence[] = [];
  ENGAGEMENT_SEQUENCES.forEach((name, index) => {
    const created = past(200, 500);
    sequences.push({
      id: random.hex(32),
      name,
      enabled: true,
      tags: [...SEQUENCE_TAGS[index]!],
      numSteps: SEQUENCE_STEPS,
      createdTime: iso(created),
      modifiedTime: iso(created + DAY),
    });
  });
  const archived = past(100, 150);
  sequences.push({ id: random.hex(32), ...ARCHIVED_SEQUENCE, enabled: false, numSteps: 3, createdTime: iso(archived - 90 * DAY), modifiedTime: iso(archived) });
  for (const sequence of sequences) data.sequences.insert(sequence);

  const dispositions: CallDisposition[] = CALL_DISPOSITIONS.map(({ name, key }) => {
    const created = past(600, 700);
    return { id: random.hex(32), name, key, createdTime: iso(created), modifiedTime: iso(created) };
  });
  for (const disposition of dispositions) data.callDispositions.insert(disposition);

  const contact = (id: string | null) => (id === null ? undefined : (data.crm.Contact.get(id) as CrmRecord<'Contact'> | undefined));
  const contacts = data.crm.Contact.entries().map((entry) => entry.record.id);
  const anyContact = () => (contacts.length > 0 ? faker.helpers.arrayElement(contacts) : null);
  const mailboxOf = (userId: string): Mailbox | undefined => {
    let found: Mailbox | undefined;
    for (const mailbox of data.mailboxes.values()) {
      if (mailbox.associations.ownerUserId !== userId) continue;
      if (mailbox.isDefault !== false) return mailbox;
      found ??= mailbox;
    }
    return found;
  };

  const calls: EngagementCall[] = [];
  const call = (at: number, links: EngagementCall['associations'], direction: EngagementCall['direction'] = 'outbound') => {
    const disposition = faker.helpers.arrayElement(dispositions);
    const answered = disposition.key.startsWith('answered');
    calls.push({
      id: random.hex(32),
      direction,
      phone: contact(links.contactId)?.phone ?? faker.phone.number({ style: 'national' }),
      dispositionId: disposition.id,
      durationSeconds: answered ? faker.number.int({ min: 60, max: 1500 }) : faker.number.int({ min: 5, max: 45 }),
      note: faker.datatype.boolean(0.6) ? faker.lorem.sentence() : null,
      createdTime: iso(at),
      modifiedTime: iso(at),
      associations: links,
    });
  };
  for (const task of data.engagementTasks.values()) {
    if (task.kind !== 'call' || task.completedAt === null) continue;
    call(Date.parse(task.completedAt), { userId: task.associations.userId, contactId: task.associations.contactId, taskId: task.id, actionId: null });
  }
  for (const action of data.engagementActions.values()) {
    if (action.kind !== 'call' || action.state !== 'finished') continue;
    call(Date.parse(action.modifiedTime), { userId: action.associations.userId, contactId: action.associations.contactId, taskId: null, actionId: action.id });
  }

  const emails: EngagementEmail[] = [];
  const email = (at: number, links: Omit<EngagementEmail['associations'], 'mailboxId'>) => {
    const to = contact(links.contactId)?.email ?? faker.internet.email().toLowerCase();
    const sentence = faker.lorem.sentences({ min: 2, max: 4 });
    const bounced = faker.datatype.boolean(0.05);
    const opens = bounced
      ? 0
      : faker.helpers.weightedArrayElement([
          { value: 0, weight: 4 },
          { value: faker.number.int({ min: 1, max: 6 }), weight: 6 },
        ]);
    emails.push({
      id: random.hex(32),
      to,
      cc: faker.datatype.boolean(0.15) ? [faker.internet.email().toLowerCase()] : [],
      bcc: [],
      subject: faker.helpers.arrayElement(['Quick question', 'Following up', 'Ideas for your team', 'Worth a chat?', 'Re: our conversation']),
      bodyText: sentence,
      bodyHtml: `<p>${sentence}</p>`,
      isBounced: bounced,
      openCount: opens,
      clickCount: opens > 0 && faker.datatype.boolean(0.3) ? faker.number.int({ min: 1, max: 3 }) : 0,
      replied: opens > 0 && faker.datatype.boolean(0.2),
      createdTime: iso(at),
      modifiedTime: iso(at),
      associations: { ...links, mailboxId: links.userId === null ? null : (mailboxOf(links.userId)?.id ?? null) },
    });
  };
  for (const action of data.engagementActions.values()) {
    // The email of the last step it passed: a state past its first step, or finished, has sent one.
    if (action.step === 1 && action.state !== 'finished') continue;
    const sequence = sequences[action.sequence - 1];
    email(Date.parse(action.createdTime) + faker.number.int({ min: 0, max: DAY / 2 }), {
      userId: action.associations.userId,
      contactId: action.associations.contactId,
      taskId: null,
      actionId: action.id,
      sequenceId: sequence?.id ?? null,
    });
  }
  for (const user of data.users.values()) {
    for (let i = faker.number.int({ min: 0, max: MAX_OWN_CALLS }); i > 0; i--) {
      call(
        past(1, 40),
        { userId: user.id, contactId: anyContact(), taskId: null, actionId: null },
        faker.helpers.arrayElement(['inbound', 'outbound'] as const),
      );
    }
    for (let i = faker.number.int({ min: 0, max: MAX_OWN_EMAILS }); i > 0; i--) {
      email(past(1, 40), { userId: user.id, contactId: anyContact(), taskId: null, actionId: null, sequenceId: null });
    }
  }
  // In time order, as the platforms list them.
  const byTime = <T extends { createdTime: string }>(a: T, b: T) => (a.createdTime < b.createdTime ? -1 : a.createdTime > b.createdTime ? 1 : 0);
  for (const item of calls.sort(byTime)) data.calls.insert(item);
  for (const item of emails.sort(byTime)) data.engagementEmails.insert(item);
}
