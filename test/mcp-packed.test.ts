import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCall, type McpSession, startMcp } from './helpers/mcp-client.js';
import { installPackedWithProductionDependencies, userEnv } from './helpers/scratch-project.js';

/**
 * `crm-sandbox mcp` as a user gets it: the package packed (`npm pack`) and installed with its
 * production dependencies only, so the MCP SDK (a devDependency, bundled into dist/cli-bundle at
 * build) is nowhere to be found but in the package's own bundle; started as an MCP client's
 * configuration starts it, `npx crm-sandbox mcp`, in the user's project, and driven with the
 * SDK's own client over stdio.
 */
const ROOT = new URL('..', import.meta.url).pathname;
const SDK = '@modelcontextprotocol/sdk';
let dir = '';
let session: McpSession | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-mcp-packed-'));
  await installPackedWithProductionDependencies(ROOT, dir);
}, 120_000);

afterAll(async () => {
  await session?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The user's environment, as strings (what the client passes to the server it starts), with npm offline: nothing may come from a registry. */
function clientEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(userEnv({ npm_config_offline: 'true' })).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

describe('crm-sandbox mcp from the packed package, without the MCP SDK installed', () => {
  it('carries no SDK: neither a dependency nor installed; its licence ships with the bundle', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'node_modules/crm-sandbox/package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    expect(manifest.dependencies).not.toHaveProperty(SDK);
    expect(manifest.peerDependencies ?? {}).not.toHaveProperty(SDK);
    expect(existsSync(join(dir, 'node_modules/@modelcontextprotocol'))).toBe(false);

    const notices = readFileSync(join(dir, 'node_modules/crm-sandbox/dist/cli-bundle/THIRD-PARTY-LICENSES.txt'), 'utf8');
    const sdk = JSON.parse(readFileSync(join(ROOT, 'node_modules', SDK, 'package.json'), 'utf8')) as { version: string; license: string };
    expect(notices).toContain(`${SDK} ${sdk.version} (${sdk.license})`);
    // The licence texts as the packages ship them: the SDK's, and ajv's and fast-uri's (BSD-3-Clause), which came with it.
    for (const name of [SDK, 'ajv', 'fast-uri']) expect(notices, name).toContain(readFileSync(join(ROOT, 'node_modules', name, 'LICENSE'), 'utf8').trim());
  });

  it('`npx crm-sandbox mcp --port 0` serves its tools and resources; a tool answers what HTTP answers', async () => {
    session = await startMcp(['--port', '0'], clientEnv(), { command: 'npx', args: ['crm-sandbox', 'mcp'], cwd: dir });
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['link_connection', 'run_scenario', 'receiver_check', 'snapshot', 'reset']));

    // The built-in scenarios' files are the package's own.
    const dealWon = await session.client.readResource({ uri: 'crm-sandbox://scenarios/deal-won.yaml' });
    expect((dealWon.contents[0] as { text: string }).text).toBe(readFileSync(join(dir, 'node_modules/crm-sandbox/scenarios/deal-won.yaml'), 'utf8'));

    const info = await session.call('sandbox_info');
    expect(info.json).toMatchObject({ mode: 'in-process', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), clock: 'real' });
    const link = await session.call('link_connection', { integrationId: 'pipedrive' });
    expect(link.isError, link.text).toBe(false);
    const { connectionId } = link.json as { connectionId: string };
    // READY forced: the automatic moves stop, so the real clock cannot move the status between the two reads.
    expect((await session.call('set_status', { connectionId, status: 'READY' })).isError).toBe(false);
    const got = await session.call('get_connection', { connectionId });
    const http = await httpCall(info.json.url as string, info.json.apiKey as string, 'GET', `/sandbox/connections/${connectionId}`);
    expect(http.status).toBe(200);
    expect(got.text).toBe(http.text);

    const bad = await session.call('create_record', { connectionId, type: 'Invoice' });
    expect(bad.isError).toBe(true);
    expect(bad.json).toMatchObject({ status: 400, errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'type' } });
    expect(session.errors).toEqual([]);
  }, 60_000);
});
