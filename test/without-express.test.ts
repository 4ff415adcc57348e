import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedWithProductionDependencies, userEnv } from './helpers/scratch-project.js';

/**
 * express is an optional peer dependency, needed only by `createApp`. The package as `npm pack`
 * makes it, installed with its production dependencies only (what the Dockerfile's image holds
 * after `npm prune --omit=dev`; no express anywhere it could be found), still serves: the CLI's
 * `serve`, and `startDevServer` from `crm-sandbox/server`. `createApp` says what to install.
 */
const ROOT = new URL('..', import.meta.url).pathname;
let dir = '';
let bin = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-no-express-'));
  bin = await installPackedWithProductionDependencies(ROOT, dir);
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `node <file>` in the scratch folder to its end. */
function runNode(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, env: userEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the package without express (an optional peer dependency)', () => {
  it('holds no express: it is neither a dependency nor installed beside the package', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'node_modules/crm-sandbox/package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(manifest.dependencies).not.toHaveProperty('express');
    expect(manifest.peerDependencies).toHaveProperty('express');
    expect(manifest.peerDependenciesMeta!.express).toEqual({ optional: true });
    expect(existsSync(join(dir, 'node_modules/express'))).toBe(false);
  });

  it('serves with `crm-sandbox serve`: health, a linked connection and its seeded data', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { cwd: dir, env: userEnv() });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', () => {
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Try: curl/.exec(output);
          if (match) resolve(match[1]!);
        });
        void exited.then((code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
      });
      const health = await fetch(`${url}/sandbox/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const post = (path: string, body: unknown) =>
        fetch(url + path, {
          method: 'POST',
          headers: { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((r) => r.json());
      const { publicToken } = await post('/sandbox/public-token', { integrationId: 'hubspot' });
      const { connectionId } = await post('/link/exchange', { publicToken });
      // Seeded by faker, which the package loads from its own build (dist/vendor).
      const contacts = await fetch(`${url}/sandbox/connections/${connectionId}/records/Contact`, { headers: { 'service-api-token': 'sandbox-api-key' } });
      expect(contacts.status).toBe(200);
      expect(JSON.stringify(await contacts.json())).toContain('ada.lovelace@acme.example');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);

  it('serves with startDevServer from crm-sandbox/server; createApp throws, naming `npm install express`', async () => {
    writeFileSync(
      join(dir, 'check.mjs'),
      `import { createSandbox } from 'crm-sandbox';
import { createApp, startDevServer } from 'crm-sandbox/server';
const server = await startDevServer(createSandbox(), { port: 0 });
const health = await fetch(server.url + '/sandbox/health');
await server.close();
let thrown = null;
try {
  createApp(createSandbox());
} catch (error) {
  thrown = error.message;
}
console.log(JSON.stringify({ health: health.status, thrown }));
`,
    );
    const ran = await runNode(['check.mjs']);
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout) as { health: number; thrown: string | null };
    expect(result.health).toBe(200);
    expect(result.thrown).toContain('createApp() needs express');
    expect(result.thrown).toContain('npm install express');
  }, 60_000);
});
