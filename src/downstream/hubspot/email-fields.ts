import type { CrmRecord } from '../../model/crm.js';
import { hashHex } from '../../shared/random.js';
import { bareAddress, emailOf, keptWhileAgreeing, loggerAddress, oneOf, type Party, partyOf, sameAddresses } from '../email-fields.js';
import { custom, field, owner, text, time, timeFormat } from '../fields.js';
import { FieldError, type FieldMap, isPlainObject, nativeOf, type WriteContext } from '../rest-engine.js';
import type { DownstreamContext } from '../types.js';

/**
 * HubSpot's email engagement (`crm/v3/objects/emails`, object type `0-49`), as its emails guide
 * lists the properties: https://developers.hubspot.com/docs/api/crm/email
 */

const iso = time(timeFormat.iso);

export const EMAIL_DIRECTIONS = ['EMAIL', 'INCOMING_EMAIL', 'FORWARDED_EMAIL'] as const;
export const EMAIL_STATUSES = ['BOUNCED', 'FAILED', 'SCHEDULED', 'SENDING', 'SENT'] as const;

/** One person of `hs_email_headers`. */
interface HeaderParty {
  email: string;
  firstName?: string | null;
  lastName?: string | null;
}
interface Headers {
  from: HeaderParty | null;
  sender: HeaderParty | null;
  to: HeaderParty[];
  cc: HeaderParty[];
  bcc: HeaderParty[];
}

const asHeader = (party: Party): HeaderParty => ({ email: party.email, firstName: party.firstName ?? '', lastName: party.lastName ?? '' });

/** The headers the stored email stands for, names looked up among its own people. */
function derivedHeaders(record: CrmRecord, context: DownstreamContext): Headers {
  const email = emailOf(record);
  const parties = (list: readonly string[]) => list.map((address) => asHeader(partyOf(address, record, context)));
  const from = email.from === null ? null : asHeader(partyOf(email.from, record, context));
  return { from, sender: from, to: parties(email.to), cc: parties(email.cc), bcc: parties(email.bcc) };
}

/** `hs_email_headers` as written: a JSON string of `{ from, sender, to, cc, bcc }`; an address may carry its name (`Ann <ann@x.com>`). */
function parseHeaders(value: unknown, native: string): Partial<Headers> {
  if (typeof value !== 'string') throw new FieldError(native, `${native} must be a JSON string, got ${value === null ? 'null' : typeof value}`, 'type');
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new FieldError(native, `${native} is not valid JSON`, 'value');
  }
  if (!isPlainObject(parsed)) throw new FieldError(native, `${native} must be a JSON object`, 'value');
  const party = (item: unknown, path: string): HeaderParty => {
    if (!isPlainObject(item) || typeof item.email !== 'string') throw new FieldError(native, `${native}: ${path} must be an object with an email`, 'value');
    return {
      email: bareAddress(item.email),
      firstName: typeof item.firstName === 'string' ? item.firstName : null,
      lastName: typeof item.lastName === 'string' ? item.lastName : null,
    };
  };
  const list = (key: 'to' | 'cc' | 'bcc') => {
    const items = parsed[key];
    if (!Array.isArray(items)) throw new FieldError(native, `${native}: ${key} must be an array`, 'value');
    return items.map((item, i) => party(item, `${key}[${i}]`));
  };
  const out: Partial<Headers> = {};
  if (parsed.from !== undefined && parsed.from !== null) out.from = party(parsed.from, 'from');
  for (const key of ['to', 'cc', 'bcc'] as const) if (parsed[key] !== undefined) out[key] = list(key);
  return out;
}

const addresses = (parties: readonly HeaderParty[]) => parties.map((party) => party.email);

/** Written headers still stand for the record while they name the same sender and recipients. */
function headersAgree(kept: unknown, record: CrmRecord): boolean {
  const email = emailOf(record);
  try {
    const headers = parseHeaders(kept, 'hs_email_headers');
    return (
      (headers.from?.email.toLowerCase() ?? null) === (email.from?.toLowerCase() ?? null) &&
      sameAddresses(addresses(headers.to ?? []), email.to) &&
      sameAddresses(addresses(headers.cc ?? []), email.cc) &&
      sameAddresses(addresses(headers.bcc ?? []), email.bcc)
    );
  } catch {
    return false;
  }
}

function headersOf(record: CrmRecord, context: DownstreamContext, extra: Record<string, unknown>): Partial<Headers> {
  const kept = nativeOf(extra).hs_email_headers;
  return kept !== undefined && headersAgree(kept, record) ? parseHeaders(kept, 'hs_email_headers') : derivedHeaders(record, context);
}

/** The read-only properties HubSpot fills from the headers: `hs_email_from_email`, `hs_email_to_firstname`… */
function fromHeaders(native: string, pick: (headers: Partial<Headers>) => unknown): FieldMap {
  return { native, covers: [], read: (record, context, extra) => pick(headersOf(record, context, extra)) };
}
const joined = (parties: readonly HeaderParty[] | undefined, key: keyof HeaderParty) => {
  const values = (parties ?? []).map((party) => party[key] ?? '');
  return values.some((value) => value !== '') ? values.join(';') : null;
};

/** An attachment id HubSpot would have given a seeded email's file (the sandbox simulates no files API). */
const attachmentId = (record: CrmRecord) => String(Number.parseInt(hashHex(`hubspot-attachment:${record.nativeId}`, 10), 16)).slice(0, 11);

export const EMAIL_FIELDS: FieldMap[] = [
  field('hs_timestamp', 'messageDate', iso),
  owner('hubspot_owner_id'),
  // FORWARDED_EMAIL is kept as written; the unified record knows incoming or not.
  keptWhileAgreeing(
    'hs_email_direction',
    ['isIncoming'],
    (record) => (emailOf(record).isIncoming ? 'INCOMING_EMAIL' : 'EMAIL'),
    (kept, record) => (kept === 'INCOMING_EMAIL') === emailOf(record).isIncoming,
    (value) => ({ isIncoming: oneOf(EMAIL_DIRECTIONS, value, 'hs_email_direction') === 'INCOMING_EMAIL' }),
  ),
  custom(
    'hs_email_status',
    ['status', 'isBounced'],
    (record) => emailOf(record).status,
    (value) => {
      const status = oneOf(EMAIL_STATUSES, value, 'hs_email_status');
      return { status, isBounced: status === 'BOUNCED' };
    },
  ),
  field('hs_email_subject', 'subject', text),
  field('hs_email_text', 'body', text),
  field('hs_email_html', 'bodyHtml', text),
  keptWhileAgreeing(
    'hs_email_headers',
    ['from', 'to', 'cc', 'bcc'],
    (record, context) => JSON.stringify(derivedHeaders(record, context)),
    headersAgree,
    (value) => {
      const headers = parseHeaders(value, 'hs_email_headers');
      return {
        ...(headers.from ? { from: headers.from.email } : {}),
        ...(headers.to ? { to: addresses(headers.to) } : {}),
        ...(headers.cc ? { cc: addresses(headers.cc) } : {}),
        ...(headers.bcc ? { bcc: addresses(headers.bcc) } : {}),
      };
    },
  ),
  keptWhileAgreeing(
    'hs_attachment_ids',
    ['hasAttachment'],
    (record) => (emailOf(record).hasAttachment ? attachmentId(record) : null),
    (kept, record) => (typeof kept === 'string' && kept !== '') === emailOf(record).hasAttachment,
    (value) => {
      const ids = text.in(value, 'hs_attachment_ids');
      return { hasAttachment: typeof ids === 'string' && ids.trim() !== '' };
    },
  ),
  fromHeaders('hs_email_from_email', (headers) => headers.from?.email ?? null),
  fromHeaders('hs_email_from_firstname', (headers) => headers.from?.firstName || null),
  fromHeaders('hs_email_from_lastname', (headers) => headers.from?.lastName || null),
  fromHeaders('hs_email_to_email', (headers) => joined(headers.to, 'email')),
  fromHeaders('hs_email_to_firstname', (headers) => joined(headers.to, 'firstName')),
  fromHeaders('hs_email_to_lastname', (headers) => joined(headers.to, 'lastName')),
];

/**
 * What a logged email starts from: HubSpot requires only `hs_timestamp`; the unified Email always
 * has a sender and a subject, so one logged without headers is from the user it names as owner
 * (else the connection's first user), and one without a subject has an empty one.
 */
export const emailDefaults = (write: WriteContext) => ({ from: loggerAddress(write, 'hubspot_owner_id'), subject: '' });
