import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as v1 from 'pipedrive/v1';
import * as v2 from 'pipedrive/v2';
import * as old from 'pipedrive-v1/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SdkBridge, startSdkBridge } from '../helpers/sdk-bridge.js';
import { checkPipedriveAnswer, pipedriveOperation } from '../vendor-specs/pipedrive/check.js';

/**
 * Pipedrive's official SDKs driven unchanged through the passthrough (test/helpers/sdk-bridge.ts):
 * `pipedrive` 33 (API v2 for persons, organizations, deals and activities; v1 for leads and
 * notes) and its last v1 release 31.2.1 (`pipedrive-v1`), configured as their READMEs show.
 * Every answer is checked against Pipedrive's published OpenAPI documents
 * (test/vendor-specs/pipedrive), and the records against the fields and types the SDKs' own
 * models declare.
 */

const require = createRequire(import.meta.url);

/** The fields a model of an SDK declares, with their TypeScript types, read from its `.d.ts`. */
function modelFields(pkg: 'pipedrive' | 'pipedrive-v1', version: 'v1' | 'v2', file: string): Record<string, string> {
  const dist = dirname(require.resolve(pkg));
  const text = readFileSync(join(dist, 'versions', version, 'models', `${file}.d.ts`), 'utf8');
  return Object.fromEntries([...text.matchAll(/^\s+'([a-z_0-9]+)'\??: ([^;]+);$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** Whether a value fits a declared type: `number`, `string | null`, `Array<…>`, a model name (an object). */
function fits(value: unknown, declared: string): boolean {
  return declared.split(' | ').some((type) => {
    if (type === 'null') return value === null;
    if (type === 'number' || type === 'string' || type === 'boolean') return typeof value === type;
    if (type.startsWith('Array<')) return Array.isArray(value);
    if (type === 'object' || type === 'any') return typeof value === 'object';
    // A named model or enum: an object, or the const enum's string values.
    return typeof value === 'object' ? value !== null : typeof value === 'string';
  });
}

/** Fields a model declares that a record lacks or holds with another type; `nullable` names fields Pipedrive answers null while they are unset. */
function offModel(record: Record<string, unknown>, fields: Record<string, string>, nullable: readonly string[] = []): string[] {
  return Object.entries(fields).flatMap(([name, declared]) => {
    if (!(name in record)) return [`${name}: missing`];
    if (record[name] === null && nullable.includes(name)) return [];
    return fits(record[name], declared) ? [] : [`${name}: ${JSON.stringify(record[name])} is not ${declared}`];
  });
}

/** Deal fields Pipedrive answers null until there is such a time, stage, label or activity (the SDK's model types them as plain strings). */
const DEAL_UNSET = [
  'won_time',
  'first_won_time',
  'lost_time',
  'next_activity_date',
  'next_activity_time',
  'last_incoming_mail_time',
  'last_outgoing_mail_time',
  'label',
  'next_activity_subject',
  'next_activity_type',
  'next_activity_duration',
  'next_activity_note',
  'expected_close_date',
  'person_name',
  'org_name',
];

let bridge: SdkBridge;
beforeAll(async () => {
  // The API host, and an OAuth api_domain (the company's own host).
  bridge = await startSdkBridge({ integrationId: 'pipedrive', hosts: ['https://api.pipedrive.com', 'https://acme.pipedrive.com'] });
});
afterAll(async () => {
  for (const call of bridge.calls) expect(checkPipedriveAnswer(call), `${call.request.method} ${call.request.path}`).toEqual([]);
  // Every operation of the documents the suite calls was checked at least once.
  const checked = new Set(bridge.calls.map((call) => pipedriveOperation(call.request.method, call.request.path)));
  for (const name of ['persons', 'organizations', 'deals', 'activities']) {
    for (const operation of [`GET /${name}`, `POST /${name}`, `GET /${name}/{id}`, `PATCH /${name}/{id}`]) expect(checked).toContain(`v2 ${operation}`);
  }
  for (const operation of ['POST /leads', 'GET /leads/{id}', 'PATCH /leads/{id}', 'DELETE /leads/{id}', 'POST /notes', 'GET /notes'])
    expect(checked).toContain(`v1 ${operation}`);
  await bridge.close();
});

const apiKey = () => ({ apiKey: bridge.accessToken });
// OAuth as the README sets it up once a token is held: the access token and the api_domain's base path.
const oauthV1 = () => new v1.Configuration({ accessToken: bridge.accessToken, basePath: 'https://acme.pipedrive.com/api/v1' });
const oauthV2 = () => new v2.Configuration({ accessToken: bridge.accessToken, basePath: 'https://acme.pipedrive.com/api/v2' });

describe('pipedrive 33, API v2', () => {
  it('persons: list with cursor paging to the end, get, add, update, delete', async () => {
    const persons = new v2.PersonsApi(new v2.Configuration(apiKey()));
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 50; guard++) {
      const page: any = await persons.getPersons({ limit: 40, ...(cursor ? { cursor } : {}) });
      seen.push(...page.data.map((person: any) => person.id));
      cursor = page.additional_data.next_cursor ?? undefined;
      if (!cursor) break;
    }
    const contacts = bridge.sandbox.listRecords(bridge.connectionId, 'Contact');
    expect(seen).toEqual(contacts.map((contact) => Number(contact.nativeId)));

    const events: Array<{ objectType: string; eventType: string; nativeId: string }> = [];
    const stop = bridge.sandbox.onEvent((event) => {
      if (event.type === 'OBJECT_CHANGE')
        events.push({ objectType: event.data.objectType, eventType: event.data.eventType, nativeId: event.data.record.nativeId });
    });
    const added: any = await persons.addPerson({
      AddPersonRequest: {
        name: 'Ada Lovelace',
        emails: [{ value: 'ada@example.com', primary: true, label: 'work' }],
        custom_fields: { region: 'EMEA' },
      } as any,
    });
    expect(added.data).toMatchObject({
      name: 'Ada Lovelace',
      first_name: 'Ada',
      last_name: 'Lovelace',
      emails: [{ value: 'ada@example.com', primary: true, label: 'work' }],
      custom_fields: { region: 'EMEA' },
    });
    expect(
      offModel(added.data, modelFields('pipedrive', 'v2', 'person'), ['org_id', 'picture_id', 'postal_address', 'notes', 'birthday', 'job_title']),
    ).toEqual([]);
    const id = added.data.id as number;
    // The unified view sees the native write, and it was reported as a change.
    const unified = bridge.sandbox.listRecords(bridge.connectionId, 'Contact').find((contact) => contact.nativeId === String(id)) as any;
    expect(unified).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });

    const updated: any = await persons.updatePerson({ id, UpdatePersonRequest: { name: 'Ada King' } });
    expect(updated.data.last_name).toBe('King');
    expect(((await persons.getPerson({ id })) as any).data.name).toBe('Ada King');
    expect(((await persons.deletePerson({ id })) as any).data).toEqual({ id });
    await expect(persons.getPerson({ id })).rejects.toMatchObject({ success: false, error: 'Person not found' });
    stop();
    // Each native write was reported as an OBJECT_CHANGE of the unified record.
    expect(events).toEqual(['CREATE', 'UPDATE', 'DELETE'].map((eventType) => ({ objectType: 'Contact', eventType, nativeId: String(id) })));
  });

  it('organizations and deals through the OAuth base path: add, get, update, delete; a deal moves won', async () => {
    const orgs = new v2.OrganizationsApi(oauthV2());
    const deals = new v2.DealsApi(oauthV2());
    const org: any = await orgs.addOrganization({ AddOrganizationRequest: { name: 'Analytical Engines Ltd' } });
    expect(org.data).toMatchObject({ name: 'Analytical Engines Ltd', is_deleted: false, custom_fields: {} });
    const listed: any = await orgs.getOrganizations({ limit: 5 });
    expect(listed.data).toHaveLength(5);
    expect(typeof listed.additional_data.next_cursor).toBe('string');

    const deal: any = await deals.addDeal({ AddDealRequest: { title: 'Difference engine', value: 5000, org_id: org.data.id } });
    expect(deal.data).toMatchObject({ title: 'Difference engine', value: 5000, currency: 'USD', status: 'open', org_id: org.data.id, won_time: null });
    const won: any = await deals.updateDeal({ id: deal.data.id, UpdateDealRequest: { status: 'won' } });
    expect(won.data.status).toBe('won');
    expect(((await deals.getDeal({ id: deal.data.id })) as any).data.status).toBe('won');
    expect(((await deals.getDeals({ limit: 10 })) as any).data).toHaveLength(10);
    await deals.deleteDeal({ id: deal.data.id });
    const renamed: any = await orgs.updateOrganization({ id: org.data.id, UpdateOrganizationRequest: { name: 'Analytical Engines plc' } });
    expect(renamed.data.name).toBe('Analytical Engines plc');
    expect(((await orgs.getOrganization({ id: org.data.id })) as any).data.name).toBe('Analytical Engines plc');
    await orgs.deleteOrganization({ id: org.data.id });
    expect(bridge.calls.at(-1)!.request.path).toBe(`api/v2/organizations/${org.data.id}`);
  });

  it('activities: add, list, update as done', async () => {
    const activities = new v2.ActivitiesApi(new v2.Configuration(apiKey()));
    const added: any = await activities.addActivity({
      AddActivityRequest: { subject: 'Call Ada', type: 'call', due_date: '2025-02-01', due_time: '10:00', duration: '00:30' },
    });
    expect(added.data).toMatchObject({ subject: 'Call Ada', type: 'call', due_date: '2025-02-01', due_time: '10:00', duration: '00:30' });
    const page: any = await activities.getActivities({ limit: 3 });
    expect(page.data).toHaveLength(3);
    const task: any = await activities.addActivity({ AddActivityRequest: { subject: 'Send notes', type: 'task' } });
    const done: any = await activities.updateActivity({ id: task.data.id, AddActivityRequest: { done: true } });
    expect(done.data.done).toBe(true);
    expect(((await activities.getActivity({ id: task.data.id })) as any).data).toMatchObject({ subject: 'Send notes', done: true });
    await activities.deleteActivity({ id: task.data.id });
  });
});

describe('pipedrive 33, API v1 (leads and notes)', () => {
  it('leads: add with a value, get, update with PATCH, delete; ids are UUIDs and every model field is there', async () => {
    const leads = new v1.LeadsApi(new v1.Configuration(apiKey()));
    const person = bridge.sandbox.listRecords(bridge.connectionId, 'Contact')[0]!;
    const added: any = await leads.addLead({
      AddLeadRequest: { title: 'Grace Hopper', person_id: Number(person.nativeId), value: { amount: 1200, currency: 'EUR' } },
    });
    expect(added.data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(added.data).toMatchObject({
      title: 'Grace Hopper',
      person_id: Number(person.nativeId),
      value: { amount: 1200, currency: 'EUR' },
      origin: 'API',
      source_name: 'API',
    });
    const fields = modelFields('pipedrive', 'v1', 'lead');
    expect(Object.keys(fields)).toHaveLength(22);
    expect(offModel(added.data, fields, ['expected_close_date'])).toEqual([]);
    const id = added.data.id as string;
    const updated: any = await leads.updateLead({ id, UpdateLeadRequest: { was_seen: true, expected_close_date: '2025-03-01' } });
    expect(bridge.calls.at(-1)!.request.method).toBe('PATCH');
    expect(updated.data).toMatchObject({ was_seen: true, expected_close_date: '2025-03-01', value: { amount: 1200, currency: 'EUR' } });
    expect(((await leads.getLead({ id })) as any).data.was_seen).toBe(true);
    expect(((await leads.deleteLead({ id })) as any).data).toEqual({ id });
  });

  it('notes: add and list through the OAuth base path', async () => {
    const notes = new v1.NotesApi(oauthV1());
    const deal = bridge.sandbox.listRecords(bridge.connectionId, 'Deal')[0]!;
    const added: any = await notes.addNote({ AddNoteRequest: { content: 'Met at the Royal Society', deal_id: Number(deal.nativeId) } });
    expect(added.data).toMatchObject({ content: 'Met at the Royal Society', deal_id: Number(deal.nativeId) });
    const listed: any = await notes.getNotes({ limit: 2 });
    expect(listed.data).toHaveLength(2);
    expect(bridge.calls.at(-1)!.request.path).toBe('api/v1/notes');
  });
});

describe('pipedrive 31.2.1 (v1)', () => {
  it('deals open, won and lost carry every field of the v1 Deal model with its type', async () => {
    const deals = new old.DealsApi(new old.Configuration(apiKey()));
    const fields = { ...modelFields('pipedrive-v1', 'v1', 'base-deal'), ...modelFields('pipedrive-v1', 'v1', 'deal-all-of') };
    expect(Object.keys(fields)).toHaveLength(68);
    const page: any = await deals.getDeals({ limit: 100 });
    for (const status of ['open', 'won', 'lost']) {
      const deal = page.data.find((candidate: any) => candidate.status === status);
      expect(deal, status).toBeDefined();
      const nullable = [
        ...DEAL_UNSET,
        ...Object.entries(fields)
          .filter(([, type]) => type.includes('null'))
          .map(([name]) => name),
      ];
      expect(offModel(deal, fields, nullable), status).toEqual([]);
    }
    const won = page.data.find((candidate: any) => candidate.status === 'won');
    expect(won).toMatchObject({ won_time: expect.any(String), close_time: won.won_time, pipeline_id: 1, formatted_value: expect.stringMatching(/^\$[\d,]+/) });
  });

  it('persons, organizations and deals: add, get, update (PUT), delete; activities add and list', async () => {
    const persons = new old.PersonsApi(new old.Configuration(apiKey()));
    const orgs = new old.OrganizationsApi(new old.Configuration(apiKey()));
    const deals = new old.DealsApi(new old.Configuration(apiKey()));
    const activities = new old.ActivitiesApi(new old.Configuration(apiKey()));
    const org: any = await orgs.addOrganization({ AddOrganizationRequest: { name: 'Babbage & Co' } });
    const person: any = await persons.addPerson({
      AddPersonRequest: { name: 'Charles Babbage', email: [{ value: 'cb@example.com', primary: true, label: 'work' }], org_id: org.data.id } as any,
    });
    expect(person.data).toMatchObject({ name: 'Charles Babbage', org_id: { value: org.data.id } });
    const updated: any = await persons.updatePerson({ id: person.data.id, UpdatePersonRequest: { name: 'Charles B. Babbage' } });
    expect(updated.data.last_name).toBe('Babbage');
    expect(((await persons.getPerson({ id: person.data.id })) as any).data.first_name).toBe('Charles B.');
    const deal: any = await deals.addDeal({ AddDealRequest: { title: 'Analytical engine', value: '7000', person_id: person.data.id } as any });
    expect(deal.data).toMatchObject({ title: 'Analytical engine', person_name: 'Charles B. Babbage', org_name: null, status: 'open', origin: 'API' });
    const lost: any = await deals.updateDeal({ id: deal.data.id, UpdateDealRequest: { status: 'lost' } });
    expect(lost.data).toMatchObject({ status: 'lost', lost_time: expect.any(String), won_time: null });
    const activity: any = await activities.addActivity({
      AddActivityRequest: { subject: 'Demo', type: 'meeting', deal_id: deal.data.id, due_date: '2030-01-02', due_time: '09:00' } as any,
    });
    expect(activity.data).toMatchObject({ subject: 'Demo', type: 'meeting', deal_id: deal.data.id });
    expect(((await deals.getDeal({ id: deal.data.id })) as any).data).toMatchObject({
      activities_count: 1,
      next_activity_id: activity.data.id,
      next_activity_date: '2030-01-02',
    });
    expect(((await activities.getActivities({ limit: 2 })) as any).data).toHaveLength(2);
    await deals.deleteDeal({ id: deal.data.id });
    await persons.deletePerson({ id: person.data.id });
    await orgs.deleteOrganization({ id: org.data.id });
  });
});
