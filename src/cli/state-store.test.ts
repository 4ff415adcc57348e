import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../index.js';
import { SandboxConfigError } from '../shared/errors.js';
import { StateStore, type StateStoreOptions } from './state-store.js';

const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fresh = () => join(dir, `state-${files++}.json`);

const options = { clock: 'virtual' as const, dataset: { engagement: { users: 2, mailboxes: 2 }, crm: { Contact: 3, Account: 2 } } };

/** A sandbox on `path`'s store, opened (not started: the tests save when they say). */
function serve(path: string, store: StateStoreOptions = {}) {
  const sandbox = createSandbox(options);
  const errors: string[] = [];
  const saved = new StateStore(sandbox, path, { ...store, onError: (error) => errors.push((error as Error).message) });
  return { sandbox, store: saved, opened: saved.open(), errors };
}

/** The first names of a connection's contacts. */
const firstNames = (sandbox: ReturnType<typeof createSandbox>, connectionId: string) =>
  sandbox.listRecords(connectionId, 'Contact').map((record) => (record as { firstName?: string | null }).firstName ?? '');

const names = (path: string) => readdirSync(dir).filter((name) => name.startsWith(path.slice(dir.length + 1)));

describe('the state store', () => {
  it('marks the file while it runs: a clean stop saves and removes the mark, a start that finds it moves the ids on', () => {
    const path = fresh();
    const first = serve(path);
    expect(first.opened).toEqual({ loaded: false, commits: 0, recovered: undefined, removed: [] });
    expect(names(path).sort()).toEqual([path, `${path}.running`].map((p) => p.slice(dir.length + 1)));
    const { connectionId } = first.sandbox.connect({ integrationId: 'pipedrive' });
    first.store.close();
    expect(names(path)).toEqual([path.slice(dir.length + 1)]);

    const second = serve(path);
    expect(second.opened).toMatchObject({ loaded: true, recovered: undefined });
    second.sandbox.createRecord(connectionId, 'Contact', { firstName: 'Saved' });
    second.store.close();
    const third = serve(path); // and now a crash: no close
    const told = third.sandbox.createRecord(connectionId, 'Contact', { firstName: 'Lost' });
    const fourth = serve(path);
    // Batched saves complete turns after their snapshot: the mark holds two reservations (docs/decisions/0050).
    expect(fourth.opened).toMatchObject({ loaded: true, recovered: 2 * 8192 });
    expect(firstNames(fourth.sandbox, connectionId)).toContain('Saved');
    expect(firstNames(fourth.sandbox, connectionId)).not.toContain('Lost');
    const next = fourth.sandbox.createRecord(connectionId, 'Contact', { firstName: 'Next' });
    expect([next.id, next.nativeId]).not.toContain(told.id);
    expect(next.nativeId).not.toBe(told.nativeId);
    // The recovery was saved at once: a second crash right away moves on from there, not from before.
    const fifth = serve(path);
    expect(fifth.sandbox.createRecord(connectionId, 'Contact', {}).id).not.toBe(next.id);
    for (const run of [first, second, third, fourth, fifth]) run.sandbox.close();
  });

  it('makes the mark larger before a stream passes it, and smaller again at the next save', () => {
    const path = fresh();
    const run = serve(path, { reserve: 64 });
    const { connectionId } = run.sandbox.connect({ integrationId: 'hubspot' });
    run.sandbox.listRecords(connectionId, 'Contact');
    const mark = () => JSON.parse(readFileSync(`${path}.running`, 'utf8')).reserve as number;
    expect(mark()).toBe(2 * 64);
    for (let i = 0; i < 20; i++) run.sandbox.createRecord(connectionId, 'Contact', {}); // 15 draws each, at least
    expect(mark()).toBeGreaterThan(64 * 4);
    const drawn = mark();
    const crashed = serve(path);
    expect(crashed.opened.recovered).toBe(drawn);
    crashed.sandbox.close();
    run.sandbox.close();
  });

  it('removes the temporary files of interrupted saves, and only those', () => {
    const path = fresh();
    const base = path.slice(dir.length + 1);
    const left = [`${base}.0123456789abcdef.tmp`, `${base}.running.fedcba9876543210.tmp`, `${base}.journal.0000000000000000.tmp`];
    const kept = [`${base}.backup`, `${base}.0123.tmp`, `other.json.0123456789abcdef.tmp`];
    for (const name of [...left, ...kept]) writeFileSync(join(dir, name), 'x'.repeat(1000));
    const run = serve(path);
    expect(run.opened.removed.sort()).toEqual([...left].sort());
    for (const name of kept) expect(existsSync(join(dir, name))).toBe(true);
    run.store.close();
    run.sandbox.close();
  });

  it('refuses a mark that is not ours, and starts fresh when the file was removed but its mark left', () => {
    const path = fresh();
    writeFileSync(`${path}.running`, 'hello');
    expect(() => serve(path)).toThrow(SandboxConfigError);
    expect(() => serve(path)).toThrow(/\.running is not the mark a crm-sandbox server keeps beside its state file; remove it if no server uses the file/);
    expect(readFileSync(`${path}.running`, 'utf8')).toBe('hello');
    unlinkSync(`${path}.running`);

    const run = serve(path);
    const { connectionId } = run.sandbox.connect();
    unlinkSync(path); // to start over (the mark stays, as after a crash)
    const again = serve(path);
    expect(again.opened).toMatchObject({ loaded: false, recovered: undefined });
    expect(again.sandbox.connect().connectionId).toBe(connectionId); // the same ids as a fresh sandbox
    run.sandbox.close();
    again.sandbox.close();
  });
});

describe('--state-sync always: the journal', () => {
  it('commits each write before it is answered; a crash loses no answered write; the next start lays the journal over the file and saves it whole', async () => {
    const path = fresh();
    const run = serve(path, { sync: 'always' });
    const { connectionId } = run.sandbox.connect({ integrationId: 'salesforce' });
    run.sandbox.listRecords(connectionId, 'Contact');
    await run.store.commit();
    for (let i = 0; i < 5; i++) {
      run.sandbox.createRecord(connectionId, 'Contact', { firstName: `C${i}` });
      // Writes answered together share a commit.
      await Promise.all([run.store.commit(), run.store.commit()]);
    }
    const journal = readFileSync(`${path}.journal`, 'utf8').trim().split('\n');
    expect(journal).toHaveLength(7); // its header, the data set built, five creates
    expect(readFileSync(`${path}.journal`, 'utf8').length).toBeLessThan(readFileSync(path, 'utf8').length + 20_000);
    const answered = JSON.stringify(run.sandbox.listRecords(connectionId, 'Contact'));
    const events = run.sandbox.emittedEvents().map((event) => event.eventId);

    const restarted = serve(path, { sync: 'always' }); // no close: a crash
    expect(restarted.opened).toMatchObject({ loaded: true, commits: 6, recovered: 8192 });
    expect(JSON.stringify(restarted.sandbox.listRecords(connectionId, 'Contact'))).toBe(answered);
    expect(restarted.sandbox.emittedEvents().map((event) => event.eventId)).toEqual(events);
    expect(existsSync(`${path}.journal`)).toBe(false); // laid over the file and saved whole
    run.sandbox.close();
    restarted.store.close();
    restarted.sandbox.close();
  });

  it('leaves out a last line a crash cut short, refuses a broken line before it, and ignores a journal of an earlier file', async () => {
    const path = fresh();
    const run = serve(path, { sync: 'always' });
    const { connectionId } = run.sandbox.connect({ integrationId: 'hubspot' });
    await run.store.commit();
    run.sandbox.createRecord(connectionId, 'Contact', { firstName: 'Kept' });
    await run.store.commit();
    run.sandbox.close(); // a crash
    const journal = `${path}.journal`;
    const [state, whole] = [readFileSync(path, 'utf8'), readFileSync(journal, 'utf8')];

    appendFileSync(journal, '{"ops":[["s",["ti');
    const cut = serve(path, { sync: 'always' });
    expect(cut.opened.commits).toBe(2);
    expect(firstNames(cut.sandbox, connectionId)).toContain('Kept');
    cut.sandbox.close();
    const savedWhole = readFileSync(path, 'utf8');

    // The same files, the journal broken in its middle: the start stops and changes nothing.
    const [header, ...lines] = whole.trim().split('\n');
    writeFileSync(path, state);
    writeFileSync(journal, `${header}\nnot json\n${lines.join('\n')}\n`);
    expect(() => serve(path, { sync: 'always' })).toThrow(/journal line 2 is not a commit; the files were left as they are/);
    expect(readFileSync(path, 'utf8')).toBe(state);

    // A journal of another state file (a crash between a whole save and the journal's removal): that file already holds it.
    writeFileSync(path, savedWhole);
    writeFileSync(journal, whole);
    const stale = serve(path, { sync: 'always' });
    expect(stale.opened.commits).toBe(0);
    expect(firstNames(stale.sandbox, connectionId).filter((name) => name === 'Kept')).toHaveLength(1);
    stale.store.close();
    stale.sandbox.close();
    truncateSync(path, 0);
    expect(() => serve(path)).toThrow(/not valid JSON/);
  });
});

describe('batched saves in pieces (docs/decisions/0050)', () => {
  it('write the state with turns between, and never replace a later save', async () => {
    const path = fresh();
    const sandbox = createSandbox({ ...options, clock: 'real', initialSyncDelay: '1ms', readyDelay: '1ms' });
    const store = new StateStore(sandbox, path, { intervalMs: 5 });
    store.open();
    const { connectionId } = sandbox.connect({ integrationId: 'hubspot' });
    for (let i = 0; i < 300; i++) sandbox.createRecord(connectionId, 'Contact', { firstName: `p${i}`, jobTitle: 'x'.repeat(2000) });
    // A save in pieces: a turn of the event loop queued as it begins (its save point) comes while the old file is still there.
    const before = readFileSync(path, 'utf8');
    let seenMeanwhile: string | undefined;
    const savePoint = sandbox.savePoint.bind(sandbox);
    vi.spyOn(sandbox, 'savePoint').mockImplementationOnce(() => {
      setImmediate(() => (seenMeanwhile = readFileSync(path, 'utf8')));
      return savePoint();
    });
    store.start();
    await new Promise<void>((resolve) => {
      const wait = () => (readFileSync(path, 'utf8') !== before ? resolve() : setTimeout(wait, 5));
      wait();
    });
    expect(seenMeanwhile).toBe(before);
    // What the file holds, as a snapshot of the same state gives it.
    const file = JSON.parse(readFileSync(path, 'utf8'));
    expect(file.connections.map((connection: { connectionId: string }) => connection.connectionId)).toContain(connectionId);
    // A clean stop saves at once and wins over a save in pieces still under way.
    sandbox.createRecord(connectionId, 'Contact', { firstName: 'last' });
    store.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(JSON.stringify(JSON.parse(readFileSync(path, 'utf8')))).toContain('"firstName":"last"');
    expect(existsSync(`${path}.running`)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.startsWith(path.slice(dir.length + 1)) && name.endsWith('.tmp'))).toEqual([]);
    sandbox.close();
  });
});
