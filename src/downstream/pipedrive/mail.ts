import type { CrmRecord } from '../../model/crm.js';
import { INTEGRATIONS } from '../../model/integrations.js';
import { hash32 } from '../../shared/random.js';
import { emailOf, type Party, partyName, partyOf, textOfHtml } from '../email-fields.js';
import { computed } from '../fields.js';
import { displayName, type FieldMap, findRecord, type NativeFields, type NativeObject, renderFields } from '../rest-engine.js';
import { intParam, type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { connectionUserId } from './details.js';
import { COLLECTIONS, failure, HEADERS } from './objects.js';

/**
 * Pipedrive's mailbox (API v1), read-only as Pipedrive's API is: a mail message
 * (`mailbox/mailMessages/{id}`), the mail threads (`mailbox/mailThreads…`, one thread per stored
 * email) and the messages of a person, deal or organization (`persons/{id}/mailMessages`…).
 * https://developers.pipedrive.com/docs/api/v1/Mailbox
 */

const isoSeconds = (iso: string) => `${iso.slice(0, 19)}.000Z`;
const flag = (on: boolean) => (on ? 1 : 0);
const ownerOf = (record: CrmRecord, context: DownstreamContext) => {
  const ownerId = emailOf(record).associations.ownerUserId;
  return ownerId ? context.data.crm.User.get(ownerId) : undefined;
};
const userId = (record: CrmRecord, context: DownstreamContext) => {
  const user = ownerOf(record, context);
  return user ? Number(user.nativeId) : connectionUserId(context);
};
/** A small stable number for what Pipedrive numbers and the sandbox does not store (mail parties, connected accounts). */
const numberFor = (text: string) => (hash32(text) % 900_000) + 100_000;

/** One participant, as a mail message lists them: the person it is linked to, when the address is a contact's. */
function mailParty(party: Party): NativeFields {
  const person = party.linked?.type === 'Contact' ? party.linked.record : undefined;
  const id = numberFor(`pipedrive-mail-party:${party.email.toLowerCase()}`);
  return {
    id,
    email_address: party.email,
    name: partyName(party) ?? '',
    linked_person_id: person ? Number(person.nativeId) : null,
    linked_person_name: person ? (displayName(person) ?? '') : '',
    mail_message_party_id: id,
  };
}
const parties = (list: 'to' | 'cc' | 'bcc') =>
  computed(list, (record, context) => emailOf(record)[list].map((address) => mailParty(partyOf(address, record, context))));

const snippetOf = (record: CrmRecord) => {
  const { body, bodyHtml } = emailOf(record);
  return (body ?? (bodyHtml === null ? '' : textOfHtml(bodyHtml))).slice(0, 225);
};
const sentAt = (record: CrmRecord) => isoSeconds(emailOf(record).messageDate ?? record.createdTime);
const accountId = (record: CrmRecord, context: DownstreamContext) => `${context.org.slug}-${numberFor(`pipedrive-mail-account:${userId(record, context)}`)}`;

/** A mail message as `GetMailMessageResponse.data` lists its fields, in order. */
export const MAIL_MESSAGE: NativeObject = {
  type: 'Email',
  name: 'MailMessage',
  readOnly: true,
  fields: [
    computed('id', (record) => Number(record.nativeId)),
    computed('from', (record, context) => {
      const { from } = emailOf(record);
      return from === null ? [] : [mailParty(partyOf(from, record, context))];
    }),
    parties('to'),
    parties('cc'),
    parties('bcc'),
    computed('body_url', (record, context) => `${INTEGRATIONS.pipedrive.apiBaseUrl(context.org)}/v1/mailbox/mailMessages/${record.nativeId}?include_body=1`),
    computed('account_id', accountId),
    computed('user_id', userId),
    // Each stored email is a thread of its own.
    computed('mail_thread_id', (record) => Number(record.nativeId)),
    computed('subject', (record) => emailOf(record).subject),
    computed('snippet', snippetOf),
    computed('mail_tracking_status', () => null),
    computed('mail_link_tracking_enabled_flag', () => 0),
    computed('read_flag', () => 1),
    computed('draft', () => null),
    computed('draft_flag', () => 0),
    computed('synced_flag', () => 1),
    computed('deleted_flag', () => 0),
    computed('has_body_flag', (record) => flag(emailOf(record).body !== null || emailOf(record).bodyHtml !== null)),
    computed('sent_flag', (record) => flag(!emailOf(record).isIncoming)),
    computed('sent_from_pipedrive_flag', () => 0),
    computed('smart_bcc_flag', () => 0),
    computed('message_time', sentAt),
    computed('add_time', (record) => isoSeconds(record.createdTime)),
    computed('update_time', (record) => isoSeconds(record.modifiedTime)),
    computed('has_attachments_flag', (record) => flag(emailOf(record).hasAttachment)),
    computed('has_inline_attachments_flag', () => 0),
    computed('has_real_attachments_flag', (record) => flag(emailOf(record).hasAttachment)),
  ] satisfies FieldMap[],
};

const renderMessage = (record: CrmRecord, extra: Record<string, unknown>, context: DownstreamContext) => renderFields(MAIL_MESSAGE, record, extra, context);

/** The mail service's envelope (`MailServiceBaseResponse`). */
const mailReply = (data: unknown) => reply(200, { success: true, statusCode: 2000, statusText: 'Success', service: 'email-api', data }, HEADERS);

const findEmail = (id: string, context: DownstreamContext) => findRecord([MAIL_MESSAGE], id, context.data)?.entry;
const messageMissing = () => failure(404, 'Mail message not found');
const threadMissing = () => failure(404, 'Mail thread not found');

/** A thread's parties: its message's sender and recipients, with Pipedrive's extra per-thread keys. */
function threadParty(party: NativeFields, record: CrmRecord, sent: boolean): NativeFields {
  const { id, name, email_address, linked_person_id, linked_person_name, mail_message_party_id } = party;
  return {
    id,
    name,
    latest_sent: sent,
    email_address,
    message_time: Date.parse(emailOf(record).messageDate ?? record.createdTime),
    linked_person_id,
    linked_person_name,
    linked_organization_id: null,
    mail_message_party_id,
  };
}

const DEAL_STATUS = (deal: CrmRecord<'Deal'>) => (deal.isWon ? 'won' : deal.isClosed ? 'lost' : 'open');

/** A mail thread (`MailThreadOne`) of one stored email. */
function renderThread(record: CrmRecord, extra: Record<string, unknown>, context: DownstreamContext): NativeFields {
  const message = renderMessage(record, extra, context);
  const email = emailOf(record);
  const sent = !email.isIncoming;
  const at = sentAt(record);
  const dealId = email.associations.dealIds[0];
  const deal = dealId ? (context.data.crm.Deal.get(dealId) as CrmRecord<'Deal'> | undefined) : undefined;
  const leadId = email.associations.leadIds[0];
  const lead = leadId ? context.data.crm.Lead.get(leadId) : undefined;
  return {
    id: message.id,
    account_id: message.account_id,
    user_id: message.user_id,
    subject: message.subject,
    snippet: message.snippet,
    read_flag: 1,
    mail_tracking_status: null,
    has_attachments_flag: message.has_attachments_flag,
    has_inline_attachments_flag: 0,
    has_real_attachments_flag: message.has_real_attachments_flag,
    deleted_flag: 0,
    synced_flag: 1,
    smart_bcc_flag: 0,
    mail_link_tracking_enabled_flag: 0,
    parties: {
      to: [...(message.to as NativeFields[]), ...(message.cc as NativeFields[])].map((party) => threadParty(party, record, sent)),
      from: (message.from as NativeFields[]).map((party) => threadParty(party, record, sent)),
    },
    drafts_parties: [],
    folders: [sent ? 'sent' : 'inbox'],
    version: 1,
    snippet_draft: null,
    snippet_sent: sent ? message.snippet : '',
    message_count: 1,
    has_draft_flag: 0,
    has_sent_flag: flag(sent),
    archived_flag: 0,
    shared_flag: 1,
    external_deleted_flag: 0,
    first_message_to_me_flag: flag(!sent),
    last_message_timestamp: at,
    first_message_timestamp: at,
    last_message_sent_timestamp: sent ? at : null,
    last_message_received_timestamp: sent ? null : at,
    add_time: message.add_time,
    update_time: message.update_time,
    deal_id: deal ? Number(deal.nativeId) : null,
    deal_status: deal ? DEAL_STATUS(deal) : null,
    lead_id: lead ? lead.nativeId : null,
    all_messages_sent_flag: flag(sent),
  };
}

const FOLDERS = ['inbox', 'drafts', 'sent', 'archive'] as const;

/** The mail threads of a folder: received emails are the inbox, sent ones the sent folder; the sandbox keeps no drafts or archive. */
function listThreads(request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const folder = request.query.folder;
  if (!(FOLDERS as readonly string[]).includes(folder ?? '')) return failure(400, `folder must be one of ${FOLDERS.join(', ')}`);
  const start = intParam(request.query.start, 'start', 0, 0);
  const limit = intParam(request.query.limit, 'limit', 50, 1, 500);
  const inFolder = context.data.crm.Email.entries().filter(({ record }) =>
    folder === 'inbox' ? emailOf(record).isIncoming : folder === 'sent' ? !emailOf(record).isIncoming : false,
  );
  return reply(200, { success: true, data: inFolder.slice(start, start + limit).map(({ record, extra }) => renderThread(record, extra, context)) }, HEADERS);
}

/** The emails of a person, deal or organization: its messages, newest first, as `{ object, timestamp, data }` items. */
function messagesOf(collection: string, assoc: string) {
  return (params: Record<string, string>, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse => {
    const target = findRecord(COLLECTIONS[collection]!, params.id!, context.data);
    if (!target) return failure(404, `${COLLECTIONS[collection]![0]!.name} not found`);
    const start = intParam(request.query.start, 'start', 0, 0);
    const limit = intParam(request.query.limit, 'limit', 100, 1, 500);
    const id = target.entry.record.id;
    const emails = context.data.crm.Email.entries()
      .filter(({ record }) => ((record.associations as Record<string, string[]>)[assoc] ?? []).includes(id))
      .sort((a, b) => sentAt(b.record).localeCompare(sentAt(a.record)));
    const page = emails.slice(start, start + limit);
    const more = start + page.length < emails.length;
    return reply(
      200,
      {
        success: true,
        data:
          page.length > 0
            ? page.map(({ record, extra }) => ({
                object: 'mailMessage',
                timestamp: sentAt(record).slice(0, 19).replace('T', ' '),
                data: renderMessage(record, extra, context),
              }))
            : null,
        additional_data: { pagination: { start, limit, more_items_in_collection: more, ...(more ? { next_start: start + limit } : {}) } },
      },
      HEADERS,
    );
  };
}

/** The read-only mailbox routes. A write to any of them is Pipedrive's 404 "Unknown method ." (no write is simulated). */
export function mailRoutes(): Route[] {
  return [
    {
      method: 'GET',
      pattern: 'v1/mailbox/mailMessages/:id',
      run: (params, request, context) => {
        const found = findEmail(params.id!, context);
        if (!found) return messageMissing();
        const message = renderMessage(found.record, found.extra, context);
        if (request.query.include_body === '1') {
          const { bodyHtml, body } = emailOf(found.record);
          message.body = bodyHtml ?? body;
        }
        return mailReply(message);
      },
    },
    { method: 'GET', pattern: 'v1/mailbox/mailThreads', run: (_params, request, context) => listThreads(request, context) },
    {
      method: 'GET',
      pattern: 'v1/mailbox/mailThreads/:id',
      run: (params, _request, context) => {
        const found = findEmail(params.id!, context);
        return found ? reply(200, { success: true, data: renderThread(found.record, found.extra, context) }, HEADERS) : threadMissing();
      },
    },
    {
      method: 'GET',
      pattern: 'v1/mailbox/mailThreads/:id/mailMessages',
      run: (params, _request, context) => {
        const found = findEmail(params.id!, context);
        return found ? reply(200, { success: true, data: [renderMessage(found.record, found.extra, context)] }, HEADERS) : threadMissing();
      },
    },
    { method: 'GET', pattern: 'v1/persons/:id/mailMessages', run: messagesOf('persons', 'contactIds') },
    { method: 'GET', pattern: 'v1/deals/:id/mailMessages', run: messagesOf('deals', 'dealIds') },
    { method: 'GET', pattern: 'v1/organizations/:id/mailMessages', run: messagesOf('organizations', 'accountIds') },
  ];
}
