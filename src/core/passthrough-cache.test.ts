import { afterEach, describe, expect, it, vi } from 'vitest';
import { sandboxRequest } from '../../test/helpers/sandbox-call.js';
import { downstreamFor } from '../downstream/index.js';
import { createSandbox, type Sandbox } from '../index.js';
import { PassthroughCache } from './passthrough-cache.js';

/**
 * Passthrough answers are kept while the connection's data stays the same; an answer that read
 * the clock, or a call that changed anything (a draw from a stream included), is made afresh.
 */

const KEY = 'test-key';
let sandbox: Sandbox | undefined;
afterEach(() => {
  sandbox?.close();
  vi.restoreAllMocks();
});

function start() {
  sandbox = createSandbox({ seed: 3, clock: 'virtual', apiKeys: [KEY] });
  const { accessToken, connectionId } = sandbox.connect({ integrationId: 'hubspot' });
  const passthrough = async (method: string, path: string, body?: unknown, query?: Record<string, string>) => {
    const res = await sandboxRequest(sandbox!, 'POST', '/crm/passthrough', {
      key: KEY,
      body: { accessToken, method, path, ...(body === undefined ? {} : { body }), ...(query ? { query } : {}) },
    });
    expect(res.status).toBe(200);
    return res.body;
  };
  const data = () => sandbox!.parts.registry.dataOf(sandbox!.parts.registry.find(connectionId)!);
  return { connectionId, passthrough, data };
}

describe('passthrough answers kept per connection', () => {
  it('answers a repeated read from the kept bytes, and reads again after any change to the data', async () => {
    const { connectionId, passthrough } = start();
    const answered = vi.spyOn(downstreamFor('hubspot'), 'answer');
    const first = await passthrough('GET', 'crm/v3/objects/contacts', undefined, { limit: '5' });
    const again = await passthrough('GET', 'crm/v3/objects/contacts', undefined, { limit: '5' });
    expect(again).toBe(first);
    expect(answered).toHaveBeenCalledTimes(1);
    // Another query is another answer.
    expect(await passthrough('GET', 'crm/v3/objects/contacts', undefined, { limit: '6' })).not.toBe(first);
    expect(answered).toHaveBeenCalledTimes(2);

    const contact = sandbox!.listRecords(connectionId, 'Contact')[0]!;
    sandbox!.updateRecord(connectionId, 'Contact', contact.id, { firstName: 'Changed' });
    const after = JSON.parse(await passthrough('GET', 'crm/v3/objects/contacts', undefined, { limit: '5' }));
    expect(after.body.results[0].properties.firstname).toBe('Changed');
    expect(answered).toHaveBeenCalledTimes(3);

    // A native write changes the data too: the read after it is made again.
    await passthrough('PATCH', `crm/v3/objects/contacts/${contact.nativeId}`, { properties: { firstname: 'Native' } });
    const afterNative = JSON.parse(await passthrough('GET', 'crm/v3/objects/contacts', undefined, { limit: '5' }));
    expect(afterNative.body.results[0].properties.firstname).toBe('Native');
  });

  it('does not keep an answer that read the clock: a batch read tells the time it ran', async () => {
    const { connectionId, passthrough } = start();
    const contact = sandbox!.listRecords(connectionId, 'Contact')[0]!;
    const read = () => passthrough('POST', 'crm/v3/objects/contacts/batch/read', { inputs: [{ id: contact.nativeId }] }).then((text) => JSON.parse(text).body);
    const first = await read();
    await sandbox!.advance('1m');
    const second = await read();
    expect(Date.parse(second.completedAt) - Date.parse(first.completedAt)).toBe(60_000);
  });

  it('keeps only calls that left the data and the streams as they were', () => {
    const { data } = start();
    const cache = new PassthroughCache();
    const org = sandbox!.parts.registry.list(KEY)[0]!.org;
    const now = () => sandbox!.parts.clock.now();
    let runs = 0;
    const pure = () => ({ run: ++runs });
    expect(cache.get(data(), org, 'pure', now, pure).json).toBe('{"run":1}');
    expect(cache.get(data(), org, 'pure', now, pure).json).toBe('{"run":1}');

    // A call that draws from the connection's random stream (a write that failed after taking an id) runs every time.
    const draws = () => ({ id: data().newId('Contact'), run: ++runs });
    expect(cache.get(data(), org, 'draws', now, draws).json).not.toBe(cache.get(data(), org, 'draws', now, draws).json);
    // So does one that read the clock.
    const timed = (context: { now: number }) => ({ at: context.now, run: ++runs });
    expect(cache.get(data(), org, 'timed', now, timed).json).not.toBe(cache.get(data(), org, 'timed', now, timed).json);
    // A draw moved the stream: what was kept before it is not served after it.
    expect(cache.get(data(), org, 'pure', now, pure).json).not.toBe('{"run":1}');
  });
});
