import type { CrmRecord } from '../../model/crm.js';
import { emailOf, loggerAddress, partyName, partyOf, splitAddresses } from '../email-fields.js';
import { computed, field, readOnly, ref, stored, time, to, type ValueConverter, writeOnly } from '../fields.js';
import { FieldError, type FieldMap, type WriteContext } from '../rest-engine.js';
import { salesforceTimeFormat } from './formats.js';

/**
 * Salesforce's EmailMessage (key prefix `02s`), an Enhanced Email logged on an account or an
 * opportunity: https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_emailmessage.htm
 * Its rules: a sent email is read-only but for IsExternallyVisible and custom fields (and Status
 * from New to Read); a Draft (Status '5') may be edited; Incoming is set on create only.
 */

const sfTime = time(salesforceTimeFormat);

/** The Status picklist ('0' New … '5' Draft) and the unified status each stands for; a bounced email was sent. */
const STATUS_WORDS: Record<string, string> = { '0': 'NEW', '1': 'READ', '2': 'REPLIED', '3': 'SENT', '4': 'FORWARDED', '5': 'DRAFT' };
const STATUS_CODES: Record<string, string> = { ...Object.fromEntries(Object.entries(STATUS_WORDS).map(([code, word]) => [word, code])), BOUNCED: '3' };
export const STATUS_VALUES = Object.keys(STATUS_WORDS);

export function statusCode(record: CrmRecord): string {
  const { status, isIncoming } = emailOf(record);
  if (status === null) return isIncoming ? '0' : '3';
  const upper = status.toUpperCase();
  return Object.hasOwn(STATUS_CODES, upper) ? STATUS_CODES[upper]! : Object.hasOwn(STATUS_WORDS, status) ? status : '3';
}
const isDraft = (record: CrmRecord) => statusCode(record) === '5';

const notDraft = (native: string) =>
  new FieldError(
    native,
    `Unable to update ${native}: an email message can be edited only while its Status is Draft`,
    'readOnly',
    'INSUFFICIENT_ACCESS_OR_READONLY',
  );

/** A field map whose writes `refuse` may turn down, by the record they would change (undefined on create). */
function guarded(map: FieldMap, refuse: (current: CrmRecord | undefined) => FieldError | undefined): FieldMap {
  const write = map.write!;
  return {
    ...map,
    write: (value, context) => {
      const error = refuse(context.current);
      if (error) throw error;
      return write(value, context);
    },
  };
}

/** A field Salesforce lets a create set, and an update only while the email is a draft. */
const draftOnly = (map: FieldMap) => guarded(map, (current) => (current && !isDraft(current) ? notDraft(map.native) : undefined));

/** A field only a create may set (Incoming). */
const createOnly = (map: FieldMap) =>
  guarded(map, (current) => (current ? new FieldError(map.native, `${map.native} is set on create only`, 'readOnly') : undefined));

const status: FieldMap = {
  native: 'Status',
  covers: ['status'],
  read: statusCode,
  write: (value, { current }) => {
    if (typeof value !== 'string' || !Object.hasOwn(STATUS_WORDS, value)) {
      throw new FieldError('Status', `bad value for restricted picklist field: ${String(value)}`, 'value', 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST');
    }
    if (current) {
      const from = statusCode(current);
      // The status of a sent email may only go from New to Read.
      if (value === from) return {};
      if (!isDraft(current) && !(from === '0' && value === '1')) throw notDraft('Status');
    }
    return { status: STATUS_WORDS[value] };
  },
};

/** `a@x.com; b@y.com`: one text natively, a list of addresses in the unified record. */
const addressText: ValueConverter = {
  out: (value) => (Array.isArray(value) && value.length > 0 ? value.join('; ') : null),
  in: (value, native) => {
    if (value === null || value === '') return [];
    if (typeof value !== 'string') throw new FieldError(native, `${native} must be a string, got ${Array.isArray(value) ? 'array' : typeof value}`, 'type');
    return splitAddresses(value);
  },
};

const RECIPIENTS = [
  ['to', 'ToAddress', 'ToIds'],
  ['cc', 'CcAddress', 'CcIds'],
  ['bcc', 'BccAddress', 'BccIds'],
] as const;

/**
 * The recipients a body writes, worked out from all six of its recipient fields at once (so the
 * order they come in does not matter): each list is its addresses and the addresses of the
 * contacts, leads and users its ids name; the contacts and leads become the email's own.
 */
function recipients(write: WriteContext): Record<string, unknown> {
  const { body, context, current } = write;
  const out: Record<string, unknown> = {};
  const email = current ? emailOf(current) : undefined;
  const contactIds = new Set(email?.associations.contactIds ?? []);
  const leadIds = new Set(email?.associations.leadIds ?? []);
  let linked = false;
  for (const [list, addressField, idsField] of RECIPIENTS) {
    if (!(addressField in body) && !(idsField in body)) continue;
    const addresses = addressField in body ? (addressText.in(body[addressField], addressField) as string[]) : [...(email?.[list] ?? [])];
    const ids = body[idsField] ?? [];
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw new FieldError(idsField, `${idsField} must be an array of ids`, 'type');
    for (const id of ids as string[]) {
      const contact = context.data.crm.Contact.getByNativeId(id)?.record;
      const lead = contact ? undefined : context.data.crm.Lead.getByNativeId(id)?.record;
      const user = contact || lead ? undefined : context.data.crm.User.getByNativeId(id)?.record;
      const person = (contact ?? lead ?? user) as CrmRecord<'Contact'> | undefined;
      if (!person) throw new FieldError(idsField, `${idsField}: no Contact, Lead or User with id ${JSON.stringify(id)}`, 'reference');
      if (contact) contactIds.add(contact.id);
      if (lead) leadIds.add(lead.id);
      linked ||= !user;
      if (person.email && !addresses.some((address) => address.toLowerCase() === person.email!.toLowerCase())) addresses.push(person.email);
    }
    out[list] = addresses;
  }
  if (linked) Object.assign(out, { 'associations.contactIds': [...contactIds], 'associations.leadIds': [...leadIds] });
  return out;
}

const recipientAddresses = (list: 'to' | 'cc' | 'bcc', native: string): FieldMap => ({
  native,
  covers: [list],
  read: (record) => addressText.out(emailOf(record)[list]),
  write: (_value, write) => recipients(write),
});
const recipientIds = (list: 'to' | 'cc' | 'bcc', native: string): FieldMap =>
  writeOnly({ native, covers: [list, 'associations.contactIds', 'associations.leadIds'], write: (_value, write) => recipients(write) });

const nothing = () => null;
const textOrNull = (value: unknown, native: string) => {
  if (value === null || typeof value === 'string') return value;
  throw new FieldError(native, `${native} must be a string`, 'type');
};

export const EMAIL_MESSAGE_FIELDS: FieldMap[] = [
  computed('ActivityId', nothing),
  draftOnly(field('TextBody', 'body')),
  draftOnly(field('HtmlBody', 'bodyHtml')),
  draftOnly(stored('Headers', nothing, textOrNull)),
  draftOnly(field('Subject', 'subject')),
  // The sender's name as written, else the name of the user, contact or lead the address is.
  draftOnly(
    stored(
      'FromName',
      (record, context) => {
        const { from } = emailOf(record);
        return from === null ? null : partyName(partyOf(from, record, context));
      },
      textOrNull,
    ),
  ),
  draftOnly(field('FromAddress', 'from')),
  ...RECIPIENTS.map(([list, addressField]) => draftOnly(recipientAddresses(list, addressField))),
  createOnly(field('Incoming', 'isIncoming')),
  readOnly('HasAttachment', 'hasAttachment'),
  status,
  draftOnly(field('MessageDate', 'messageDate', sfTime)),
  computed('ReplyToEmailMessageId', nothing),
  stored(
    'IsExternallyVisible',
    () => false,
    (value, native) => {
      if (typeof value !== 'boolean') throw new FieldError(native, `${native} must be a boolean`, 'type');
      return value;
    },
  ),
  computed('MessageIdentifier', nothing),
  computed('ThreadIdentifier', nothing),
  computed('IsClientManaged', () => false),
  // Related to one record: the opportunity when the email has one, else the account.
  draftOnly(ref('RelatedToId', [to('Deal', 'dealIds'), to('Account', 'accountIds')])),
  computed('IsTracked', () => false),
  computed('IsOpened', () => false),
  computed('FirstOpenedDate', nothing),
  computed('LastOpenedDate', nothing),
  readOnly('IsBounced', 'isBounced'),
  ...RECIPIENTS.map(([list, , idsField]) => draftOnly(recipientIds(list, idsField))),
];

/**
 * What a create starts from: Salesforce requires only Status. The unified Email always has a
 * sender and a subject, so one logged without FromAddress is from the API user (the connection's
 * first user, who owns it), and one without a Subject has an empty one.
 */
export const emailMessageDefaults = (write: WriteContext) => ({ from: loggerAddress(write), subject: '', isBounced: false, hasAttachment: false });
