import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import type { ServiceEvent } from '../src/model/events.js';
import type { IntegrationId } from '../src/model/integrations.js';

/**
 * The passthrough as a client written from the systems' docs uses it: native writes visible on
 * the unified side and as OBJECT_CHANGE events, and downstream faults (rate limits with the
 * native headers, 5xx, slow answers) set through the control API or in code.
 */

const KEY = 'test-key';
let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

async function call(method: string, path: string, json?: unknown) {
  const res = await sandbox!.handle({
    method,
    path,
    query: '',
    headers: { 'service-api-token': KEY, 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, body: JSON.parse(res.body || 'null') };
}

function start(integrationId: IntegrationId) {
  sandbox = createSandbox({ seed: 11, clock: 'virtual', apiKeys: [KEY] });
  const { accessToken, connectionId } = sandbox.connect({ integrationId });
  const events: ServiceEvent[] = [];
  sandbox.onEvent((event) => events.push(event));
  const passthrough = (method: string, path: string, body?: unknown, query?: Record<string, string>) =>
    call('POST', '/crm/passthrough', { accessToken, method, path, ...(body === undefined ? {} : { body }), ...(query ? { query } : {}) }).then(
      (res) => res.body,
    );
  return { accessToken, connectionId, events, passthrough };
}

const objectChanges = (events: ServiceEvent[]) => events.filter((event) => event.type === 'OBJECT_CHANGE') as Array<ServiceEvent & { data: any }>;

describe('native writes through the passthrough', () => {
  it('HubSpot: a batch create and a v4 association are unified records and OBJECT_CHANGE events', async () => {
    const { connectionId, events, passthrough } = start('hubspot');
    const created = await passthrough('POST', 'crm/v3/objects/companies/batch/create', {
      inputs: [{ properties: { name: 'Fidelity Co', domain: 'fidelity.test' } }],
    });
    expect(created.statusCode).toBe(201);
    const nativeId = created.body.results[0].id;
    const account = sandbox!.listRecords(connectionId, 'Account').find((record) => record.nativeId === nativeId)!;
    expect(account).toMatchObject({ name: 'Fidelity Co', website: 'https://fidelity.test' });
    const contact = sandbox!.listRecords(connectionId, 'Contact')[0]!;
    const linked = await passthrough('PUT', `crm/v4/objects/contacts/${contact.nativeId}/associations/default/companies/${nativeId}`);
    expect(linked.statusCode).toBe(200);
    expect(sandbox!.getRecord(connectionId, 'Account', account.id).associations).toMatchObject({ contactIds: expect.arrayContaining([contact.id]) });
    await sandbox!.settle();
    const changes = objectChanges(events);
    expect(changes.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(changes[0])).toContain(account.id);
    // The search finds what the batch wrote.
    const found = await passthrough('POST', 'crm/v3/objects/companies/search', {
      filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'EQ', value: 'fidelity.test' }] }],
    });
    expect(found.body.results.map((row: any) => row.id)).toEqual([nativeId]);
  });

  it('Salesforce: a composite create is queryable by SOQL and reported', async () => {
    const { connectionId, events, passthrough } = start('salesforce');
    const created = await passthrough('POST', 'services/data/v59.0/composite/sobjects', {
      records: [{ attributes: { type: 'Account' }, Name: 'Soql Fidelity', Industry: 'Banking' }],
    });
    expect(created.body[0]).toMatchObject({ success: true });
    const query = await passthrough('GET', 'services/data/v59.0/query', undefined, {
      q: "SELECT Id, Name FROM Account WHERE Name LIKE 'Soql%' AND Industry = 'Banking'",
    });
    expect(query.body.records.map((row: any) => row.Id)).toEqual([created.body[0].id]);
    expect(sandbox!.listRecords(connectionId, 'Account').some((record) => record.nativeId === created.body[0].id)).toBe(true);
    await sandbox!.settle();
    expect(objectChanges(events)).toHaveLength(1);
  });
});

describe('engagement users on both sides', () => {
  it.each(['outreach', 'salesloft', 'apollo'] as const)(
    '%s: /engagement/users shows the native user as additional, and taskIds the user’s native tasks',
    async (integrationId) => {
      const { accessToken, passthrough } = start(integrationId);
      await sandbox!.advance('10s');
      const res = await sandbox!.handle({
        method: 'GET',
        path: '/engagement/users',
        query: `accessToken=${accessToken}&allFields=true&limit=100`,
        headers: { 'service-api-token': KEY },
      });
      expect(res.status).toBe(200);
      const users = JSON.parse(res.body).users as Array<{ id: string; associations: { taskIds: string[]; actionIds: string[] }; additional: any }>;
      const user = users.find((candidate) => candidate.associations.taskIds.length > 0)!;
      const nativeId = user.additional.id;
      if (integrationId === 'apollo') {
        const native = (await passthrough('POST', 'users/search', { per_page: 100 })).body.users.find((item: any) => item.id === nativeId);
        expect(native).toEqual(user.additional);
        const tasks = (await passthrough('POST', 'tasks/search', { user_ids: [nativeId], per_page: 100 })).body.tasks;
        expect(tasks).toHaveLength(user.associations.taskIds.length);
        expect(tasks.map((task: any) => task.id).sort()).toEqual(user.associations.taskIds.map((id) => id.slice(0, 24)).sort());
      } else {
        const native = (await passthrough('GET', `users/${nativeId}`)).body.data;
        expect(native).toEqual(user.additional);
        const query: Record<string, string> =
          integrationId === 'outreach' ? { 'filter[owner][id]': String(nativeId), 'page[size]': '100' } : { user_id: String(nativeId), per_page: '100' };
        const tasks = (await passthrough('GET', 'tasks', undefined, query)).body.data;
        expect(tasks).toHaveLength(user.associations.taskIds.length);
      }
    },
  );
});

describe('downstream faults', () => {
  it('answers the next N calls with HubSpot’s 429 and rate-limit headers, then normally again', async () => {
    const { connectionId, passthrough } = start('hubspot');
    const set = await call('PUT', `/sandbox/connections/${connectionId}/downstream-faults`, {
      faults: [{ kind: 'rate-limit', count: 2, retryAfterSeconds: 3 }],
    });
    expect(set).toMatchObject({ status: 200, body: { faults: [{ kind: 'rate-limit', remaining: 2, retryAfterSeconds: 3 }] } });
    for (let i = 0; i < 2; i++) {
      const limited = await passthrough('GET', 'crm/v3/objects/contacts');
      expect(limited.statusCode).toBe(429);
      expect(limited.headers).toMatchObject({ 'x-hubspot-ratelimit-remaining': '0', 'x-hubspot-ratelimit-max': '100', 'retry-after': '3' });
      expect(limited.body).toMatchObject({ status: 'error', errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' });
    }
    expect((await passthrough('GET', 'crm/v3/objects/contacts')).statusCode).toBe(200);
    expect((await call('GET', `/sandbox/connections/${connectionId}/downstream-faults`)).body).toEqual({ faults: [] });
  });

  it('answers each system’s rate limit in its own shape', async () => {
    const expected: Record<IntegrationId, { status: number; header: string }> = {
      salesforce: { status: 403, header: 'sforce-limit-info' },
      hubspot: { status: 429, header: 'x-hubspot-ratelimit-remaining' },
      pipedrive: { status: 429, header: 'x-ratelimit-remaining' },
      zoho: { status: 429, header: 'x-ratelimit-remaining' },
      outreach: { status: 429, header: 'x-ratelimit-remaining' },
      salesloft: { status: 429, header: 'x-ratelimit-remaining-minute' },
      apollo: { status: 429, header: 'x-minute-requests-left' },
    };
    for (const [integrationId, want] of Object.entries(expected) as Array<[IntegrationId, { status: number; header: string }]>) {
      const { connectionId, passthrough } = start(integrationId);
      sandbox!.setDownstreamFaults(connectionId, [{ kind: 'rate-limit' }]);
      const answer = await passthrough('GET', 'anything');
      expect(answer.statusCode, integrationId).toBe(want.status);
      expect(answer.headers[want.header], integrationId).toMatch(/^(0|api-usage=15000\/15000)$/);
      sandbox!.close();
    }
  });

  it('fails with the 5xx asked for, in the system’s error body, queued after other faults', async () => {
    const { connectionId, passthrough } = start('salesforce');
    sandbox!.setDownstreamFaults(connectionId, [{ kind: 'server-error', status: 500 }, { kind: 'server-error' }]);
    const first = await passthrough('GET', 'services/data/v59.0/sobjects');
    expect(first).toMatchObject({ statusCode: 500, body: [{ errorCode: 'UNKNOWN_EXCEPTION' }] });
    const second = await passthrough('GET', 'services/data/v59.0/sobjects');
    expect(second).toMatchObject({ statusCode: 503, body: [{ errorCode: 'SERVER_UNAVAILABLE' }] });
    expect((await passthrough('GET', 'services/data/v59.0/sobjects')).statusCode).toBe(200);
  });

  it('takes longer on the sandbox clock when slow: the answer arrives once time has moved on', async () => {
    const { connectionId, passthrough } = start('pipedrive');
    sandbox!.setDownstreamFaults(connectionId, [{ kind: 'slow', delayMs: 4000 }]);
    let answered = false;
    const pending = passthrough('GET', 'v1/persons').then((answer) => {
      answered = true;
      return answer;
    });
    await sandbox!.advance('3999ms');
    expect(answered).toBe(false);
    await sandbox!.advance('1ms');
    const answer = await pending;
    expect(answer.statusCode).toBe(200);
  });

  it('refuses a bad fault with a 400 naming the field, and unknown connections with a 404', async () => {
    const { connectionId } = start('hubspot');
    const bad = await call('PUT', `/sandbox/connections/${connectionId}/downstream-faults`, { faults: [{ kind: 'meltdown' }] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('faults[0].kind');
    const badStatus = await call('PUT', `/sandbox/connections/${connectionId}/downstream-faults`, { faults: [{ kind: 'server-error', status: 418 }] });
    expect(badStatus.status).toBe(400);
    expect((await call('PUT', '/sandbox/connections/nope/downstream-faults', { faults: [] })).status).toBe(404);
    expect(sandbox!.downstreamFaults(connectionId)).toEqual([]);
    sandbox!.setDownstreamFaults(connectionId, [{ kind: 'rate-limit', count: 3 }]);
    expect((await call('DELETE', `/sandbox/connections/${connectionId}/downstream-faults`)).body).toEqual({ faults: [] });
    expect(() => sandbox!.setDownstreamFaults(connectionId, [{ kind: 'slow', delayMs: -1 }])).toThrow(/delayMs/);
  });
});
