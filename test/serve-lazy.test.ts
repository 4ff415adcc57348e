import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types
import { serveLoads } from '../scripts/serve-loads.mjs';
import { LAZY_COMMANDS } from '../src/cli/yargs-cli.js';

// What `serve` loads before its first answer (docs/decisions/0035): the features it does not run
// at start stay in chunks it imports when first used. The loads are recorded by a loader hook in
// the spawned CLI (scripts/record-loads.mjs), as the built bundle ships; no timings here.

/** Sources that only a feature's first use may load: the scenario engine and YAML, MCP, the OpenAPI document, the other commands, yargs, faker. */
const LAZY_SOURCES = [
  // A plain `serve --port 0 --quiet` is read without yargs (src/cli/plain-args.ts).
  /^node_modules\/(yargs|yargs-parser|cliui|y18n)$/,
  /^dist\/cli\/yargs-cli\.js$/,
  /^dist\/scenarios\//,
  /^node_modules\/yaml$/,
  /^dist\/mcp\//,
  /^node_modules\/@modelcontextprotocol\//,
  /^dist\/core\/openapi\/document\.js$/,
  /^dist\/cli\/(scenario|mcp|openapi|client-check)\.js$/,
];

interface LoadedFile {
  file: string;
  bytes: number;
  sources: string[];
}
const sourcesOf = (files: LoadedFile[]) => files.flatMap((file) => file.sources);
const lazyIn = (sources: string[]) => sources.filter((source) => LAZY_SOURCES.some((pattern) => pattern.test(source)));

function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

describe('serve loads only what its first answer needs', () => {
  it('answers GET /sandbox/health before loading the scenario engine, MCP, the OpenAPI document, the other commands, yargs, faker or node:crypto; the document loads on its first request', async () => {
    let documentStatus = 0;
    const { files, bytes, after, builtins }: { files: LoadedFile[]; bytes: number; after: LoadedFile[]; builtins: string[] } = await serveLoads({
      afterFirst: async (url: string) => {
        documentStatus = await getStatus(`${url}/openapi.json`);
      },
    });
    const sources = sourcesOf(files);
    // The recording sees the bundle: serve's own modules are there.
    expect(sources).toContain('dist/cli/serve.js');
    expect(sources).toContain('dist/node/dev-server.js');
    expect(bytes).toBeGreaterThan(0);
    expect(lazyIn(sources)).toEqual([]);
    expect(files.map((file) => file.file)).not.toContain('dist/vendor/faker-en.js');
    // node:crypto (about 6 ms) loads with the first signature, token or state file; not for a health check.
    expect(builtins).toContain('http');
    expect(builtins).not.toContain('crypto');
    // Used, the document's chunk loads, and it answers.
    expect(documentStatus).toBe(200);
    expect(lazyIn(sourcesOf(after))).toContain('dist/core/openapi/document.js');
  });

  it('names each lazily loaded command as its module does, so --help lists what runs', async () => {
    const modules = {
      'scenario <command>': (await import('../src/cli/scenario.js')).scenarioCommand,
      openapi: (await import('../src/cli/openapi.js')).openApiCommand,
      'client-check': (await import('../src/cli/client-check.js')).clientCheckCommand,
      mcp: (await import('../src/cli/mcp.js')).mcpCommand,
    };
    expect(LAZY_COMMANDS.map(({ command, describe }) => ({ command, describe }))).toEqual(
      Object.values(modules).map(({ command, describe }) => ({ command, describe })),
    );
  });
});
