import { describe, expect, it } from 'vitest';
import { createSandbox } from '../index.js';

const KEY = { 'service-api-token': 'sandbox-api-key' };

describe('sandbox.fetch (a Fetch Request in, a Fetch Response out)', () => {
  it('answers a path, a URL or a Request as handle() answers the same request record', async () => {
    const [a, b] = [createSandbox({ clock: 'virtual' }), createSandbox({ clock: 'virtual' })];
    const viaFetch = await a.fetch('/link/token', { method: 'POST', headers: KEY });
    const viaHandle = await b.handle({ method: 'POST', path: '/link/token', query: '', headers: KEY });
    expect(viaFetch.status).toBe(200);
    expect(viaFetch.headers.get('content-type')).toBe(viaHandle.headers['content-type']);
    expect(await viaFetch.text()).toBe(viaHandle.body);

    // The origin is whatever the caller likes; the path and the query are the service's.
    const { accessToken } = a.connect();
    a.setStatus(a.connections()[0]!.connectionId, 'READY');
    const page = await a.fetch(new URL(`http://sandbox.test/engagement/users?accessToken=${accessToken}&limit=2`), { headers: KEY });
    expect(page.status).toBe(200);
    expect((await page.json()).users).toHaveLength(2);
    const health = await a.fetch(new Request('https://anywhere.test/sandbox/health'));
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(a.requests().map((entry) => `${entry.method} ${entry.path} ${entry.query}`)).toEqual([
      'POST /link/token ',
      `GET /engagement/users accessToken=${accessToken}&limit=2`,
    ]);
    a.close();
    b.close();
  });

  it('reads a JSON body, and answers errors and HEAD as the service does', async () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    const refused = await sandbox.fetch('/link/exchange', {
      method: 'POST',
      headers: { ...KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ publicToken: 'public_nope' }),
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).errorCode).toBe('INVALID_PUBLIC_TOKEN');
    const head = await sandbox.fetch('/sandbox/health', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const wrongMethod = await sandbox.fetch('/sandbox/health', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    sandbox.close();
  });

  it('handle() given a Fetch Request is a TypeError that points to fetch(), not a crash deep inside', async () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    const request = new Request('http://sandbox.test/sandbox/health');
    await expect(sandbox.handle(request as never)).rejects.toThrow(
      new TypeError(
        "sandbox.handle() takes the core's request record { method, path, query, headers, body }, got a Fetch Request (it has a url): use sandbox.fetch(request) for those",
      ),
    );
    await expect(sandbox.handle({ method: 'GET' } as never)).rejects.toThrow(/got an object without a string path$/);
    await expect(sandbox.handle(undefined as never)).rejects.toThrow(/got undefined$/);
    sandbox.close();
  });
});
