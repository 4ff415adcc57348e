import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClientCheckReport, RuleReport } from '../src/client-check/report.js';
import type { RuleId } from '../src/client-check/rules.js';
import { type Cli, killAll, runCli } from './helpers/cli.js';

/**
 * `crm-sandbox client-check -- <command>` run as a user runs it, with clients written from the
 * interface alone in two languages (test/client-check/client.mjs: Node's standard library;
 * client.py: Python's): the careful one passes every rule, each flawed one fails the rule it
 * breaks — and only that one — with the requests that broke it as evidence.
 */
const running: Cli[] = [];
afterAll(() => killAll(running));

const CLIENTS = {
  JavaScript: [process.execPath, fileURLToPath(new URL('client-check/client.mjs', import.meta.url))],
  Python: ['python3', fileURLToPath(new URL('client-check/client.py', import.meta.url))],
};
/** A short sync, so each run takes a few seconds. */
const FAST = ['--initial-sync-delay', '500ms', '--ready-delay', '1s'];

interface Run {
  code: number | null;
  report: ClientCheckReport & { command: { argv: string[]; exitCode: number | null; signal: string | null; timedOut: boolean }; exitCode: number };
  errors: string;
}

async function clientCheck(options: string[], command: string[]): Promise<Run> {
  const cli = runCli(['client-check', '--json', ...options, '--', ...command], running);
  const code = await cli.exited;
  let report: Run['report'];
  try {
    report = JSON.parse(cli.output());
  } catch {
    throw new Error(`client-check exited ${code} without a JSON report:\n${cli.output()}\n${cli.errors()}`);
  }
  return { code, report, errors: cli.errors() };
}

const byStatus = (report: ClientCheckReport, status: RuleReport['status']) => report.rules.filter((rule) => rule.status === status).map((rule) => rule.rule);
const ruleOf = (report: ClientCheckReport, id: RuleId) => report.rules.find((rule) => rule.rule === id)!;

/**
 * Each flaw, the one rule it breaks, the options its run needs, and what the first piece of
 * evidence says. Each run syncs fast (FAST) unless it says otherwise.
 */
const FLAWS: Array<{ flaw: string; does: string; rule: RuleId; options: string[]; sync?: string[]; request: RegExp; detail: RegExp }> = [
  {
    flaw: 'reads-while-syncing',
    does: 'retries a 409 at once while its connection syncs',
    rule: 'waits-while-syncing',
    options: ['--no-faults'],
    // Syncing for an hour: its first read meets the 409 however slowly the client starts (Python's takes a while on a
    // busy machine, and a 500 ms sync was over before it read); it retries three times at once, then stops.
    sync: ['--initial-sync-delay', '1h', '--ready-delay', '1h'],
    request: /^GET \/engagement\/users\?accessToken=access_\w{5}…&limit=100$/,
    detail: /^sent again \d+ ms after its 409 at \+\d+\.\d{3}s \(wait at least 250 ms\)$/,
  },
  {
    flaw: 'ignores-retry-after',
    does: 'retries a 429 before its Retry-After',
    rule: 'honours-retry-after',
    options: ['--retry-after', '1s'],
    request: /^GET \/engagement\/(users|mailboxes)\?accessToken=access_\w{5}…&limit=100/,
    detail: /^sent again \d+ ms after its 429 at \+\d+\.\d{3}s \(Retry-After: 1\)$/,
  },
  {
    flaw: 'no-backoff',
    does: 'retries a 503 at once',
    rule: 'backs-off-on-5xx',
    options: ['--retry-after', '1s'],
    request: /^(GET \/engagement\/(users|mailboxes)\?accessToken=access_\w{5}…&limit=100|POST \/crm\/passthrough \(GET crm\/v3\/objects\/contacts\))/,
    detail: /^sent again \d+ ms after its 503 at \+\d+\.\d{3}s \(wait at least 100 ms, doubling after each further 5xx\)$/,
  },
  {
    flaw: 'first-page-only',
    does: 'stops after the first page',
    rule: 'pages-to-the-end',
    options: ['--no-faults'],
    request: /^$/,
    detail: /^the users of connection \w{8}… stopped at page 1: its nextPageCursor \([\w-]{8}…, answered at \+\d+\.\d{3}s\) was never requested$/,
  },
  {
    flaw: 'search-first-page-only',
    does: 'stops a unified search after its first page',
    rule: 'pages-to-the-end',
    options: ['--no-faults'],
    request: /^$/,
    detail:
      /^the \/crm\/deals\/search of connection \w{8}… stopped at page 1: its nextPageCursor \([\w-]{8}…, answered at \+\d+\.\d{3}s\) was never requested$/,
  },
  {
    flaw: 'foreign-cursor',
    does: "sends a cursor with another connection's accessToken",
    rule: 'cursor-stays-with-its-list',
    options: ['--no-faults'],
    request: /^GET \/engagement\/users\?accessToken=access_\w{5}…&cursor=[\w-]{8}…$/,
    detail:
      /^answered 400: cursor belongs to another list or connection; pass back a nextPageCursor unchanged \(it was issued at \+\d+\.\d{3}s for the users of connection (\w{8})…, sent with connection (?!\1)\w{8}…'s accessToken\)$/,
  },
  {
    flaw: 'limit-out-of-bounds',
    does: 'asks for limit=500',
    rule: 'limit-within-bounds',
    options: ['--no-faults'],
    request: /^GET \/engagement\/users\?accessToken=access_\w{5}…&limit=500$/,
    detail: /^answered 400: limit must be an integer from 1 to 200, got "500"$/,
  },
  {
    flaw: 'reuses-deleted-token',
    does: "keeps using a deleted connection's accessToken",
    rule: 'drops-deleted-connections',
    options: ['--no-faults', '--delete-connection', '2s'],
    request: /^GET \/engagement\/users\?accessToken=access_\w{5}…$/,
    detail: /^used its accessToken \d+ ms after that token's first 401 at \+\d+\.\d{3}s \(connection \w{8}…, deleted by client-check at \+\d+\.\d{3}s\)$/,
  },
  {
    flaw: 'second-webhook',
    does: 'creates a second webhook',
    rule: 'one-webhook-per-connection',
    options: ['--no-faults'],
    request: /^POST \/connection\/webhook$/,
    detail: /^created a second webhook for connection \w{8}…: answered 400 WEBHOOK_ALREADY_EXISTS \(its webhook \w{8}… was created at \+\d+\.\d{3}s\)$/,
  },
  {
    flaw: 'browser-token',
    does: 'sends the API token from a browser page',
    rule: 'api-token-off-browsers',
    options: ['--no-faults'],
    request: /^POST \/link\/token$/,
    detail: /^sent the service-api-token from a browser page at http:\/\/localhost:5173 \(Origin header\)$/,
  },
  {
    flaw: 'exchange-twice',
    does: 'exchanges a public token twice',
    rule: 'exchanges-each-public-token-once',
    options: ['--no-faults'],
    request: /^POST \/link\/exchange$/,
    detail: /^answered 400 PUBLIC_TOKEN_USED: the public token was exchanged already at \+\d+\.\d{3}s$/,
  },
  {
    flaw: 'passthrough-url',
    does: 'gives the passthrough a URL',
    rule: 'passthrough-path-without-host',
    options: ['--no-faults'],
    request: /^POST \/crm\/passthrough \(GET https:\/\/api\.hubapi\.com\/crm\/v3\/objects\/contacts\)$/,
    detail: /^answered 400: path must be relative to the integration base URL, not an absolute URL/,
  },
];

describe.each(Object.entries(CLIENTS))('client-check with a %s client', (_language, client) => {
  it.concurrent('passes the careful client on every rule, each exercised, with a connection deleted mid-run (--strict)', async ({ expect }) => {
    const run = await clientCheck([...FAST, '--page-size', '5', '--delete-connection', '8s', '--strict'], [...client, '--until-gone']);
    expect(run.report.rules.filter((rule) => rule.status !== 'pass').map((rule) => `${rule.rule}: ${rule.summary}`)).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.report).toMatchObject({ ok: true, strict: true, final: true, exitCode: 0, command: { exitCode: 0, timedOut: false } });
    expect(run.report.hardCases).toMatchObject({ rateLimited: expect.any(Number), unavailable: expect.any(Number), connectionsDeleted: 1 });
    expect(run.report.hardCases.rateLimited).toBeGreaterThan(0);
    expect(run.report.hardCases.unavailable).toBeGreaterThan(0);
    // Evidence of the rules holding: the waits that were kept.
    expect(ruleOf(run.report, 'honours-retry-after').evidence[0]!.detail).toMatch(
      /^sent again [12]\.\d{3} s after its 429 at \+\d+\.\d{3}s \(Retry-After: [12]\)$/,
    );
    expect(ruleOf(run.report, 'drops-deleted-connections').summary).toMatch(
      /^1 accessToken answered 401; e\.g\. accessToken access_\w{5}… of connection \w{8}… \(deleted by client-check at \+\d+\.\d{3}s\) was not sent again/,
    );
    // The client's own output went to stderr, so stdout is the report alone.
    expect(run.errors).toContain('is gone: not using its accessToken again');
  });

  for (const { flaw, does, rule, options, sync, request, detail } of FLAWS) {
    it.concurrent(`fails ${rule}, and only it, for a client that ${does} (--flaw ${flaw})`, async ({ expect }) => {
      const untilGone = rule === 'drops-deleted-connections' ? ['--until-gone'] : [];
      const run = await clientCheck([...(sync ?? FAST), ...options], [...client, '--flaw', flaw, ...untilGone]);
      expect(byStatus(run.report, 'fail')).toEqual([rule]);
      expect(run.code).toBe(1);
      expect(run.report).toMatchObject({ ok: false, exitCode: 1, command: { exitCode: 0 } });
      const failed = ruleOf(run.report, rule);
      expect(failed.hint).toEqual(expect.any(String));
      expect(failed.evidence[0]!.request).toMatch(request);
      expect(failed.evidence[0]!.detail).toMatch(detail);
      expect(failed.evidence[0]!.since).toMatch(/^\+\d+\.\d{3}s$/);
    });
  }
});

describe('client-check: seeds and exit status', () => {
  it('puts the same hard cases in the way of the same requests under a seed, other ones under another', async () => {
    const cases = async (seed: string) => {
      const run = await clientCheck([...FAST, '--page-size', '5', '--seed', seed], CLIENTS.JavaScript);
      expect(run.code).toBe(0);
      return run.report.hardCases.cases.map(({ at: _at, since: _since, ...rest }) => rest);
    };
    const [first, again, other] = await Promise.all([cases('7'), cases('7'), cases('8')]);
    expect(first.length).toBeGreaterThanOrEqual(2);
    expect(first.map((item) => item.case)).toEqual(expect.arrayContaining(['rate-limit', 'server-error']));
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it('exits 1 when the command fails, and says so, even when no rule failed', async () => {
    const cli = runCli(['client-check', '--', process.execPath, '-e', 'console.log("hello from the command"); process.exit(3)'], running);
    expect(await cli.exited).toBe(1);
    expect(cli.output()).toMatch(
      /^hello from the command\n\ncommand: .+ -e .+ — exited with 3 after \d+\.\d{3} s \(a failure\)\nclient-check: no rule failed, 11 not exercised; 0 requests\n/,
    );
    expect(cli.errors()).toMatch(
      /^client-check: sandbox at http:\/\/127\.0\.0\.1:\d+ \(CRM_SANDBOX_URL\), API key sandbox-api-key \(CRM_SANDBOX_API_KEY\); running: /,
    );
  });

  it('gives the command the URL and API key; --strict fails rules it did not exercise; --rules picks rules', async () => {
    const script =
      'fetch(process.env.CRM_SANDBOX_URL + "/connection/connections", { headers: { "service-api-token": process.env.CRM_SANDBOX_API_KEY } }).then((r) => process.exit(r.status === 200 ? 0 : 4))';
    const lenient = await clientCheck(['--api-key', 'my-key'], [process.execPath, '-e', script]);
    expect(lenient).toMatchObject({ code: 0, report: { ok: true, requests: 1, command: { exitCode: 0 } } });
    expect(byStatus(lenient.report, 'pass')).toEqual(['api-token-off-browsers']);
    const strict = await clientCheck(['--strict', '--rules', 'api-token-off-browsers,pages-to-the-end'], [process.execPath, '-e', script]);
    expect(strict.code).toBe(1);
    expect(strict.report.rules.map((rule) => [rule.rule, rule.status])).toEqual([
      ['pages-to-the-end', 'not-exercised'],
      ['api-token-off-browsers', 'pass'],
    ]);
  });

  it('stops a command that outlives --timeout, with the report of what happened so far', async () => {
    const cli = runCli(['client-check', '--timeout', '1s', '--', process.execPath, '-e', 'setTimeout(() => {}, 60_000)'], running);
    expect(await cli.exited).toBe(1);
    expect(cli.errors()).toContain('client-check: the command took longer than --timeout 1s: stopping it');
    expect(cli.output()).toMatch(/ — stopped after --timeout \(SIGTERM\) after \d+\.\d{3} s \(a failure\)\n/);
  });

  it('exits 2 for bad usage, naming the flag or variable', async () => {
    const usage = async (args: string[], env: Record<string, string> = {}) => {
      const cli = runCli(['client-check', ...args], running, env);
      return { code: await cli.exited, errors: cli.errors() };
    };
    expect(await usage([])).toEqual({
      code: 2,
      errors: 'crm-sandbox: client-check needs the command to run after --: crm-sandbox client-check [options] -- npm test\n',
    });
    expect(await usage(['--page-size', '0', '--', 'true'])).toEqual({
      code: 2,
      errors: 'crm-sandbox: --page-size must be an integer from 1 to 200, got "0"\n',
    });
    expect(await usage(['--retry-after', '500ms', '--', 'true'])).toEqual({
      code: 2,
      errors: 'crm-sandbox: --retry-after must be whole seconds from 1s to 60s, or a range such as 1s-2s, got "500ms"\n',
    });
    expect(await usage(['--', 'true'], { CRM_SANDBOX_RETRY_AFTER: '2' })).toEqual({
      code: 2,
      errors: 'crm-sandbox: CRM_SANDBOX_RETRY_AFTER needs a unit: 2ms, 2s, 2m, 2h or 2d; got "2"\n',
    });
    expect((await usage(['--rules', 'nope', '--', 'true'])).errors).toMatch(/^crm-sandbox: --rules: unknown rule "nope"; the rules are waits-while-syncing, /);
    expect(await usage(['--', 'no-such-command-here'])).toEqual({
      code: 2,
      errors: expect.stringMatching(/crm-sandbox: cannot run no-such-command-here: command not found\n$/),
    });
    const unknown = await usage(['--nope', '--', 'true']);
    expect(unknown.code).toBe(2);
    expect(unknown.errors).toBe('crm-sandbox: unknown option --nope; see crm-sandbox client-check --help\n');
  });
});
