import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index.js';
import { type DevServer, startDevServer } from '../src/node/dev-server.js';

/** The widget's and the inspector's files, served by the dev server beside the API. */
let server: DevServer;
const logged: string[] = [];
beforeAll(async () => {
  server = await startDevServer(createSandbox({ clock: 'virtual' }), { port: 0, log: (line) => logged.push(line) });
});
afterAll(() => server.close());

describe('static assets of the dev server', () => {
  it('serves the widget loader, the widget and the inspector with their types and framing rules', async () => {
    const init = await fetch(`${server.url}/link/init.js`);
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await init.text()).toContain('window.CrmSandboxLink');

    const widget = await fetch(`${server.url}/link/widget`);
    expect(widget.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(widget.headers.get('content-security-policy')).not.toContain('frame-ancestors');
    expect(await widget.text()).toContain('role="dialog"');

    for (const path of ['/sandbox/ui', '/sandbox/ui/', '/sandbox/ui?tab=connections']) {
      const ui = await fetch(server.url + path);
      expect(ui.status).toBe(200);
      expect(ui.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(await ui.text()).toContain('<title>crm-sandbox inspector</title>');
    }
    const head = await fetch(`${server.url}/sandbox/ui/inspector.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    expect(await head.text()).toBe('');
    // Logged like the API's requests.
    expect(logged.some((line) => /^GET \/link\/init\.js 200 \d+\.\dms$/.test(line))).toBe(true);
    expect(logged.some((line) => line.startsWith('HEAD /sandbox/ui/inspector.js 200 '))).toBe(true);
  });

  it("tells the inspector's page whether the server takes the default key, so it opens without asking on this machine", async () => {
    const page = await (await fetch(`${server.url}/sandbox/ui`)).text();
    expect(page).toContain('<meta name="crm-sandbox-default-key" content="sandbox-api-key">');
    const own = await startDevServer(createSandbox({ clock: 'virtual', apiKeys: ['k1'] }), { port: 0 });
    try {
      const other = await (await fetch(`${own.url}/sandbox/ui`)).text();
      expect(other).toContain('<title>crm-sandbox inspector</title>');
      expect(other).not.toContain('crm-sandbox-default-key');
    } finally {
      await own.close();
    }
  });

  it('sends a browser at / to the inspector; an API client there still gets the JSON 404', async () => {
    const browser = await fetch(`${server.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, redirect: 'manual' });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/sandbox/ui');
    const followed = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } });
    expect(followed.url).toBe(`${server.url}/sandbox/ui`);
    expect(await followed.text()).toContain('<title>crm-sandbox inspector</title>');
    for (const accept of ['*/*', 'application/json', undefined]) {
      const api = await fetch(`${server.url}/`, { headers: accept ? { accept } : {}, redirect: 'manual' });
      expect(api.status).toBe(404);
      expect(api.headers.get('content-type')).toContain('application/json');
      expect((await api.json()).errorCode).toBe('ROUTE_NOT_FOUND');
    }
    // Only GET and HEAD: a POST to / is the API's.
    expect((await fetch(`${server.url}/`, { method: 'POST', headers: { accept: 'text/html' }, redirect: 'manual' })).status).toBe(404);
  });

  it('leaves every other request to the API: its routes, its 404s and its 405s', async () => {
    const session = await fetch(`${server.url}/link/widget/session?linkToken=link_nope`);
    expect(session.status).toBe(401);
    expect((await session.json()).errorCode).toBe('INVALID_LINK_TOKEN');
    const post = await fetch(`${server.url}/link/init.js`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect((await post.json()).errorCode).toBe('ROUTE_NOT_FOUND');
    const missing = await fetch(`${server.url}/sandbox/ui/nope.js`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).errorCode).toBe('ROUTE_NOT_FOUND');
  });

  it('serves them from the built package whatever directory `crm-sandbox serve` starts in', async () => {
    const bin = fileURLToPath(new URL('../bin/crm-sandbox.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--quiet'], { cwd: tmpdir() });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk) => {
          output += chunk;
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      for (const path of ['/link/init.js', '/link/widget', '/link/widget.js', '/link/dom.js', '/link/ui.css', '/sandbox/ui', '/sandbox/ui/inspector.js']) {
        const response = await fetch(url + path);
        expect(`${path} ${response.status}`).toBe(`${path} 200`);
      }
    } finally {
      child.kill('SIGTERM');
    }
  });
});
