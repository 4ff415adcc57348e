import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { buildOpenApiDocument, DEFAULT_SERVER_URL } from '../src/core/openapi/build-document.js';
import { type Cli, killAll, runCli } from './helpers/cli.js';

const spawned: Cli[] = [];
afterEach(() => killAll(spawned));

describe('crm-sandbox openapi', () => {
  it('prints the document, its server the default dev server URL', async () => {
    const cli = runCli(['openapi'], spawned);
    expect(await cli.exited).toBe(0);
    const printed = JSON.parse(cli.output());
    expect(printed).toEqual(buildOpenApiDocument({ serverUrl: DEFAULT_SERVER_URL }));
    expect(printed.servers).toEqual([{ url: 'http://127.0.0.1:4010' }]);
  });

  it('takes another server URL, and prints one line with --compact', async () => {
    const cli = runCli(['openapi', '--server-url', 'http://127.0.0.1:8080', '--compact'], spawned);
    expect(await cli.exited).toBe(0);
    expect(cli.output().trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(cli.output()).servers).toEqual([{ url: 'http://127.0.0.1:8080' }]);
  });

  it('refuses a server URL that is not an absolute http(s) URL, with exit 2 naming the flag', async () => {
    for (const url of ['notaurl', '/v1', 'ftp://127.0.0.1/']) {
      const cli = runCli(['openapi', '--server-url', url], spawned);
      expect(await cli.exited).toBe(2);
      expect(cli.errors()).toBe(`crm-sandbox: --server-url must be an absolute http or https URL, got "${url}"\n`);
      expect(cli.output()).toBe('');
    }
  });

  it('says what it does in --help', async () => {
    const cli = runCli(['openapi', '--help'], spawned);
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toMatch(/OpenAPI 3\.1/);
    expect(cli.output()).toMatch(/--server-url/);
  });

  it('is loaded lazily: neither the CLI nor the route imports the document statically', () => {
    for (const file of ['../dist/cli/openapi.js', '../dist/core/openapi/load-document.js']) {
      const text = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(text, file).not.toMatch(/^import .*build-document/m);
      expect(text, file).toMatch(/await import\(['"].*build-document\.js['"]\)/);
    }
  });
});
