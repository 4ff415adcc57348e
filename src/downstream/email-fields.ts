import type { CrmRecord } from '../model/crm.js';
import { FieldError, type FieldMap, NATIVE_PATH, nativeOf, type WriteContext } from './rest-engine.js';
import type { DownstreamContext } from './types.js';

/**
 * What the CRMs' email objects share: addresses as the systems write them, the people behind an
 * address, and the native values an email keeps while they still agree with the stored record.
 */

export const emailOf = (record: CrmRecord) => record as CrmRecord<'Email'>;

/** An address as written, `ada@example.com` or `Ada Lovelace <ada@example.com>`: the address alone. */
export function bareAddress(text: string): string {
  const open = text.lastIndexOf('<');
  const close = text.indexOf('>', open);
  return (open >= 0 && close > open ? text.slice(open + 1, close) : text).trim();
}

/** The addresses of one native text (`a@x.com; b@y.com`, or comma-separated): each bare, empty ones dropped. */
export function splitAddresses(text: string): string[] {
  return text
    .split(/[;,]/)
    .map(bareAddress)
    .filter((address) => address !== '');
}

/** Someone an email names, with their name when the email's own people (its owner, contacts and leads) include them. */
export interface Party {
  email: string;
  firstName: string | null;
  lastName: string | null;
  /** The record the address belongs to, and its type. */
  linked?: { type: 'User' | 'Contact' | 'Lead'; record: CrmRecord };
}

type Person = CrmRecord<'User'> | CrmRecord<'Contact'> | CrmRecord<'Lead'>;

/** The party behind an address: looked up among the records the email links (a few), never the whole store. */
export function partyOf(address: string, record: CrmRecord, context: DownstreamContext): Party {
  const { associations } = emailOf(record);
  const wanted = address.toLowerCase();
  const candidates: Array<['User' | 'Contact' | 'Lead', string | null | undefined]> = [
    ['User', associations.ownerUserId],
    ...associations.contactIds.map((id) => ['Contact', id] as ['Contact', string]),
    ...associations.leadIds.map((id) => ['Lead', id] as ['Lead', string]),
  ];
  for (const [type, id] of candidates) {
    const person = id ? (context.data.crm[type].get(id) as Person | undefined) : undefined;
    if (person?.email?.toLowerCase() === wanted) {
      return { email: address, firstName: person.firstName, lastName: person.lastName, linked: { type, record: person } };
    }
  }
  return { email: address, firstName: null, lastName: null };
}

/** A party's full name, or null. */
export const partyName = (party: Party): string | null => [party.firstName, party.lastName].filter(Boolean).join(' ') || null;

/**
 * The sender of an email a native create logs without one: the user it names as owner (by the
 * native id in `ownerField`), else the connection's first user, to whom the store gives it.
 */
export function loggerAddress(write: WriteContext, ownerField?: string): string | null {
  const { data } = write.context;
  const named = ownerField === undefined ? undefined : write.body[ownerField];
  const owner =
    typeof named === 'string' || typeof named === 'number' ? data.crm.User.getByNativeId(String(named))?.record : data.crm.User.slice(0, 1)[0]?.record;
  return (owner as CrmRecord<'User'> | undefined)?.email ?? null;
}

/**
 * A native value the email keeps as written while it agrees with the stored record (HubSpot's
 * `hs_email_direction` FORWARDED_EMAIL, names in headers); once a unified write changes what it
 * stands for, `derive` answers from the record instead.
 */
export function keptWhileAgreeing(
  native: string,
  covers: readonly string[],
  derive: (record: CrmRecord, context: DownstreamContext) => unknown,
  agrees: (kept: unknown, record: CrmRecord) => boolean,
  write: (value: unknown, write: WriteContext) => Record<string, unknown>,
): FieldMap {
  return {
    native,
    covers,
    read: (record, context, extra) => {
      const values = nativeOf(extra);
      return Object.hasOwn(values, native) && agrees(values[native], record) ? values[native] : derive(record, context);
    },
    write: (value, context) => ({ ...write(value, context), [`${NATIVE_PATH}.${native}`]: value }),
  };
}

/** Two address lists that name the same people, in order, whatever the case. */
export const sameAddresses = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((address, i) => address.toLowerCase() === b[i]!.toLowerCase());

/** One of a closed list of native values, else a FieldError naming the field and the values it takes. */
export function oneOf<T extends string>(values: readonly T[], value: unknown, native: string): T {
  if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
  throw new FieldError(native, `${JSON.stringify(value)} was not one of the allowed options: ${values.join(', ')}`, 'value');
}

/** The text of an HTML body: its tags dropped, its lines kept (a linear pass: no backtracking on long input). */
export function textOfHtml(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/p>/gi, '\n')
    .replace(/<[^<>]*>/g, '')
    .replaceAll('&nbsp;', ' ')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
    .trim();
}
