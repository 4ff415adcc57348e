import type { Faker } from '@faker-js/faker';
import { CRM_OBJECT_TYPES, type CrmObjectType, type CrmRecord } from '../../model/crm.js';
import type { EngagementUser, Mailbox } from '../../model/engagement.js';
import type { IntegrationId } from '../../model/integrations.js';
import type { FakerModule } from '../../model/platform.js';
import { runToEnd } from '../../shared/pieces.js';
import type { Random } from '../../shared/random.js';
import { assemble, type ConnectionData, mergeFields } from '../connection-data.js';
import type { FixtureSet } from '../fixtures.js';
import { type FakeContext, fakeCustomFields, fakeFields, pastTime } from './fake-fields.js';
import { seedEmailsInPieces } from './seed-emails.js';
import { seedEngagementActivity } from './seed-engagement-activity.js';
import { seedEngagementObjects } from './seed-engagement-objects.js';

/** How many records a new connection starts with. */
export interface DatasetSize {
  /** Engagement users and mailboxes (`GET /engagement/users`, `/engagement/mailboxes`). */
  engagement: { users: number; mailboxes: number };
  /** CRM records per type. EventAttendee is a total, spread over the events. */
  crm: Record<CrmObjectType, number>;
}

export const DEFAULT_DATASET: DatasetSize = {
  engagement: { users: 36, mailboxes: 48 },
  crm: {
    User: 12,
    Account: 40,
    Contact: 120,
    Lead: 40,
    Deal: 50,
    Note: 80,
    Task: 80,
    Event: 40,
    EventAttendee: 100,
    Email: 60,
  },
};

export interface SeedContext {
  data: ConnectionData;
  integrationId: IntegrationId;
  faker: Faker;
  /** The faker module more seeded fakers are made from (the sandbox's platform's). */
  fakerModule: FakerModule;
  random: Random;
  /** The connection's creation time: all seeded history lies before it. */
  now: number;
  /** The organisation's mail domain, e.g. `acme-corp.com`. */
  orgDomain: string;
  size: DatasetSize;
  fixtures: readonly FixtureSet[];
}

type Item = { type: CrmObjectType; record: CrmRecord; extra: Record<string, unknown> };
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Fills a new connection: hand-written fixtures first (so they lead the first page), then
 * generated records with consistent associations. Everything comes from the connection's own
 * seeded streams, so the same seed gives the same data set.
 */
export function seedConnection(ctx: SeedContext): void {
  runToEnd(seedConnectionInPieces(ctx));
}

/**
 * {@link seedConnection} in pieces of about a record each (a generated record, an email, the batch
 * insert, the engagement objects): it stops after each, and gives the same data set, draw for draw,
 * however it is resumed. A caller that can wait gives the event loop turns between pieces (the
 * default data set takes 15-40 ms in one piece).
 */
export function* seedConnectionInPieces(ctx: SeedContext): Generator<void, void, void> {
  const fixtures = ctx.fixtures.filter((set) => !set.integrations || set.integrations.includes(ctx.integrationId));
  const items: Item[] = [];
  for (const set of fixtures) items.push(...fixtureItems(ctx, set));
  items.push(...(yield* generatedItems(ctx)));
  yield;
  ctx.data.insertBatch(items);
  yield;

  for (const set of fixtures) {
    for (const user of set.engagement.users) ctx.data.users.insert(engagementUser(ctx, user), customExtra(ctx));
    for (const mailbox of set.engagement.mailboxes) ctx.data.mailboxes.insert(mailboxRecord(ctx, mailbox), customExtra(ctx));
  }
  seedEngagement(ctx);
  yield;
  // Its own stream: the records above stay as they were before engagement tasks and actions.
  seedEngagementActivity(ctx.data, ctx.integrationId, ctx.random.fork('engagement-activity'), ctx.now, ctx.fakerModule);
  yield;
  // Emails came later: their own stream, so every record seeded before them stays as it was.
  yield* seedEmailsInPieces(ctx.data, {
    integrationId: ctx.integrationId,
    random: ctx.random.fork('emails'),
    now: ctx.now,
    fakerModule: ctx.fakerModule,
    count: ctx.size.crm.Email,
    fixtures: fixtures.flatMap((set) => set.crm.Email ?? []),
  });
  yield;
  // Sequences, calls, engagement emails and dispositions came later still: their own stream too.
  seedEngagementObjects(ctx.data, {
    integrationId: ctx.integrationId,
    random: ctx.random.fork('engagement-objects'),
    now: ctx.now,
    fakerModule: ctx.fakerModule,
  });
}

/** Seeded history: created in the last two years, modified since, all before the connection. */
function seededTimes(ctx: SeedContext, fake: FakeContext): { createdTime: string; modifiedTime: string } {
  const created = pastTime(fake, 730, 2);
  const modified = created + ctx.faker.number.int({ min: 0, max: ctx.now - 3_600_000 - created });
  return { createdTime: iso(created), modifiedTime: iso(modified) };
}

function fixtureItems(ctx: SeedContext, set: FixtureSet): Item[] {
  const fake: FakeContext = { faker: ctx.faker, now: ctx.now };
  const items: Item[] = [];
  for (const type of CRM_OBJECT_TYPES) {
    // Emails are seeded from a stream of their own (seedEmailsInPieces), after everything else.
    if (type === 'Email') continue;
    for (const written of set.crm[type] ?? []) {
      const { id, nativeId, createdTime, modifiedTime, associations, ...fields } = written;
      const times = seededTimes(ctx, fake);
      const record = assemble(type, {
        id: id ?? ctx.data.newId(type),
        nativeId: nativeId ?? ctx.data.newNativeId(type),
        createdTime: createdTime ?? times.createdTime,
        modifiedTime: modifiedTime ?? createdTime ?? times.modifiedTime,
        fields: mergeFields(fakeFields[type](fake) as Record<string, unknown>, fields),
        associations: (associations ?? {}) as Record<string, string[] | string | null>,
        explicitFields: fields,
      });
      items.push({ type, record, extra: customExtra(ctx) });
    }
  }
  return items;
}

/** Downstream-only data of a record: its custom fields, shown under `additional`. */
function customExtra(ctx: SeedContext): Record<string, unknown> {
  return { custom: fakeCustomFields(ctx.faker) };
}

/** Generated CRM records, linked the way a real org's data is; it stops after each. */
function* generatedItems(ctx: SeedContext): Generator<void, Item[], void> {
  const { faker, size, data } = ctx;
  const fake: FakeContext = { faker, now: ctx.now };
  const items: Item[] = [];
  const ids: Record<CrmObjectType, string[]> = Object.fromEntries(CRM_OBJECT_TYPES.map((type) => [type, []])) as never;
  const byId = new Map<string, CrmRecord>();

  const add = (type: CrmObjectType, fields: Record<string, unknown>, associations: Record<string, unknown>): CrmRecord => {
    const record = assemble(type, {
      id: data.newId(type),
      nativeId: data.newNativeId(type),
      ...seededTimes(ctx, fake),
      fields,
      associations: associations as Record<string, string[] | string | null>,
      explicitFields: fields,
    });
    items.push({ type, record, extra: customExtra(ctx) });
    ids[type].push(record.id);
    byId.set(record.id, record);
    return record;
  };
  const pick = (type: CrmObjectType) => (ids[type].length > 0 ? faker.helpers.arrayElement(ids[type]) : null);
  const some = (type: CrmObjectType, max: number) =>
    ids[type].length > 0 ? faker.helpers.arrayElements(ids[type], { min: 0, max: Math.min(max, ids[type].length) }) : [];
  const owner = () => pick('User');

  for (let i = 0; i < size.crm.User; i++) {
    const fields = fakeFields.User(fake);
    fields.email = `${fields.firstName}.${fields.lastName}@${ctx.orgDomain}`.toLowerCase().replace(/[^a-z0-9.@-]/g, '');
    add('User', fields, {});
    yield;
  }
  const accountContacts = new Map<string, string[]>();
  for (let i = 0; i < size.crm.Account; i++) {
    const account = add('Account', fakeFields.Account(fake), { ownerUserId: owner() });
    accountContacts.set(account.id, []);
    yield;
  }
  for (let i = 0; i < size.crm.Contact; i++) {
    const fields = fakeFields.Contact(fake);
    const accountId = faker.datatype.boolean(0.85) ? pick('Account') : null;
    if (accountId) {
      const website = (byId.get(accountId) as CrmRecord<'Account'>).website ?? '';
      fields.email = `${fields.firstName}.${fields.lastName}@${website.replace(/^https:\/\/www\./, '')}`.toLowerCase().replace(/[^a-z0-9.@-]/g, '');
    }
    const contact = add('Contact', fields, { accountIds: accountId ? [accountId] : [], ownerUserId: owner() });
    if (accountId) accountContacts.get(accountId)!.push(contact.id);
    yield;
  }
  for (let i = 0; i < size.crm.Lead; i++) {
    const fields = fakeFields.Lead(fake);
    const accountId = faker.datatype.boolean(0.3) ? pick('Account') : null;
    if (accountId) fields.account = (byId.get(accountId) as CrmRecord<'Account'>).name;
    const converted = faker.datatype.boolean(0.15) ? pick('Contact') : null;
    add('Lead', fields, { accountIds: accountId ? [accountId] : [], contactIds: converted ? [converted] : [] });
    yield;
  }
  for (let i = 0; i < size.crm.Deal; i++) {
    const accountId = pick('Account');
    const people = accountId ? accountContacts.get(accountId)! : [];
    const contactIds = people.length > 0 ? faker.helpers.arrayElements(people, { min: 1, max: Math.min(3, people.length) }) : [];
    add('Deal', fakeFields.Deal(fake), { accountIds: accountId ? [accountId] : [], contactIds, ownerUserId: owner() });
    yield;
  }
  // Notes and tasks hang off one record each, as they mostly do in a CRM.
  for (const type of ['Note', 'Task'] as const) {
    for (let i = 0; i < size.crm[type]; i++) {
      const on = faker.helpers.arrayElement(['dealIds', 'contactIds', 'accountIds', 'leadIds'] as const);
      const parent = pick(({ dealIds: 'Deal', contactIds: 'Contact', accountIds: 'Account', leadIds: 'Lead' } as const)[on]);
      add(type, fakeFields[type](fake), { [on]: parent ? [parent] : [], ownerUserId: owner() });
      yield;
    }
  }
  const events: CrmRecord<'Event'>[] = [];
  for (let i = 0; i < size.crm.Event; i++) {
    const accountId = pick('Account');
    const people = accountId ? accountContacts.get(accountId)! : some('Contact', 2);
    const contactIds = people.length > 0 ? faker.helpers.arrayElements(people, { min: 1, max: Math.min(2, people.length) }) : [];
    const dealIds = faker.datatype.boolean(0.4) ? some('Deal', 1) : [];
    const event = add('Event', fakeFields.Event(fake), {
      accountIds: accountId ? [accountId] : [],
      contactIds,
      dealIds,
      leadIds: faker.datatype.boolean(0.1) ? some('Lead', 1) : [],
      ownerUserId: owner(),
    });
    events.push(event as CrmRecord<'Event'>);
    yield;
  }
  // Attendees: the owner first, then the event's contacts, then outside guests by email.
  for (let i = 0; i < size.crm.EventAttendee && events.length > 0; i++) {
    const event = events[i % events.length]!;
    const round = Math.floor(i / events.length);
    const fields = fakeFields.EventAttendee(fake) as Record<string, unknown>;
    let associations: Record<string, unknown> = { eventId: event.id, associationId: null };
    const contactId = event.associations.contactIds[round - 1];
    if (round === 0 && event.associations.ownerUserId) {
      Object.assign(fields, { associatedObjectType: 'User', email: null, status: 'Confirmed' });
      associations = { eventId: event.id, associationId: event.associations.ownerUserId };
    } else if (contactId) {
      Object.assign(fields, { associatedObjectType: 'Contact', email: null });
      associations = { eventId: event.id, associationId: contactId };
    }
    add('EventAttendee', fields, associations);
    yield;
  }
  return items;
}

function seedEngagement(ctx: SeedContext): void {
  const { faker, size } = ctx;
  const users: EngagementUser[] = [];
  for (let i = 0; i < size.engagement.users; i++) {
    const user = engagementUser(ctx, {});
    ctx.data.users.insert(user, customExtra(ctx));
    users.push(user);
  }
  // One default mailbox per user, then extra mailboxes (aliases) for some of them.
  for (let i = 0; i < size.engagement.mailboxes && users.length > 0; i++) {
    const owner = i < users.length ? users[i]! : faker.helpers.arrayElement(users);
    const isDefault = i < users.length;
    const email = isDefault
      ? (owner.email ?? `user${i}@${ctx.orgDomain}`)
      : `${faker.helpers.arrayElement(['sales', 'outbound', 'team', 'hello', 'events'])}.${(owner.lastName ?? 'team').toLowerCase().replace(/[^a-z]/g, '')}${i}@${ctx.orgDomain}`;
    ctx.data.mailboxes.insert(mailboxRecord(ctx, { email, isDefault, associations: { ownerUserId: owner.id } }), customExtra(ctx));
  }
}

function engagementUser(ctx: SeedContext, given: Partial<EngagementUser>): EngagementUser {
  const fake: FakeContext = { faker: ctx.faker, now: ctx.now };
  const firstName = given.firstName ?? ctx.faker.person.firstName();
  const lastName = given.lastName ?? ctx.faker.person.lastName();
  const times = seededTimes(ctx, fake);
  const user: EngagementUser = {
    id: given.id ?? ctx.random.hex(32),
    firstName,
    lastName,
    email: given.email ?? `${firstName}.${lastName}@${ctx.orgDomain}`.toLowerCase().replace(/[^a-z0-9.@-]/g, ''),
    createdTime: given.createdTime ?? times.createdTime,
    modifiedTime: given.modifiedTime ?? times.modifiedTime,
    associations: { taskIds: [...(given.associations?.taskIds ?? [])], actionIds: [...(given.associations?.actionIds ?? [])] },
  };
  // Apollo users carry modifiedTime too, as the document's EngUser requires (decision 0045 replaces the quirk decisions.md recorded).
  return user;
}

function mailboxRecord(ctx: SeedContext, given: Partial<Mailbox>): Mailbox {
  const times = seededTimes(ctx, { faker: ctx.faker, now: ctx.now });
  const mailbox: Mailbox = {
    id: given.id ?? ctx.random.hex(32),
    email: given.email ?? ctx.faker.internet.email().toLowerCase(),
    isDefault: given.isDefault ?? true,
    createdTime: given.createdTime ?? times.createdTime,
    modifiedTime: given.modifiedTime ?? times.modifiedTime,
    associations: { ownerUserId: given.associations?.ownerUserId ?? null },
  };
  // Outreach mailboxes have no isDefault; Apollo mailboxes have no times (quirks of the original service).
  if (ctx.integrationId === 'outreach') delete mailbox.isDefault;
  if (ctx.integrationId === 'apollo') {
    delete mailbox.createdTime;
    delete mailbox.modifiedTime;
  }
  return mailbox;
}
