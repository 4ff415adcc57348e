import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../index.js';
import { createApp } from './create-app.js';

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

describe('createApp (the sandbox mounted in an express app of your own)', () => {
  it('answers under the mount path as the dev server does, 413 included', async () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    const outer = express();
    outer.use('/crm', createApp(sandbox));
    const server = outer.listen(0, '127.0.0.1');
    closers.push(() => server.close());
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/crm`;
    const health = await fetch(`${base}/sandbox/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const link = await fetch(`${base}/link/token`, { method: 'POST', headers: { 'service-api-token': 'sandbox-api-key' } });
    expect(link.status).toBe(200);
    expect((await link.json()).linkToken).toMatch(/^link_/);
    const tooLarge = await fetch(`${base}/link/exchange`, {
      method: 'POST',
      headers: { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' },
      body: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(tooLarge.status).toBe(413);
    expect((await tooLarge.json()).errorCode).toBe('PAYLOAD_TOO_LARGE');
  });
});
