import { describe, expect, it } from 'vitest';
import { turnsDuring } from '../../test/helpers/turns.js';
import { createSandbox } from '../index.js';
import type { Sandbox } from './sandbox.js';

const KEY = { 'service-api-token': 'sandbox-api-key', 'content-type': 'application/json' };
/** Enough contacts that a walk of them takes several pieces and, at about a microsecond each, several slices. */
const MANY = 10_000;

/** A HubSpot connection with MANY contacts, three of them named Needle: the first, one in the middle, the last. */
function withHaystack(clock: 'real' | 'virtual') {
  const sandbox = createSandbox({ seed: 9, clock, dataset: { crm: { Contact: 0 }, engagement: {} }, fixtures: false });
  const { connectionId, accessToken } = sandbox.connect({ integrationId: 'hubspot' });
  sandbox.setStatus(connectionId, 'READY');
  const needles: string[] = [];
  for (let i = 0; i < MANY; i++) {
    const needle = i === 0 || i === MANY / 2 || i === MANY - 1;
    const record = sandbox.createRecord(connectionId, 'Contact', { firstName: needle ? 'Needle' : `Hay${i}`, lastName: `L${i}` });
    if (needle) needles.push(record.id as string);
  }
  return { sandbox, connectionId, accessToken, needles };
}

/**
 * The routes' first use loads their parts, with turns of its own: done first on another connection of the sandbox, so
 * the haystack's records have not been looked at yet (a walk over views made before is quicker, and gives fewer turns).
 */
async function warmUp(sandbox: Sandbox) {
  const other = sandbox.connect({ integrationId: 'hubspot' });
  sandbox.setStatus(other.connectionId, 'READY');
  await search(sandbox, other.accessToken, { firstName: { equals: 'Pin' } });
}

const search = (sandbox: Sandbox, accessToken: string, filters: unknown, limit = 10) =>
  sandbox.handle({ method: 'POST', path: '/crm/contacts/search', query: '', headers: KEY, body: JSON.stringify({ accessToken, limit, filters }) });

/** The answer a search finding these records gives: each as the unified reads show it, and no next page. */
const answerOf = (sandbox: Sandbox, connectionId: string, ids: string[]) =>
  JSON.stringify({ contacts: ids.map((id) => sandbox.getRecord(connectionId, 'Contact', id)), nextPageCursor: null });

describe('a unified search over a long collection (docs/decisions/0041, 0049)', () => {
  it('on a real clock, walks it in pieces with turns of the event loop between, and answers what it found', async () => {
    const { sandbox, connectionId, accessToken, needles } = withHaystack('real');
    await warmUp(sandbox);
    const { result, turns } = await turnsDuring(() => search(sandbox, accessToken, { firstName: { equals: 'Needle' } }));
    expect(result.status).toBe(200);
    expect(turns).toBeGreaterThan(0);
    expect(result.body).toBe(answerOf(sandbox, connectionId, needles));
    expect(new TextDecoder().decode(result.encoded)).toBe(result.body);
    // Cached at the end: the same search again answers the same bytes at once.
    const again = await turnsDuring(() => search(sandbox, accessToken, { firstName: { equals: 'Needle' } }));
    expect(again.turns).toBe(0);
    expect(again.result.body).toBe(result.body);
    // A page that ends before the walk does: its cursor goes on from there.
    const first = await search(sandbox, accessToken, { firstName: { equals: 'Needle' } }, 2);
    const page = JSON.parse(first.body) as { contacts: Array<{ id: string }>; nextPageCursor: string };
    expect(page.contacts.map((contact) => contact.id)).toEqual(needles.slice(0, 2));
    const rest = await sandbox.handle({
      method: 'POST',
      path: '/crm/contacts/search',
      query: '',
      headers: KEY,
      body: JSON.stringify({ accessToken, limit: 2, cursor: page.nextPageCursor, filters: { firstName: { equals: 'Needle' } } }),
    });
    expect(rest.body).toBe(answerOf(sandbox, connectionId, needles.slice(2)));
    sandbox.close();
  });

  it('answers the page of one moment: a record changed in the first turn of the walk is matched as it is now', async () => {
    const { sandbox, connectionId, accessToken, needles } = withHaystack('real');
    await warmUp(sandbox);
    let changed = false;
    // On the first turn the walk gives, it has passed the first needle: that one stops being a needle.
    const { result, turns } = await turnsDuring(() => {
      setImmediate(() => {
        sandbox.updateRecord(connectionId, 'Contact', needles[0]!, { firstName: 'Hay' });
        changed = true;
      });
      return search(sandbox, accessToken, { firstName: { equals: 'Needle' } });
    });
    // The walk's first turn changed what it walks: it went on at once from its next piece.
    expect(changed).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(1);
    expect(result.body).toBe(answerOf(sandbox, connectionId, needles.slice(1)));
    sandbox.close();
  });

  it('on a virtual clock, walks it at once (no turn), finding the same records', async () => {
    const { sandbox, connectionId, accessToken, needles } = withHaystack('virtual');
    const { result, turns } = await turnsDuring(() => search(sandbox, accessToken, { firstName: { equals: 'Needle' } }));
    expect(turns).toBe(0);
    expect(result.body).toBe(answerOf(sandbox, connectionId, needles));
    sandbox.close();
  });

  it("walks an engagement connection's contacts in pieces too, at the moment of its whole data set", async () => {
    const sandbox = createSandbox({ seed: 9, dataset: { crm: { Contact: 0 }, engagement: {} }, fixtures: false });
    const { connectionId, accessToken } = sandbox.connect({ integrationId: 'outreach' });
    sandbox.setStatus(connectionId, 'READY');
    const needles: string[] = [];
    for (let i = 0; i < MANY; i++) {
      const record = sandbox.createRecord(connectionId, 'Contact', { firstName: i % (MANY / 2) === 0 ? 'Needle' : `Hay${i}`, lastName: `L${i}` });
      if (i % (MANY / 2) === 0) needles.push(record.id as string);
    }
    const find = (token: string, firstName: string) =>
      sandbox.handle({
        method: 'POST',
        path: '/engagement/contacts/search',
        query: '',
        headers: KEY,
        body: JSON.stringify({ accessToken: token, filters: { firstName: { equals: firstName } } }),
      });
    // The routes' first use, on another connection (see warmUp).
    const other = sandbox.connect({ integrationId: 'outreach' });
    sandbox.setStatus(other.connectionId, 'READY');
    await find(other.accessToken, 'Pin');
    const { result, turns } = await turnsDuring(() => find(accessToken, 'Needle'));
    expect(turns).toBeGreaterThan(0);
    const one = async (id: string) =>
      JSON.parse((await sandbox.handle({ method: 'GET', path: '/engagement/contact', query: `accessToken=${accessToken}&id=${id}`, headers: KEY })).body)
        .contact;
    expect(result.body).toBe(JSON.stringify({ contacts: [await one(needles[0]!), await one(needles[1]!)], nextPageCursor: null }));
    sandbox.close();
  });

  it('refuses a bad filter before any walk, with the 400 a short collection gives', async () => {
    const { sandbox, accessToken } = withHaystack('real');
    await warmUp(sandbox);
    const { result, turns } = await turnsDuring(() => search(sandbox, accessToken, { firstName: { greaterThan: 'N' } }));
    expect(turns).toBe(0);
    expect(result.status).toBe(400);
    const short = createSandbox({ seed: 9 });
    const other = short.connect({ integrationId: 'hubspot' });
    short.setStatus(other.connectionId, 'READY');
    const expected = await search(short, other.accessToken, { firstName: { greaterThan: 'N' } });
    expect(result.body).toBe(expected.body);
    short.close();
    sandbox.close();
  });

  it('cuts a short but costly walk by its work: 100 emails of 5,000 recipients each against a hasSome of 20,000 give turns (decision 0049)', async () => {
    const sandbox = createSandbox({ seed: 9, dataset: { crm: { Email: 0 }, engagement: {} }, fixtures: false });
    const { connectionId, accessToken } = sandbox.connect({ integrationId: 'hubspot' });
    sandbox.setStatus(connectionId, 'READY');
    for (let i = 0; i < 100; i++) {
      sandbox.createRecord(connectionId, 'Email', { subject: `s${i}`, to: Array.from({ length: 5_000 }, (_, j) => `r${i}-${j}@cost.example`) });
    }
    const wanted = [...Array.from({ length: 20_000 }, (_, j) => `nobody${j}@cost.example`), 'r99-4999@cost.example'];
    const find = () =>
      sandbox.handle({
        method: 'POST',
        path: '/crm/emails/search',
        query: '',
        headers: KEY,
        body: JSON.stringify({ accessToken, filters: { to: { hasSome: wanted } } }),
      });
    await search(sandbox, accessToken, {});
    const { result, turns } = await turnsDuring(find);
    expect(result.status).toBe(200);
    // Only the last email has the one wanted address that exists.
    expect(JSON.parse(result.body).emails.map((email: { subject: string }) => email.subject)).toEqual(['s99']);
    expect(turns).toBeGreaterThan(5);
    // Its list operand compiled in pieces too: a bad value past the first pieces is still the 400 naming its place.
    const bad = await sandbox.handle({
      method: 'POST',
      path: '/crm/emails/search',
      query: '',
      headers: KEY,
      body: JSON.stringify({ accessToken, filters: { to: { hasSome: [...wanted, 7] } } }),
    });
    expect([bad.status, JSON.parse(bad.body).metadata.field]).toEqual([400, `filters.to.hasSome[${wanted.length}]`]);
    sandbox.close();
  });

  it('under writes on every turn, starts again in pieces twice, then answers the page of the moment it copied, never keeping it', async () => {
    const { sandbox, connectionId, accessToken, needles } = withHaystack('real');
    await warmUp(sandbox);
    // A write on every turn of the event loop while the search walks: each restart finds the collection changed again.
    let writes = 0;
    let writing = true;
    const hay = sandbox.listRecords(connectionId, 'Contact')[1]!.id;
    const write = () => {
      if (!writing) return;
      sandbox.updateRecord(connectionId, 'Contact', hay, { lastName: `W${writes++}` });
      setImmediate(write);
    };
    setImmediate(write);
    const { result, turns } = await turnsDuring(() => search(sandbox, accessToken, { firstName: { equals: 'Needle' } }));
    writing = false;
    expect(result.body).toBe(answerOf(sandbox, connectionId, needles));
    // In pieces all along: the turns of three walks at least, and as many writes.
    expect(turns).toBeGreaterThan(3);
    expect(writes).toBeGreaterThan(3);
    // A page of a moment past is answered, never kept (a page kept then would be answered as of the data after it).
    const data = sandbox.parts.registry.dataOf(sandbox.parts.registry.find(connectionId)!);
    expect(sandbox.parts.pages.size(data)).toBe(0);
    sandbox.close();
  });
});
