import { describe, expect, it } from 'vitest';
import { parseJunit } from '../../../test/helpers/junit.js';
import type { ClientCheckReport, RuleReport } from '../../client-check/report.js';
import type { ScenarioReport } from '../../scenarios/report.js';
import { clientCheckSuite } from './client-check.js';
import { junitXml, type ReportSuite } from './junit.js';
import { markdownSummary } from './markdown.js';
import { DELIVERIES_CASE, scenarioSuite } from './scenario.js';

const SUITE: ReportSuite = {
  name: 'crm-sandbox scenario <odd> & "quoted"',
  classname: 'crm-sandbox.scenario.odd',
  timestamp: '2026-01-01T00:00:00.000Z',
  seconds: 1.5,
  cases: [
    { name: 'steps[1] expect events', outcome: 'passed', detail: '2 event(s) delivered in order' },
    {
      name: 'steps[2] probe forged-signature',
      outcome: 'failed',
      detail: 'probe forged-signature: expected non-2xx, got 200 <ok> & "fine"\nsecond line\u0001',
      seconds: 0.012,
    },
    { name: 'tasks-have-owners', outcome: 'skipped', detail: 'not exercised: no task was written' },
  ],
};

describe('junitXml', () => {
  it('writes one suite of well-formed XML with the counts, the words of a failure and what was skipped', () => {
    const doc = parseJunit(junitXml(SUITE));
    const [root] = doc.testsuites;
    expect(root).toMatchObject({ name: SUITE.name, tests: '3', failures: '1' });
    expect(root!.testsuite).toHaveLength(1);
    const [suite] = root!.testsuite;
    expect(suite).toMatchObject({ name: SUITE.name, tests: '3', failures: '1', skipped: '1', errors: '0' });
    const [passed, failed, skipped] = suite!.testcase!;
    expect(passed).toMatchObject({ name: 'steps[1] expect events', classname: 'crm-sandbox.scenario.odd', time: '0.000' });
    expect(passed!.failure).toBeUndefined();
    expect(failed!.time).toBe('0.012');
    expect(failed!.failure![0]!.message).toBe('probe forged-signature: expected non-2xx, got 200 <ok> & "fine"');
    // The whole text, its second line too; a control character XML cannot hold becomes U+FFFD.
    expect(failed!.failure![0]!['#text']).toBe('probe forged-signature: expected non-2xx, got 200 <ok> & "fine"\nsecond line\ufffd');
    expect(skipped!.skipped![0]!.message).toBe('not exercised: no task was written');
  });

  it('is refused by the parser when it is not well-formed (the check can fail)', () => {
    expect(() => parseJunit(junitXml(SUITE).replaceAll('200 &lt;ok&gt;', '200 <ok>'))).toThrow(/not well-formed/);
  });
});

describe('markdownSummary', () => {
  it('heads with the counts and lists failures first, one table row each, pipes and lines kept inside their cell', () => {
    const text = markdownSummary(SUITE, ['connection `c1` (hubspot)']);
    const lines = text.split('\n');
    expect(lines[0]).toBe('### ❌ crm-sandbox scenario <odd> & "quoted": 1 passed, 1 failed, 1 not exercised');
    expect(lines).toContain('- connection `c1` (hubspot)');
    const rows = lines.filter((line) => /^\| (✅|❌|➖) /.test(line));
    expect(rows.map((row) => row.slice(2, 3))).toEqual(['❌', '➖', '✅']);
    expect(rows[0]).toContain('got 200 &lt;ok&gt; &amp; "fine"<br>second line');
    expect(markdownSummary({ ...SUITE, cases: [{ name: 'a | b', outcome: 'passed' }] })).toContain('| ✅ | a \\| b |  |');
  });
});

/** A report with what the runner puts in one: a step's verdicts, probes and their failure lines, deliveries. */
function scenarioReport(overrides: Partial<ScenarioReport> = {}): ScenarioReport {
  return {
    scenario: 'story',
    description: 'a story',
    ok: true,
    exitCode: 0,
    seed: 1,
    speed: 'instant',
    startTime: '2025-01-01T00:00:00.000Z',
    connection: { connectionId: 'c1', accessToken: 'access_x', integrationId: 'hubspot', nativeOrgId: 'o', webhookUrl: 'http://127.0.0.1:1/w' },
    connections: {},
    steps: 3,
    events: [],
    checks: [],
    probes: [],
    failures: [],
    ...overrides,
  };
}

describe('scenarioSuite', () => {
  it('makes one case per expectation and probe, with the failure line the report prints (its fix too)', () => {
    const failure = 'steps[0] (receiverCheck): probe forged-signature: expected non-2xx, got 200; fix: verify the signature';
    const report = scenarioReport({
      ok: false,
      exitCode: 1,
      checks: [
        { step: 0, kind: 'probe valid-signature', ok: true, message: 'probe valid-signature: expected 2xx, got 200' },
        { step: 0, kind: 'probe forged-signature', ok: false, message: 'probe forged-signature: expected non-2xx, got 200' },
        { step: 2, kind: 'events', ok: false, message: 'steps[2] (expect events): Deal UPDATE is not delivered: …' },
        { step: 3, kind: 'update', ok: false, message: 'steps[3] (update): record "x" is not defined' },
      ],
      probes: [
        { probe: 'valid-signature', expected: '2xx', got: '200', ok: true, durationMs: 12, fix: null },
        { probe: 'forged-signature', expected: 'non-2xx', got: '200', ok: false, durationMs: 3, fix: 'verify the signature' },
      ],
      failures: [failure, 'steps[2] (expect events): Deal UPDATE is not delivered: …', 'steps[3] (update): record "x" is not defined'],
    });
    const suite = scenarioSuite(report, { timestamp: 't', seconds: 2 });
    expect(suite.name).toBe('crm-sandbox scenario story');
    expect(suite.cases.map((item) => [item.name, item.outcome])).toEqual([
      ['steps[0] probe valid-signature', 'passed'],
      ['steps[0] probe forged-signature', 'failed'],
      ['steps[2] expect events', 'failed'],
      ['steps[3] update', 'failed'],
    ]);
    expect(suite.cases[0]!.seconds).toBe(0.012);
    expect(suite.cases[1]!.detail).toBe(failure);
  });

  it('adds the deliveries case when events were sent: passed, or failed with the lines of what was never accepted', () => {
    const event = { state: 'succeeded' } as ScenarioReport['events'][number];
    const connections = { main: scenarioReport().connection };
    const passing = scenarioSuite(scenarioReport({ events: [event, event], connections }), { timestamp: 't', seconds: 1 });
    expect(passing.cases).toEqual([{ name: DELIVERIES_CASE, outcome: 'passed', detail: '2 event(s) emitted, 2 delivered' }]);
    const unreachable = 'nothing is listening at http://127.0.0.1:1/w (ECONNREFUSED): is your receiver running, on that port?';
    const failing = scenarioSuite(
      scenarioReport({
        ok: false,
        events: [{ state: 'failed' } as ScenarioReport['events'][number]],
        checks: [{ step: null, kind: 'delivery', ok: false, message: 'the receiver never accepted Contact CREATE (e1): …' }],
        failures: [unreachable],
      }),
      { timestamp: 't', seconds: 1 },
    );
    expect(failing.cases).toEqual([{ name: DELIVERIES_CASE, outcome: 'failed', detail: unreachable }]);
    // Nothing sent (receiver-check's connection has no webhook) and nothing failed: no such case.
    const unsent = { main: { ...scenarioReport().connection, webhookUrl: null } };
    expect(scenarioSuite(scenarioReport({ events: [event], connections: unsent }), { timestamp: 't', seconds: 1 }).cases).toEqual([]);
  });
});

describe('clientCheckSuite', () => {
  const rule = (status: RuleReport['status']): RuleReport => ({
    rule: 'pages-to-the-end',
    title: 'Pages to the end',
    status,
    exercised: 1,
    failures: status === 'fail' ? 1 : 0,
    summary: status === 'fail' ? 'the users stopped at page 1' : '1 walk',
    evidence: status === 'fail' ? [{ at: 'a', since: '+1.000s', request: '', status: 0, detail: 'the users stopped at page 1' }] : [],
    ...(status === 'fail' ? { hint: 'follow nextPageCursor' } : {}),
  });
  const report = (rules: RuleReport[], strict = false) => ({ rules, strict }) as ClientCheckReport;
  const command = { argv: ['npm', 'test'], exitCode: 0, signal: null, timedOut: false, durationMs: 2500 };

  it('makes a case of the command, then one per rule: failed with its evidence and fix, skipped when not exercised', () => {
    const suite = clientCheckSuite(
      report([rule('fail'), { ...rule('not-exercised'), rule: 'honours-retry-after' }]),
      command,
      'command: npm test — exited with 0',
      't',
    );
    expect(suite.cases.map((item) => [item.name, item.outcome])).toEqual([
      ['command: npm test', 'passed'],
      ['pages-to-the-end', 'failed'],
      ['honours-retry-after', 'skipped'],
    ]);
    expect(suite.cases[1]!.detail).toBe(
      'the users stopped at page 1\npages-to-the-end: Pages to the end\n    +1.000s  the users stopped at page 1\n  fix: follow nextPageCursor',
    );
    expect(suite.seconds).toBe(2.5);
  });

  it('fails a command that failed, and an unexercised rule under --strict', () => {
    const suite = clientCheckSuite(report([rule('not-exercised')], true), { ...command, exitCode: 1 }, 'command: npm test — exited with 1', 't');
    expect(suite.cases.map((item) => item.outcome)).toEqual(['failed', 'failed']);
  });
});
