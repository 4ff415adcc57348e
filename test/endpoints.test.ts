import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import type { ExchangeResult } from '../src/model/connection.js';
import { API_KEY, type CallResult, devServerTransport, mswTransport, TABLE_WEBHOOK_URL, type Transport } from './helpers/transports.js';

/**
 * One table of requests, run against both transports: MSW handlers in this process, and the
 * express dev server on a real port. Each case starts from a fresh virtual-clock sandbox.
 */
interface Case {
  name: string;
  run: (t: Transport, sandbox: Sandbox) => Promise<void>;
}

function expectError(res: CallResult, status: number, errorCode: string, field?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(res.body.errorCode).toBe(errorCode);
  if (field !== undefined) expect(res.body.metadata?.field).toBe(field);
}

async function link(t: Transport, integrationId = 'hubspot'): Promise<ExchangeResult> {
  const token = await t.call('POST', '/link/token');
  const publicToken = await t.call('POST', '/sandbox/public-token', { json: { integrationId, linkToken: token.body.linkToken } });
  const exchange = await t.call('POST', '/link/exchange', { json: { publicToken: publicToken.body.publicToken } });
  expect(exchange.status, exchange.text).toBe(200);
  return exchange.body;
}

async function readyLink(t: Transport, sandbox: Sandbox, integrationId = 'hubspot'): Promise<ExchangeResult> {
  const connection = await link(t, integrationId);
  await sandbox.advance('10s');
  return connection;
}

const cases: Case[] = [
  // --- Authentication -----------------------------------------------------------------------
  {
    name: 'a missing service-api-token is a 401',
    run: async (t) => expectError(await t.call('POST', '/link/token', { apiKey: null }), 401, 'INVALID_API_TOKEN'),
  },
  {
    name: 'a wrong service-api-token is a 401',
    run: async (t) => expectError(await t.call('GET', '/connection/connections', { apiKey: 'nope' }), 401, 'INVALID_API_TOKEN'),
  },
  // --- Linking ------------------------------------------------------------------------------
  {
    name: 'link token, public token and exchange give every connection field',
    run: async (t) => {
      const token = await t.call('POST', '/link/token');
      expect(token.status).toBe(200);
      expect(token.body).toEqual({ linkToken: expect.stringMatching(/^link_[0-9a-f]{32}$/) });
      const publicToken = await t.call('POST', '/sandbox/public-token', {
        json: { integrationId: 'salesforce', linkToken: token.body.linkToken, nativeOrgId: '00D000000000042EAA' },
      });
      expect(publicToken.body).toEqual({ publicToken: expect.stringMatching(/^public_[0-9a-f]{32}$/) });
      const exchange = await t.call('POST', '/link/exchange', { json: { publicToken: publicToken.body.publicToken } });
      expect(exchange.status).toBe(200);
      expect(Object.keys(exchange.body)).toEqual(['connectionId', 'accessToken', 'integrationId', 'nativeOrgId', 'nativeUserId', 'nativeOrgURL']);
      expect(exchange.body).toMatchObject({
        connectionId: expect.stringMatching(/^[0-9a-f]{32}$/),
        accessToken: expect.stringMatching(/^access_[0-9a-f]{40}$/),
        integrationId: 'salesforce',
        nativeOrgId: '00D000000000042EAA',
        nativeUserId: expect.stringMatching(/^005/),
        nativeOrgURL: expect.stringMatching(/^https:\/\/[a-z0-9-]+\.my\.salesforce\.com$/),
      });
    },
  },
  {
    name: 'a public token needs no link token and defaults to hubspot',
    run: async (t) => {
      const publicToken = await t.call('POST', '/sandbox/public-token');
      const exchange = await t.call('POST', '/link/exchange', { json: { publicToken: publicToken.body.publicToken } });
      expect(exchange.body.integrationId).toBe('hubspot');
      expect(exchange.body.nativeOrgURL).toBe(`https://app.hubspot.com/contacts/${exchange.body.nativeOrgId}`);
    },
  },
  {
    name: 'an unknown integration is a 400 naming integrationId',
    run: async (t) =>
      expectError(await t.call('POST', '/sandbox/public-token', { json: { integrationId: 'dynamics' } }), 400, 'INVALID_FIELD_VALUE', 'integrationId'),
  },
  {
    name: 'an invalid link token is a 401',
    run: async (t) => expectError(await t.call('POST', '/sandbox/public-token', { json: { linkToken: 'link_nope' } }), 401, 'INVALID_LINK_TOKEN', 'linkToken'),
  },
  {
    name: 'a link token of another API token is a 401',
    run: async (t) => {
      const token = await t.call('POST', '/link/token', { apiKey: 'other-key' });
      expectError(await t.call('POST', '/sandbox/public-token', { json: { linkToken: token.body.linkToken } }), 401, 'INVALID_LINK_TOKEN');
    },
  },
  {
    name: 'a public token exchanges once; the second exchange is a 400',
    run: async (t) => {
      const publicToken = (await t.call('POST', '/sandbox/public-token')).body.publicToken;
      expect((await t.call('POST', '/link/exchange', { json: { publicToken } })).status).toBe(200);
      expectError(await t.call('POST', '/link/exchange', { json: { publicToken } }), 400, 'PUBLIC_TOKEN_USED', 'publicToken');
    },
  },
  {
    name: 'a public token expires after 30 minutes',
    run: async (t, sandbox) => {
      const publicToken = (await t.call('POST', '/sandbox/public-token')).body.publicToken;
      await sandbox.advance('30m');
      expectError(await t.call('POST', '/link/exchange', { json: { publicToken } }), 400, 'PUBLIC_TOKEN_EXPIRED', 'publicToken');
    },
  },
  {
    name: 'an unknown public token is a 400',
    run: async (t) => expectError(await t.call('POST', '/link/exchange', { json: { publicToken: 'public_x' } }), 400, 'INVALID_PUBLIC_TOKEN'),
  },
  {
    name: 'an exchange without publicToken is a 400 naming it',
    run: async (t) => {
      const res = await t.call('POST', '/link/exchange', { json: {} });
      expectError(res, 400, 'INVALID_FIELD_VALUE', 'publicToken');
      expect(res.body.message).toBe('publicToken is required');
    },
  },
  {
    name: 'a wrongly typed field is a 400 that says what was expected',
    run: async (t) => {
      const res = await t.call('POST', '/link/exchange', { json: { publicToken: 42 } });
      expectError(res, 400, 'INVALID_FIELD_VALUE', 'publicToken');
      expect(res.body.message).toBe('publicToken must be a string, got number');
    },
  },
  {
    name: 'bad JSON is a 400 INVALID_JSON',
    run: async (t) =>
      expectError(await t.call('POST', '/link/exchange', { rawBody: '{"publicToken":', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_JSON'),
  },
  {
    name: 'a JSON array body is a 400',
    run: async (t) => expectError(await t.call('POST', '/link/exchange', { json: ['x'] }), 400, 'INVALID_FIELD_VALUE'),
  },
  {
    name: 'a non-JSON body is a 415',
    run: async (t) =>
      expectError(
        await t.call('POST', '/link/exchange', { rawBody: 'publicToken=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ),
  },
  {
    name: 'a body over 1 MiB is a 413',
    run: async (t) => expectError(await t.call('POST', '/link/exchange', { json: { publicToken: 'x'.repeat(1024 * 1024 + 10) } }), 413, 'PAYLOAD_TOO_LARGE'),
  },
  // --- Connections --------------------------------------------------------------------------
  {
    name: 'connections are listed for their API token only',
    run: async (t) => {
      const mine = await link(t);
      const list = await t.call('GET', '/connection/connections');
      expect(list.status).toBe(200);
      expect(list.body.connections).toEqual([
        {
          connectionId: mine.connectionId,
          integrationId: 'hubspot',
          createdTime: '2025-01-01T00:00:00.000Z',
          status: 'NEW_CONNECTION',
          nativeOrgURL: mine.nativeOrgURL,
          lastActivityDate: '2025-01-01T00:00:00.000Z',
        },
      ]);
      expect((await t.call('GET', '/connection/connections', { apiKey: 'other-key' })).body).toEqual({ connections: [] });
    },
  },
  {
    name: 'one connection by id; unknown, foreign or missing ids are 404/404/400',
    run: async (t) => {
      const mine = await link(t);
      const one = await t.call('GET', '/connection/connection', { query: { connectionId: mine.connectionId } });
      expect(one.status).toBe(200);
      expect(one.body.connection.connectionId).toBe(mine.connectionId);
      expectError(await t.call('GET', '/connection/connection', { query: { connectionId: 'f'.repeat(32) } }), 404, 'OBJECT_NOT_FOUND', 'connectionId');
      expectError(await t.call('GET', '/connection/connection', { query: { connectionId: mine.connectionId }, apiKey: 'other-key' }), 404, 'OBJECT_NOT_FOUND');
      expectError(await t.call('GET', '/connection/connection'), 400, 'INVALID_FIELD_VALUE', 'connectionId');
    },
  },
  {
    name: 'a deleted connection is gone, and so is its access token',
    run: async (t) => {
      const mine = await link(t);
      expect((await t.call('DELETE', '/connection/connection', { json: { connectionId: mine.connectionId } })).body).toEqual({});
      expectError(await t.call('GET', '/connection/connection', { query: { connectionId: mine.connectionId } }), 404, 'OBJECT_NOT_FOUND');
      expectError(await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken } }), 401, 'INVALID_ACCESS_TOKEN');
      expectError(await t.call('DELETE', '/connection/connection', { json: { connectionId: mine.connectionId } }), 404, 'OBJECT_NOT_FOUND');
    },
  },
  // --- Engagement lists ---------------------------------------------------------------------
  {
    name: 'engagement reads are a 409 while the connection is NEW_CONNECTION, and work after the initial sync',
    run: async (t, sandbox) => {
      const mine = await link(t);
      const early = await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken } });
      expectError(early, 409, 'CONNECTION_SYNCING');
      await sandbox.advance('3s');
      const users = await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken } });
      expect(users.status).toBe(200);
      expect(users.body.users.length).toBeGreaterThan(10);
    },
  },
  {
    name: 'users have the documented fields and no additional without allFields',
    run: async (t, sandbox) => {
      const mine = await readyLink(t, sandbox);
      const res = await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken, limit: 5 } });
      expect(res.body.users).toHaveLength(5);
      for (const user of res.body.users) {
        expect(Object.keys(user)).toEqual(['id', 'firstName', 'lastName', 'email', 'createdTime', 'modifiedTime', 'associations']);
        expect(user.id).toMatch(/^[0-9a-f]{32}$/);
        expect(user.associations).toEqual({ taskIds: [], actionIds: [] });
      }
      expect(res.body.nextPageCursor).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]+$/));
    },
  },
  {
    name: 'allFields=true adds the native record under additional; allFields=false does not',
    run: async (t, sandbox) => {
      const mine = await readyLink(t, sandbox);
      const all = await t.call('GET', '/engagement/mailboxes', { query: { accessToken: mine.accessToken, allFields: true, limit: 3 } });
      expect(all.status).toBe(200);
      for (const mailbox of all.body.mailboxes) expect(typeof mailbox.additional).toBe('object');
      const some = await t.call('GET', '/engagement/mailboxes', { query: { accessToken: mine.accessToken, allFields: false, limit: 3 } });
      for (const mailbox of some.body.mailboxes) expect(mailbox).not.toHaveProperty('additional');
    },
  },
  {
    name: 'mailboxes have the documented fields and point at users of the connection',
    run: async (t, sandbox) => {
      const mine = await readyLink(t, sandbox);
      const users = await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken, limit: 200 } });
      const userIds = new Set(users.body.users.map((user: { id: string }) => user.id));
      const res = await t.call('GET', '/engagement/mailboxes', { query: { accessToken: mine.accessToken, limit: 200 } });
      expect(res.body.nextPageCursor).toBeNull();
      for (const mailbox of res.body.mailboxes) {
        expect(Object.keys(mailbox)).toEqual(['id', 'email', 'isDefault', 'createdTime', 'modifiedTime', 'associations']);
        expect(userIds.has(mailbox.associations.ownerUserId)).toBe(true);
      }
    },
  },
  {
    name: 'a bad limit is a 400 naming limit',
    run: async (t, sandbox) => {
      const mine = await readyLink(t, sandbox);
      for (const limit of ['0', '201', 'abc', '1.5', '-1', '']) {
        expectError(await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken, limit } }), 400, 'INVALID_FIELD_VALUE', 'limit');
      }
    },
  },
  {
    name: 'a malformed or foreign cursor is a 400 naming cursor',
    run: async (t, sandbox) => {
      const mine = await readyLink(t, sandbox);
      const other = await readyLink(t, sandbox);
      const page = await t.call('GET', '/engagement/mailboxes', { query: { accessToken: mine.accessToken, limit: 2 } });
      const cursor = page.body.nextPageCursor;
      for (const [accessToken, list, bad] of [
        [mine.accessToken, 'users', cursor],
        [other.accessToken, 'mailboxes', cursor],
        [mine.accessToken, 'mailboxes', 'not a cursor!'],
        [mine.accessToken, 'mailboxes', Buffer.from('mailboxes:x:y').toString('base64url')],
      ]) {
        expectError(await t.call('GET', `/engagement/${list}`, { query: { accessToken: accessToken!, cursor: bad! } }), 400, 'INVALID_FIELD_VALUE', 'cursor');
      }
    },
  },
  {
    name: 'a bad allFields is a 400',
    run: async (t, sandbox) => {
      const mine = await readyLink(t, sandbox);
      for (const allFields of ['yes', '1', 'T', '']) {
        expectError(await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken, allFields } }), 400, 'INVALID_FIELD_VALUE', 'allFields');
      }
      // true and false in any case, as Python's client spells them (decision 0043).
      const spelt = await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken, allFields: 'TRUE' } });
      expect(spelt.status).toBe(200);
      expect(spelt.body.users[0]).toHaveProperty('additional');
    },
  },
  {
    name: 'a missing accessToken is a 400, an unknown or foreign one a 401',
    run: async (t, sandbox) => {
      const mine = await readyLink(t, sandbox);
      expectError(await t.call('GET', '/engagement/users'), 400, 'INVALID_FIELD_VALUE', 'accessToken');
      expectError(await t.call('GET', '/engagement/users', { query: { accessToken: 'access_nope' } }), 401, 'INVALID_ACCESS_TOKEN');
      expectError(await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken }, apiKey: 'other-key' }), 401, 'INVALID_ACCESS_TOKEN');
    },
  },
  {
    name: 'a repeated query parameter is a 400',
    run: async (t, sandbox) => {
      const mine = await readyLink(t, sandbox);
      const res = await t.call('GET', `/engagement/users?limit=1&limit=2&accessToken=${mine.accessToken}`);
      expectError(res, 400, 'INVALID_FIELD_VALUE', 'limit');
    },
  },
  // --- Webhooks -----------------------------------------------------------------------------
  {
    name: 'a webhook is created, read and deleted',
    run: async (t) => {
      const mine = await link(t);
      const created = await t.call('POST', '/connection/webhook', { json: { accessToken: mine.accessToken, webhook: { webhookUrl: TABLE_WEBHOOK_URL } } });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({
        webhook: {
          webhookId: expect.stringMatching(/^[0-9a-f]{32}$/),
          connectionId: mine.connectionId,
          webhookUrl: TABLE_WEBHOOK_URL,
          createdTime: '2025-01-01T00:00:00.000Z',
        },
      });
      const { webhookId } = created.body.webhook;
      const read = await t.call('GET', '/connection/webhook', { query: { accessToken: mine.accessToken, webhookId } });
      expect(read.body).toEqual(created.body);
      expect((await t.call('DELETE', '/connection/webhook', { json: { accessToken: mine.accessToken, webhookId } })).body).toEqual({});
      expectError(await t.call('GET', '/connection/webhook', { query: { accessToken: mine.accessToken, webhookId } }), 404, 'OBJECT_NOT_FOUND', 'webhookId');
      expectError(await t.call('DELETE', '/connection/webhook', { json: { accessToken: mine.accessToken, webhookId } }), 404, 'OBJECT_NOT_FOUND');
    },
  },
  {
    name: 'a second webhook for a connection is a 400 WEBHOOK_ALREADY_EXISTS',
    run: async (t) => {
      const mine = await link(t);
      const json = { accessToken: mine.accessToken, webhook: { webhookUrl: TABLE_WEBHOOK_URL } };
      expect((await t.call('POST', '/connection/webhook', { json })).status).toBe(200);
      expectError(await t.call('POST', '/connection/webhook', { json }), 400, 'WEBHOOK_ALREADY_EXISTS');
    },
  },
  {
    name: 'a webhookUrl must be an absolute http(s) URL',
    run: async (t) => {
      const mine = await link(t);
      for (const webhookUrl of ['/hooks', 'ftp://app.test/hooks', 'not a url']) {
        const res = await t.call('POST', '/connection/webhook', { json: { accessToken: mine.accessToken, webhook: { webhookUrl } } });
        expectError(res, 400, 'INVALID_FIELD_VALUE', 'webhook.webhookUrl');
      }
      expectError(await t.call('POST', '/connection/webhook', { json: { accessToken: mine.accessToken } }), 400, 'INVALID_FIELD_VALUE', 'webhook');
    },
  },
  {
    name: 'webhooks have no PUT or PATCH: 405 with an Allow header',
    run: async (t) => {
      for (const method of ['PUT', 'PATCH']) {
        const res = await t.call(method, '/connection/webhook', { json: {} });
        expectError(res, 405, 'METHOD_NOT_ALLOWED');
        expect(res.headers.get('allow')).toBe('POST, GET, DELETE, HEAD');
      }
    },
  },
  // --- Passthrough --------------------------------------------------------------------------
  {
    name: 'a passthrough GET answers the downstream status, body, headers and full URL',
    run: async (t) => {
      const mine = await link(t);
      const res = await t.call('POST', '/crm/passthrough', {
        json: { accessToken: mine.accessToken, method: 'GET', path: 'crm/v3/objects/contacts', query: { limit: 2 } },
      });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['headers', 'url', 'statusCode', 'body']);
      expect(res.body.url).toBe('https://api.hubapi.com/crm/v3/objects/contacts?limit=2');
      expect(res.body.statusCode).toBe(200);
      expect(res.body.body.results).toHaveLength(2);
      expect(typeof res.body.headers).toBe('object');
    },
  },
  {
    name: 'a passthrough is never blocked by the sync (works while NEW_CONNECTION) and tolerates a leading slash',
    run: async (t) => {
      const mine = await link(t, 'salesforce');
      const res = await t.call('POST', '/crm/passthrough', {
        json: { accessToken: mine.accessToken, method: 'GET', path: '/services/data/v53.0/sobjects/Contact/nope' },
      });
      expect(res.status).toBe(200);
      expect(res.body.url).toMatch(/^https:\/\/[a-z0-9-]+\.my\.salesforce\.com\/services\/data\/v53\.0\/sobjects\/Contact\/nope$/);
      expect(res.body.statusCode).toBe(404);
    },
  },
  {
    name: 'an unknown downstream path is a 200 carrying the native 404',
    run: async (t) => {
      const mine = await link(t);
      const res = await t.call('POST', '/crm/passthrough', { json: { accessToken: mine.accessToken, method: 'GET', path: 'crm/v3/nothing-here' } });
      expect(res.status).toBe(200);
      expect(res.body.statusCode).toBe(404);
      expect(res.body.body).toBeTruthy();
    },
  },
  {
    name: 'a passthrough path that leaves the downstream is a 400 naming path',
    run: async (t) => {
      const mine = await link(t);
      for (const path of ['https://evil.test/x', '//evil.test/x', '/\\evil.test/x', '\\\\evil.test', 'crm\\..\\x', 'crm/../../x', 'crm/%2e%2e/x', '']) {
        const res = await t.call('POST', '/crm/passthrough', { json: { accessToken: mine.accessToken, method: 'GET', path } });
        expectError(res, 400, 'INVALID_FIELD_VALUE', 'path');
      }
    },
  },
  {
    name: 'a passthrough method outside GET, POST, PUT, PATCH, DELETE is a 400 naming method',
    run: async (t) => {
      const mine = await link(t);
      const res = await t.call('POST', '/crm/passthrough', { json: { accessToken: mine.accessToken, method: 'TRACE', path: 'x' } });
      expectError(res, 400, 'INVALID_FIELD_VALUE', 'method');
    },
  },
  {
    name: 'a passthrough body must be an object, and query values scalars',
    run: async (t) => {
      const mine = await link(t);
      const base = { accessToken: mine.accessToken, method: 'POST', path: 'crm/v3/objects/contacts' };
      expectError(await t.call('POST', '/crm/passthrough', { json: { ...base, body: 'x' } }), 400, 'INVALID_FIELD_VALUE', 'body');
      expectError(await t.call('POST', '/crm/passthrough', { json: { ...base, query: { a: { b: 1 } } } }), 400, 'INVALID_FIELD_VALUE', 'query.a');
    },
  },
  // --- Control API --------------------------------------------------------------------------
  {
    name: 'records are created (201), read, changed and deleted through the control API',
    run: async (t) => {
      const mine = await link(t);
      const base = `/sandbox/connections/${mine.connectionId}/records`;
      const account = (await t.call('POST', `${base}/Account`, { json: { name: 'Globex' } })).body.record;
      const created = await t.call('POST', `${base}/Contact`, { json: { firstName: 'Hank', associations: { accountIds: [account.id] } } });
      expect(created.status).toBe(201);
      const contact = created.body.record;
      expect(contact).toMatchObject({ id: expect.stringMatching(/^v\.contact\.[0-9a-f]{32}$/), firstName: 'Hank', associations: { accountIds: [account.id] } });
      expect((await t.call('GET', `${base}/Account/${account.id}`)).body.record.associations.contactIds).toEqual([contact.id]);
      const patched = await t.call('PATCH', `${base}/Contact/${contact.id}`, { json: { jobTitle: 'Boss' } });
      expect(patched.body.record).toMatchObject({ firstName: 'Hank', jobTitle: 'Boss' });
      expect((await t.call('DELETE', `${base}/Contact/${contact.id}`)).body).toEqual({});
      expectError(await t.call('GET', `${base}/Contact/${contact.id}`), 404, 'OBJECT_NOT_FOUND', 'id');
      const types = (await t.call('GET', `/sandbox/connections/${mine.connectionId}/deliveries`)).body.deliveries.map(
        (d: { event: { type: string; data: { objectType?: string; eventType?: string } } }) =>
          d.event.data.objectType ? `${d.event.data.objectType}:${d.event.data.eventType}` : d.event.type,
      );
      expect(types).toEqual(['STATUS_CHANGE', 'Account:CREATE', 'Contact:CREATE', 'Contact:UPDATE', 'Contact:DELETE']);
    },
  },
  {
    name: 'control API writes name the bad field',
    run: async (t) => {
      const mine = await link(t);
      const base = `/sandbox/connections/${mine.connectionId}/records`;
      expectError(await t.call('POST', `${base}/Widget`, { json: {} }), 400, 'INVALID_FIELD_VALUE', 'objectType');
      expectError(await t.call('POST', `${base}/Contact`, { json: { shoeSize: 44 } }), 400, 'INVALID_FIELD_VALUE', 'shoeSize');
      expectError(await t.call('POST', `${base}/Deal`, { json: { amount: 'lots' } }), 400, 'INVALID_FIELD_VALUE', 'amount');
      expectError(
        await t.call('POST', `${base}/Contact`, { json: { associations: { accountIds: [`v.account.${'0'.repeat(32)}`] } } }),
        400,
        'INVALID_FIELD_VALUE',
        'associations.accountIds[0]',
      );
      expectError(await t.call('PATCH', `${base}/Contact/v.contact.${'0'.repeat(32)}`, { json: {} }), 404, 'OBJECT_NOT_FOUND');
      expectError(await t.call('POST', `${base}/Contact`, { rawBody: 'x', headers: { 'content-type': 'text/plain' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    },
  },
  {
    name: "another API token's connection is unknown to the control API",
    run: async (t) => {
      const mine = await link(t);
      const res = await t.call('POST', `/sandbox/connections/${mine.connectionId}/records/Contact`, { json: {}, apiKey: 'other-key' });
      expectError(res, 404, 'OBJECT_NOT_FOUND', 'connectionId');
    },
  },
  {
    name: 'a status can be forced, and a bad one is a 400 naming status',
    run: async (t) => {
      const mine = await link(t);
      const res = await t.call('POST', `/sandbox/connections/${mine.connectionId}/status`, { json: { status: 'READY' } });
      expect(res.status).toBe(200);
      expect(res.body.connection).toMatchObject({ connectionId: mine.connectionId, status: 'READY' });
      expect((await t.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken } })).status).toBe(200);
      expectError(await t.call('POST', `/sandbox/connections/${mine.connectionId}/status`, { json: { status: 'DONE' } }), 400, 'INVALID_FIELD_VALUE', 'status');
    },
  },
  {
    name: 'the delivery log filters by state, and refuses an unknown state',
    run: async (t, sandbox) => {
      const mine = await link(t);
      await sandbox.advance('10s');
      const pending = await t.call('GET', `/sandbox/connections/${mine.connectionId}/deliveries`, { query: { state: 'pending' } });
      expect(pending.body.deliveries.map((d: { event: { data: { status: string } } }) => d.event.data.status)).toEqual([
        'NEW_CONNECTION',
        'INITIAL_SYNCED',
        'READY',
      ]);
      expect((await t.call('GET', `/sandbox/connections/${mine.connectionId}/deliveries`, { query: { state: 'failed' } })).body.deliveries).toEqual([]);
      expectError(
        await t.call('GET', `/sandbox/connections/${mine.connectionId}/deliveries`, { query: { state: 'lost' } }),
        400,
        'INVALID_FIELD_VALUE',
        'state',
      );
    },
  },
  {
    name: 'a walk over records with a cursor sees each one once while records are added',
    run: async (t) => {
      const mine = await link(t);
      const base = `/sandbox/connections/${mine.connectionId}/records/Contact`;
      const before = (await t.call('GET', base, { query: { limit: 200 } })).body.records.map((r: { id: string }) => r.id);
      const seen: string[] = [];
      const added: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await t.call('GET', base, { query: { limit: 25, ...(cursor ? { cursor } : {}) } });
        seen.push(...page.body.records.map((r: { id: string }) => r.id));
        cursor = page.body.nextPageCursor;
        if (added.length < 3) added.push((await t.call('POST', base, { json: {} })).body.record.id);
      } while (cursor);
      expect(seen).toEqual([...before, ...added]);
      expect(new Set(seen).size).toBe(seen.length);
    },
  },
  // --- Routing ------------------------------------------------------------------------------
  {
    name: 'an unknown route is a 404 in the error shape',
    run: async (t) => expectError(await t.call('GET', '/nothing/here'), 404, 'ROUTE_NOT_FOUND'),
  },
  {
    name: 'a wrong method on a known path is a 405',
    run: async (t) => {
      const res = await t.call('GET', '/link/exchange');
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe('POST');
    },
  },
  {
    name: 'HEAD answers like GET, without a body',
    run: async (t) => {
      const head = await t.call('HEAD', '/connection/connections');
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect((await t.call('HEAD', '/connection/connections', { apiKey: null })).status).toBe(401);
      expect((await t.call('HEAD', '/link/token')).status).toBe(405);
    },
  },
  {
    name: 'the health check needs no API token',
    run: async (t) => {
      const res = await t.call('GET', '/sandbox/health', { apiKey: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    },
  },
];

for (const transport of [mswTransport(), devServerTransport()]) {
  describe(`endpoints over ${transport.name}`, () => {
    let sandbox: Sandbox;
    beforeEach(async () => {
      sandbox = createSandbox({ seed: 11, clock: 'virtual', apiKeys: [API_KEY, 'other-key'] });
      await transport.use(sandbox);
    });
    afterAll(() => transport.close());

    for (const { name, run } of cases) it(name, () => run(transport, sandbox));

    it('caps connections per API token when asked, with the original message', async () => {
      sandbox = createSandbox({ clock: 'virtual', apiKeys: [API_KEY], connectionLimit: 2 });
      await transport.use(sandbox);
      await link(transport);
      await link(transport);
      const publicToken = (await transport.call('POST', '/sandbox/public-token')).body.publicToken;
      const res = await transport.call('POST', '/link/exchange', { json: { publicToken } });
      expectError(res, 400, 'CONNECTION_LIMIT_REACHED');
      expect(res.body.message).toBe('Maximum number of connections reached for development account');
      // The refused exchange did not use the token up: free a slot and it goes through.
      const first = (await transport.call('GET', '/connection/connections')).body.connections[0];
      await transport.call('DELETE', '/connection/connection', { json: { connectionId: first.connectionId } });
      expect((await transport.call('POST', '/link/exchange', { json: { publicToken } })).status).toBe(200);
    });

    it('answers byte-identically for the same seed and calls, and differently for another seed', async () => {
      const transcript = async (seed: number) => {
        await transport.use(createSandbox({ seed, clock: 'virtual', apiKeys: [API_KEY] }));
        const mine = await link(transport, 'zoho');
        const texts = [JSON.stringify(mine)];
        await transport.call('POST', `/sandbox/connections/${mine.connectionId}/status`, { json: { status: 'READY' } });
        for (const path of ['/engagement/users', '/engagement/mailboxes']) {
          texts.push((await transport.call('GET', path, { query: { accessToken: mine.accessToken, allFields: true } })).text);
        }
        texts.push((await transport.call('POST', `/sandbox/connections/${mine.connectionId}/records/Deal`, { json: {} })).text);
        texts.push((await transport.call('GET', '/connection/connections')).text);
        return texts;
      };
      const first = await transcript(21);
      expect(await transcript(21)).toEqual(first);
      expect(await transcript(22)).not.toEqual(first);
    });

    it('walks every page of users to the end: each record once, no gaps, no cursor on the last page', async () => {
      const mine = await readyLink(transport, sandbox);
      const all = await transport.call('GET', '/engagement/users', { query: { accessToken: mine.accessToken, limit: 200 } });
      const expected = all.body.users.map((user: { id: string }) => user.id);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const res = await transport.call('GET', '/engagement/users', {
          query: { accessToken: mine.accessToken, limit: 7, ...(cursor ? { cursor } : {}) },
        });
        expect(res.status).toBe(200);
        seen.push(...res.body.users.map((user: { id: string }) => user.id));
        cursor = res.body.nextPageCursor;
        pages++;
      } while (cursor);
      expect(seen).toEqual(expected);
      expect(pages).toBe(Math.ceil(expected.length / 7));
    });
  });
}
