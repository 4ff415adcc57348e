import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types
import { serveLoads } from '../scripts/serve-loads.mjs';
import { LAZY_COMMANDS } from '../src/cli/yargs-cli.js';
import { callApi } from './helpers/cli.js';

// What `serve` loads before its first answer (docs/decisions/0035): the features it does not run
// at start stay in chunks it imports when first used. The loads are recorded by a loader hook in
// the spawned CLI (scripts/record-loads.mjs), as the built bundle ships; no timings here.

/** Sources that only a feature's first use may load: the scenario engine and YAML, MCP, the OpenAPI document, the other commands, yargs, client-check, zod, faker. */
const LAZY_SOURCES = [
  // A plain `serve --port 0 --quiet` is read without yargs (src/cli/plain-args.ts).
  /^node_modules\/(yargs|yargs-parser|cliui|y18n)$/,
  /^dist\/cli\/yargs-cli\.js$/,
  /^dist\/client-check\//,
  // zod: the bundle's modules read it through a `z` that loads it on first use (zodOnFirstUse in scripts/bundle.mjs).
  /^node_modules\/zod$/,
  /^dist\/scenarios\//,
  /^node_modules\/yaml$/,
  /^dist\/mcp\//,
  /^node_modules\/@modelcontextprotocol\//,
  /^dist\/core\/openapi\/build-document\.js$/,
  /^dist\/cli\/(scenario|mcp|openapi|client-check|listen|trigger|server-client)\.js$/,
];

interface LoadedFile {
  file: string;
  bytes: number;
  sources: string[];
}
const sourcesOf = (files: LoadedFile[]) => files.flatMap((file) => file.sources);
const lazyIn = (sources: string[]) => sources.filter((source) => LAZY_SOURCES.some((pattern) => pattern.test(source)));

/** client-check's own sources among `sources`, as their file names. */
const clientCheckIn = (sources: string[]) => sources.filter((source) => source.startsWith('dist/client-check/')).map((source) => source.split('/').pop());

const KEY = 'sandbox-api-key';

describe('serve loads only what its first answer needs', () => {
  it('answers GET /sandbox/health before loading the scenario engine, MCP, the OpenAPI document, the other commands, yargs, zod, faker or node:crypto; the document (and zod) load on its first request', async () => {
    let documentStatus = 0;
    const { files, bytes, after, builtins }: { files: LoadedFile[]; bytes: number; after: LoadedFile[]; builtins: string[] } = await serveLoads({
      afterFirst: async (url: string) => {
        documentStatus = (await callApi(url, KEY, 'GET', '/openapi.json')).status;
      },
    });
    const sources = sourcesOf(files);
    // The recording sees the bundle: serve's own modules are there.
    expect(sources).toContain('dist/cli/serve.js');
    expect(sources).toContain('dist/node/dev-server.js');
    expect(bytes).toBeGreaterThan(0);
    expect(lazyIn(sources)).toEqual([]);
    expect(files.map((file) => file.file)).not.toContain('dist/vendor/faker-en.js');
    // In one chunk, not spread over dozens (importsMainFirst in scripts/bundle.mjs): main.js, that
    // chunk, and esbuild's helpers, which main.js shares with zod.js.
    expect(files.map((file) => file.file)).toHaveLength(3);
    // node:crypto (about 6 ms) loads with the first signature, token or state file; not for a health check.
    expect(builtins).toContain('http');
    expect(builtins).not.toContain('crypto');
    // Used, the document's chunk loads, and it answers.
    expect(documentStatus).toBe(200);
    expect(lazyIn(sourcesOf(after))).toContain('dist/core/openapi/build-document.js');
    // The document is built from zod schemas: zod came with it.
    expect(lazyIn(sourcesOf(after))).toContain('node_modules/zod');
  });

  it("loads none of client-check's code without --client-check, on the request path either: its requests are not observed, GET /sandbox/client-check is a 404", async () => {
    const answers: Array<{ status: number; body: any }> = [];
    const { files, after }: { files: LoadedFile[]; after: LoadedFile[] } = await serveLoads({
      afterFirst: async (url: string) => {
        // Requests client-check would observe and judge were it on, and its route, off.
        answers.push(await callApi(url, KEY, 'POST', '/link/token'));
        answers.push(await callApi(url, KEY, 'GET', '/crm/contacts'));
        answers.push(await callApi(url, KEY, 'GET', '/sandbox/client-check'));
      },
    });
    expect(clientCheckIn(sourcesOf(files))).toEqual([]);
    // The core's side: the slot it finds client-check's code in, and the route answering that it is off.
    expect(sourcesOf(files)).toEqual(expect.arrayContaining(['dist/core/client-check-slot.js', 'dist/core/routes/client-check.js']));
    expect(answers.map(({ status }) => status)).toEqual([200, 400, 404]);
    expect(answers[2]!.body).toMatchObject({ errorCode: 'ROUTE_NOT_FOUND', message: expect.stringContaining('serve --client-check') });
    expect(clientCheckIn(sourcesOf(after))).toEqual([]);
  });

  it("with --client-check, loads client-check's code before the first answer and GET /sandbox/client-check answers the report", async () => {
    let report: { status: number; body: any } | undefined;
    let badRules: { status: number; body: any } | undefined;
    const { files }: { files: LoadedFile[] } = await serveLoads({
      args: ['--client-check'],
      afterFirst: async (url: string) => {
        await callApi(url, KEY, 'POST', '/link/token');
        report = await callApi(url, KEY, 'GET', '/sandbox/client-check?final=true');
        badRules = await callApi(url, KEY, 'GET', '/sandbox/client-check?rules=nope');
      },
    });
    expect(clientCheckIn(sourcesOf(files))).toEqual(expect.arrayContaining(['client-check.js', 'conduct.js', 'request-facts.js', 'rules.js']));
    expect(report?.status).toBe(200);
    const body = report!.body;
    expect(body).toMatchObject({ ok: true, final: true, requests: 1, settings: { pageSize: 10, retryAfter: '1s-2s' } });
    expect(body.rules.find((rule: { rule: string }) => rule.rule === 'api-token-off-browsers')).toMatchObject({ status: 'pass', exercised: 1 });
    // The rules' reader comes with the check: an unknown rule is still a 400 naming the field and listing them.
    expect(badRules?.status).toBe(400);
    expect(badRules!.body).toMatchObject({
      errorCode: 'INVALID_FIELD_VALUE',
      metadata: { field: 'rules' },
      message: expect.stringContaining('pages-to-the-end'),
    });
  });

  it("the package's entries hand client-check's code to the core, so startClientCheck() works at once; the core alone says what is missing", () => {
    const dist = (path: string) => JSON.stringify(fileURLToPath(new URL(`../dist/${path}`, import.meta.url)));
    const run = (script: string) => {
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(result.stderr).toBe('');
      return result.stdout.trim();
    };
    const report = 'console.log(JSON.stringify(sandbox.startClientCheck({ pageSize: 5 }).report("sandbox-api-key").settings.pageSize))';
    // Node's entry, the browser's (the same API on fetch) and crm-sandbox/testing's sandbox.
    expect(run(`const { createSandbox } = await import(${dist('index.js')}); const sandbox = createSandbox(); ${report}`)).toBe('5');
    expect(run(`const { createSandbox } = await import(${dist('browser.js')}); const sandbox = createSandbox(); ${report}`)).toBe('5');
    expect(run(`const { createTestSandbox } = await import(${dist('testing/index.js')}); const { sandbox } = createTestSandbox(); ${report}`)).toBe('5');
    // The core without an entry (what the CLI's path to createSandbox is): a clear Error, until the CLI loads the code.
    const core = `const { createSandbox } = await import(${dist('node/sandbox.js')}); const sandbox = createSandbox();`;
    expect(run(`${core} try { sandbox.startClientCheck(); } catch (error) { console.log(error.message); }`)).toMatch(/^client-check's code is not loaded: /);
    expect(run(`${core} await (await import(${dist('core/client-check-slot.js')})).loadClientCheckCode(); ${report}`)).toBe('5');
  });

  it('names each lazily loaded command as its module does, so --help lists what runs', async () => {
    const modules = {
      'scenario <command>': (await import('../src/cli/scenario.js')).scenarioCommand,
      openapi: (await import('../src/cli/openapi.js')).openApiCommand,
      'client-check': (await import('../src/cli/client-check.js')).clientCheckCommand,
      mcp: (await import('../src/cli/mcp.js')).mcpCommand,
      listen: (await import('../src/cli/listen.js')).listenCommand,
      'trigger [what]': (await import('../src/cli/trigger.js')).triggerCommand,
    };
    expect(LAZY_COMMANDS.map(({ command, describe }) => ({ command, describe }))).toEqual(
      Object.values(modules).map(({ command, describe }) => ({ command, describe })),
    );
  });
});
