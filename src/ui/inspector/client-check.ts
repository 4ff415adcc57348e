import { el } from './dom.js';
import { type ApiFailure, app, describeError, draw, redrawAll, say, time } from './page.js';
import { api, refresh, type View } from './session.js';

/** The Client check tab: the report of GET /sandbox/client-check, when the server runs with it. */

interface Rule {
  rule: string;
  title: string;
  status: string;
  summary: string;
  hint: string;
  failures: number;
  evidence: Array<{ since: string; status?: number; request?: string; detail: string }>;
}

interface Report {
  rules: Rule[];
  requests: number;
  startedAt: string;
  settings: { retryAfter: string; pageSize: number; deleteConnectionAfter?: string | null; faults: boolean; seed: string | number };
  hardCases: { rateLimited: number; unavailable: number };
}

/** How each rule's result shows: its word and its class. */
const VERDICTS: Record<string, [string, string]> = {
  pass: ['PASS', 'state-succeeded'],
  fail: ['FAIL', 'state-failed'],
  'not-exercised': ['NOT EXERCISED', 'muted'],
};

function layout(): void {
  app.appendChild(
    el('section', { id: 'view-client-check', role: 'tabpanel', 'aria-labelledby': 'tab-client-check', class: 'page' }, [
      el('div', { class: 'card' }, [
        el('h2', { text: "Client check: how this API token's client behaves" }),
        el('p', { class: 'muted mono', text: 'GET /sandbox/client-check' }),
        el('div', { id: 'client-check-view' }),
      ]),
    ]),
  );
}

function refreshClientCheck(): Promise<void> {
  return api<Report>('GET', '/sandbox/client-check').then(
    (report) => {
      draw('client-check-view', { available: true, report: report }, drawClientCheck);
    },
    (error: ApiFailure) => {
      if (error && error.status === 404) {
        draw('client-check-view', { available: false, message: error.message }, drawClientCheck);
        return;
      }
      throw error;
    },
  );
}

/** A rule's row: its result, its name and title, and for a failed one its evidence and the fix. */
function ruleRow(rule: Rule): HTMLElement {
  const verdict = VERDICTS[rule.status] || [rule.status, ''];
  const evidence: HTMLElement[] = [el('div', { text: rule.summary })];
  if (rule.status === 'fail') {
    evidence.push(
      el(
        'ul',
        {},
        rule.evidence.map((item) =>
          el('li', {
            class: 'mono',
            text: `${item.since} ${item.status ? `[${item.status}] ` : ''}${item.request ? `${item.request}: ` : ''}${item.detail}`,
          }),
        ),
      ),
    );
    if (rule.failures > rule.evidence.length) evidence.push(el('div', { class: 'muted', text: `… and ${rule.failures - rule.evidence.length} more` }));
    evidence.push(el('div', { text: `Fix: ${rule.hint}` }));
  }
  return el('tr', { 'data-rule': rule.rule }, [
    el('td', { class: verdict[1], text: verdict[0] }),
    el('td', {}, [el('div', { class: 'mono', text: rule.rule }), el('div', { class: 'muted', text: rule.title })]),
    el('td', {}, evidence),
  ]);
}

function drawClientCheck(target: HTMLElement, data: { available: true; report: Report } | { available: false; message: string | undefined }): void {
  if (!data.available) {
    target.appendChild(el('p', { class: 'muted', role: 'status', text: `Not available: ${data.message}` }));
    return;
  }
  const report = data.report;
  const count = (status: string) => report.rules.filter((rule) => rule.status === status).length;
  const failed = count('fail');
  target.appendChild(
    el('p', {
      id: 'client-check-headline',
      role: 'status',
      class: failed ? 'state-failed' : 'state-succeeded',
      text:
        (failed ? `${failed} of ${report.rules.length} rules failed` : 'No rule failed') +
        ', ' +
        count('not-exercised') +
        ' not exercised; ' +
        report.requests +
        (report.requests === 1 ? ' request' : ' requests') +
        ' since ' +
        time(report.startedAt),
    }),
  );
  const settings = report.settings;
  const cases = report.hardCases;
  target.appendChild(
    el('p', {
      class: 'muted',
      text:
        'Hard cases: ' +
        cases.rateLimited +
        ' answers 429 (Retry-After ' +
        settings.retryAfter +
        '), ' +
        cases.unavailable +
        ' answers 503, pages of at most ' +
        settings.pageSize +
        (settings.deleteConnectionAfter ? `, connections deleted ${settings.deleteConnectionAfter} after linking` : '') +
        (settings.faults ? '' : ' (no 429s or 503s)') +
        '; seed ' +
        settings.seed,
    }),
  );
  target.appendChild(
    el('table', { id: 'client-check-rules' }, [
      el('thead', {}, [
        el('tr', {}, [el('th', { scope: 'col', text: 'Result' }), el('th', { scope: 'col', text: 'Rule' }), el('th', { scope: 'col', text: 'Evidence' })]),
      ]),
      el('tbody', {}, report.rules.map(ruleRow)),
    ]),
  );
  target.appendChild(
    el('div', { class: 'actions' }, [
      el('button', {
        type: 'button',
        id: 'client-check-restart',
        onclick: () => {
          api('DELETE', '/sandbox/client-check').then(
            () => {
              say('Client check started over');
              redrawAll();
              return refresh();
            },
            (error) => {
              say(describeError(error));
            },
          );
        },
        text: 'Start over',
      }),
    ]),
  );
}

export const clientCheckView: View = { layout, refresh: refreshClientCheck };
