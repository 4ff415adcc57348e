import { describe, expect, it } from 'vitest';
import { seededData } from '../../test/helpers/seeded-data.js';
import { CONTACT_ADDRESS_FIELDS } from '../downstream/engagement-native.js';
import { downstreamFor } from '../downstream/index.js';
import type { CrmRecord } from '../model/crm.js';
import { ENGAGEMENT_UNMAPPED, engagementObjectOf, UNIFIED_ENGAGEMENT_OBJECTS } from './engagement-objects.js';

/**
 * ENGAGEMENT_UNMAPPED says which Contact and Account fields each platform has no place for: a
 * field is mapped exactly when a marked value written into the record shows in the platform's
 * native shape of it (a field, or a computed one such as Apollo's raw_address).
 */
const PLATFORMS = ['outreach', 'salesloft', 'apollo'] as const;
const ACCOUNT_PATHS: Record<string, (record: Record<string, any>, marker: string | number) => void> = {
  description: (record, marker) => (record.description = marker),
  industry: (record, marker) => (record.industry = marker),
  numberOfEmployees: (record, marker) => (record.numberOfEmployees = marker),
  website: (record, marker) => (record.website = marker),
  phone: (record, marker) => (record.phone = marker),
  'address.line1': (record, marker) => (record.address = { ...record.address, street: marker }),
  'address.city': (record, marker) => (record.address = { ...record.address, city: marker }),
  'address.state': (record, marker) => (record.address = { ...record.address, state: marker }),
  'address.postalCode': (record, marker) => (record.address = { ...record.address, postalCode: marker }),
  'address.country': (record, marker) => (record.address = { ...record.address, country: marker }),
};
const CONTACT_FIELDS = ['firstName', 'lastName', 'jobTitle'];

describe('ENGAGEMENT_UNMAPPED', () => {
  it.each(PLATFORMS)('%s: lists exactly the Contact and Account fields its native objects do not show', (integrationId) => {
    const { data, context } = seededData(integrationId);
    const system = downstreamFor(integrationId);
    const shows = (type: 'Contact' | 'Account', record: CrmRecord, extra: Record<string, unknown>, marker: string | number) =>
      JSON.stringify(system.nativeRecord(type, record, extra, context)).includes(String(marker));

    const account = data.crm.Account.entries()[0]!;
    const accountUnmapped = Object.entries(ACCOUNT_PATHS)
      .filter(([path, write], index) => {
        const marker = path === 'numberOfEmployees' ? 987_650 + index : `MARK${index}x`;
        const record = structuredClone(account.record) as Record<string, any>;
        write(record, marker);
        return !shows('Account', record as CrmRecord, account.extra, marker);
      })
      .map(([path]) => path);
    // An account keeps one street line: line2 is never kept.
    expect([...accountUnmapped, 'address.line2'].sort()).toEqual([...ENGAGEMENT_UNMAPPED[integrationId]!.Account].sort());

    const contact = data.crm.Contact.entries()[0]!;
    const contactUnmapped = [
      ...CONTACT_FIELDS.filter(
        (field, index) => !shows('Contact', { ...contact.record, [field]: `MARK${index}y` } as CrmRecord, contact.extra, `MARK${index}y`),
      ),
      ...['line1', 'line2', 'city', 'state', 'postalCode', 'country'].flatMap((part, index) => {
        const name = CONTACT_ADDRESS_FIELDS[integrationId]?.[part as 'city'];
        const extra = { ...contact.extra, native: name ? { [name]: `ADDR${index}z` } : {} };
        return shows('Contact', contact.record, extra, `ADDR${index}z`) ? [] : [`address.${part}`];
      }),
    ];
    expect(contactUnmapped.sort()).toEqual([...ENGAGEMENT_UNMAPPED[integrationId]!.Contact].sort());
  });

  it('every object with writes says what they take; every search its filters', () => {
    for (const object of UNIFIED_ENGAGEMENT_OBJECTS) {
      if (object.operations.includes('create')) expect(object.create?.length, object.name).toBeGreaterThan(0);
      if (object.operations.includes('search')) expect(object.filters?.length, object.name).toBeGreaterThan(0);
      if (object.operations.includes('complete') || object.operations.includes('start')) expect(object.action?.length, object.name).toBeGreaterThan(0);
    }
    expect(
      engagementObjectOf('Contact')
        .create?.filter((input) => input.beyondDocument)
        .map((input) => input.key),
    ).toEqual(['emails', 'phones']);
  });
});
