import { describe, expect, it } from 'vitest';
import { SEED_TIME, seededData } from '../../test/helpers/seeded-data.js';
import { type CrmObjectType, type CrmRecord, crmRecordSchema } from '../model/crm.js';
import { ApiError } from '../shared/errors.js';
import { DEFAULT_DATASET } from './seed/seed-connection.js';

const START = SEED_TIME;

function makeData(seeded = true) {
  const { data, changes, clock } = seededData('hubspot', { size: seeded ? DEFAULT_DATASET : null });
  return { data, changes, clock };
}

function badField(run: () => unknown): { field: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(400);
    return { field: apiError.metadata!.field as string, message: apiError.message };
  }
  throw new Error('expected a 400');
}

describe('seeded data', () => {
  it('has every type, in the documented shape, with links that exist and agree both ways', () => {
    const { data } = makeData();
    for (const [type, count] of Object.entries(DEFAULT_DATASET.crm) as Array<[CrmObjectType, number]>) {
      expect(data.crm[type].size).toBe(count);
      const schema = crmRecordSchema(type);
      for (const record of data.crm[type].values()) {
        expect(schema.safeParse(record).success, JSON.stringify(record)).toBe(true);
        expect(record.id).toMatch(new RegExp(`^v\\.${type === 'EventAttendee' ? 'attendee' : type.toLowerCase()}\\.[0-9a-f]{32}$`));
        expect(Date.parse(record.createdTime)).toBeLessThan(START);
        expect(Date.parse(record.modifiedTime)).toBeGreaterThanOrEqual(Date.parse(record.createdTime));
      }
    }
    // Each contact's account lists the contact back, and each task's owner lists the task.
    for (const contact of data.crm.Contact.values() as IterableIterator<CrmRecord<'Contact'>>) {
      for (const accountId of contact.associations.accountIds) {
        expect((data.crm.Account.get(accountId) as CrmRecord<'Account'>).associations.contactIds).toContain(contact.id);
      }
    }
    for (const task of data.crm.Task.values() as IterableIterator<CrmRecord<'Task'>>) {
      const owner = data.crm.User.get(task.associations.ownerUserId!) as CrmRecord<'User'>;
      expect(owner.associations.taskIds).toContain(task.id);
    }
    for (const deal of data.crm.Deal.values() as IterableIterator<CrmRecord<'Deal'>>) {
      expect(deal.expectedRevenue).toBe(Math.round(deal.amount! * Number(deal.probability) * 100) / 100);
    }
  });
});

describe('ConnectionData writes', () => {
  it('creates from partial fields, generating the rest, and reports a CREATE', () => {
    const { data, changes, clock } = makeData();
    const contact = data.create('Contact', { firstName: 'Ada' }) as CrmRecord<'Contact'>;
    expect(contact.firstName).toBe('Ada');
    expect(contact.lastName).toEqual(expect.any(String));
    expect(contact.createdTime).toBe(new Date(clock.now()).toISOString());
    expect(contact.associations.accountIds).toEqual([]);
    expect(changes).toEqual([{ objectType: 'Contact', eventType: 'CREATE', record: contact }]);
    expect(crmRecordSchema('Contact').safeParse(contact).success).toBe(true);
  });

  it('names the bad field: unknown, wrongly typed, read-only, derived', () => {
    const { data, changes } = makeData();
    expect(badField(() => data.create('Contact', { favouriteColour: 'red' }))).toEqual({
      field: 'favouriteColour',
      message: 'favouriteColour is not a known field',
    });
    expect(badField(() => data.create('Contact', { firstName: 3 })).message).toBe('firstName must be a string, got number');
    expect(badField(() => data.create('Contact', { id: 'v.contact.x' })).field).toBe('id');
    expect(badField(() => data.create('Deal', { expectedRevenue: 5 })).field).toBe('expectedRevenue');
    const derived = badField(() => data.create('User', { associations: { taskIds: [] } }));
    expect(derived.field).toBe('associations.taskIds');
    expect(derived.message).toMatch(/set ownerUserId on the task instead/);
    expect(badField(() => data.create('Deal', { probability: '40%' })).field).toBe('probability');
    expect(changes).toEqual([]);
  });

  it('refuses links to records that do not exist, naming the index, and changes nothing', () => {
    const { data, changes } = makeData();
    const account = data.crm.Account.values().next().value!;
    const before = data.crm.Contact.size;
    const error = badField(() => data.create('Contact', { associations: { accountIds: [account.id, `v.account.${'0'.repeat(32)}`] } }));
    expect(error.field).toBe('associations.accountIds[1]');
    expect(data.crm.Contact.size).toBe(before);
    expect(changes).toEqual([]);
  });

  it('keeps both ends of a link in step on create, update and delete, without mutating reported records', () => {
    const { data, changes } = makeData(false);
    const user = data.create('User', { firstName: 'Sam' });
    const account = data.create('Account', { name: 'Acme' });
    const contact = data.create('Contact', { associations: { accountIds: [account.id], ownerUserId: user.id } });
    const accountAfterLink = data.crm.Account.get(account.id) as CrmRecord<'Account'>;
    expect(accountAfterLink.associations.contactIds).toEqual([contact.id]);
    // The reported CREATE of the account still shows it as it was.
    expect((changes[1]!.record as CrmRecord<'Account'>).associations.contactIds).toEqual([]);

    const task = data.create('Task', { associations: { ownerUserId: user.id, contactIds: [contact.id] } });
    expect((data.crm.User.get(user.id) as CrmRecord<'User'>).associations.taskIds).toEqual([task.id]);
    expect((data.crm.Contact.get(contact.id) as CrmRecord<'Contact'>).associations.taskIds).toEqual([task.id]);

    const other = data.create('User', { firstName: 'Kim' });
    data.update('Task', task.id, { associations: { ownerUserId: other.id } });
    expect((data.crm.User.get(user.id) as CrmRecord<'User'>).associations.taskIds).toEqual([]);
    expect((data.crm.User.get(other.id) as CrmRecord<'User'>).associations.taskIds).toEqual([task.id]);

    data.delete('Contact', contact.id);
    expect((data.crm.Account.get(account.id) as CrmRecord<'Account'>).associations.contactIds).toEqual([]);
    expect((data.crm.Task.get(task.id) as CrmRecord<'Task'>).associations.contactIds).toEqual([]);
  });

  it('updates the fields given, bumps modifiedTime, recomputes expectedRevenue', async () => {
    const { data, changes, clock } = makeData(false);
    const deal = data.create('Deal', { amount: 1000, probability: '0.5' }) as CrmRecord<'Deal'>;
    expect(deal.expectedRevenue).toBe(500);
    await clock.advance(60_000);
    const after = data.update('Deal', deal.id, { amount: 2000 }) as CrmRecord<'Deal'>;
    expect(after.expectedRevenue).toBe(1000);
    expect(after.name).toBe(deal.name);
    expect(after.createdTime).toBe(deal.createdTime);
    expect(after.modifiedTime).toBe(new Date(START + 60_000).toISOString());
    expect(changes.map((c) => c.eventType)).toEqual(['CREATE', 'UPDATE']);
  });

  it('404s an unknown id on update and delete', () => {
    const { data } = makeData(false);
    expect(() => data.update('Contact', `v.contact.${'1'.repeat(32)}`, {})).toThrow(expect.objectContaining({ status: 404, errorCode: 'OBJECT_NOT_FOUND' }));
    expect(() => data.delete('Contact', 'nope')).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('keeps attendees consistent, and deletes them with their event or person', () => {
    const { data, changes } = makeData(false);
    const contact = data.create('Contact', {});
    const event = data.create('Event', {});
    const withContact = data.create('EventAttendee', { associatedObjectType: 'Contact', associations: { eventId: event.id, associationId: contact.id } });
    expect((withContact as CrmRecord<'EventAttendee'>).email).toBeNull();
    expect((data.crm.Contact.get(contact.id) as CrmRecord<'Contact'>).associations.eventAttendeeIds).toEqual([withContact.id]);
    const guest = data.create('EventAttendee', { associations: { eventId: event.id } }) as CrmRecord<'EventAttendee'>;
    expect(guest.associatedObjectType).toBe('Other');
    expect(guest.email).toEqual(expect.stringContaining('@'));
    expect(
      badField(() => data.create('EventAttendee', { associatedObjectType: 'Other', associations: { eventId: event.id, associationId: contact.id } })).field,
    ).toBe('associations.associationId');
    expect(badField(() => data.create('EventAttendee', { associatedObjectType: 'Lead', associations: { eventId: event.id } })).field).toBe(
      'associations.associationId',
    );
    expect(badField(() => data.create('EventAttendee', {})).field).toBe('associations.eventId');

    changes.length = 0;
    data.delete('Event', event.id);
    expect(changes.map((c) => `${c.objectType}:${c.eventType}`)).toEqual(['EventAttendee:DELETE', 'EventAttendee:DELETE', 'Event:DELETE']);
    expect(data.crm.EventAttendee.size).toBe(0);
    expect((data.crm.Contact.get(contact.id) as CrmRecord<'Contact'>).associations.eventAttendeeIds).toEqual([]);
  });

  it('gives a Lead the name of the account it is linked to unless told otherwise', () => {
    const { data } = makeData(false);
    const account = data.create('Account', { name: 'Initech' });
    expect((data.create('Lead', { associations: { accountIds: [account.id] } }) as CrmRecord<'Lead'>).account).toBe('Initech');
    expect((data.create('Lead', { account: 'Other Co', associations: { accountIds: [account.id] } }) as CrmRecord<'Lead'>).account).toBe('Other Co');
  });

  it('changes only the parts of an address given, on create and update', () => {
    const { data } = makeData(false);
    const account = data.create('Account', { address: { city: 'Paris' } }) as CrmRecord<'Account'>;
    expect(account.address!.city).toBe('Paris');
    expect(account.address!.street).toEqual(expect.any(String));
    expect(Object.keys(account.address!)).toEqual(['street', 'city', 'state', 'postalCode', 'country']);
    const moved = data.update('Account', account.id, { address: { postalCode: '75001', country: 'France' } }) as CrmRecord<'Account'>;
    expect(moved.address).toEqual({ ...account.address, postalCode: '75001', country: 'France' });
    expect((data.update('Account', account.id, { address: null }) as CrmRecord<'Account'>).address).toBeNull();
    expect(badField(() => data.update('Account', account.id, { address: { planet: 'Mars' } })).field).toBe('address.planet');
  });

  it("renames a Lead's account when its account is renamed, and only then", () => {
    const { data, changes } = makeData(false);
    const account = data.create('Account', { name: 'Initech' });
    const lead = data.create('Lead', { associations: { accountIds: [account.id] } });
    const named = data.create('Lead', { account: 'Someone else', associations: { accountIds: [account.id] } });
    changes.length = 0;
    data.update('Account', account.id, { name: 'Initrode' });
    expect((data.crm.Lead.get(lead.id) as CrmRecord<'Lead'>).account).toBe('Initrode');
    expect((data.crm.Lead.get(named.id) as CrmRecord<'Lead'>).account).toBe('Someone else');
    expect(changes.map((c) => c.objectType)).toEqual(['Account']);
  });

  it('refuses a nativeId another record of the type already has', () => {
    const { data } = makeData(false);
    const first = data.create('Contact', {});
    expect(badField(() => data.create('Contact', { nativeId: first.nativeId })).field).toBe('nativeId');
  });
});

describe('the record cap', () => {
  it('refuses a create over the cap with a 400 naming the cap and its flag, changing nothing; a delete makes room', () => {
    const { data, changes } = seededData('hubspot', { size: null, recordLimit: 3 });
    const first = data.create('Contact', {});
    data.create('Account', {});
    data.create('Deal', {});
    expect(data.recordCount).toBe(3);
    const streamBefore = JSON.stringify(data.streams.random.state());
    let refused: ApiError | undefined;
    try {
      data.create('Contact', { firstName: 'Ada' });
    } catch (error) {
      refused = error as ApiError;
    }
    expect(refused?.toBody()).toEqual({
      message: `connection ${'c'.repeat(32)} holds 3 records, and may hold at most 3 (the sandbox's record cap: recordLimit, --record-limit); delete records or raise the cap`,
      errorCode: 'RECORD_LIMIT_REACHED',
      metadata: { limit: 3, held: 3, option: 'recordLimit', flag: '--record-limit' },
    });
    expect(refused?.status).toBe(400);
    // Refused before anything was drawn or written: the same data, the same streams, no event.
    expect(JSON.stringify(data.streams.random.state())).toBe(streamBefore);
    expect(data.recordCount).toBe(3);
    expect(changes).toHaveLength(3);
    data.delete('Contact', first.id);
    expect((data.create('Contact', { firstName: 'Ada' }) as CrmRecord<'Contact'>).firstName).toBe('Ada');
  });

  it('counts seeded records and every collection, and checks a batch as a whole', () => {
    const { data } = seededData('hubspot', { recordLimit: 10_000 });
    const seeded = [...Object.values(data.crm), data.users, data.mailboxes, data.engagementTasks, data.engagementActions].reduce(
      (sum, collection) => sum + collection.size,
      0,
    );
    expect(data.recordCount).toBe(seeded);
    expect(() => data.checkRoom(10_000 - seeded)).not.toThrow();
    expect(() => data.checkRoom(10_001 - seeded)).toThrow(`holds ${seeded} records and this write adds ${10_001 - seeded}, and may hold at most 10000`);
    // No cap by default.
    expect(() => seededData('hubspot', { size: null }).data.checkRoom(Number.MAX_SAFE_INTEGER)).not.toThrow();
  });
});
