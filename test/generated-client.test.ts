import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import type { CrmObjectType } from '../src/model/crm.js';
import { INTEGRATIONS, type IntegrationId } from '../src/model/integrations.js';
import { ENGAGEMENT_UNMAPPED } from '../src/unified/engagement-objects.js';
import { UNMAPPED } from '../src/unified/view.js';
import { type Form, memberValue, queryText, resolve, type SeededIds } from './helpers/document-requests.js';
import { openApiChecker } from './helpers/openapi-conformance.js';
import { callSandbox } from './helpers/sandbox-call.js';
import { serviceDocument } from './helpers/service-document.js';

/**
 * Every operation of the service's v1 document (test/fixtures/service-v1-document.json), called
 * as a client generated from it calls it (the service's own Python SDK is one): a request built
 * from the operation's schemas, once with every optional member set and once with every optional
 * member `null` (test/helpers/document-requests.ts), ids taken from the seed, on every
 * integration the operation serves. Each answers 200 and validates against the document's answer
 * schema, but where the document excepts an integration: there the sandbox refuses by name (400
 * INVALID_FIELD_VALUE naming the field) and the same request without the excepted members
 * answers 200. Where the document contradicts itself, the case names the decision that settles it.
 */
const document = serviceDocument();
const checkAnswer = openApiChecker(document);
const CRMS: IntegrationId[] = ['salesforce', 'hubspot', 'pipedrive', 'zoho'];
const PLATFORMS: IntegrationId[] = ['outreach', 'salesloft', 'apollo'];
const KEY = 'generated-client';

/**
 * Members the document says an integration does not support (its "Not supported by …" notes), by
 * schema: what the sandbox refuses by name in a write there (decision 0044). The rest of the
 * document's notes the sandbox simulates (a Pipedrive organization keeps its industry).
 */
const EXCEPTED: Record<string, Partial<Record<IntegrationId, readonly string[]>>> = {
  EventCreate: { hubspot: ['isAllDayEvent'], pipedrive: ['isAllDayEvent'] },
  EventUpdate: { hubspot: ['isAllDayEvent'], pipedrive: ['isAllDayEvent'] },
  TaskCreate: { pipedrive: ['priority'] },
  TaskUpdate: { pipedrive: ['priority'] },
  AccountCreate: { pipedrive: ['description', 'phone'] },
  AccountUpdate: { pipedrive: ['description', 'phone'] },
  LeadCreate: { pipedrive: ['account'] },
  // The sandbox keeps a lead's name as its title there.
  LeadUpdate: { pipedrive: ['email', 'account', 'phone', 'mobilePhone'] },
};

/**
 * Members the document marks optional that an operation cannot do without (a batch without `ids`,
 * an update without its record): a generated client's caller always gives them, and the sandbox
 * requires them (decision 0043), so both forms give them.
 */
const NEEDED = new Set(['ids', 'id', 'email', 'accessToken', 'contact', 'account', 'deal', 'lead', 'note', 'task', 'event', 'eventAttendee', 'fields']);

interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Array<{ name: string; required?: boolean; schema: any }>;
  body?: any;
  /** The schema name of the record a write sends (`ContactCreate`), for EXCEPTED. */
  writeSchema?: string;
}

/** The document's operations, with their parameters and body schemas resolved. */
function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      if (method === 'parameters') continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter: any) => resolve(parameter, document));
      let body = operation.requestBody?.content?.['application/json']?.schema;
      // The document gives the attendee writes' bodies as their answers (decision 0043 reads them so).
      if (!body && /^\/crm\/event\/attendee$/.test(path) && method !== 'get') body = operation.responses['200'].content['application/json'].schema;
      const writeRef =
        body && Object.values<any>(resolve(body, document).properties ?? {}).find((member) => member.$ref && /(Create|Update)$/.test(member.$ref))?.$ref;
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        parameters,
        ...(body ? { body } : {}),
        ...(writeRef ? { writeSchema: String(writeRef).split('/').pop() } : {}),
      });
    }
  }
  return out;
}

/** The integrations an operation serves: a CRM's, an engagement platform's, or (users and mailboxes, the spec's lists) every one. */
function integrationsOf(path: string): IntegrationId[] {
  if (path === '/engagement/users' || path === '/engagement/mailboxes') return [...CRMS, ...PLATFORMS];
  if (path.startsWith('/crm/')) return CRMS;
  if (path.startsWith('/engagement/')) return PLATFORMS;
  return ['hubspot'];
}

/** The record an operation's `id` names: `Contact`, `engagement.task`… */
function idKindOf(path: string): string | undefined {
  const crm = /^\/crm\/(user|contact|deal|account|lead|note|task|event\/attendee|event|email)(?:\/|$)/.exec(path);
  if (crm) return crm[1] === 'event/attendee' ? 'EventAttendee' : crm[1]![0]!.toUpperCase() + crm[1]!.slice(1);
  const engagement = /^\/engagement\/(user|account|contact|task|action|call|email|sequence)(?:\/|$)/.exec(path);
  return engagement ? `engagement.${engagement[1]}` : undefined;
}

describe('every operation of the document, as a generated client calls it', () => {
  let sandbox: Sandbox;
  const connections = new Map<IntegrationId, { accessToken: string; ids: SeededIds }>();
  const call = (method: string, path: string, options: { query?: Record<string, string>; body?: unknown } = {}) => {
    const query = new URLSearchParams(options.query ?? {}).toString();
    return callSandbox(sandbox, method, query ? `${path}?${query}` : path, { key: KEY, ...(options.body === undefined ? {} : { body: options.body }) });
  };

  beforeAll(async () => {
    sandbox = createSandbox({ clock: 'virtual', apiKeys: [KEY] });
    for (const integrationId of [...CRMS, ...PLATFORMS]) {
      const { publicToken } = (await call('POST', '/sandbox/public-token', { body: { integrationId } })).body;
      const { accessToken } = (await call('POST', '/link/exchange', { body: { publicToken } })).body;
      connections.set(integrationId, { accessToken, ids: {} });
    }
    await sandbox.advance('10s');
    for (const [integrationId, connection] of connections) connection.ids = await seededIds(integrationId, connection.accessToken);
  });
  afterAll(() => sandbox.close());

  /** Ids of the seed's records, by kind, several of a kind where the cases use them up (a task completes once). */
  async function seededIds(integrationId: IntegrationId, accessToken: string): Promise<SeededIds> {
    const ids: SeededIds = {};
    const first = async (path: string, key: string, count = 1, keep: (record: any) => boolean = () => true) => {
      const page = await call('GET', path, { query: { accessToken, limit: '200' } });
      expect(page.status, `${path}: ${JSON.stringify(page.body)}`).toBe(200);
      return (page.body[key] as any[]).filter(keep).slice(0, count);
    };
    if (INTEGRATIONS[integrationId].category === 'crm') {
      for (const [type, many, key] of [
        ['User', 'users', 'users'],
        ['Contact', 'contacts', 'contacts'],
        ['Deal', 'deals', 'deals'],
        ['Account', 'accounts', 'accounts'],
        ['Lead', 'leads', 'leads'],
        ['Note', 'notes', 'notes'],
        ['Task', 'tasks', 'tasks'],
        ['Event', 'events', 'events'],
        ['EventAttendee', 'event/attendees', 'eventAttendees'],
        ['Email', 'emails', 'emails'],
      ] as const) {
        const [record] = await first(`/crm/${many}`, key);
        if (!record) continue;
        ids[type] = record.id;
        if (type === 'Contact') ids['Contact.email'] = record.email;
      }
      return ids;
    }
    ids['engagement.user'] = (await first('/engagement/users', 'users'))[0].id;
    ids['engagement.account'] = (await first('/engagement/accounts', 'accounts'))[0].id;
    const contacts = await first('/engagement/contacts', 'contacts', 3);
    contacts.forEach((contact, index) => {
      ids[index === 0 ? 'engagement.contact' : `engagement.contact.${index}`] = contact.id;
    });
    ids['engagement.contact.email'] = contacts[0].emails?.[0]?.address ?? 'nobody@example.com';
    const tasks = await first('/engagement/tasks', 'tasks', 2, (task) => task.status !== 'complete');
    tasks.forEach((task, index) => {
      ids[index === 0 ? 'engagement.task' : `engagement.task.${index}`] = task.id;
    });
    // Active call or other steps (to_do): paused ones (in_progress) and email steps are not completed by hand.
    const actions = await first('/engagement/actions', 'actions', 2, (action) => action.status === 'to_do' && action.type !== 'email');
    actions.forEach((action, index) => {
      ids[index === 0 ? 'engagement.action' : `engagement.action.${index}`] = action.id;
    });
    ids['engagement.call'] = (await first('/engagement/calls', 'calls'))[0].id;
    ids['engagement.email'] = (await first('/engagement/emails', 'emails'))[0].id;
    ids['engagement.sequence'] = (await first('/engagement/sequences', 'sequences'))[0].id;
    ids.mailbox = (await first('/engagement/mailboxes', 'mailboxes'))[0].id;
    // Contacts in no sequence yet, for the starts.
    for (const key of ['engagement.newcomer', 'engagement.newcomer.1']) {
      const created = await call('POST', '/engagement/contact', { body: { accessToken, contact: { lastName: key } } });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      ids[key] = created.body.id;
    }
    ids.dispositionKey = (await first('/engagement/call-dispositions', 'dispositions'))[0].key;
    return ids;
  }

  /** The request a generated client sends for an operation in a form. */
  function build(operation: Operation, integrationId: IntegrationId, form: Form) {
    const { accessToken, ids } = connections.get(integrationId)!;
    const family = operation.path.startsWith('/crm/') ? 'crm' : 'engagement';
    const kind = idKindOf(operation.path);
    // A write or an act uses a record of its own per form: a task completes once, a contact is enrolled once.
    const idOf = (base: string) => ids[form === 'null' && ids[`${base}.1`] ? `${base}.1` : base] ?? ids[base];
    const query: Record<string, string> = {};
    for (const parameter of operation.parameters) {
      if (!parameter.required && form === 'null' && !NEEDED.has(parameter.name)) continue;
      // GET /crm/contact reads by id or by email (the null form by id).
      if (parameter.name === 'email' && form === 'null') continue;
      if (parameter.name === 'accessToken') query.accessToken = accessToken;
      else if (parameter.name === 'id') query.id = idOf(kind!)!;
      else if (parameter.name === 'ids') query.ids = [ids[kind!], ids[kind!]].join(',');
      else if (parameter.name === 'email') query.email = ids['Contact.email']!;
      else if (parameter.name === 'limit') query.limit = queryText(2);
      else if (parameter.name === 'allFields') query.allFields = queryText(true);
      // A cursor is passed when a client has one: the first page's (details answer one page: none there).
      else if (parameter.name === 'cursor') continue;
      else throw new Error(`${operation.operationId}: no value for parameter ${parameter.name}`);
    }
    // GET /crm/contact reads by id or by email, not both (decision 0043): the set form reads by email.
    if (operation.path === '/crm/contact' && operation.method === 'GET' && form === 'set') delete query.id;
    let body: any;
    if (operation.body) {
      body = memberValue(operation.body, '', form, { document, ids: { ...ids, contact: idOf('engagement.contact')! }, family, object: kind, needed: NEEDED });
      if (body.accessToken !== undefined || operation.method !== 'GET') body.accessToken = accessToken;
      // The document's PATCH /crm/lead body has no id: decision 0043 reads it as every other update's.
      if (operation.method === 'PATCH' || 'id' in body) body.id = idOf(kind!);
      if (operation.path === '/engagement/sequence/start') {
        body.id = ids['engagement.sequence'];
        body.fields = { contactId: idOf('engagement.newcomer'), mailboxId: ids.mailbox };
      }
      if (operation.path === '/engagement/contacts/search') body.filters = { emails: { address: { equals: ids['engagement.contact.email'] } } };
      if (operation.path === '/crm/event/attendee' && operation.method === 'POST') {
        // The document's EventAttendeeCreate lists email and associationId as optional, one for an Other attendee and one for a linked
        // one (decision 0043): a linked Contact here, in both forms.
        delete body.eventAttendee.email;
        body.eventAttendee.associationId = ids.Contact;
      }
    }
    return { query, body };
  }

  const cases = operations().flatMap((operation) =>
    integrationsOf(operation.path).flatMap((integrationId) => (['set', 'null'] as const).map((form) => ({ operation, integrationId, form }))),
  );

  it.each(cases.map((item) => [`${item.operation.method} ${item.operation.path} on ${item.integrationId}, ${item.form}`, item] as const))(
    '%s',
    async (_name, { operation, integrationId, form }) => {
      const { query, body } = build(operation, integrationId, form);
      let answer = await call(operation.method, operation.path, { query, body });
      const excepted = exceptionOf(operation, integrationId, form, body);
      if (excepted) {
        // Refused by name, the integration named; then the same request without what it cannot take answers 200.
        expect(answer.status, JSON.stringify(answer.body)).toBe(400);
        expect(answer.body.errorCode).toBe('INVALID_FIELD_VALUE');
        expect(
          excepted.fields.map((field) => `${excepted.at}${field}`),
          JSON.stringify(answer.body),
        ).toContain(answer.body.metadata.field);
        expect(answer.body.message.toLowerCase()).toContain(integrationId);
        if (excepted.whole) return;
        const record = excepted.at ? body[excepted.at.slice(0, -1)] : body;
        for (const field of excepted.fields) {
          const [head, part] = field.split('.');
          if (part) delete record[head!]?.[part];
          else delete record[head!];
        }
        answer = await call(operation.method, operation.path, { query, body });
      }
      expect(answer.status, `${answer.body.message} (${JSON.stringify(body)?.slice(0, 400)})`).toBe(200);
      const text = JSON.stringify(answer.body);
      const violations = checkAnswer({
        request: { method: operation.method, path: operation.path, query: new URLSearchParams(query).toString(), headers: {} },
        response: { status: answer.status, headers: {}, body: text },
      });
      expect(violations).toEqual([]);
    },
  );

  /**
   * What a request cannot have on an integration: the members refused by name (under `at`), or the
   * whole operation. The document's exceptions, and (decision 0044) the fields a platform keeps
   * nowhere, which the sandbox refuses rather than answer 200 and drop (the reference pages list them).
   */
  function exceptionOf(operation: Operation, integrationId: IntegrationId, form: Form, body: any): { at: string; fields: string[]; whole?: true } | undefined {
    // The document: "Pipedrive: Not supported" for creating and updating emails.
    if (operation.path === '/crm/email' && operation.method !== 'GET' && integrationId === 'pipedrive') return { at: '', fields: ['email'], whole: true };
    if (form !== 'set' || !operation.writeSchema) return undefined;
    const record = Object.keys(body).find((key) => typeof body[key] === 'object' && key !== 'filters' && key !== 'fields')!;
    const given = (path: string) => {
      const [head, part] = path.split('.');
      return part ? body[record]?.[head!]?.[part] !== undefined : body[record]?.[head!] !== undefined;
    };
    const fields = [...(EXCEPTED[operation.writeSchema]?.[integrationId] ?? [])];
    // The document: "Salesforce: You may only associate a Task with either a Lead or a Contact and either a Deal or an Account."
    if (operation.writeSchema === 'TaskCreate' && integrationId === 'salesforce') fields.push('leadId', 'dealId');
    const type = operation.writeSchema.replace(/^Eng/, '').replace(/(Create|Update)$/, '');
    const keptNowhere = operation.writeSchema.startsWith('Eng')
      ? (ENGAGEMENT_UNMAPPED[integrationId]?.[type as 'Contact' | 'Account'] ?? [])
      : (UNMAPPED[integrationId]?.[type as CrmObjectType] ?? []);
    for (const path of keptNowhere) if (given(path) && !fields.includes(path)) fields.push(path);
    return fields.length > 0 ? { at: `${record}.`, fields } : undefined;
  }

  it('covers every operation of the document', () => {
    const covered = new Set(cases.map(({ operation }) => `${operation.method} ${operation.path}`));
    // The fixture's 97 operations, and POST /engagement/emails/search (test/helpers/service-document.ts).
    expect(covered.size).toBe(98);
  });
});
