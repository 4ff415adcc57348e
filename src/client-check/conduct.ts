import type { SandboxResponse } from '../model/request.js';
import { type HardCase, HardCasePlan, type HardCaseSettings } from './hard-cases.js';
import { type RequestFacts, short } from './request-facts.js';
import { RULE_IDS, type RuleId, THRESHOLDS } from './rules.js';

/** One request (or fact) that shows a rule held or broke. Times are ms on the sandbox's clock. */
export interface Evidence {
  at: number;
  /** The request, as a report shows it; '' when the evidence is no single request. */
  request: string;
  status: number;
  detail: string;
}

/** How a rule fared so far: how often it was put to the test, how often it broke, and examples of both. */
export interface Tally {
  exercised: number;
  failures: number;
  failed: Evidence[];
  passed: Evidence[];
}

/** A hard case as the report lists it. */
export interface InjectedCase {
  at: number;
  case: 'rate-limit' | 'server-error' | 'connection-deleted';
  /** Which of the tenant's reads met it (served ones, counted from 1, plus this one). */
  read?: number;
  request?: string;
  status?: number;
  retryAfter?: number;
  /** A 503's length: how many attempts of that request in a row it answers. */
  answers?: number;
  connectionId?: string;
}

/** A failed attempt whose retry is watched: when the same request comes again, and how soon. */
interface Pending {
  kind: 'syncing' | 'rate-limit' | 'server-error';
  answeredAt: number;
  status: number;
  retryAfterMs: number | undefined;
  /** For a 5xx: how many 5xx answers in a row the request has had, this one included. */
  serverErrors: number;
}

interface TrackedConnection {
  exchangedAt: number;
  syncedAt: number | undefined;
  /** Reads answered 409 while it synced. */
  syncingReads: number;
  deletedAt: number | undefined;
  deletedBy: string | undefined;
}

/** An open walk of a connection's list: the cursor it was given last and has not followed yet. */
export interface Walk {
  connectionId: string;
  list: string;
  cursor: string;
  startedAt: number;
  /** Pages served so far. */
  pages: number;
  cursorAt: number;
}

/** The most entries each map of a tenant's conduct keeps; the oldest go first (a long-running server stays bounded). */
const MAX_TRACKED = 10_000;
/** Examples of failures and of passes kept per rule. */
const MAX_FAILED = 5;
const MAX_PASSED = 3;
/** Hard cases listed in a report (all are counted). */
const MAX_CASES = 100;

/** `3 ms`, `1.013 s`. */
export function gap(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(3)} s`;
}

/**
 * One tenant's conduct: every request it sent to the service, judged against the rules as it is
 * answered (what a later request says about an earlier one — a retry, a reused token — is judged
 * when the later one comes), and the tenant's plan of hard cases.
 */
export class TenantConduct {
  readonly tallies = Object.fromEntries(RULE_IDS.map((id) => [id, { exercised: 0, failures: 0, failed: [], passed: [] }])) as unknown as Record<RuleId, Tally>;
  readonly plan: HardCasePlan;
  requests = 0;
  readonly cases: InjectedCase[] = [];
  readonly answersInjected = { 'rate-limit': 0, 'server-error': 0 };
  connectionsDeleted = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly deadTokens = new Map<string, { at: number; connectionId: string | undefined; reused: number }>();
  readonly connections = new Map<string, TrackedConnection>();
  private readonly connectionOfToken = new Map<string, string>();
  /** Open walks, by connection and list (`<connectionId> users`; a search's with a hash of its filters). */
  readonly walks = new Map<string, Walk>();
  private readonly cursors = new Map<string, { connectionId: string; list: string; at: number }>();
  private readonly webhooks = new Map<string, { webhookId: string; at: number }>();
  private readonly exchanged = new Map<string, number>();
  /** How the report shows a time: `+3.201s` from the start of the check. */
  readonly since: (at: number) => string;

  constructor(settings: HardCaseSettings, since: (at: number) => string) {
    this.plan = new HardCasePlan(settings);
    this.since = since;
  }

  /** Records a hard case the plan put in a request's way. */
  injected(hardCase: HardCase, facts: RequestFacts, at: number): void {
    this.answersInjected[hardCase.kind]++;
    if (!hardCase.fresh || this.cases.length >= MAX_CASES) return;
    this.cases.push({
      at,
      case: hardCase.kind,
      read: hardCase.read,
      request: facts.shown,
      status: hardCase.error.status,
      ...(hardCase.retryAfter === undefined ? {} : { retryAfter: hardCase.retryAfter }),
      ...(hardCase.answers === undefined ? {} : { answers: hardCase.answers }),
    });
  }

  /** A connection is gone: `by` the client (DELETE /connection/connection) or client-check. */
  connectionDeleted(connectionId: string, at: number, by: 'the client' | 'client-check'): void {
    const tracked = this.connections.get(connectionId);
    if (tracked) {
      tracked.deletedAt = at;
      tracked.deletedBy = by;
    }
    if (by === 'client-check') {
      this.connectionsDeleted++;
      if (this.cases.length < MAX_CASES) this.cases.push({ at, case: 'connection-deleted', connectionId });
    }
  }

  statusChanged(connectionId: string, status: string, at: number): void {
    const tracked = this.connections.get(connectionId);
    if (tracked && status !== 'NEW_CONNECTION' && tracked.syncedAt === undefined) tracked.syncedAt = at;
  }

  /**
   * Judges one answered request. `arrivedAt` is when it came, `answeredAt` when its answer was
   * ready; `connectionId` the connection it acted on, when the service found one. Returns the
   * connection a successful exchange created, for whoever deletes connections mid-run.
   */
  answered(
    facts: RequestFacts,
    arrivedAt: number,
    answeredAt: number,
    response: SandboxResponse,
    connectionId: string | undefined,
    hardCase: HardCase | undefined,
  ): string | undefined {
    const { status } = response;
    const at = arrivedAt;
    const error = status >= 400 ? errorOf(response.body) : undefined;
    this.requests++;
    this.exercise('api-token-off-browsers');
    if (facts.kind === 'preflight') {
      this.fail('api-token-off-browsers', at, facts, status, `a browser page at ${facts.origin} asked to send the service-api-token (CORS preflight)`);
      return undefined;
    }
    if (facts.origin !== undefined)
      this.fail('api-token-off-browsers', at, facts, status, `sent the service-api-token from a browser page at ${facts.origin} (Origin header)`);
    const serverErrors = this.judgeRetry(facts, at, status);
    this.watchRetry(facts, answeredAt, response, error?.errorCode, connectionId, serverErrors);
    this.judgeToken(facts, at, answeredAt, status, error?.errorCode, connectionId);
    if (facts.read && status < 300 && !hardCase) this.plan.readServed();
    switch (facts.kind) {
      case 'exchange':
        return this.judgeExchange(facts, at, response, error?.errorCode);
      case 'list':
        this.judgeList(facts, at, answeredAt, response, error, connectionId);
        return undefined;
      case 'webhook':
        this.judgeWebhook(facts, at, response, error, connectionId);
        return undefined;
      case 'passthrough':
        this.exercise('passthrough-path-without-host');
        if (error?.field === 'path') this.fail('passthrough-path-without-host', at, facts, status, `answered 400: ${error.message}`);
        return undefined;
      case 'connection-delete': {
        const deleted = status < 300 ? (facts.connectionId ?? connectionId) : undefined;
        if (deleted !== undefined) this.connectionDeleted(deleted, answeredAt, 'the client');
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /**
   * The same request sent again after a 409, 429 or 5xx: judged on how long it waited. Returns
   * how many 5xx answers in a row it had before (0 when it is no retry of a 5xx).
   */
  private judgeRetry(facts: RequestFacts, at: number, status: number): number {
    const previous = this.pending.get(facts.identity);
    if (!previous || at < previous.answeredAt) return 0;
    this.pending.delete(facts.identity);
    const waited = at - previous.answeredAt;
    const when = `${gap(waited)} after its ${previous.status} at ${this.since(previous.answeredAt)}`;
    if (previous.kind === 'syncing') {
      if (waited < THRESHOLDS.syncRetryMs)
        this.fail('waits-while-syncing', at, facts, status, `sent again ${when} (wait at least ${THRESHOLDS.syncRetryMs} ms)`);
      else this.pass('waits-while-syncing', at, facts, status, `sent again ${when}`);
    } else if (previous.kind === 'rate-limit') {
      const wanted = previous.retryAfterMs!;
      const said = `Retry-After: ${wanted / 1000}`;
      if (waited < wanted - THRESHOLDS.retryAfterMarginMs) this.fail('honours-retry-after', at, facts, status, `sent again ${when} (${said})`);
      else this.pass('honours-retry-after', at, facts, status, `sent again ${when} (${said})`);
    } else {
      const wanted = serverErrorWait(previous.serverErrors);
      const nth = previous.serverErrors === 1 ? '' : `, its ${ordinal(previous.serverErrors)} 5xx in a row`;
      if (waited < wanted)
        this.fail('backs-off-on-5xx', at, facts, status, `sent again ${when}${nth} (wait at least ${wanted} ms, doubling after each further 5xx)`);
      else this.pass('backs-off-on-5xx', at, facts, status, `sent again ${when}${nth}`);
      return previous.serverErrors;
    }
    return 0;
  }

  /** A 409 CONNECTION_SYNCING, 429 or 5xx answer: its retry, if one comes, is judged by {@link judgeRetry}. */
  private watchRetry(
    facts: RequestFacts,
    answeredAt: number,
    response: SandboxResponse,
    errorCode: string | undefined,
    connectionId: string | undefined,
    serverErrorsBefore: number,
  ): void {
    const { status } = response;
    const retryAfter = Number(response.headers['retry-after']);
    let kind: Pending['kind'] | undefined;
    if (status === 409 && errorCode === 'CONNECTION_SYNCING') {
      kind = 'syncing';
      const tracked = connectionId === undefined ? undefined : this.connections.get(connectionId);
      // A connection linked during the check was counted at its exchange.
      if (tracked) tracked.syncingReads++;
      else this.exercise('waits-while-syncing');
    } else if (status === 429 && retryAfter > 0) {
      kind = 'rate-limit';
      this.exercise('honours-retry-after');
    } else if (status >= 500) {
      kind = 'server-error';
      this.exercise('backs-off-on-5xx');
    }
    if (kind === undefined) return;
    remember(this.pending, facts.identity, {
      kind,
      answeredAt,
      status,
      retryAfterMs: kind === 'rate-limit' ? retryAfter * 1000 : undefined,
      serverErrors: kind === 'server-error' ? serverErrorsBefore + 1 : 0,
    });
  }

  /** An accessToken answered 401 must not be sent again (requests already in flight aside). */
  private judgeToken(
    facts: RequestFacts,
    at: number,
    answeredAt: number,
    status: number,
    errorCode: string | undefined,
    connectionId: string | undefined,
  ): void {
    const token = facts.accessToken;
    if (token === undefined) return;
    const dead = this.deadTokens.get(token);
    if (dead) {
      const waited = at - dead.at;
      if (waited <= THRESHOLDS.inFlightMs) return;
      dead.reused++;
      const whose = dead.connectionId === undefined ? '' : ` (connection ${short(dead.connectionId, 8)}${this.deletion(dead.connectionId, ', ')})`;
      this.fail(
        'drops-deleted-connections',
        at,
        facts,
        status,
        `used its accessToken ${gap(waited)} after that token's first 401 at ${this.since(dead.at)}${whose}`,
      );
      return;
    }
    if (status === 401 && errorCode === 'INVALID_ACCESS_TOKEN') {
      this.exercise('drops-deleted-connections');
      remember(this.deadTokens, token, { at: answeredAt, connectionId: this.connectionOfToken.get(token) ?? connectionId, reused: 0 });
    }
  }

  /** `deleted by client-check at +6.001s` after `lead`, or '' when the connection was not seen deleted. */
  private deletion(connectionId: string, lead: string): string {
    const tracked = this.connections.get(connectionId);
    return tracked?.deletedAt === undefined ? '' : `${lead}deleted by ${tracked.deletedBy} at ${this.since(tracked.deletedAt)}`;
  }

  private judgeExchange(facts: RequestFacts, at: number, response: SandboxResponse, errorCode: string | undefined): string | undefined {
    this.exercise('exchanges-each-public-token-once');
    if (errorCode === 'PUBLIC_TOKEN_USED' || errorCode === 'PUBLIC_TOKEN_EXPIRED') {
      const before = facts.publicToken === undefined ? undefined : this.exchanged.get(facts.publicToken);
      const why =
        errorCode === 'PUBLIC_TOKEN_USED'
          ? `the public token was exchanged already${before === undefined ? '' : ` at ${this.since(before)}`}`
          : 'the public token had expired (30 minutes after it was made)';
      this.fail('exchanges-each-public-token-once', at, facts, response.status, `answered 400 ${errorCode}: ${why}`);
      return undefined;
    }
    if (response.status !== 200) return undefined;
    const connection = jsonOf(response.body) as { connectionId?: unknown; accessToken?: unknown } | undefined;
    if (typeof connection?.connectionId !== 'string' || typeof connection.accessToken !== 'string') return undefined;
    if (facts.publicToken !== undefined) remember(this.exchanged, facts.publicToken, at);
    remember(this.connections, connection.connectionId, { exchangedAt: at, syncedAt: undefined, syncingReads: 0, deletedAt: undefined, deletedBy: undefined });
    remember(this.connectionOfToken, connection.accessToken, connection.connectionId);
    // Each new connection syncs for a while: that puts waits-while-syncing to the test.
    this.exercise('waits-while-syncing');
    return connection.connectionId;
  }

  private judgeList(
    facts: RequestFacts,
    at: number,
    answeredAt: number,
    response: SandboxResponse,
    error: ErrorInfo | undefined,
    connectionId: string | undefined,
  ): void {
    const { status } = response;
    this.exercise('limit-within-bounds');
    if (error?.field === 'limit') this.fail('limit-within-bounds', at, facts, status, `answered 400: ${error.message}`);
    if (facts.cursor !== undefined) {
      this.exercise('cursor-stays-with-its-list');
      if (error?.field === 'cursor') {
        const issued = this.cursors.get(facts.cursor);
        const origin = issued
          ? ` (it was issued at ${this.since(issued.at)} for the ${issued.list} of connection ${short(issued.connectionId, 8)}${issued.connectionId === connectionId ? '' : `, sent with connection ${short(connectionId ?? '?', 8)}'s accessToken`})`
          : '';
        this.fail('cursor-stays-with-its-list', at, facts, status, `answered 400: ${error.message}${origin}`);
      }
    }
    if (status !== 200 || connectionId === undefined) return;
    const list = facts.list!;
    const key = `${connectionId} ${facts.walk!}`;
    const open = this.walks.get(key);
    let walk: Walk | undefined;
    if (facts.cursor === undefined && open) {
      // A first page: the walk of the same list left unfinished is abandoned.
      this.walks.delete(key);
      this.fail(
        'pages-to-the-end',
        at,
        facts,
        status,
        `read the first page again, leaving the ${list} of connection ${short(connectionId, 8)} at page ${open.pages}: the nextPageCursor answered at ${this.since(open.cursorAt)} was never requested`,
      );
    } else if (facts.cursor !== undefined) {
      // A page of an earlier walk read again leaves the open walk alone.
      if (open && open.cursor !== facts.cursor) return;
      walk = open;
      this.walks.delete(key);
    }
    const next = nextPageCursorOf(response.body);
    if (next === undefined) {
      if (walk)
        this.pass(
          'pages-to-the-end',
          at,
          undefined,
          status,
          `walked the ${list} of connection ${short(connectionId, 8)} to the end: ${walk.pages + 1} pages, ${this.since(walk.startedAt)} to ${this.since(at)}`,
        );
      return;
    }
    if (!walk) this.exercise('pages-to-the-end');
    remember(this.walks, key, { connectionId, list, cursor: next, startedAt: walk?.startedAt ?? at, pages: (walk?.pages ?? 0) + 1, cursorAt: answeredAt });
    remember(this.cursors, next, { connectionId, list, at: answeredAt });
  }

  private judgeWebhook(facts: RequestFacts, at: number, response: SandboxResponse, error: ErrorInfo | undefined, connectionId: string | undefined): void {
    const { status } = response;
    this.exercise('one-webhook-per-connection');
    if (error?.errorCode === 'WEBHOOK_ALREADY_EXISTS') {
      const existing = connectionId === undefined ? undefined : this.webhooks.get(connectionId);
      const since = existing ? ` (its webhook ${short(existing.webhookId, 8)} was created at ${this.since(existing.at)})` : '';
      this.fail(
        'one-webhook-per-connection',
        at,
        facts,
        status,
        `created a second webhook for connection ${short(connectionId ?? '?', 8)}: answered 400 WEBHOOK_ALREADY_EXISTS${since}`,
      );
    } else if (status === 404 && error?.field === 'webhookId') {
      this.fail(
        'one-webhook-per-connection',
        at,
        facts,
        status,
        `named a webhookId the connection does not have (answered 404): keep the one POST /connection/webhook answered`,
      );
    } else if (status === 200 && connectionId !== undefined) {
      if (facts.method === 'POST') {
        const webhookId = (jsonOf(response.body) as { webhook?: { webhookId?: unknown } } | undefined)?.webhook?.webhookId;
        if (typeof webhookId === 'string') remember(this.webhooks, connectionId, { webhookId, at });
      } else if (facts.method === 'DELETE') {
        this.webhooks.delete(connectionId);
      }
    }
  }

  /**
   * The sandbox's state was reset or restored: its connections, tokens, cursors and webhooks are
   * gone, and a reset sandbox issues the same ids and seeded tokens again, so what the conduct
   * knew of them would judge the new ones by the old. The verdicts so far stay (a suite that
   * resets between its tests is judged as one run); the passes only the end shows are kept as
   * evidence now, and retries still awaited are forgotten.
   */
  forgetState(): void {
    for (const [rule, passes] of Object.entries(this.standingPasses()) as [RuleId, Evidence[]][]) {
      for (const item of passes) this.pass(rule, item.at, undefined, item.status, item.detail);
    }
    for (const map of [this.pending, this.deadTokens, this.connections, this.connectionOfToken, this.walks, this.cursors, this.webhooks, this.exchanged])
      map.clear();
    this.plan.endWindows();
  }

  /** Pass examples of the rules whose passes show only at the end: tokens dropped after their 401, connections that synced. */
  standingPasses(): Partial<Record<RuleId, Evidence[]>> {
    const dropped: Evidence[] = [];
    for (const [token, dead] of this.deadTokens) {
      if (dead.reused > 0 || dropped.length >= MAX_PASSED) continue;
      const deleted = dead.connectionId === undefined ? '' : this.deletion(dead.connectionId, '');
      const whose = dead.connectionId === undefined ? '' : ` of connection ${short(dead.connectionId, 8)}${deleted ? ` (${deleted})` : ''}`;
      dropped.push({
        at: dead.at,
        request: '',
        status: 401,
        detail: `accessToken ${short(token)}${whose} was not sent again after its first 401 at ${this.since(dead.at)}`,
      });
    }
    const synced: Evidence[] = [];
    for (const [connectionId, tracked] of this.connections) {
      if (synced.length >= MAX_PASSED || tracked.syncedAt === undefined) continue;
      const reads =
        tracked.syncingReads === 0
          ? 'no read while it synced'
          : `${tracked.syncingReads} read${tracked.syncingReads > 1 ? 's' : ''} answered 409 while it synced`;
      synced.push({
        at: tracked.syncedAt,
        request: '',
        status: 0,
        detail: `connection ${short(connectionId, 8)} synced at ${this.since(tracked.syncedAt)}: ${reads}`,
      });
    }
    return { 'drops-deleted-connections': dropped, 'waits-while-syncing': synced };
  }

  exercise(rule: RuleId): void {
    this.tallies[rule].exercised++;
  }

  fail(rule: RuleId, at: number, facts: RequestFacts | undefined, status: number, detail: string): void {
    const tally = this.tallies[rule];
    tally.failures++;
    if (tally.failed.length < MAX_FAILED) tally.failed.push({ at, request: facts?.shown ?? '', status, detail });
  }

  private pass(rule: RuleId, at: number, facts: RequestFacts | undefined, status: number, detail: string): void {
    const tally = this.tallies[rule];
    if (tally.passed.length < MAX_PASSED) tally.passed.push({ at, request: facts?.shown ?? '', status, detail });
  }
}

/**
 * The nextPageCursor of a page, or undefined on the last page: the one whose nextPageCursor is
 * null (a page without the key, as the lists answered before, reads as the last too). The cursor
 * closes the page's JSON, so its tail is enough (a page of 200 records is long); another page is
 * parsed whole.
 */
export function nextPageCursorOf(body: string): string | undefined {
  const tail = /"nextPageCursor":(?:null|"([^"]*)")\}$/.exec(body.slice(-512));
  const next = tail ? tail[1] : (jsonOf(body) as { nextPageCursor?: unknown } | undefined)?.nextPageCursor;
  return typeof next === 'string' && next !== '' ? next : undefined;
}

/** The least wait before a retry after `count` 5xx answers in a row: the threshold, doubled for each further one (up to 32 times). */
function serverErrorWait(count: number): number {
  return THRESHOLDS.serverErrorRetryMs * 2 ** Math.min(count - 1, 5);
}

/** `2nd`, `3rd`, `4th`. */
function ordinal(n: number): string {
  return `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;
}

/** Sets a key of a bounded map: at {@link MAX_TRACKED} entries the oldest is dropped. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  if (map.size >= MAX_TRACKED) map.delete(map.keys().next().value!);
  map.set(key, value);
}

interface ErrorInfo {
  errorCode: string | undefined;
  field: string | undefined;
  message: string;
}

/** The error body's code, field and message. */
function errorOf(body: string): ErrorInfo | undefined {
  const parsed = jsonOf(body) as { errorCode?: unknown; message?: unknown; metadata?: { field?: unknown } } | undefined;
  if (!parsed) return undefined;
  return {
    errorCode: typeof parsed.errorCode === 'string' ? parsed.errorCode : undefined,
    field: typeof parsed.metadata?.field === 'string' ? parsed.metadata.field : undefined,
    message: typeof parsed.message === 'string' ? parsed.message : '',
  };
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
