import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/index.js';
import { ApiError, SandboxConfigError } from '../src/shared/errors.js';
import { createTestSandbox } from '../src/testing/index.js';
import { callSandbox } from './helpers/sandbox-call.js';

/**
 * The code API refuses what the control API refuses, with the same error: each bad value a
 * hurried user types goes to an entry point of the code API, and, where the control API has the
 * same operation, the same value goes to its route; the message must be the route's, word for
 * word. Never a TypeError from inside, never an empty answer for an unknown id.
 */

let sandbox: Sandbox;
let connectionId: string;
let accessToken: string;
beforeEach(() => {
  sandbox = createSandbox({ clock: 'virtual', apiKeys: ['a'] });
  ({ connectionId, accessToken } = sandbox.connect());
});
afterEach(() => sandbox.close());

const id = () => connectionId;
type Call = (sandbox: Sandbox) => unknown;
/** The same bad value as a control API request: method, path, body. */
type Route = [method: string, path: () => string, body?: unknown];

const AS_THE_CONTROL_API: Array<[name: string, call: Call, route: Route, status: number]> = [
  [
    'connect() an integration misspelt',
    (s) => s.connect({ integrationId: 'salesfroce' as 'salesforce' }),
    ['POST', () => '/sandbox/public-token', { integrationId: 'salesfroce' }],
    400,
  ],
  [
    'connect() a number as nativeOrgId',
    (s) => s.connect({ nativeOrgId: 42 as unknown as string }),
    ['POST', () => '/sandbox/public-token', { nativeOrgId: 42 }],
    400,
  ],
  ['connect() an empty nativeOrgId', (s) => s.connect({ nativeOrgId: '' }), ['POST', () => '/sandbox/public-token', { nativeOrgId: '' }], 400],
  [
    'setStatus() an unknown status',
    (s) => s.setStatus(id(), 'LIVE' as 'READY'),
    ['POST', () => `/sandbox/connections/${id()}/status`, { status: 'LIVE' }],
    400,
  ],
  ['setStatus() an unknown connection', (s) => s.setStatus('nope', 'READY'), ['POST', () => '/sandbox/connections/nope/status', { status: 'READY' }], 404],
  [
    'createRecord() an unknown object type',
    (s) => s.createRecord(id(), 'Widget' as 'Deal', {}),
    ['POST', () => `/sandbox/connections/${id()}/records/Widget`, {}],
    400,
  ],
  [
    'createRecord() a field of the wrong type',
    (s) => s.createRecord(id(), 'Deal', { amount: 'lots' }),
    ['POST', () => `/sandbox/connections/${id()}/records/Deal`, { amount: 'lots' }],
    400,
  ],
  [
    'createRecord() an unknown field',
    (s) => s.createRecord(id(), 'Contact', { colour: 'red' }),
    ['POST', () => `/sandbox/connections/${id()}/records/Contact`, { colour: 'red' }],
    400,
  ],
  ['getRecord() an unknown id', (s) => s.getRecord(id(), 'Contact', 'nope'), ['GET', () => `/sandbox/connections/${id()}/records/Contact/nope`], 404],
  ['deliveries() an unknown connection', (s) => s.deliveries('nope'), ['GET', () => '/sandbox/connections/nope/deliveries'], 404],
  ['setChaos() a chance over 1', (s) => s.setChaos(id(), { duplicate: 2 }), ['PUT', () => `/sandbox/connections/${id()}/chaos`, { duplicate: 2 }], 400],
  [
    'setChaos() a delay without its unit',
    (s) => s.setChaos(id(), { delay: '500' }),
    ['PUT', () => `/sandbox/connections/${id()}/chaos`, { delay: '500' }],
    400,
  ],
  [
    'setChaos() an unknown setting',
    (s) => s.setChaos(id(), { duplicates: 0.5 } as never),
    ['PUT', () => `/sandbox/connections/${id()}/chaos`, { duplicates: 0.5 }],
    400,
  ],
  ['chaos() an unknown connection', (s) => s.chaos('nope'), ['GET', () => '/sandbox/connections/nope/chaos'], 404],
  ['setFaults() an error rate over 1', (s) => s.setFaults({ errorRate: 2 }, { apiKey: 'a' }), ['PUT', () => '/sandbox/faults', { errorRate: 2 }], 400],
  [
    'setFaults() a latency without its unit',
    (s) => s.setFaults({ latency: '200' }, { apiKey: 'a' }),
    ['PUT', () => '/sandbox/faults', { latency: '200' }],
    400,
  ],
  [
    'setFaults() a latency as a bare number',
    (s) => s.setFaults({ latency: 200 as unknown as string }, { apiKey: 'a' }),
    ['PUT', () => '/sandbox/faults', { latency: 200 }],
    400,
  ],
  [
    'createWebhook() no URL',
    (s) => s.createWebhook(id(), 'notaurl'),
    ['POST', () => '/connection/webhook', () => ({ accessToken, webhook: { webhookUrl: 'notaurl' } })],
    400,
  ],
  [
    'setDownstreamFaults() an unknown kind',
    (s) => s.setDownstreamFaults(id(), [{ kind: 'outage' as 'slow' }]),
    ['PUT', () => `/sandbox/connections/${id()}/downstream-faults`, { faults: [{ kind: 'outage' }] }],
    400,
  ],
  ['downstreamFaults() an unknown connection', (s) => s.downstreamFaults('nope'), ['GET', () => '/sandbox/connections/nope/downstream-faults'], 404],
  ['requests() a status that is no status', (s) => s.requests({ status: 'x' as unknown as number }), ['GET', () => '/sandbox/requests?status=x'], 400],
  ['requests() a time that is no time', (s) => s.requests({ since: 'yesterday' }), ['GET', () => '/sandbox/requests?since=yesterday'], 400],
  ['requests() a limit of 0', (s) => s.requests({ limit: 0 }), ['GET', () => '/sandbox/requests?limit=0'], 400],
  ['redeliver() an unknown event', (s) => s.redeliver('nope'), ['POST', () => '/sandbox/deliveries/nope/redeliver'], 404],
];

/** Entry points with no route of their own: the error class and message they give. */
const CODE_ONLY: Array<[name: string, call: Call, error: typeof ApiError | typeof SandboxConfigError, message: string]> = [
  [
    'createSandbox() a misspelt option',
    () => createSandbox({ apiKey: 'k' } as never),
    SandboxConfigError,
    'createSandbox(): apiKey is not a known option; did you mean apiKeys?',
  ],
  ['createSandbox() no object', () => createSandbox(null as never), SandboxConfigError, 'createSandbox() takes an object of options, got null'],
  [
    'createSandbox() one key as text',
    () => createSandbox({ apiKeys: 'k' as never }),
    SandboxConfigError,
    'apiKeys must be a list of API tokens (apiKeys: ["k"]), got string',
  ],
  [
    'createSandbox() a delay without its unit',
    () => createSandbox({ readyDelay: '10' }),
    SandboxConfigError,
    'readyDelay needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"',
  ],
  [
    'createSandbox() a delay as a bare number',
    () => createSandbox({ readyDelay: 10 as never }),
    SandboxConfigError,
    'readyDelay needs a unit: 10ms, 10s, 10m, 10h or 10d; got 10',
  ],
  [
    'createSandbox() a misspelt data set',
    () => createSandbox({ dataset: { crm: { Contacts: 3 } } as never }),
    SandboxConfigError,
    'dataset.crm: Contacts is not a known option; did you mean Contact?',
  ],
  [
    'createSandbox() a misspelt journal option',
    () => createSandbox({ journal: { limt: 3 } as never }),
    SandboxConfigError,
    'journal: limt is not a known option; did you mean limit?',
  ],
  [
    'createSandbox() fixtures as text',
    () => createSandbox({ fixtures: './fixtures' as never }),
    SandboxConfigError,
    'fixtures must be false (none) or a list of fixture directories, files or objects, got string',
  ],
  ['createSandbox() onError no function', () => createSandbox({ onError: 'log' as never }), SandboxConfigError, 'onError must be a function, got string'],
  [
    'connect() a misspelt option',
    (s) => s.connect({ integration: 'hubspot' } as never),
    ApiError,
    'connect(): integration is not a known option; did you mean integrationId?',
  ],
  ['connect() no object', (s) => s.connect(null as never), ApiError, 'connect() takes an object of options, got null'],
  ['connect() an unknown API key', (s) => s.connect({ apiKey: 'nope' }), ApiError, 'invalid service-api-token'],
  ['advance() a bare number as text', (s) => s.advance('10'), SandboxConfigError, 'advance() needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"'],
  ['advance() a bare number', (s) => s.advance(10 as never), SandboxConfigError, 'advance() needs a unit: 10ms, 10s, 10m, 10h or 10d; got 10'],
  [
    'advance() nothing',
    (s) => s.advance(undefined as never),
    SandboxConfigError,
    'advance() must be a duration such as 500ms, 3s, 2m, 1h or 1d, got undefined',
  ],
  ['emittedEvents() an unknown connection', (s) => s.emittedEvents('nope'), ApiError, 'Connection "nope" not found'],
  ['connections() an unknown API key', (s) => s.connections('nope'), ApiError, 'invalid service-api-token'],
  ['requests() a misspelt filter', (s) => s.requests({ methd: 'GET' } as never), ApiError, 'requests(): methd is not a known option; did you mean method?'],
  ['requests() an unknown API key', (s) => s.requests({ apiKey: 'nope' }), ApiError, 'invalid service-api-token'],
  ['clearRequests() an unknown API key', (s) => s.clearRequests('nope'), ApiError, 'invalid service-api-token'],
  ['reset() an unknown API key', (s) => s.reset({ apiKey: 'nope' }), ApiError, 'invalid service-api-token'],
  ['reset() a misspelt option', (s) => s.reset({ apikey: 'a' } as never), ApiError, 'reset(): apikey is not a known option; did you mean apiKey?'],
  ['snapshot() a misspelt option', (s) => s.snapshot({ tenant: 'a' } as never), ApiError, 'snapshot(): tenant is not a known option; the options are apiKey'],
  ['setFaults() an unknown API key', (s) => s.setFaults([], { apiKey: 'nope' }), ApiError, 'invalid service-api-token'],
  ['onEvent() no function', (s) => s.onEvent('log' as never), ApiError, 'onEvent() takes a function, got string'],
  [
    'startClientCheck() a misspelt option',
    (s) => s.startClientCheck({ pageSze: 3 } as never),
    SandboxConfigError,
    'startClientCheck(): pageSze is not a known option; did you mean pageSize?',
  ],
  [
    'startClientCheck() a delay without its unit',
    (s) => s.startClientCheck({ deleteConnectionAfter: '5' }),
    SandboxConfigError,
    'deleteConnectionAfter needs a unit: 5ms, 5s, 5m, 5h or 5d; got "5"',
  ],
  [
    'runScenario() a misspelt option',
    (s) => s.runScenario('deal-won', { webhookURL: 'http://x.test/' } as never),
    ApiError,
    'runScenario(): webhookURL is not a known option; did you mean webhookUrl?',
  ],
  [
    'runScenario() a bare number of milliseconds',
    (s) => s.runScenario({ steps: [{ advance: 10 as never }] }),
    Error,
    'scenario (code): steps[0] (advance): its value needs a unit: 10ms, 10s, 10m, 10h or 10d; got 10',
  ],
  [
    'runScenario() a speed of 0',
    (s) => s.runScenario('deal-won', { speed: 0 }),
    ApiError,
    "speed must be 'instant' or how many times faster than real time (a number above 0), got 0",
  ],
];

/** What a call throws, whether it throws or rejects. */
async function thrown(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('it did not throw');
}

describe('the code API validates like the control API', () => {
  it.each(AS_THE_CONTROL_API)('%s: the same error as the route', async (_name, call, [method, path, body], status) => {
    const error = await thrown(() => call(sandbox));
    expect(error).toBeInstanceOf(ApiError);
    const route = await callSandbox(sandbox, method, path(), { body: typeof body === 'function' ? body() : body });
    expect(route.status).toBe(status);
    expect({ status: (error as ApiError).status, body: (error as ApiError).toBody() }).toEqual({ status, body: route.body });
  });

  it.each(CODE_ONLY)('%s', async (_name, call, type, message) => {
    const error = await thrown(() => call(sandbox));
    expect(error).toBeInstanceOf(type);
    expect(error).not.toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(message);
  });

  it('quotes the value an enum refused and names the one likely meant; a mistyped field or object type names its nearest too', async () => {
    expect(() => sandbox.connect({ integrationId: 'salesfroce' as 'salesforce' })).toThrow(
      'integrationId must be one of "salesforce", "hubspot", "pipedrive", "zoho", "outreach", "salesloft", "apollo", got "salesfroce"; did you mean "salesforce"?',
    );
    // Far from every value: quoted, no guess.
    expect(() => sandbox.connect({ integrationId: 'sap' as 'salesforce' })).toThrow(/, got "sap"$/);
    const { connectionId } = sandbox.connect({ integrationId: 'salesforce' });
    expect(() => sandbox.createRecord(connectionId, 'Contact', { fristName: 'Ada' } as never)).toThrow(
      'fristName is not a known field; did you mean firstName?',
    );
    expect(() => sandbox.createRecord(connectionId, 'Contcat' as 'Contact', {})).toThrow(/; got "Contcat"; did you mean Contact\?$/);
    // Over HTTP, the same words.
    const route = await callSandbox(sandbox, 'POST', '/sandbox/public-token', { body: { integrationId: 'hubspt' } });
    expect(route.body).toMatchObject({ errorCode: 'INVALID_FIELD_VALUE', metadata: { field: 'integrationId' } });
    expect(route.body.message).toMatch(/, got "hubspt"; did you mean "hubspot"\?$/);
  });

  it('takes what it took before: good options, ids and durations with their unit', async () => {
    const other = createSandbox({ clock: 'virtual', apiKeys: ['a', 'b'], readyDelay: '10s', retrySchedule: ['1s', '0'], journal: { limit: 5 } });
    const { connectionId: linked } = other.connect({ apiKey: 'b', integrationId: 'salesforce', nativeOrgId: '00D000000000001' });
    await other.advance('10s');
    expect(other.connections('b').map((connection) => connection.status)).toEqual(['READY']);
    expect(other.deliveries(linked).map((delivery) => delivery.state)).toEqual(['pending', 'pending', 'pending']);
    expect(other.emittedEvents(linked).map((event) => event.type)).toEqual(['STATUS_CHANGE', 'STATUS_CHANGE', 'STATUS_CHANGE']);
    expect(other.requests({ apiKey: 'b', limit: 1 })).toEqual([]);
    other.reset({ apiKey: 'b' });
    other.close();
  });

  it('crm-sandbox/testing checks its own options the same way', async () => {
    expect(() => createTestSandbox({ transprt: 'server' } as never)).toThrow(
      new SandboxConfigError('createTestSandbox(): transprt is not a known option; did you mean transport?'),
    );
    expect(() => createTestSandbox({ transport: 'http' as never })).toThrow(new SandboxConfigError(`transport must be 'msw' or 'server', got "http"`));
    const crm = createTestSandbox({ transport: 'server', apiKeys: ['a'] });
    await crm.start();
    try {
      await expect(crm.linkConnection({ integrationId: 'salesfroce' as 'salesforce' })).rejects.toThrow(
        /^integrationId must be one of "salesforce", .*, got "salesfroce"; did you mean "salesforce"\?$/,
      );
      await expect(crm.linkConnection({ status: 'LIVE' as 'READY' })).rejects.toThrow(/^status must be one of "NEW_CONNECTION"/);
      await expect(crm.waitForEvent({ type: 'STATUS_CHANGE' }, { advance: '60' })).rejects.toThrow(
        'advance needs a unit: 60ms, 60s, 60m, 60h or 60d; got "60"',
      );
      await expect(crm.expectEvents([], { connection: 'x' } as never)).rejects.toThrow(
        'expectEvents(): connection is not a known option; did you mean connectionId?',
      );
    } finally {
      await crm.close();
    }
  });
});
