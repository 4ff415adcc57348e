import type { CrmRecord } from '../../model/crm.js';
import { INTEGRATIONS, type IntegrationId } from '../../model/integrations.js';
import type { FakerModule } from '../../model/platform.js';
import type { Random } from '../../shared/random.js';
import { assemble, type ConnectionData, mergeFields } from '../connection-data.js';
import type { FixtureCrmRecord } from '../fixtures.js';
import { type FakeContext, fakeCustomFields, fakeFields, pastTime } from './fake-fields.js';
import { seededFaker } from './seeded-faker.js';

const iso = (ms: number) => new Date(ms).toISOString();
type Links = Record<string, string[] | string | null>;

export interface SeedEmailsOptions {
  integrationId: IntegrationId;
  random: Random;
  now: number;
  fakerModule: FakerModule;
  count: number;
  fixtures: readonly FixtureCrmRecord[];
}

/**
 * Seeds a connection's emails: the fixtures' first, then `count` generated ones, each between a
 * contact (or a lead) and its owner, on the contact's account and one of its deals. Everything
 * comes from its own fork of the seed stream (ids, native ids and faker), so the records seeded
 * before emails existed stay what they were. It stops after each email (the same draws, in the
 * same order, however it is resumed: seedConnectionInPieces runs it).
 *
 * @example runToEnd(seedEmailsInPieces(data, { integrationId: 'hubspot', random: random.fork('emails'), now, fakerModule, count: 60, fixtures: [] }));
 */
export function* seedEmailsInPieces(data: ConnectionData, options: SeedEmailsOptions): Generator<void, void, void> {
  const { random, now } = options;
  const faker = seededFaker(options.fakerModule, random.uint32());
  const fake: FakeContext = { faker, now };
  const newId = () => {
    for (;;) {
      const id = `v.email.${random.hex(32)}`;
      if (!data.crm.Email.has(id)) return id;
    }
  };
  const newNativeId = () => {
    for (;;) {
      const nativeId = INTEGRATIONS[options.integrationId].newNativeId('Email', random);
      if (!data.crm.Email.getByNativeId(nativeId)) return nativeId;
    }
  };
  const times = () => {
    const created = pastTime(fake, 90, 2);
    return { createdTime: iso(created), modifiedTime: iso(created) };
  };
  const insert = (fields: Record<string, unknown>, associations: Links, given: Partial<CrmRecord> = {}) => {
    const record = assemble('Email', {
      id: given.id ?? newId(),
      nativeId: given.nativeId ?? newNativeId(),
      ...times(),
      ...(given.createdTime ? { createdTime: given.createdTime, modifiedTime: given.modifiedTime ?? given.createdTime } : {}),
      fields,
      associations,
      explicitFields: fields,
    });
    data.crm.Email.insert(record, { custom: fakeCustomFields(faker) });
  };

  for (const written of options.fixtures) {
    const { id, nativeId, createdTime, modifiedTime, associations, ...fields } = written;
    insert(mergeFields(fakeFields.Email(fake) as Record<string, unknown>, fields), (associations ?? {}) as Links, {
      ...(id ? { id } : {}),
      ...(nativeId ? { nativeId } : {}),
      ...(createdTime ? { createdTime } : {}),
      ...(modifiedTime ? { modifiedTime } : {}),
    });
    yield;
  }

  const contacts = [...data.crm.Contact.values()] as CrmRecord<'Contact'>[];
  const leads = [...data.crm.Lead.values()] as CrmRecord<'Lead'>[];
  const users = [...data.crm.User.values()] as CrmRecord<'User'>[];
  if (contacts.length === 0 || users.length === 0) return;
  for (let i = 0; i < options.count; i++) {
    const fields = fakeFields.Email(fake) as Record<string, unknown>;
    const onLead = leads.length > 0 && faker.datatype.boolean(0.1);
    const person = onLead ? faker.helpers.arrayElement(leads) : faker.helpers.arrayElement(contacts);
    const contact = onLead ? undefined : (person as CrmRecord<'Contact'>);
    const ownerId = contact?.associations.ownerUserId ?? faker.helpers.arrayElement(users).id;
    const owner = data.crm.User.get(ownerId) as CrmRecord<'User'> | undefined;
    const accountId = contact?.associations.accountIds[0] ?? null;
    const deals = accountId ? (data.crm.Account.get(accountId) as CrmRecord<'Account'>).associations.dealIds : [];
    const dealId = deals.length > 0 && faker.datatype.boolean(0.5) ? faker.helpers.arrayElement(deals) : null;
    const ours = owner?.email ?? (fields.from as string);
    const theirs = person.email ?? (fields.to as string[])[0]!;
    Object.assign(fields, fields.isIncoming ? { from: theirs, to: [ours] } : { from: ours, to: [theirs] });
    insert(fields, {
      contactIds: contact ? [contact.id] : [],
      leadIds: onLead ? [person.id] : [],
      accountIds: accountId ? [accountId] : [],
      dealIds: dealId ? [dealId] : [],
      ownerUserId: ownerId,
    });
    yield;
  }
}
