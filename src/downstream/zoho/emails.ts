import type { CrmObjectType, CrmRecord } from '../../model/crm.js';
import { hashHex } from '../../shared/random.js';
import { bareAddress, emailOf, partyName, partyOf, textOfHtml } from '../email-fields.js';
import { computed } from '../fields.js';
import { displayName, FieldError, type FieldMap, findRecord, isPlainObject, type NativeFields, type NativeObject, renderFields } from '../rest-engine.js';
import { intParam, type Route, reply } from '../router.js';
import type { DownstreamContext, DownstreamRequest, DownstreamResponse } from '../types.js';
import { zohoTimeFormat } from './formats.js';
import { errors, HEADERS, MODULES } from './objects.js';

/**
 * Zoho CRM v3's emails: a related list of Leads, Contacts, Accounts and Deals
 * (`{Module}/{id}/Emails`, one email at `…/Emails/{message_id}`), and a send
 * (`{Module}/{id}/actions/send_mail`) that logs the email on the record. API v3 answers under
 * `email_related_list` (v4 renamed it `Emails`); the fields follow Zoho's published OpenAPI
 * document of the related list (zoho/crm-oas, `email_related_records.json`).
 * https://www.zoho.com/crm/developer/docs/api/v3/get-email-rel-list.html,
 * https://www.zoho.com/crm/developer/docs/api/v3/send-mail.html
 */

/** The modules with an Emails related list, and the association each one's emails are linked by. */
const LINKED_BY: Record<string, { type: CrmObjectType; assoc: 'contactIds' | 'leadIds' | 'accountIds' | 'dealIds' }> = {
  Leads: { type: 'Lead', assoc: 'leadIds' },
  Contacts: { type: 'Contact', assoc: 'contactIds' },
  Accounts: { type: 'Account', assoc: 'accountIds' },
  Deals: { type: 'Deal', assoc: 'dealIds' },
};
/** Zoho numbers its modules; the sandbox derives a stable id from the name. */
const moduleId = (apiName: string) =>
  `5${String(Number.parseInt(hashHex(`zoho-module:${apiName}`, 13), 16))
    .padStart(18, '0')
    .slice(0, 18)}`;

const PAGE = 10;

const userDetails = (address: string, record: CrmRecord, context: DownstreamContext) => ({
  user_name: partyName(partyOf(address, record, context)) ?? bareAddress(address).split('@')[0]!,
  email: address,
});
const details = (list: 'to' | 'cc') => computed(list, (record, context) => emailOf(record)[list].map((address) => userDetails(address, record, context)));
const zohoTime = (record: CrmRecord) => zohoTimeFormat(emailOf(record).messageDate ?? record.createdTime);

/** The record an email is listed under: the one asked for, else its first contact, lead, deal or account. */
function linkedRecord(record: CrmRecord, context: DownstreamContext, under?: { module: string; record: CrmRecord }): NativeFields | null {
  const found =
    under ??
    (Object.entries(LINKED_BY)
      .map(([module, { type, assoc }]) => {
        const id = emailOf(record).associations[assoc][0];
        const linked = id ? context.data.crm[type].get(id) : undefined;
        return linked ? { module, record: linked } : undefined;
      })
      .find(Boolean) as { module: string; record: CrmRecord } | undefined);
  if (!found) return null;
  return { id: found.record.nativeId, name: displayName(found.record), module: { api_name: found.module, id: moduleId(found.module) } };
}

/** The email's status: sent or bounced, as the unified status says. */
function statusOf(record: CrmRecord): NativeFields[] {
  const { status, isBounced } = emailOf(record);
  const type = isBounced ? 'bounced' : (status ?? 'sent').toLowerCase();
  return [{ type, bounced_time: isBounced ? zohoTime(record) : null, bounced_reason: null }];
}

/** An email as the related list shows it (the fields `email` requires, in Zoho's order). */
const LIST_FIELDS: FieldMap[] = [
  details('cc'),
  computed('summary', () => null),
  computed('owner', (record, context) => {
    const ownerId = emailOf(record).associations.ownerUserId;
    const user = ownerId ? context.data.crm.User.get(ownerId) : undefined;
    return user ? { name: displayName(user), id: user.nativeId } : { name: context.org.slug, id: context.org.nativeUserId };
  }),
  computed('read', () => true),
  computed('sent', (record) => !emailOf(record).isIncoming),
  computed('subject', (record) => emailOf(record).subject),
  computed('activity_info', () => null),
  computed('intent', () => null),
  computed('sentiment_info', () => null),
  computed('message_id', (record) => record.nativeId),
  computed('source', () => 'crm_mail'),
  computed('linked_record', (record, context) => linkedRecord(record, context)),
  computed('emotion', () => null),
  computed('from', (record, context) => {
    const { from } = emailOf(record);
    return from === null ? null : userDetails(from, record, context);
  }),
  details('to'),
  computed('time', zohoTime),
  computed('status', statusOf),
  computed('has_attachment', (record) => emailOf(record).hasAttachment),
  computed('has_thread_attachment', () => false),
  computed('editable', () => false),
  computed('sent_time', zohoTime),
];

/** One email as `…/Emails/{message_id}` shows it: the list's fields, its content and format. */
export const EMAIL: NativeObject = {
  type: 'Email',
  name: 'Emails',
  readOnly: true,
  fields: [
    ...LIST_FIELDS,
    computed('content', (record) => emailOf(record).bodyHtml ?? emailOf(record).body),
    computed('mail_format', (record) => (emailOf(record).bodyHtml === null ? 'text' : 'html')),
    computed('attachments', () => []),
  ],
};
const LIST_ITEM: NativeObject = { ...EMAIL, fields: LIST_FIELDS };

interface Parent {
  module: string;
  record: CrmRecord;
}

function parentOf(params: Record<string, string>, request: DownstreamRequest, context: DownstreamContext): Parent | DownstreamResponse {
  const module = params.module!;
  // A module name is any path segment (`constructor` too): looked up as an own key only.
  if (!Object.hasOwn(LINKED_BY, module) || !Object.hasOwn(MODULES, module)) return errors.notFound(request, context);
  const target = MODULES[module]!;
  const found = findRecord([target], params.id!, context.data);
  if (!found) {
    return reply(404, { data: [{ code: 'INVALID_DATA', details: { id: params.id }, message: 'the id given seems to be invalid', status: 'error' }] }, HEADERS);
  }
  return { module, record: found.entry.record };
}
const isParent = (value: Parent | DownstreamResponse): value is Parent => 'module' in value;

const emailsOf = (parent: Parent, context: DownstreamContext) => {
  const assoc = LINKED_BY[parent.module]!.assoc;
  return context.data.crm.Email.entries().filter(({ record }) => emailOf(record).associations[assoc].includes(parent.record.id));
};

function render(object: NativeObject, entry: { record: CrmRecord; extra: Record<string, unknown> }, parent: Parent, context: DownstreamContext): NativeFields {
  return { ...renderFields(object, entry.record, entry.extra, context), linked_record: linkedRecord(entry.record, context, parent) };
}

/** Ten emails a call, the next ten by `index` (`info.next_index`); none is a 204. */
function listEmails(parent: Parent, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const all = emailsOf(parent, context);
  const start = intParam(request.query.index, 'index', 0, 0);
  const page = all.slice(start, start + PAGE);
  if (page.length === 0) return reply(204, null, HEADERS);
  const more = start + page.length < all.length;
  return reply(
    200,
    {
      email_related_list: page.map((entry) => render(LIST_ITEM, entry, parent, context)),
      info: {
        per_page: PAGE,
        count: page.length,
        next_index: more ? String(start + PAGE) : null,
        prev_index: start > 0 ? String(Math.max(0, start - PAGE)) : null,
        more_records: more,
      },
    },
    HEADERS,
  );
}

const userDetailsIn = (value: unknown, path: string): { user_name: string | null; email: string } => {
  if (!isPlainObject(value) || typeof value.email !== 'string' || value.email.trim() === '') {
    throw new FieldError(path, `${path} must be an object with an email`, 'value');
  }
  return { user_name: typeof value.user_name === 'string' ? value.user_name : null, email: bareAddress(value.email) };
};
const listIn = (value: unknown, path: string) => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new FieldError(path, `${path} must be an array`, 'type');
  return value.map((item, i) => userDetailsIn(item, `${path}[${i}]`).email);
};

/**
 * Sends an email from the record: it is logged on it as a sent email, owned by the user whose
 * address it is from (else the connection's first user). `from` and `to` are required, as Zoho
 * requires them; `mail_format` is `html` (the default) or `text`.
 */
function sendMail(parent: Parent, request: DownstreamRequest, context: DownstreamContext): DownstreamResponse {
  const body = request.body;
  const data = isPlainObject(body) && Array.isArray(body.data) ? body.data : [];
  const mail = data[0];
  if (data.length !== 1 || !isPlainObject(mail)) throw new FieldError('data', 'One of the expected parameter is missing', 'body', 'REQUIRED_PARAM_MISSING');
  for (const key of ['from', 'to']) if (mail[key] === undefined || mail[key] === null) throw new FieldError(key, `${key} is required`, 'required');
  const from = userDetailsIn(mail.from, 'from').email;
  const to = listIn(mail.to, 'to');
  if (to.length === 0) throw new FieldError('to', 'to is required', 'required');
  const format = mail.mail_format ?? 'html';
  if (format !== 'html' && format !== 'text') throw new FieldError('mail_format', 'mail_format must be html or text', 'value');
  for (const key of ['subject', 'content']) {
    if (mail[key] !== undefined && mail[key] !== null && typeof mail[key] !== 'string') throw new FieldError(key, `${key} must be a string`, 'type');
  }
  const content = (mail.content as string | undefined) ?? '';
  const sender = context.data.crm.User.entries().find(({ record }) => (record as CrmRecord<'User'>).email?.toLowerCase() === from.toLowerCase());
  const { assoc } = LINKED_BY[parent.module]!;
  const record = context.data.create('Email', {
    from,
    to,
    cc: listIn(mail.cc, 'cc'),
    bcc: listIn(mail.bcc, 'bcc'),
    subject: (mail.subject as string | undefined) ?? '',
    body: format === 'html' ? textOfHtml(content) : content,
    bodyHtml: format === 'html' ? content : null,
    messageDate: new Date(context.now).toISOString(),
    isIncoming: false,
    isBounced: false,
    hasAttachment: false,
    status: 'SENT',
    associations: { [assoc]: [parent.record.id], ...(sender ? { ownerUserId: sender.record.id } : {}) },
  });
  return reply(
    200,
    { data: [{ code: 'SUCCESS', details: { message_id: record.nativeId }, message: 'Your mail has been sent successfully.', status: 'success' }] },
    HEADERS,
  );
}

const withParent =
  (run: (parent: Parent, params: Record<string, string>, request: DownstreamRequest, context: DownstreamContext) => DownstreamResponse): Route['run'] =>
  (params, request, context) => {
    const parent = parentOf(params, request, context);
    return isParent(parent) ? run(parent, params, request, context) : parent;
  };

export function emailRoutes(): Route[] {
  return [
    { method: 'GET', pattern: ':module/:id/Emails', run: withParent((parent, _params, request, context) => listEmails(parent, request, context)) },
    {
      method: 'GET',
      pattern: ':module/:id/Emails/:messageId',
      run: withParent((parent, params, _request, context) => {
        const entry = emailsOf(parent, context).find(({ record }) => record.nativeId === params.messageId);
        if (!entry) {
          return reply(
            404,
            {
              data: [{ code: 'INVALID_DATA', details: { message_id: params.messageId }, message: 'the message id given seems to be invalid', status: 'error' }],
            },
            HEADERS,
          );
        }
        return reply(200, { email_related_list: [render(EMAIL, entry, parent, context)] }, HEADERS);
      }),
    },
    { method: 'POST', pattern: ':module/:id/actions/send_mail', run: withParent((parent, _params, request, context) => sendMail(parent, request, context)) },
  ];
}
