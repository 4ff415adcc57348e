import { describe, expect, it } from 'vitest';
import { callSandbox } from '../../test/helpers/sandbox-call.js';
import { createSandbox } from '../index.js';
import { type JournalRecord, RequestJournal } from './journal.js';

const call = callSandbox;

describe('request journal', () => {
  it('records each request with its connection, per API token, and filters', async () => {
    const sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a', 'b'] });
    const { accessToken, connectionId } = sandbox.connect({ apiKey: 'a' });
    await call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}`);
    await sandbox.advance('3s');
    await call(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}&limit=1`);
    await call(sandbox, 'POST', '/connection/webhook', { body: { accessToken, webhook: { webhookUrl: 'nope' } } });
    await call(sandbox, 'GET', '/connection/connections', { key: 'b' });

    const all = sandbox.requests({ apiKey: 'a' });
    expect(all.map((r) => [r.method, r.path, r.status, r.connectionId])).toEqual([
      ['GET', '/engagement/users', 409, connectionId],
      ['GET', '/engagement/users', 200, connectionId],
      ['POST', '/connection/webhook', 400, connectionId],
    ]);
    expect(all[0]).toMatchObject({ id: 1, time: '2025-01-01T00:00:00.000Z', query: `accessToken=${accessToken}`, durationMs: 0, body: null, fault: null });
    expect(all[2]!.body).toContain('"webhookUrl":"nope"');
    expect(sandbox.requests({ apiKey: 'a', status: 200 })).toHaveLength(1);
    expect(sandbox.requests({ apiKey: 'a', method: 'post', path: '/connection' })).toHaveLength(1);
    expect(sandbox.requests({ apiKey: 'a', since: '2025-01-01T00:00:01Z' })).toHaveLength(2);
    expect(sandbox.requests({ apiKey: 'a', connectionId: 'other' })).toHaveLength(0);

    // Over HTTP: the caller's tenancy only; the journal's own requests are not journaled.
    const listed = await call(sandbox, 'GET', '/sandbox/requests?status=409', { key: 'a' });
    expect(listed.body.requests.map((r: { status: number }) => r.status)).toEqual([409]);
    expect((await call(sandbox, 'GET', '/sandbox/requests', { key: 'b' })).body.requests).toHaveLength(1);
    expect((await call(sandbox, 'GET', '/sandbox/requests?since=yesterday')).body.metadata.field).toBe('since');
    expect((await call(sandbox, 'GET', '/sandbox/requests?status=ok')).body.metadata.field).toBe('status');
    expect((await call(sandbox, 'DELETE', '/sandbox/requests', { key: 'a' })).status).toBe(200);
    expect(sandbox.requests({ apiKey: 'a' })).toEqual([]);
    expect(sandbox.requests({ apiKey: 'b' })).toHaveLength(1);
  });

  it('is bounded, keeps the newest, and cuts bodies at its limit', () => {
    const journal = new RequestJournal({ limit: 3, bodyLimit: 5 }, ['k']);
    for (let i = 1; i <= 5; i++) {
      journal.record({
        apiKey: 'k',
        at: i,
        method: 'POST',
        path: `/p${i}`,
        query: '',
        status: 200,
        durationMs: 0,
        connectionId: undefined,
        body: 'x'.repeat(i * 2),
        fault: undefined,
      });
    }
    const entries = journal.list('k');
    expect(entries.map((e) => e.path)).toEqual(['/p3', '/p4', '/p5']);
    expect(entries.map((e) => [e.body, e.bodyTruncated])).toEqual([
      ['xxxxx', true],
      ['xxxxx', true],
      ['xxxxx', true],
    ]);
    expect(journal.list('k', { limit: 1 }).map((e) => e.id)).toEqual([5]);
    expect(() => new RequestJournal({ limit: 0 }, ['k'])).toThrow(/journal.limit/);
  });

  it('reuses its slots without changing what was listed before, or mixing fields', () => {
    const journal = new RequestJournal({ limit: 2 }, ['a', 'b']);
    const request = (apiKey: string, i: number, extra: Partial<JournalRecord> = {}) =>
      journal.record({
        apiKey,
        at: i,
        method: 'GET',
        path: `/p${i}`,
        query: `q=${i}`,
        status: 200,
        durationMs: i / 2,
        connectionId: undefined,
        body: undefined,
        fault: undefined,
        ...extra,
      });
    request('a', 1, { method: 'POST', body: 'one', connectionId: 'c1', fault: 'forced 503', status: 503 });
    const before = journal.list('a');
    request('a', 2);
    request('a', 3);
    expect(before).toEqual([
      expect.objectContaining({ id: 1, path: '/p1', body: 'one', connectionId: 'c1', fault: 'forced 503', status: 503, method: 'POST' }),
    ]);
    // The slot of request 1 now holds request 3: nothing of request 1 is left in it.
    expect(journal.list('a')).toEqual([
      {
        id: 2,
        time: new Date(2).toISOString(),
        method: 'GET',
        path: '/p2',
        query: 'q=2',
        status: 200,
        durationMs: 1,
        connectionId: null,
        body: null,
        bodyTruncated: false,
        fault: null,
      },
      {
        id: 3,
        time: new Date(3).toISOString(),
        method: 'GET',
        path: '/p3',
        query: 'q=3',
        status: 200,
        durationMs: 1.5,
        connectionId: null,
        body: null,
        bodyTruncated: false,
        fault: null,
      },
    ]);
    journal.clear('a');
    request('a', 4);
    expect(journal.list('a').map((e) => [e.id, e.path])).toEqual([[4, '/p4']]);
  });

  it("keeps one ring per API token: one tenant's requests evict none of another's, and ids count per tenant", () => {
    const journal = new RequestJournal({ limit: 3 }, ['a', 'b']);
    const request = (apiKey: string, i: number) =>
      journal.record({
        apiKey,
        at: i,
        method: 'GET',
        path: `/p${i}`,
        query: '',
        status: 200,
        durationMs: 0,
        connectionId: undefined,
        body: undefined,
        fault: undefined,
      });
    request('a', 1);
    request('a', 2);
    for (let i = 3; i < 100; i++) request('b', i);
    request('nobody', 100); // no tenant's key: kept nowhere
    expect(journal.list('a').map((e) => [e.id, e.path])).toEqual([
      [1, '/p1'],
      [2, '/p2'],
    ]);
    expect(journal.list('b').map((e) => [e.id, e.path])).toEqual([
      [95, '/p97'],
      [96, '/p98'],
      [97, '/p99'],
    ]);
    expect(journal.list('nobody')).toEqual([]);
    journal.clear('b');
    expect([journal.list('a').length, journal.list('b').length]).toEqual([2, 0]);
    journal.clear();
    expect(journal.list('a')).toEqual([]);
  });
});
