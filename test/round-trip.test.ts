import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeObjectOf } from '../src/downstream/native-objects.js';
import { createSandbox, type Sandbox } from '../src/index.js';
import type { IntegrationId } from '../src/model/integrations.js';
import { type LinkInput, UNIFIED_CRM_OBJECTS, type UnifiedField, type UnifiedObject } from '../src/unified/crm-objects.js';
import { type EngagementInput, engagementObjectOf } from '../src/unified/engagement-objects.js';
import { callSandbox } from './helpers/sandbox-call.js';

/**
 * Nothing written is silently lost (decision 0044): every field the document lists as writable
 * on an object (each object's one description, src/unified/crm-objects.ts and
 * engagement-objects.ts), written alone on a create and on an update, on every integration, is
 * either read back equal — by the unified read, in the write's OBJECT_CHANGE event, and in the
 * native record (`additional`, the passthrough's shape) — or refused with 400 INVALID_FIELD_VALUE
 * naming the field and the integration. A 200 that drops a field fails here.
 */
const CRMS: IntegrationId[] = ['salesforce', 'hubspot', 'pipedrive', 'zoho'];
const PLATFORMS: IntegrationId[] = ['outreach', 'salesloft', 'apollo'];

/** A value of a field's kind, unlike what a record starts with. */
function writtenValueOf(field: { key: string; kind: string; options?: readonly string[] }): unknown {
  if (field.options) return field.options[Math.min(1, field.options.length - 1)];
  // An email's status is CRM-specific text; READ is one every CRM keeps (Salesforce's Status picklist has it).
  if (field.key === 'status') return 'READ';
  switch (field.kind) {
    case 'number':
      return 4321;
    case 'decimalString':
      return '0.35';
    case 'boolean':
      return true;
    case 'date':
      return '2025-06-30T00:00:00.000Z';
    case 'stringList':
      return ['round.trip@example.com'];
    case 'address':
      return { street: '1 Round Trip Way', city: 'Roundton', state: 'RT', postalCode: '12345', country: 'Tripland' };
    default:
      return field.key.toLowerCase().includes('email') || field.key === 'from' ? `rt.${field.key.toLowerCase()}@example.com` : `RT ${field.key}`;
  }
}

/** Whether a read value is the written one: dates as instants (or their day, where a CRM keeps a date), addresses by the parts written. */
function same(read: unknown, written: unknown): boolean {
  if (typeof written === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(written) && typeof read === 'string') {
    return Date.parse(read) === Date.parse(written) || read.slice(0, 10) === written.slice(0, 10);
  }
  if (written && typeof written === 'object' && !Array.isArray(written)) {
    return !!read && typeof read === 'object' && Object.entries(written).every(([key, value]) => (read as Record<string, unknown>)[key] === value);
  }
  return JSON.stringify(read) === JSON.stringify(written);
}

/** The leaves of a native record (its values at every depth). */
function leaves(value: unknown, out: unknown[] = []): unknown[] {
  if (value && typeof value === 'object') for (const item of Object.values(value)) leaves(item, out);
  else out.push(value);
  return out;
}

/** Whether a native record holds a written value: a leaf equal to it (numbers as text too, dates by day), every part of an address, every item of a list. */
function nativeHolds(native: unknown, written: unknown): boolean {
  const all = leaves(native);
  const holds = (one: unknown) =>
    all.some(
      (leaf) =>
        leaf === one ||
        (typeof one === 'number' && Number(leaf) === one) ||
        (typeof one === 'string' &&
          typeof leaf === 'string' &&
          (leaf.includes(one) || (/^\d{4}-\d{2}-\d{2}T/.test(one) && leaf.startsWith(one.slice(0, 10))))) ||
        (typeof one === 'string' && /^\d\.\d+$/.test(one) && Number(leaf) === Number(one) * 100),
    );
  if (Array.isArray(written)) return written.every(holds);
  if (written && typeof written === 'object') return Object.values(written).every(holds);
  return holds(written);
}

describe('every writable field, on every integration: read back equal, or refused by name', () => {
  let sandbox: Sandbox;
  const tokens = new Map<IntegrationId, { accessToken: string; connectionId: string }>();
  const call = (method: string, path: string, body?: unknown) => callSandbox(sandbox, method, path, body === undefined ? {} : { body });
  const firstOf = async (accessToken: string, path: string, key: string) => (await call('GET', `${path}?accessToken=${accessToken}&limit=1`)).body[key][0].id;

  beforeAll(async () => {
    sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'], emailEvents: true });
    for (const integrationId of [...CRMS, ...PLATFORMS]) {
      const { publicToken } = (await call('POST', '/sandbox/public-token', { integrationId })).body;
      tokens.set(integrationId, (await call('POST', '/link/exchange', { publicToken })).body);
    }
    await sandbox.advance('10s');
  });
  afterAll(() => sandbox.close());

  /** The body a create needs besides the field under test: the object's required fields and links. */
  async function requiredOf(object: UnifiedObject, accessToken: string): Promise<Record<string, unknown>> {
    const base: Record<string, Record<string, unknown>> = {
      Contact: { lastName: 'Base' },
      Deal: { name: 'Base deal', closeDate: '2025-05-01T00:00:00.000Z' },
      Account: { name: 'Base account' },
      Lead: { lastName: 'Base' },
      Note: { content: 'Base note' },
      Task: {},
      Event: { startDateTime: '2025-05-01T10:00:00.000Z', endDateTime: '2025-05-01T11:00:00.000Z' },
      EventAttendee: {
        associatedObjectType: 'Contact',
        associationId: await firstOf(accessToken, '/crm/contacts', 'contacts'),
        eventId: await firstOf(accessToken, '/crm/events', 'events'),
      },
      Email: { from: 'base@example.com', to: ['base.to@example.com'], subject: 'Base' },
    };
    return { ...base[object.type] };
  }

  /** An id a link may name: a record of the type it points at. */
  async function linkValue(link: LinkInput, accessToken: string): Promise<unknown> {
    const target = link.target ?? 'Contact';
    const one = UNIFIED_CRM_OBJECTS.find((object) => object.type === target)!;
    const id = await firstOf(accessToken, `/crm/${one.many}`, one.listKey);
    return link.form === 'participant' ? { id, role: 'to' } : link.form === 'participants' ? [{ id, role: 'cc' }] : id;
  }

  /**
   * Where a CRM keeps a record natively: its own native record; an attendee, in its event's too
   * (HubSpot, Pipedrive and Zoho keep attendees as an event's participants); a Pipedrive lead's
   * email, phones and job title, in its person's (decision 0044).
   */
  async function nativeOf(object: UnifiedObject, record: Record<string, any>, accessToken: string, integrationId: IntegrationId, key: string) {
    const read = async (path: string, id: string, keyOf: string) =>
      (await call('GET', `/crm/${path}?accessToken=${accessToken}&id=${id}&allFields=true`)).body[keyOf].additional;
    if (object.type === 'EventAttendee') return [record.additional, await read('event', record.associations.eventId, 'event')];
    if (object.type === 'Lead' && integrationId === 'pipedrive' && ['email', 'phone', 'mobilePhone', 'jobTitle'].includes(key)) {
      const person = record.associations.contactIds[0];
      return person === undefined ? record.additional : [record.additional, await read('contact', person, 'contact')];
    }
    return record.additional;
  }

  /** The write's event (the last of the connection), its record. */
  const lastEvent = (connectionId: string) =>
    (sandbox.deliveries(connectionId).at(-1)!.event as { data: { eventType: string; record: Record<string, any> } }).data;

  /** Expects a 400 naming the field and the integration. */
  function refusedByName(answer: { status: number; body: any }, field: string, integrationId: string, label: string) {
    expect(answer.status, `${label}: ${JSON.stringify(answer.body)}`).toBe(400);
    expect(answer.body.errorCode, label).toBe('INVALID_FIELD_VALUE');
    expect(answer.body.metadata.field, label).toBe(field);
    expect(answer.body.message.toLowerCase(), label).toContain(integrationId);
  }

  const crmCases = CRMS.flatMap((integrationId) =>
    UNIFIED_CRM_OBJECTS.filter((object) => !object.readOnly).flatMap((object) =>
      [...object.fields, ...object.links]
        .flatMap((input) => (['create', 'update'] as const).filter((mode) => input[mode]).map((mode) => ({ integrationId, object, input, mode })))
        // An attendee's associationId names a record of associatedObjectType's type: written with it, below.
        .filter(({ object: { type }, input }) => !(type === 'EventAttendee' && 'input' in input && input.input === 'associationId')),
    ),
  );

  it.each(
    crmCases.map(
      (item) => [`${item.integrationId} ${item.object.type}.${'key' in item.input ? item.input.key : item.input.input} (${item.mode})`, item] as const,
    ),
  )('CRM %s', async (label, { integrationId, object, input, mode }) => {
    const { accessToken, connectionId } = tokens.get(integrationId)!;
    const isField = 'key' in input;
    const key = isField ? (input as UnifiedField).key : (input as LinkInput).input;
    let written = isField ? writtenValueOf(input as UnifiedField) : await linkValue(input as LinkInput, accessToken);
    const required = await requiredOf(object, accessToken);
    // An attendee names its record (associationId), or (Other) its email alone.
    if (object.type === 'EventAttendee' && key === 'associatedObjectType') {
      const target = UNIFIED_CRM_OBJECTS.find((one) => one.type === written)!;
      required.associationId = await firstOf(accessToken, `/crm/${target.many}`, target.listKey);
    }
    if (object.type === 'EventAttendee' && key === 'email') {
      required.associatedObjectType = 'Other';
      delete required.associationId;
    }
    const at = `${object.key}.${key}`;
    let answer: { status: number; body: any };
    let nativeBefore: unknown;
    if (mode === 'create') {
      answer = await call('POST', `/crm/${object.one}`, { accessToken, [object.key]: { ...required, [key]: written } });
      if (answer.status === 400 && integrationId === 'pipedrive' && object.type === 'Email') return refusedByName(answer, object.key, integrationId, label);
    } else {
      const base = await call('POST', `/crm/${object.one}`, { accessToken, [object.key]: required });
      if (integrationId === 'pipedrive' && object.type === 'Email') return refusedByName(base, object.key, integrationId, label);
      expect(base.status, `${label}: ${JSON.stringify(base.body)}`).toBe(200);
      const baseRecord = (await call('GET', `/crm/${object.one}?accessToken=${accessToken}&id=${base.body.id}&allFields=true`)).body[object.key];
      nativeBefore = await nativeOf(object, baseRecord, accessToken, integrationId, key);
      // A pick-list value other than the one the record has.
      const options = isField ? (input as UnifiedField).options : undefined;
      if (options && baseRecord[key] === written) written = options.find((option) => option !== written);
      const update = object.type === 'Deal' ? { closeDate: '2025-05-02T00:00:00.000Z', [key]: written } : { [key]: written };
      answer = await call('PATCH', `/crm/${object.one}`, { accessToken, id: base.body.id, [object.key]: update });
    }
    if (answer.status !== 200) return refusedByName(answer, at, integrationId, label);
    const id: string = answer.body.id;
    const record = (await call('GET', `/crm/${object.one}?accessToken=${accessToken}&id=${id}&allFields=true`)).body[object.key];
    const event = lastEvent(connectionId);
    expect(event.eventType, label).toBe(mode === 'create' ? 'CREATE' : 'UPDATE');
    expect(event.record.id, label).toBe(id);
    if (isField) {
      expect(same(record[key], written), `${label}: read back ${JSON.stringify(record[key])}`).toBe(true);
      expect(same(event.record[key], written), `${label}: event ${JSON.stringify(event.record[key])}`).toBe(true);
      const native = await nativeOf(object, record, accessToken, integrationId, key);
      // A CRM with no object of the type (HubSpot's and Pipedrive's attendees) leaves it to the sandbox: the reference page says so.
      const kept = nativeObjectOf(integrationId, object.type) !== undefined;
      // A free value (text, number, list, address) is held natively as written; a pick-list value, a flag or a date the
      // CRM keeps in its own form (HubSpot's IN_PROGRESS, Pipedrive's stage_id and durations), so an update must change it there.
      const field = input as UnifiedField;
      const free = ['string', 'number', 'stringList', 'address'].includes(field.kind) && !field.options && key !== 'status';
      if (kept && mode === 'create' && free) expect(nativeHolds(native, written), `${label}: native ${JSON.stringify(native)}`).toBe(true);
      if (kept && mode === 'update') {
        const before = leaves(nativeBefore);
        const changed = leaves(native).filter((leaf, index) => leaf !== before[index]);
        if (free) expect(nativeHolds(changed, written), `${label}: native change ${JSON.stringify(changed)}`).toBe(true);
        else expect(changed.length, `${label}: no native change`).toBeGreaterThan(0);
      }
    } else {
      const link = input as LinkInput;
      const ids = (Array.isArray(written) ? written : [written]).map((item: any) => (typeof item === 'string' ? item : item.id));
      const held = record.associations[link.association];
      expect(Array.isArray(held) ? ids.every((one) => held.includes(one)) : held === ids[0], `${label}: ${JSON.stringify(record.associations)}`).toBe(true);
      expect(event.record.associations[link.association], label).toEqual(held);
    }
  });

  /** The engagement writes: accounts and contacts (the platform's CRM records, with events) and tasks. */
  const engagementCases = PLATFORMS.flatMap((integrationId) =>
    ['Account', 'Contact', 'Task'].flatMap((name) => {
      const object = engagementObjectOf(name);
      return (['create', 'update'] as const).flatMap((mode) =>
        (object[mode] ?? []).flatMap((input) =>
          input.kind === 'address'
            ? ['line1', 'line2', 'city', 'state', 'postalCode', 'country'].map((part) => ({ integrationId, name, mode, input, part }))
            : [{ integrationId, name, mode, input, part: undefined as string | undefined }],
        ),
      );
    }),
  );

  it.each(
    engagementCases.map((item) => [`${item.integrationId} ${item.name}.${item.input.key}${item.part ? `.${item.part}` : ''} (${item.mode})`, item] as const),
  )('engagement %s', async (label, { integrationId, name, mode, input, part }) => {
    const { accessToken, connectionId } = tokens.get(integrationId)!;
    const object = engagementObjectOf(name);
    const ids = {
      contact: await firstOf(accessToken, '/engagement/contacts', 'contacts'),
      user: await firstOf(accessToken, '/engagement/users', 'users'),
    };
    const required: Record<string, Record<string, unknown>> = {
      Account: { name: 'Base account' },
      Contact: { lastName: 'Base' },
      Task: { type: 'other', dueDate: '2025-05-01T10:00:00.000Z', contactId: ids.contact, ownerUserId: ids.user },
    };
    const written = engagementValue(input, part, ids);
    const field = part ? `address.${part}` : input.key;
    const at = `${object.key}.${field}`;
    let answer: { status: number; body: any };
    let nativeBefore: unknown;
    if (mode === 'create') {
      answer = await call('POST', `/engagement/${object.one}`, { accessToken, [object.key]: { ...required[name], [input.key]: written } });
    } else {
      const base = await call('POST', `/engagement/${object.one}`, { accessToken, [object.key]: required[name] });
      expect(base.status, `${label}: ${JSON.stringify(base.body)}`).toBe(200);
      nativeBefore = (await call('GET', `/engagement/${object.one}?accessToken=${accessToken}&id=${base.body.id}&allFields=true`)).body[object.key].additional;
      answer = await call('PATCH', `/engagement/${object.one}`, { accessToken, id: base.body.id, [object.key]: { [input.key]: written } });
    }
    if (answer.status !== 200) return refusedByName(answer, at, integrationId, label);
    const record = (await call('GET', `/engagement/${object.one}?accessToken=${accessToken}&id=${answer.body.id}&allFields=true`)).body[object.key];
    const expected = engagementRead(input, part, written, ids);
    const read = part ? record.address?.[part] : input.key === 'contactId' || input.key === 'ownerUserId' ? record.associations[input.key] : record[input.key];
    expect(same(read, expected), `${label}: read back ${JSON.stringify(read)}`).toBe(true);
    const nativeValue = part
      ? (written as Record<string, string>)[part]
      : input.kind === 'emails'
        ? 'rt.engagement@example.com'
        : input.kind === 'phones'
          ? '+1 555 0199'
          : written;
    if (input.key !== 'contactId' && input.key !== 'ownerUserId' && input.key !== 'type') {
      if (mode === 'create') expect(nativeHolds(record.additional, nativeValue), `${label}: native ${JSON.stringify(record.additional)}`).toBe(true);
      else {
        const before = leaves(nativeBefore);
        const changed = leaves(record.additional).filter((leaf, index) => leaf !== before[index]);
        expect(nativeHolds(changed, nativeValue), `${label}: native change ${JSON.stringify(changed)}`).toBe(true);
      }
    }
    // Contacts and accounts are the platform's CRM records: the write is an OBJECT_CHANGE event of the record.
    if (name !== 'Task') {
      const event = lastEvent(connectionId);
      expect(event.eventType, label).toBe(mode === 'create' ? 'CREATE' : 'UPDATE');
      expect(event.record.id, label).toBe(`v.${name.toLowerCase()}.${answer.body.id}`);
    }
  });
});

/** A value an engagement input takes: an address with the one part, a contact's emails and phones, the ids a task names. */
function engagementValue(input: EngagementInput, part: string | undefined, ids: { contact: string; user: string }): unknown {
  if (part) return { [part]: `RT ${part}` };
  switch (input.kind) {
    case 'emails':
      return [{ address: 'rt.engagement@example.com', type: 'work', isPrimary: true }];
    case 'phones':
      return [{ number: '+1 555 0199', type: 'work', isPrimary: true }];
    case 'contactId':
      return ids.contact;
    case 'userId':
      return ids.user;
    case 'date':
      return '2025-06-30T10:00:00.000Z';
    case 'number':
      return 4321;
    default:
      return input.options ? input.options[Math.min(1, input.options.length - 1)] : `RT ${input.key}`;
  }
}

/** What the record reads for a written engagement value. */
function engagementRead(input: EngagementInput, part: string | undefined, written: unknown, ids: { contact: string; user: string }): unknown {
  if (part) return (written as Record<string, string>)[part];
  if (input.kind === 'contactId') return ids.contact;
  if (input.kind === 'userId') return ids.user;
  return written;
}
