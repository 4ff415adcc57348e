import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callApi } from '../helpers/cli.js';
import { parseJunit } from '../helpers/junit.js';
import { startMcp } from '../helpers/mcp-client.js';
import type { Ran } from '../helpers/scratch-project.js';
import { SpecReceiver } from '../helpers/spec-receiver.js';
import { launcher, pathWithoutNode, ROOT, SMOKE_TARGETS } from './binaries.js';

/**
 * The smoke suite of a single executable, as a user without Node runs it (its PATH has no node):
 * every command answers — serve (a connection linked, a unified read, the inspector and the widget
 * carried inside), a scenario played to a receiver written from the spec, receiver-check, each
 * with a JUnit report, client-check running a Python client, openapi, mcp over stdio, and the
 * built-in scenarios listed. linux-x64 runs natively, linux-arm64 under qemu (binaries.ts).
 */
const KEY = 'sandbox-api-key';
const TOKEN = `access_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const PATH = pathWithoutNode();
const env = { PATH, HOME: mkdtempSync(join(tmpdir(), 'crm-sandbox-smoke-home-')), TMPDIR: tmpdir() };
const running: ChildProcess[] = [];
const receivers: SpecReceiver[] = [];

afterAll(async () => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  for (const receiver of receivers) await receiver.stop();
});

async function receiver(): Promise<SpecReceiver> {
  const started = new SpecReceiver([], { toleranceSeconds: 300 });
  started.accessToken = TOKEN;
  receivers.push(started);
  return started.start();
}

describe.each(SMOKE_TARGETS)('the %s binary, with no node on PATH', (target) => {
  const { command, prefix } = launcher(target);

  /** Runs a command of the binary to its end. */
  const run = (args: string[]): Promise<Ran> =>
    new Promise((resolve) => {
      const child = spawn(command, [...prefix, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      running.push(child);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it('prints its version, lists the built-in scenarios it carries, and the OpenAPI document', async () => {
    expect((await run(['--version'])).stdout.trim()).toBe(version);
    const list = await run(['scenario', 'list']);
    expect(
      list.stdout
        .split('\n')
        .map((line) => line.split(/\s+/)[0])
        .filter(Boolean),
    ).toEqual(['bulk-import', 'connection-lifecycle', 'crm-activity', 'deal-won', 'receiver-check', 'webhook-outage']);
    const openapi = await run(['openapi', '--compact']);
    expect(openapi.code).toBe(0);
    expect(JSON.parse(openapi.stdout)).toMatchObject({ openapi: '3.1.1' });
  });

  it('serves: links a connection, reads the unified contacts, serves the inspector and the widget', async () => {
    const child = spawn(command, [...prefix, 'serve', '--port', '0', '--initial-sync-delay', '0ms', '--ready-delay', '0ms'], { env });
    running.push(child);
    let out = '';
    child.stderr.on('data', (chunk) => (out += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}`)));
    });
    const { body: token } = await callApi(url, KEY, 'POST', '/sandbox/public-token', { integrationId: 'hubspot' });
    const { status, body: connection } = await callApi(url, KEY, 'POST', '/link/exchange', { publicToken: token.publicToken });
    expect(status).toBe(200);
    expect(connection).toMatchObject({ integrationId: 'hubspot', accessToken: expect.stringMatching(/^access_[0-9a-f]{40}$/) });
    const contacts = await callApi(url, KEY, 'GET', `/crm/contacts?accessToken=${connection.accessToken}&limit=2`);
    expect(contacts.status).toBe(200);
    expect(contacts.body.contacts).toHaveLength(2);
    expect(contacts.body.nextPageCursor).toEqual(expect.any(String));
    for (const [path, type] of [
      ['/sandbox/ui', 'text/html'],
      ['/link/init.js', 'text/javascript'],
    ] as const) {
      const answer = await fetch(url + path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')).toContain(type);
      expect((await answer.text()).length).toBeGreaterThan(100);
    }
    child.kill('SIGTERM');
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
  });

  it('plays deal-won to a receiver, every event signed, with a passing JUnit report', async () => {
    const target = await receiver();
    const output = join(mkdtempSync(join(tmpdir(), 'crm-sandbox-smoke-')), 'deal-won.xml');
    const ran = await run(['scenario', 'run', 'deal-won', '--webhook-url', target.url, '--access-token', TOKEN, '--reporter', 'junit', '--output', output]);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^PASS deal-won/);
    expect(target.processed.length).toBeGreaterThan(5);
    const [suite] = parseJunit(readFileSync(output, 'utf8')).testsuites[0]!.testsuite;
    expect(suite).toMatchObject({ name: 'crm-sandbox scenario deal-won', failures: '0' });
  });

  it('passes receiver-check against a receiver that follows the spec', async () => {
    const target = await receiver();
    const ran = await run(['scenario', 'run', 'receiver-check', '--webhook-url', target.url, '--access-token', TOKEN]);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^PASS receiver-check/);
  });

  it('runs client-check around a Python client and judges it', async () => {
    const client = join(ROOT, 'test/client-check/client.py');
    const ran = await run(['client-check', '--json', '--initial-sync-delay', '500ms', '--ready-delay', '1s', '--', 'python3', client]);
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout) as { ok: boolean; rules: Array<{ status: string }> };
    expect(report.ok).toBe(true);
    expect(report.rules.some((rule) => rule.status === 'pass')).toBe(true);
  });

  it('serves MCP over stdio', async () => {
    const session = await startMcp([], env, { command, args: [...prefix, 'mcp'] });
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['link_connection', 'run_scenario', 'receiver_check']));
      const link = await session.call('link_connection', { integrationId: 'pipedrive' });
      expect(link.isError).toBe(false);
    } finally {
      await session.close();
    }
  });
});
