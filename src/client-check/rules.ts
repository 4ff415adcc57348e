import { SandboxConfigError } from '../shared/errors.js';

/**
 * The conduct rules client-check judges a client by: what the service's interface asks of the
 * code that calls it. Each has an id (for `--rules`), a title, why the service needs it (the
 * docs/client-check.md says the same), what exercises it, and a fix hint for a failure.
 */
export const RULE_IDS = [
  'waits-while-syncing',
  'honours-retry-after',
  'backs-off-on-5xx',
  'pages-to-the-end',
  'cursor-stays-with-its-list',
  'limit-within-bounds',
  'drops-deleted-connections',
  'one-webhook-per-connection',
  'api-token-off-browsers',
  'exchanges-each-public-token-once',
  'passthrough-path-without-host',
] as const;

export type RuleId = (typeof RULE_IDS)[number];

/**
 * The thresholds the timing rules use, in milliseconds. A retry is the same request sent again:
 * the same method, path, query (in any order) and body.
 */
export const THRESHOLDS = {
  /** After a 409 CONNECTION_SYNCING, the same read waits at least this long (at most 4 polls a second). */
  syncRetryMs: 250,
  /** After a 5xx, the same request waits at least this long; after each further 5xx in a row, twice the wait before. */
  serverErrorRetryMs: 100,
  /** A retry this much before Retry-After has passed still counts as waiting it (timers and clocks are coarse). */
  retryAfterMarginMs: 50,
  /** Requests with an accessToken this soon after its first 401 were already in flight. */
  inFlightMs: 100,
} as const;

export interface RuleInfo {
  id: RuleId;
  /** One line: what a careful client does. */
  title: string;
  /** Why the service needs it. */
  why: string;
  /** What a fix looks like, shown with a failure. */
  hint: string;
  /** What one exercise of the rule is, singular and plural: `['answer 429', 'answers 429']`. */
  unit: readonly [string, string];
  /** Why nothing exercised it, and how to make a run that does. */
  unexercised: string;
}

export const RULES: Record<RuleId, RuleInfo> = {
  'waits-while-syncing': {
    id: 'waits-while-syncing',
    title: 'Waits while a new connection syncs',
    why: 'A new connection answers its data reads with 409 CONNECTION_SYNCING until its first sync is done (seconds to minutes in production). A client that retries at once turns every new customer into a request storm.',
    hint: `after a 409 CONNECTION_SYNCING, wait before reading again (at least ${THRESHOLDS.syncRetryMs} ms, better growing waits), or wait for the connection's STATUS_CHANGE INITIAL_SYNCED event before the first read`,
    unit: ['new connection', 'new connections'],
    unexercised: 'no connection was linked through POST /link/exchange, and no read was answered 409',
  },
  'honours-retry-after': {
    id: 'honours-retry-after',
    title: 'Honours Retry-After',
    why: 'A 429 says the API token sent too many requests, and its Retry-After header says for how many seconds to stop. A request sent again sooner is refused again and keeps the limit hit for everyone using that token.',
    hint: 'on a 429, read the Retry-After header (seconds) and send the request again only after that long',
    unit: ['answer 429', 'answers 429'],
    unexercised: 'no request was answered 429: the run made too few reads for one to meet it (see --seed), or --no-faults was given',
  },
  'backs-off-on-5xx': {
    id: 'backs-off-on-5xx',
    title: 'Backs off on 5xx',
    why: 'A 5xx means the service is struggling for a while. Retrying at once makes it worse and burns the retry budget in milliseconds; a pause that grows between attempts lets it recover.',
    hint: `on a 5xx, wait before retrying (at least ${THRESHOLDS.serverErrorRetryMs} ms), doubling the wait after each further 5xx, and give up after a few attempts`,
    unit: ['answer 5xx', 'answers 5xx'],
    unexercised: 'no request was answered with a 5xx: the run made too few reads for one to meet it (see --seed), or --no-faults was given',
  },
  'pages-to-the-end': {
    id: 'pages-to-the-end',
    title: 'Pages to the end',
    why: 'The lists and searches come in pages: a page whose nextPageCursor is a cursor has more after it, and the last page is the one whose nextPageCursor is null. A client that stops early, or after a page shorter than the limit it asked for, silently misses records.',
    hint: 'keep requesting with cursor=<nextPageCursor> (a search: the same filters, the cursor in its body or query) until a page answers nextPageCursor: null; a short page is not the last one (the service may answer fewer records than limit)',
    unit: ['list walk that needed paging', 'list walks that needed paging'],
    unexercised: 'no list or search was read past a page with a nextPageCursor',
  },
  'cursor-stays-with-its-list': {
    id: 'cursor-stays-with-its-list',
    title: 'Sends each cursor back unchanged, to the list and connection that issued it',
    why: "A cursor is opaque and belongs to one list of one connection: sent with another connection's accessToken, to the other list, or changed, it is refused (400) — in production it could also read the wrong customer's data.",
    hint: 'keep each nextPageCursor with the connection and list it came from, and pass it back exactly as received',
    unit: ['request with a cursor', 'requests with a cursor'],
    unexercised: 'no request sent a cursor',
  },
  'limit-within-bounds': {
    id: 'limit-within-bounds',
    title: 'Keeps limit within bounds',
    why: 'limit is a whole number of records per page, from 1 to 200 here (the service documents no default or maximum); anything else is a 400.',
    hint: 'send limit as an integer from 1 to 200, or leave it out',
    unit: ['list or search request', 'list or search requests'],
    unexercised: 'no list or search was read',
  },
  'drops-deleted-connections': {
    id: 'drops-deleted-connections',
    title: 'Stops using the accessToken of a deleted connection after its 401',
    why: 'When a customer disconnects, the connection and its accessToken are gone for good: every call with it is a 401 from then on. A client that keeps calling never heals and floods the service with doomed requests.',
    hint: 'on a 401 INVALID_ACCESS_TOKEN, mark the connection as gone (stop its jobs, ask the customer to link again) and never send that accessToken again',
    unit: ['accessToken answered 401', 'accessTokens answered 401'],
    unexercised: 'no request used the accessToken of a deleted connection: add --delete-connection 5s so one is deleted mid-run',
  },
  'one-webhook-per-connection': {
    id: 'one-webhook-per-connection',
    title: 'Creates the webhook once per connection and keeps its webhookId',
    why: 'A connection has at most one webhook; creating another is refused (400 WEBHOOK_ALREADY_EXISTS). Its webhookId comes only from the create answer and is needed to read, change or delete it, so it must be stored.',
    hint: 'create the webhook once, right after the exchange, store the webhookId it answers with the connection, and use that one (a change is delete then create)',
    unit: ['webhook call', 'webhook calls'],
    unexercised: 'no request went to /connection/webhook',
  },
  'api-token-off-browsers': {
    id: 'api-token-off-browsers',
    title: 'Keeps the API token off browsers',
    why: 'The service-api-token acts for every connection of the account. Sent from a browser (a request with an Origin header), it is readable by anyone who opens the page.',
    hint: "call the service from your backend only; the browser talks to your backend, which adds the service-api-token (the link widget is the one part that runs in the end user's browser, and it needs no API token)",
    unit: ['request to the service', 'requests to the service'],
    unexercised: 'no request reached the service',
  },
  'exchanges-each-public-token-once': {
    id: 'exchanges-each-public-token-once',
    title: 'Exchanges each public token once, promptly',
    why: 'A public token is short-lived and single-use: a second exchange of the same token, or one after it expired, is refused (400). A client that retries a successful exchange, or exchanges late, fails to link the customer.',
    hint: 'exchange the public token as soon as the link widget gives it, once; keep the accessToken the exchange answers',
    unit: ['exchange', 'exchanges'],
    unexercised: 'no POST /link/exchange was made',
  },
  'passthrough-path-without-host': {
    id: 'passthrough-path-without-host',
    title: 'Gives the passthrough a path, not a URL',
    why: 'The service supplies the downstream system\'s domain; the passthrough takes only the path that follows it, without a scheme, host or "..". A URL there is refused (400).',
    hint: 'send path relative to the downstream API, like crm/v3/objects/contacts, with its query in query',
    unit: ['passthrough request', 'passthrough requests'],
    unexercised: 'no POST /crm/passthrough was made',
  },
};

/**
 * A list of rule ids (comma-separated text, or items), checked: an unknown id is a
 * SandboxConfigError naming `name` and listing the known ones.
 */
export function parseRuleList(value: string | readonly string[], name: string): RuleId[] {
  const items = (typeof value === 'string' ? value.split(',') : value.flatMap((item) => item.split(','))).map((item) => item.trim());
  if (items.length === 0 || items.some((item) => item === ''))
    throw new SandboxConfigError(`${name} must list rule ids separated by commas, got ${JSON.stringify(String(value))}`);
  const unknown = items.filter((item) => !(RULE_IDS as readonly string[]).includes(item));
  if (unknown.length > 0) {
    throw new SandboxConfigError(
      `${name}: unknown rule${unknown.length > 1 ? 's' : ''} ${unknown.map((item) => JSON.stringify(item)).join(', ')}; the rules are ${RULE_IDS.join(', ')}`,
    );
  }
  return RULE_IDS.filter((id) => items.includes(id));
}
