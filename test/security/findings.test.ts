import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { type DevServer, startDevServer } from '../../src/node/dev-server.js';
import { exchange } from '../helpers/raw-http.js';

// What issue 47's probes found, kept as tests through a dev server on 127.0.0.1: a field name that
// turned a committed write into a 500, answers whose headers no client could read, impossible dates
// stored as others, and SOQL escapes read as wildcards. (Loop holds and retained memory: ./held-work.test.ts.)

const KEY = 'sandbox-api-key';
let server: DevServer;
const sandbox = createSandbox({ initialSyncDelay: '1ms', readyDelay: '2ms' });

beforeAll(async () => {
  server = await startDevServer(sandbox, { port: 0 });
});
afterAll(async () => {
  await server.close();
  sandbox.close();
});

/** A connection of the integration, READY. */
function connection(integrationId: string) {
  const linked = sandbox.connect({ integrationId: integrationId as never });
  sandbox.setStatus(linked.connectionId, 'READY');
  return linked;
}

/**
 * A JSON request as raw HTTP (the body as given, whatever its keys), on a connection of its own: the status, the
 * answer's head as bytes went over the wire, its headers (names in lower case) and its JSON body.
 */
async function raw(method: string, path: string, body: string) {
  const length = new TextEncoder().encode(body).length;
  const answer = await exchange(
    server.port,
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nservice-api-token: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n${body}`,
  );
  const split = answer.indexOf('\r\n\r\n');
  const head = answer.slice(0, split);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  return { status: Number(head.split(' ')[1]), headBytes: new TextEncoder().encode(head).length, headers, json: JSON.parse(answer.slice(split + 4)) };
}

const contactCount = (connectionId: string) => sandbox.listRecords(connectionId, 'Contact').length;

describe('no 5xx from a field name (issue 47, item 3)', () => {
  // Each body is written as raw JSON text, so that the names reach the server exactly as given.
  const names: Array<[string, string, string]> = [
    ['a non-ASCII name', '{"lastName":"X","Ωmega":1}', 'contact.%CE%A9mega (not a field of Contact)'],
    ['a name with CR and LF', '{"lastName":"X","a\\r\\nb":1}', 'contact.a%0D%0Ab (not a field of Contact)'],
    ['a name with NUL', '{"lastName":"X","a\\u0000b":1}', 'contact.a%00b (not a field of Contact)'],
    ['a name with a percent sign and a lone surrogate', '{"lastName":"X","50%\\ud800":1}', 'contact.50%25%EF%BF%BD (not a field of Contact)'],
  ];

  it.each(names)('POST /crm/contact with %s: 200, the record written once, the name encoded in the header', async (_, fields, header) => {
    const { connectionId, accessToken } = connection('hubspot');
    const before = contactCount(connectionId);
    const answer = await raw('POST', '/crm/contact', `{"accessToken":"${accessToken}","contact":${fields}}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-sandbox-ignored-fields']).toBe(header);
    expect(contactCount(connectionId)).toBe(before + 1);
    expect(sandbox.getRecord(connectionId, 'Contact', answer.json.id)).toMatchObject({ lastName: 'X' });
  });

  it('a top-level Ωtop, and the same on /engagement/contact: 200, named like any unknown field', async () => {
    const hubspot = connection('hubspot');
    const top = await raw('POST', '/crm/contact', `{"accessToken":"${hubspot.accessToken}","contact":{"lastName":"X"},"Ωtop":1}`);
    expect([top.status, top.headers['x-sandbox-ignored-fields']]).toEqual([200, '%CE%A9top (not a field of this request)']);
    const outreach = connection('outreach');
    const before = contactCount(outreach.connectionId);
    const engagement = await raw(
      'POST',
      '/engagement/contact',
      `{"accessToken":"${outreach.accessToken}","contact":{"firstName":"E","lastName":"X","Ωmega":1}}`,
    );
    expect([engagement.status, engagement.headers['x-sandbox-ignored-fields']]).toEqual([200, 'contact.%CE%A9mega (not a field of Contact)']);
    expect(contactCount(outreach.connectionId)).toBe(before + 1);
  });
});

describe('answers a client can read (issue 47, item 4)', () => {
  it('a contact with 1,000 unknown fields: the header names how many and the first few, the body every one; headers under 8 KiB', async () => {
    const { connectionId, accessToken } = connection('hubspot');
    const unknown = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`unknownField${i}`, i]));
    const before = contactCount(connectionId);
    const answer = await raw('POST', '/crm/contact', JSON.stringify({ accessToken, contact: { lastName: 'X', ...unknown } }));
    expect(answer.status).toBe(200);
    expect(answer.headBytes).toBeLessThan(8 * 1024);
    expect(answer.headers['x-sandbox-ignored-fields']).toMatch(
      /^1000 fields ignored; the first \d+: contact\.unknownField0 \(not a field of Contact\), contact\.unknownField1 .*; all 1000 in the answer's metadata\.ignoredFields$/,
    );
    expect(answer.json.metadata.ignoredFields).toEqual(Object.keys(unknown).map((key) => `contact.${key} (not a field of Contact)`));
    expect(contactCount(connectionId)).toBe(before + 1);
    // Node's fetch reads it (it refused the 49,888-byte header with UND_ERR_HEADERS_OVERFLOW).
    const fetched = await fetch(`${server.url}/crm/contact`, {
      method: 'POST',
      headers: { 'service-api-token': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ accessToken, contact: { lastName: 'Y', ...unknown } }),
    });
    expect(fetched.status).toBe(200);
  });

  it('one name of 100,000 characters, and 400 emails on an engagement contact: short headers, everything in the body', async () => {
    const { accessToken } = connection('hubspot');
    const long = await raw('POST', '/crm/contact', JSON.stringify({ accessToken, contact: { lastName: 'X', ['n'.repeat(100_000)]: 1 } }));
    expect(long.status).toBe(200);
    expect(long.headBytes).toBeLessThan(8 * 1024);
    expect(long.json.metadata.ignoredFields).toEqual([`contact.${'n'.repeat(100_000)} (not a field of Contact)`]);
    const outreach = connection('outreach');
    const emails = Array.from({ length: 400 }, (_, i) => ({ address: `a${i}@long.example`, type: 'work' }));
    const answer = await raw(
      'POST',
      '/engagement/contact',
      JSON.stringify({ accessToken: outreach.accessToken, contact: { firstName: 'E', lastName: 'X', emails } }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headBytes).toBeLessThan(8 * 1024);
    expect(answer.json.metadata.ignoredFields).toHaveLength(399);
  });

  it('a few ignored fields: the header as before, no metadata in the body', async () => {
    const { accessToken } = connection('hubspot');
    const answer = await raw('POST', '/crm/note', JSON.stringify({ accessToken, note: { content: 'x', isPrivate: true }, extra: 1 }));
    expect(answer.headers['x-sandbox-ignored-fields']).toBe('extra (not a field of this request), note.isPrivate (not a field of Note)');
    expect(Object.keys(answer.json)).toEqual(['id']);
  });
});

describe('dates that exist (issue 47, item 5)', () => {
  it('unified writes and filters refuse Feb 30, June 31 and hour 25 with a 400 naming the field', async () => {
    const { accessToken } = connection('hubspot');
    const cases: Array<[string, unknown, string]> = [
      ['/crm/event', { subject: 'x', startDateTime: '2025-02-30T10:00:00Z', endDateTime: '2025-03-30T10:00:00Z' }, 'event.startDateTime'],
      ['/crm/deal', { name: 'x', closeDate: '2025-02-30' }, 'deal.closeDate'],
      ['/crm/task', { subject: 'x', dueDate: '2025-06-31' }, 'task.dueDate'],
      ['/crm/task', { subject: 'x', dueDate: '2025-06-30T25:00:00Z' }, 'task.dueDate'],
    ];
    for (const [path, fields, field] of cases) {
      const key = path.slice('/crm/'.length);
      const answer = await raw('POST', path, JSON.stringify({ accessToken, [key]: fields }));
      expect([answer.status, answer.json.errorCode, answer.json.metadata?.field], field).toEqual([400, 'INVALID_FIELD_VALUE', field]);
      expect(answer.json.message, field).toMatch(/has no day|is past 23/);
    }
    const filter = await raw('POST', '/crm/deals/search', JSON.stringify({ accessToken, filters: { closeDate: { gt: '2025-02-30' } } }));
    expect([filter.status, filter.json.metadata?.field]).toEqual([400, 'filters.closeDate.gt']);
    expect((await raw('POST', '/crm/deals/search', JSON.stringify({ accessToken, filters: { closeDate: { gt: '2024-02-29' } } }))).status).toBe(200);
    const outreach = connection('outreach');
    const tasks = (await (
      await fetch(`${server.url}/engagement/tasks?accessToken=${outreach.accessToken}&limit=1`, { headers: { 'service-api-token': KEY } })
    ).json()) as {
      tasks: Array<{ id: string }>;
    };
    const task = await raw(
      'PATCH',
      '/engagement/task',
      JSON.stringify({ accessToken: outreach.accessToken, id: tasks.tasks[0]!.id, task: { dueDate: '2025-02-29T09:00:00Z' } }),
    );
    expect([task.status, task.json.metadata?.field]).toEqual([400, 'task.dueDate']);
  });

  it('native writes refuse them as each platform refuses a bad date (HubSpot, Salesforce, Pipedrive)', async () => {
    const passthrough = async (integrationId: string, method: string, path: string, body: unknown) => {
      const { accessToken } = connection(integrationId);
      return (await raw('POST', '/crm/passthrough', JSON.stringify({ accessToken, method, path, body }))).json as { statusCode: number; body: unknown };
    };
    expect((await passthrough('hubspot', 'POST', 'crm/v3/objects/deals', { properties: { dealname: 'x', closedate: '2025-02-30' } })).statusCode).toBe(400);
    expect(
      (await passthrough('salesforce', 'POST', 'services/data/v59.0/sobjects/Opportunity', { Name: 'x', StageName: 'Prospecting', CloseDate: '2025-02-30' }))
        .statusCode,
    ).toBe(400);
    expect((await passthrough('pipedrive', 'POST', 'v1/deals', { title: 'x', expected_close_date: '2025-06-31' })).statusCode).toBe(400);
    expect((await passthrough('hubspot', 'POST', 'crm/v3/objects/deals', { properties: { dealname: 'x', closedate: '2024-02-29' } })).statusCode).toBe(201);
  });
});

describe('SOQL as Salesforce reads it (issue 47, item 6)', () => {
  it("LIKE 'L50\\%tag' finds L50%tag, not L50Xtag; 'L5\\_tag' finds L5_tag, not L5Ztag", async () => {
    const { accessToken } = connection('salesforce');
    const call = async (method: string, path: string, body?: unknown, query?: Record<string, string>) =>
      (await raw('POST', '/crm/passthrough', JSON.stringify({ accessToken, method, path, body, query }))).json as { statusCode: number; body: any };
    for (const name of ['L50%tag', 'L50Xtag', 'L5_tag', 'L5Ztag']) {
      expect((await call('POST', 'services/data/v59.0/sobjects/Contact', { LastName: name })).statusCode).toBe(201);
    }
    const like = async (pattern: string) =>
      (await call('GET', 'services/data/v59.0/query', undefined, { q: `SELECT LastName FROM Contact WHERE LastName LIKE '${pattern}'` })).body.records.map(
        (row: { LastName: string }) => row.LastName,
      );
    expect(await like('L50\\%tag')).toEqual(['L50%tag']);
    expect(await like('L5\\_tag')).toEqual(['L5_tag']);
    expect(await like('L50%tag')).toEqual(['L50%tag', 'L50Xtag']);
  });
});
