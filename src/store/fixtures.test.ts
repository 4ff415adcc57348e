import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_FIXTURES_DIR, readFixturePath } from '../node/fixture-files.js';
import { SandboxConfigError } from '../shared/errors.js';
import { BUNDLED_FIXTURE_SOURCES, BUNDLED_FIXTURES } from './bundled-fixtures.js';
import { loadFixtures as loadWith, validateFixture } from './fixtures.js';

const loadFixtures = (sources: Parameters<typeof loadWith>[0]) => loadWith(sources, readFixturePath);

describe('fixtures', () => {
  it('loads the bundled fixtures', () => {
    const [acme] = loadFixtures([BUNDLED_FIXTURES_DIR]);
    expect(acme!.source).toMatch(/acme\.json$/);
    expect(acme!.crm.Contact!.map((c) => c.firstName)).toEqual(['Ada', 'Grace']);
    expect(acme!.engagement.users).toHaveLength(1);
  });

  it('fails with the file and the field named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ crm: { Contact: [{ firstName: 5 }] } }));
    expect(() => loadFixtures([dir])).toThrow(SandboxConfigError);
    expect(() => loadFixtures([dir])).toThrow(/bad\.json: crm\.Contact\[0\]\.firstName must be a string, got number/);
  });

  it('fails on JSON that does not parse, on unknown types and fields, and on missing paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
    writeFileSync(join(dir, 'broken.json'), '{ "crm": ');
    expect(() => loadFixtures([dir])).toThrow(/broken\.json: not valid JSON/);
    expect(() => validateFixture({ crm: { Widget: [] } }, 'x.json')).toThrow(/x\.json: crm\.Widget is not a known field/);
    expect(() => validateFixture({ crm: { Deal: [{ colour: 'red' }] } }, 'x.json')).toThrow(/crm\.Deal\[0\]\.colour is not a known field/);
    expect(() => validateFixture({ crm: { User: [{ associations: { taskIds: [] } }] } }, 'x.json')).toThrow(/crm\.User\[0\]\.associations\.taskIds is derived/);
    expect(() => loadFixtures(['/no/such/dir'])).toThrow(/no such file or directory/);
  });

  it('checks ids and that links point at records of the same file', () => {
    expect(() => validateFixture({ crm: { Contact: [{ id: 'v.contact.123' }] } }, 'x.json')).toThrow(/crm\.Contact\[0\]\.id must look like v\.contact\./);
    const id = `v.contact.${'a'.repeat(32)}`;
    expect(() => validateFixture({ crm: { Contact: [{ id }, { id }] } }, 'x.json')).toThrow(/crm\.Contact\[1\]\.id repeats id/);
    expect(() => validateFixture({ crm: { Contact: [{ associations: { accountIds: [`v.account.${'b'.repeat(32)}`] } }] } }, 'x.json')).toThrow(
      /crm\.Contact\[0\]\.associations\.accountIds\[0\] points at no Account/,
    );
    expect(() => validateFixture({ engagement: { mailboxes: [{ associations: { ownerUserId: 'f'.repeat(32) } }] } }, 'x.json')).toThrow(
      /engagement\.mailboxes\[0\]\.associations\.ownerUserId/,
    );
  });

  it('are bundled as data equal to fixtures/*.json (run scripts/write-bundled-fixtures.mjs after editing them)', () => {
    const files = readFixturePath(BUNDLED_FIXTURES_DIR);
    expect(BUNDLED_FIXTURES).toEqual(files.map((file) => file.content));
    expect(BUNDLED_FIXTURE_SOURCES).toEqual(files.map((file) => file.source.slice(file.source.indexOf('fixtures/'))));
  });

  it('as paths need a file reader: without one (a browser) the message says to pass objects', () => {
    expect(() => loadWith(['./fixtures'], undefined)).toThrow(/fixtures\[0\]: a path \(\.\/fixtures\) needs a file system; pass the fixture as an object/);
    expect(loadWith([BUNDLED_FIXTURES[0]!], undefined)[0]!.crm.Account).toHaveLength(1);
  });
});
