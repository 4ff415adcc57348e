import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import { callSandbox } from './helpers/sandbox-call.js';

/**
 * What the passthrough carries for native calls: a `query` value may be an array (its key
 * repeated, in order) and `body` a JSON object or array; anything else is a 400 naming the field.
 */

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

function start() {
  sandbox = createSandbox({ seed: 11, clock: 'virtual', apiKeys: ['a'] });
  const { accessToken, connectionId } = sandbox.connect({ integrationId: 'hubspot' });
  const passthrough = (fields: Record<string, unknown>) => callSandbox(sandbox!, 'POST', '/crm/passthrough', { body: { accessToken, ...fields } });
  return { connectionId, passthrough };
}

describe('passthrough query arrays and array bodies', () => {
  it('repeats an array query key in order, after the query of path, and the system reads every value', async () => {
    const { connectionId, passthrough } = start();
    const contact = sandbox!.listRecords(connectionId, 'Contact')[0]!;
    const answer = await passthrough({
      method: 'GET',
      path: `crm/v3/objects/contacts/${contact.nativeId}?archived=false`,
      query: { properties: ['email', 'firstname', 'jobtitle'], limit: 5 },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.url).toBe(
      `https://api.hubapi.com/crm/v3/objects/contacts/${contact.nativeId}?archived=false&properties=email&properties=firstname&properties=jobtitle&limit=5`,
    );
    expect(Object.keys(answer.body.body.properties)).toEqual(expect.arrayContaining(['email', 'firstname', 'jobtitle']));
    // One value in an array is the same call as the value alone.
    const single = await passthrough({ method: 'GET', path: `crm/v3/objects/contacts/${contact.nativeId}`, query: { properties: ['email'] } });
    const plain = await passthrough({ method: 'GET', path: `crm/v3/objects/contacts/${contact.nativeId}`, query: { properties: 'email' } });
    expect(single.body).toEqual(plain.body);
  });

  it('carries an array body to the system (HubSpot’s v4 association create)', async () => {
    const { connectionId, passthrough } = start();
    const contact = sandbox!.listRecords(connectionId, 'Contact')[0]!;
    const company = sandbox!.listRecords(connectionId, 'Account').at(-1)!;
    const answer = await passthrough({
      method: 'PUT',
      path: `crm/v4/objects/contacts/${contact.nativeId}/associations/companies/${company.nativeId}`,
      body: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 }],
    });
    expect(answer.body.statusCode).toBe(201);
    expect(sandbox!.getRecord(connectionId, 'Contact', contact.id).associations).toMatchObject({ accountIds: expect.arrayContaining([company.id]) });
  });

  it('refuses a bad query value or body with a 400 naming the field', async () => {
    const { passthrough } = start();
    const base = { method: 'GET', path: 'crm/v3/objects/contacts' };
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ query: { properties: ['email', { a: 1 }] } }, 'query.properties[1]', 'query.properties[1] must be a string, number or boolean, got object'],
      [{ query: { properties: ['email', null] } }, 'query.properties[1]', 'query.properties[1] must be a string, number or boolean, got null'],
      [{ query: { properties: [['email']] } }, 'query.properties[0]', 'query.properties[0] must be a string, number or boolean, got array'],
      [{ query: { a: { b: 1 } } }, 'query.a', 'query.a must be a string, number or boolean, or an array of them, got object'],
      [{ body: 'x' }, 'body', 'body must be an object or an array, got string'],
      // (`body: null` is no body, as a generated client sends it: decision 0043.)
    ];
    for (const [fields, field, message] of cases) {
      const answer = await passthrough({ ...base, ...fields });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ message, errorCode: 'INVALID_FIELD_VALUE', metadata: { field } });
    }
  });
});

describe("a scenario's passthrough step", () => {
  it('takes the same query arrays and array bodies as the passthrough it calls', async () => {
    sandbox = createSandbox({ seed: 11, clock: 'virtual', apiKeys: ['a'] });
    const report = await sandbox.runScenario({
      description: 'native calls with a repeated key and an array body',
      steps: [
        { status: 'READY' },
        { create: { type: 'Contact', as: 'ada', fields: { firstName: 'Ada', lastName: 'Lovelace', jobTitle: 'Analyst' } } },
        {
          passthrough: {
            method: 'GET',
            path: 'crm/v3/objects/contacts/${ada.nativeId}',
            query: { properties: ['firstname', 'jobtitle'] },
            as: 'read',
            expectStatus: 200,
          },
        },
        { passthrough: { method: 'POST', path: 'crm/v3/objects/contacts/batch/read', body: [], expectStatus: 400 } },
      ],
    } as never);
    expect(report.checks.map((check) => [check.ok, check.message])).toEqual([
      [true, expect.stringContaining('answered 200')],
      [true, expect.stringContaining('answered 400')],
    ]);
  });

  it('refuses a query value that is not a scalar, naming it, before the run starts', async () => {
    sandbox = createSandbox({ seed: 11, clock: 'virtual', apiKeys: ['a'] });
    const run = sandbox.runScenario({
      description: 'a bad query',
      steps: [{ passthrough: { method: 'GET', path: 'x', query: { properties: ['a', { b: 1 }] } } }],
    } as never);
    await expect(run).rejects.toThrow(/query\.properties\[1\]|query.properties.1/);
  });
});
