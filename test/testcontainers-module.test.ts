import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CRM_SANDBOX_PORT, CrmSandboxContainer } from '../src/testcontainers/index.js';

/**
 * crm-sandbox/testcontainers without a container runtime: what each `with…` method sets, and that
 * the module stays apart (nothing else in the package imports it; its only dependency outside
 * Node is testcontainers, an optional peer). It is started through podman in
 * test/container/testcontainers.check.ts (.ci/container).
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The settings a container was given (GenericContainer keeps them in protected fields). */
const settings = (container: CrmSandboxContainer) =>
  container as unknown as { environment: Record<string, string>; exposedPorts: unknown[]; startupTimeoutMs: number; getApiKey?: never };

describe('CrmSandboxContainer', () => {
  it('takes the image, exposes 4010 and waits up to a minute for /sandbox/health', () => {
    const container = new CrmSandboxContainer('localhost/crm-sandbox:test');
    expect(settings(container).exposedPorts).toEqual([CRM_SANDBOX_PORT]);
    expect(settings(container).startupTimeoutMs).toBe(60_000);
    const wait = (container as unknown as { waitStrategy: { path: string; port: number } }).waitStrategy;
    expect(wait).toMatchObject({ path: '/sandbox/health', port: 4010 });
  });

  it('sets serve’s variables: the API key, the seed, the state file (null: in memory only), any other', () => {
    const container = new CrmSandboxContainer('localhost/crm-sandbox:test')
      .withApiKey('k1')
      .withSeed(7)
      .withStateFile(null)
      .withEnvironment({ CRM_SANDBOX_READY_DELAY: '1s' });
    expect(settings(container).environment).toEqual({
      CRM_SANDBOX_API_KEY: 'k1',
      CRM_SANDBOX_SEED: '7',
      CRM_SANDBOX_STATE_FILE: '',
      CRM_SANDBOX_READY_DELAY: '1s',
    });
    expect(settings(new CrmSandboxContainer('i').withStateFile('/data/other.json')).environment.CRM_SANDBOX_STATE_FILE).toBe('/data/other.json');
  });

  it('keeps the first of several API keys for the started container, given either way', () => {
    const viaEnvironment = new CrmSandboxContainer('i').withEnvironment({ CRM_SANDBOX_API_KEY: ' team-a , team-b' });
    expect((viaEnvironment as unknown as { apiKey: string }).apiKey).toBe('team-a');
    expect((new CrmSandboxContainer('i') as unknown as { apiKey: string }).apiKey).toBe('sandbox-api-key');
  });

  it('refuses a seed that is not an integer of 0 or more', () => {
    expect(() => new CrmSandboxContainer('i').withSeed(-1)).toThrow('withSeed: a seed is an integer of 0 or more, got -1');
    expect(() => new CrmSandboxContainer('i').withSeed(1.5)).toThrow(/got 1\.5/);
  });
});

describe('the module stays apart', () => {
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [join(dir, entry.name)] : [],
    );

  it('nothing else in the package imports it, and it imports nothing of the package at run time', () => {
    const importers = sources(join(ROOT, 'src'))
      .filter((file) => !file.includes('/src/testcontainers/'))
      .filter((file) => /testcontainers/.test(readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')));
    expect(importers.map((file) => relative(ROOT, file))).toEqual([]);
    const built = readFileSync(join(ROOT, 'dist/testcontainers/index.js'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    const imported = [...built.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1]).sort();
    expect(imported).toEqual(['node:fs', 'testcontainers', 'yaml']);
  });

  it('is an entry of the package, with testcontainers an optional peer', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.exports['./testcontainers']).toEqual({ types: './dist/testcontainers/index.d.ts', default: './dist/testcontainers/index.js' });
    expect(manifest.peerDependencies.testcontainers).toBe('^11.0.0 || ^12.0.0');
    expect(manifest.peerDependenciesMeta.testcontainers).toEqual({ optional: true });
    expect(manifest.dependencies).not.toHaveProperty('testcontainers');
  });
});
