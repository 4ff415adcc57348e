import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import { sandboxRequest } from './helpers/sandbox-call.js';

/**
 * The request path keeps answers (serialised pages, passthrough answers) and work done on a body
 * text (its parse, the passthrough call it names, a search's filter key): decision 0036. Each
 * thing that can change an answer is made after a first, cached answer; the second answer must
 * be the very bytes a twin sandbox (same seed, same calls, without that first answer, so nothing
 * kept) gives, and differ from the first where the change shows.
 */

const KEY = 'cache-key';
const open: Sandbox[] = [];
afterEach(() => {
  for (const sandbox of open.splice(0)) sandbox.close();
});

function start() {
  const sandbox = createSandbox({ seed: 11, clock: 'virtual', apiKeys: [KEY] });
  open.push(sandbox);
  const { accessToken, connectionId } = sandbox.connect({ integrationId: 'hubspot' });
  sandbox.setStatus(connectionId, 'READY');
  // The data set, seeded before anything is kept; the first contact's native id, for the batch read (also after a reset).
  const { nativeId } = sandbox.listRecords(connectionId, 'Contact')[0]!;
  return { sandbox, accessToken, connectionId, nativeId };
}

type Started = ReturnType<typeof start>;

/** The reads whose answers are kept, each as one request (its body text fixed, so it is the same text each time). */
const READS: Record<string, (s: Started) => Promise<{ status: number; body: string; headers: Record<string, string> }>> = {
  'passthrough read': ({ sandbox, accessToken }) =>
    sandboxRequest(sandbox, 'POST', '/crm/passthrough', {
      key: KEY,
      body: { accessToken, method: 'GET', path: 'crm/v3/objects/contacts', query: { limit: 5 } },
    }),
  'passthrough batch read (reads the clock)': ({ sandbox, accessToken, nativeId }) =>
    sandboxRequest(sandbox, 'POST', '/crm/passthrough', {
      key: KEY,
      body: { accessToken, method: 'POST', path: 'crm/v3/objects/contacts/batch/read', body: { inputs: [{ id: nativeId }] } },
    }),
  'unified search': ({ sandbox, accessToken }) =>
    sandboxRequest(sandbox, 'POST', '/crm/contacts/search', { key: KEY, body: { accessToken, filters: { lastName: { startsWith: 'Zed' } }, limit: 10 } }),
  'unified list page': ({ sandbox, accessToken }) => sandboxRequest(sandbox, 'GET', `/crm/contacts?accessToken=${accessToken}&limit=5`, { key: KEY }),
  'engagement users page': ({ sandbox, accessToken }) => sandboxRequest(sandbox, 'GET', `/engagement/users?accessToken=${accessToken}&limit=5`, { key: KEY }),
};

const firstContact = (sandbox: Sandbox, connectionId: string) => sandbox.listRecords(connectionId, 'Contact')[0]!;

/** What can change an answer, each done the same way on both sandboxes; `shows` names the reads whose answer it must change. */
const CHANGES: Record<string, { change: (s: Started) => Promise<void> | void; shows: string[] }> = {
  'a write (update through the code API)': {
    change: ({ sandbox, connectionId }) => void sandbox.updateRecord(connectionId, 'Contact', firstContact(sandbox, connectionId).id, { lastName: 'Zedd' }),
    shows: Object.keys(READS).filter((read) => read !== 'engagement users page'),
  },
  'a write through the passthrough': {
    change: async ({ sandbox, accessToken, connectionId }) => {
      const id = firstContact(sandbox, connectionId).nativeId;
      const res = await sandboxRequest(sandbox, 'POST', '/crm/passthrough', {
        key: KEY,
        body: { accessToken, method: 'PATCH', path: `crm/v3/objects/contacts/${id}`, body: { properties: { lastname: 'Zedd' } } },
      });
      expect(res.status).toBe(200);
    },
    shows: Object.keys(READS).filter((read) => read !== 'engagement users page'),
  },
  'a reset': { change: ({ sandbox }) => sandbox.reset(), shows: Object.keys(READS) },
  'a restore of a state saved before a write': {
    change: ({ sandbox, connectionId }) => {
      const saved = JSON.parse(JSON.stringify(sandbox.snapshot()));
      sandbox.updateRecord(connectionId, 'Contact', firstContact(sandbox, connectionId).id, { lastName: 'Zedd' });
      sandbox.restore(saved);
      // Restored to what it was: what changes is that the records are the restored ones (a reseeded data set), read afresh.
    },
    shows: [],
  },
  'a clock step': { change: async ({ sandbox }) => void (await sandbox.advance('1h')), shows: ['passthrough batch read (reads the clock)'] },
  'a downstream fault': {
    change: ({ sandbox, connectionId }) => void sandbox.setDownstreamFaults(connectionId, [{ kind: 'rate-limit', count: 5 }]),
    shows: Object.keys(READS).filter((read) => read.startsWith('passthrough')),
  },
  'a fault rule': {
    change: ({ sandbox }) => void sandbox.setFaults([{ errorRate: 1, errorStatus: 503 }], { apiKey: KEY }),
    shows: Object.keys(READS),
  },
};

describe('kept answers change with whatever changes them (decision 0036)', () => {
  for (const [cause, { change, shows }] of Object.entries(CHANGES)) {
    for (const [name, read] of Object.entries(READS)) {
      it(`${name}, after ${cause}: the twin's uncached bytes${shows.includes(name) ? ', not the first answer' : ''}`, async () => {
        const kept = start();
        const first = await read(kept);
        expect(first.status).toBe(200);
        expect(await read(kept)).toEqual(first); // kept, or made again to the same bytes
        await change(kept);
        const second = await read(kept);

        const twin = start();
        await change(twin);
        const uncached = await read(twin);
        expect(second).toEqual(uncached);
        if (shows.includes(name)) expect(second.body).not.toBe(first.body);
        else expect(second.body).toBe(first.body);
      });
    }
  }
});

describe('a body text worked out once (decision 0036)', () => {
  it('still answers 415 for a kept text sent with another content type, and 400s for a bad one every time', async () => {
    const s = start();
    const text = JSON.stringify({ accessToken: s.accessToken, method: 'GET', path: 'crm/v3/objects/contacts' });
    expect((await sandboxRequest(s.sandbox, 'POST', '/crm/passthrough', { key: KEY, body: text })).status).toBe(200);
    const plain = await sandboxRequest(s.sandbox, 'POST', '/crm/passthrough', { key: KEY, body: text, headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(415);
    const bad = JSON.stringify({ accessToken: s.accessToken, method: 'GET', path: '../x' });
    for (let i = 0; i < 2; i++) {
      const res = await sandboxRequest(s.sandbox, 'POST', '/crm/passthrough', { key: KEY, body: bad });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).message).toContain('path');
    }
  });

  it('gives a simulated system its own copy of a kept native body: a create sent twice makes two records', async () => {
    const s = start();
    const create = {
      accessToken: s.accessToken,
      method: 'POST',
      path: 'crm/v3/objects/contacts',
      body: { properties: { firstname: 'Ada', email: 'ada@example.com' } },
    };
    const one = JSON.parse((await sandboxRequest(s.sandbox, 'POST', '/crm/passthrough', { key: KEY, body: create })).body);
    const two = JSON.parse((await sandboxRequest(s.sandbox, 'POST', '/crm/passthrough', { key: KEY, body: create })).body);
    expect(one.body.id).not.toBe(two.body.id);
    expect(two.body.properties.firstname).toBe('Ada');
  });
});
