import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.js';
import { type DevServer, startDevServer } from '../../src/node/dev-server.js';
import { UNIFIED_CRM_OBJECTS } from '../../src/unified/crm-objects.js';
import { UNIFIED_ENGAGEMENT_OBJECTS } from '../../src/unified/engagement-objects.js';

// No search may freeze the others, nor leave memory behind (issue 47, items 1, 2 and 7): every unified
// search route, through a dev server on 127.0.0.1 in this process, with the largest bodies the limit
// allows (1 MiB) over records built to make each test costly. How long the event loop is held is
// measured as the CPU time of this (the main) thread between two ticks of a timer, so that a machine
// busy with others' work is not read as a held loop; retained memory is the heap after a full
// collection. Before issue 47 a `hasSome` of 30,000 addresses over long `to` lists held the loop
// 1.3–2.5 s, and 60 searches with different 1,000,000-character `contains` left 56 MiB.

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The goal is pieces of 20 ms or less (docs/decisions/0049); the test allows what a collection or a slow core may add. */
const MOST_HELD_MS = 100;
/** 1 MiB: the dev server's body limit. */
const BODY_LIMIT = 1024 * 1024;

const KEY = 'sandbox-api-key';
let server: DevServer;
const sandbox = createSandbox({ recordLimit: null });
let crm: { connectionId: string; accessToken: string };
let engagement: { connectionId: string; accessToken: string };

/** A run of characters that makes a naive `includes` slow: all 'a' but one 'b' in the middle. */
const split = (length: number) => `${'a'.repeat(length / 2)}b${'a'.repeat(length / 2 - 1)}`;
/** Addresses as a JSON body gives them: flat strings (a template's are ropes, which a lookup flattens the first time). */
const addresses = (count: number, tag: string): string[] => JSON.parse(JSON.stringify(Array.from({ length: count }, (_, i) => `${tag}${i}@held.example`)));

beforeAll(async () => {
  server = await startDevServer(sandbox, { port: 0 });
  crm = sandbox.connect({ integrationId: 'hubspot' });
  sandbox.setStatus(crm.connectionId, 'READY');
  engagement = sandbox.connect({ integrationId: 'outreach' });
  sandbox.setStatus(engagement.connectionId, 'READY');
  // Records whose every search is costly: long texts of 'a's (a `contains` reads each one whole) and long lists.
  const long = 'a'.repeat(20_000);
  for (let i = 0; i < 20; i++) {
    sandbox.createRecord(crm.connectionId, 'Contact', { firstName: long, lastName: long, email: `${long}@x.example`, jobTitle: long });
    sandbox.createRecord(crm.connectionId, 'Account', { name: long, description: long, website: long });
    sandbox.createRecord(crm.connectionId, 'Note', { content: long });
    sandbox.createRecord(crm.connectionId, 'Task', { subject: long, body: long });
    sandbox.createRecord(crm.connectionId, 'Deal', { name: long });
    sandbox.createRecord(crm.connectionId, 'Lead', { firstName: long, lastName: long });
    sandbox.createRecord(crm.connectionId, 'Event', { subject: long, description: long, location: long });
    sandbox.createRecord(engagement.connectionId, 'Contact', { firstName: long, lastName: long, jobTitle: long });
  }
  // Emails with long recipient lists: 200 of them, 2,000 addresses each.
  for (let i = 0; i < 200; i++) {
    sandbox.createRecord(crm.connectionId, 'Email', { subject: long.slice(0, 1000), to: addresses(2000, `to${i}-`), cc: addresses(200, `cc${i}-`) });
  }
  // What setting up left for the collector is not the searches' to pay.
  collectGarbage();
});
afterAll(async () => {
  await server.close();
  sandbox.close();
});

/**
 * Runs `work`, and measures the longest time this thread spent on the CPU between two ticks of a 1-ms timer: how
 * long the event loop was held (a tick that came late because the machine was busy with others adds no CPU time).
 */
async function longestHold<T>(work: () => Promise<T>): Promise<{ result: T; heldMs: number }> {
  const cpu = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  let last = cpu();
  let heldMs = 0;
  const timer = setInterval(() => {
    const now = cpu();
    heldMs = Math.max(heldMs, now - last);
    last = now;
  }, 1);
  try {
    const result = await work();
    return { result, heldMs: Math.max(heldMs, cpu() - last) };
  } finally {
    clearInterval(timer);
  }
}

async function search(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const text = JSON.stringify(body);
  expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(BODY_LIMIT);
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'service-api-token': KEY, 'content-type': 'application/json' },
    body: text,
  });
  return { status: response.status, text: await response.text() };
}

/** As many items of `make(i)` as fit in about `bytes` of JSON. */
function fill<T>(bytes: number, make: (i: number) => T): T[] {
  const items: T[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const item = make(i);
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return items;
}

/** The costliest filters a 1 MiB body can carry for each kind of field, spread over the route's fields. */
function heaviestFilters(fields: ReadonlyArray<{ key: string; kind: string }>): Record<string, Record<string, unknown>>[] {
  const room = BODY_LIMIT - 1024;
  const bodies: Record<string, Record<string, unknown>>[] = [];
  const strings = fields.filter((field) => field.kind === 'string');
  const lists = fields.filter((field) => field.kind === 'stringList');
  const dates = fields.filter((field) => field.kind === 'date');
  const numbers = fields.filter((field) => field.kind === 'number');
  // A `contains` on every string field (each needle as long as the room allows): a naive search reads needle × value.
  if (strings.length > 0) {
    const needle = split(Math.floor(room / strings.length / 2) * 2 - 20);
    bodies.push(Object.fromEntries(strings.map((field) => [field.key, { contains: needle }])));
    // And an `in` of as many values as fit.
    bodies.push({ [strings[0]!.key]: { in: fill(room, (i) => `value-${i}`) } });
  }
  for (const field of lists) {
    bodies.push({ [field.key]: { hasSome: fill(room, (i) => `wanted${i}@held.example`) } });
    bodies.push({ [field.key]: { hasEvery: fill(room, (i) => `to0-${i}@held.example`) } });
  }
  if (dates.length > 0) bodies.push({ [dates[0]!.key]: { notIn: fill(room, (i) => new Date(Date.UTC(2000, 0, 1) + i * 60_000).toISOString()) } });
  if (numbers.length > 0) bodies.push({ [numbers[0]!.key]: { in: fill(room, (i) => i + 0.5) } });
  return bodies;
}

const routes = [
  ...UNIFIED_CRM_OBJECTS.map((object) => ({ path: `/crm/${object.many}/search`, filters: object.filters, connection: () => crm })),
  ...UNIFIED_ENGAGEMENT_OBJECTS.filter((object) => object.operations.includes('search' as never)).map((object) => ({
    path: `/engagement/${object.many}/search`,
    filters: object.filters ?? [],
    connection: () => engagement,
  })),
];

describe('no unified search holds the event loop (issue 47, items 1 and 7)', () => {
  it('covers every unified search route', () => {
    expect(routes.map((route) => route.path)).toEqual(
      expect.arrayContaining(['/crm/emails/search', '/crm/notes/search', '/engagement/contacts/search', '/engagement/emails/search']),
    );
    expect(routes).toHaveLength(12);
  });

  it.each(routes)('$path: the largest filters a body may carry hold the loop under 100 ms of CPU at a time', { timeout: 120_000 }, async (route) => {
    // A route's first call loads and compiles what it runs: once per process, not the searches' cost.
    expect((await search(route.path, { accessToken: route.connection().accessToken, filters: {}, limit: 1 })).status).toBe(200);
    const held: string[] = [];
    for (const filters of heaviestFilters(route.filters)) {
      const { accessToken } = route.connection();
      const { result, heldMs } = await longestHold(() => search(route.path, { accessToken, filters, limit: 200 }));
      expect(result.status, result.text.slice(0, 300)).toBe(200);
      const [field, operators] = Object.entries(filters)[0]!;
      held.push(`${field}.${Object.keys(operators)[0]}: ${heldMs.toFixed(1)} ms`);
      expect(heldMs, held.join('; ')).toBeLessThan(MOST_HELD_MS);
    }
    console.log(`${route.path}: ${held.join('; ')}`);
  });

  it("issue 47's probe: hasSome of 30,000 addresses over 200 emails of 2,000 recipients, with the health route answering between", async () => {
    const wanted = addresses(30_000, 'nobody');
    const { result, heldMs } = await longestHold(async () => {
      const answer = search('/crm/emails/search', { accessToken: crm.accessToken, filters: { to: { hasSome: wanted } } });
      // Health, asked while the search runs, answers before it ends.
      let answeredFirst = false;
      const health = fetch(`${server.url}/sandbox/health`).then(async (response) => {
        answeredFirst = !done;
        return response.status;
      });
      let done = false;
      const searched = await answer;
      done = true;
      return { searched, health: await health, answeredFirst };
    });
    expect(result.searched.status).toBe(200);
    expect(JSON.parse(result.searched.text).emails).toEqual([]);
    expect(result.health).toBe(200);
    expect(result.answeredFirst).toBe(true);
    console.log(`issue 47's probe: hasSome of 30,000 over 200 emails of 2,000 recipients, longest hold ${heldMs.toFixed(1)} ms`);
    expect(heldMs).toBeLessThan(MOST_HELD_MS);
  });
});

describe('no search leaves memory behind (issue 47, item 2)', () => {
  /** The heap after a full collection, MiB. */
  const heap = () => {
    collectGarbage();
    collectGarbage();
    return process.memoryUsage().heapUsed / 2 ** 20;
  };

  it('60 searches with different 1,000,000-character `contains`, all answering empty, leave the heap within 8 MiB of where it was', async () => {
    const { accessToken } = crm;
    // Once first, so that what a route loads on first use is not counted.
    await search('/crm/contacts/search', { accessToken, filters: { firstName: { contains: 'warm-up' } } });
    const before = heap();
    for (let i = 0; i < 60; i++) {
      const answer = await search('/crm/contacts/search', { accessToken, filters: { firstName: { contains: `${i}`.padEnd(1_000_000, 'z') } } });
      expect(answer.status).toBe(200);
    }
    const after = heap();
    expect(after - before).toBeLessThan(8);
  });

  it('four 1 MB notes searched with six limits, with and without allFields, keep at most the cache limit of a connection (4 MiB)', async () => {
    const other = sandbox.connect({ integrationId: 'hubspot' });
    sandbox.setStatus(other.connectionId, 'READY');
    const content = 'n'.repeat(1_000_000);
    const before = heap();
    for (let i = 0; i < 4; i++) sandbox.createRecord(other.connectionId, 'Note', { content: `${i}${content}` });
    const data = heap() - before;
    for (const limit of [1, 2, 3, 4, 5, 6]) {
      for (const allFields of [false, true]) {
        const answer = await search('/crm/notes/search', { accessToken: other.accessToken, filters: { content: { contains: 'nnn' } }, limit, allFields });
        expect(answer.status).toBe(200);
      }
    }
    const kept = heap() - before - data;
    // 42.7 MiB before: every page kept twice (text and bytes), however large.
    expect(kept).toBeLessThan(4 + 1);
  });
});
