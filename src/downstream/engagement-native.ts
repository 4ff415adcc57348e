import type { EngagementCollection, EngagementUser, Mailbox } from '../model/engagement.js';
import type { ConnectionData } from '../store/connection-data.js';
import { factOfEach } from './facts.js';

/**
 * Helpers for engagement mailboxes and users in native shapes. They have no native id in the
 * store, only a 32-hex id, so systems show one derived from it, the same every time: the
 * insertion number where ids are integers, a prefix of the hex where ids are hex or keyed.
 */
export function engagementSeq(collection: EngagementCollection, id: string, data: ConnectionData): number | null {
  return (collection === 'mailboxes' ? data.mailboxes.entry(id) : data.users.entry(id))?.seq ?? null;
}

export const engagementHex24 = (id: string) => id.slice(0, 24);

/** A Salesforce-style 18-character id with the given key prefix. */
export const engagementSalesforceId = (prefix: string, id: string) => `${prefix}${id.slice(0, 15).toUpperCase()}`;

/** The engagement user a mailbox belongs to. */
export function mailboxOwner(mailbox: Mailbox, data: ConnectionData): EngagementUser | undefined {
  const ownerId = mailbox.associations.ownerUserId;
  return ownerId === null ? undefined : data.users.get(ownerId);
}

/** Narrows the record by the collection it came from. */
export const isMailbox = (collection: EngagementCollection, _record: Mailbox | EngagementUser): _record is Mailbox => collection === 'mailboxes';

export const fullName = (user: EngagementUser) => [user.firstName, user.lastName].filter(Boolean).join(' ');

/** The record's times under native names and format; null where the record has none (Apollo's). */
export function engagementTimes(
  record: Mailbox | EngagementUser,
  names: [created: string, modified: string],
  format: (iso: string) => string = (iso) => iso,
): Record<string, string | null> {
  return {
    [names[0]]: record.createdTime ? format(record.createdTime) : null,
    [names[1]]: record.modifiedTime ? format(record.modifiedTime) : null,
  };
}

/** Where each engagement platform keeps a contact's address (`contactAddressFields` of its `<system>/facts.ts`); `{}` for a CRM. */
export const CONTACT_ADDRESS_FIELDS = factOfEach('contactAddressFields');
