import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
// The entries by the package's own name, as a user imports them: `tsc` (npm run typecheck, after the
// build) resolves them through package.json "exports" to the shipped .d.ts files, not to src/.
import type * as Root from 'crm-sandbox';
import type * as Browser from 'crm-sandbox/browser';
import type * as Msw from 'crm-sandbox/msw';
import type * as Server from 'crm-sandbox/server';
import type * as Testcontainers from 'crm-sandbox/testcontainers';
import type * as Testing from 'crm-sandbox/testing';
import type * as TestingVitest from 'crm-sandbox/testing/vitest';
import type { HttpHandler } from 'msw';
import type { GenericContainer, StartedTestContainer } from 'testcontainers';
import { describe, expectTypeOf, it } from 'vitest';

/** A client whose generic methods the type tests instantiate (never called). */
declare const unifiedClient: Testing.UnifiedClient;

/**
 * Type tests of every public entry: what a user's code may rely on at compile time. They run under
 * `tsc` (a wrong type fails `npm run typecheck`); at run time each is a no-op.
 */
describe('crm-sandbox (the Node entry) and crm-sandbox/browser', () => {
  it('createSandbox takes optional options and gives a Sandbox, the same in both builds', () => {
    expectTypeOf<typeof Root.createSandbox>().parameters.toEqualTypeOf<[options?: Root.SandboxOptions]>();
    expectTypeOf<typeof Root.createSandbox>().returns.toEqualTypeOf<Root.Sandbox>();
    expectTypeOf<typeof Browser.createSandbox>().returns.toEqualTypeOf<Browser.Sandbox>();
    expectTypeOf<Root.SandboxOptions>().toEqualTypeOf<Browser.SandboxOptions>();
  });

  it('options name their choices', () => {
    expectTypeOf<Root.SandboxOptions['clock']>().toEqualTypeOf<'real' | 'virtual' | undefined>();
    expectTypeOf<Root.SandboxOptions['webhookTimestamps']>().toEqualTypeOf<'clock' | 'real' | undefined>();
    expectTypeOf<Root.SandboxOptions['apiKeys']>().toMatchTypeOf<readonly string[] | undefined>();
    expectTypeOf<Root.SandboxOptions['seed']>().toEqualTypeOf<number | undefined>();
  });

  it('the sandbox answers Fetch API requests and plain request records', () => {
    expectTypeOf<Root.Sandbox['fetch']>().parameters.toEqualTypeOf<[input: Request | string | URL, init?: RequestInit]>();
    expectTypeOf<Root.Sandbox['fetch']>().returns.toEqualTypeOf<Promise<Response>>();
    expectTypeOf<Root.Sandbox['handle']>().parameters.toEqualTypeOf<[request: Root.SandboxRequest]>();
    expectTypeOf<Root.Sandbox['handle']>().returns.toEqualTypeOf<Promise<Root.SandboxResponse>>();
  });

  it('drives connections, records, time and deliveries from code', () => {
    expectTypeOf<Root.Sandbox['connect']>().returns.toEqualTypeOf<Root.ExchangeResult>();
    expectTypeOf<Root.Sandbox['setStatus']>().parameters.toEqualTypeOf<[connectionId: string, status: Root.ConnectionStatus]>();
    expectTypeOf<Root.Sandbox['createRecord']>().returns.toEqualTypeOf<Root.CrmRecord>();
    expectTypeOf<Root.Sandbox['createWebhook']>().returns.toEqualTypeOf<Root.Webhook>();
    expectTypeOf<Root.Sandbox['advance']>().parameters.toEqualTypeOf<[duration: Root.Duration]>();
    expectTypeOf<Root.Sandbox['advance']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<Root.Sandbox['deliveries']>().returns.toEqualTypeOf<Root.Delivery[]>();
    expectTypeOf<Root.Sandbox['redeliver']>().returns.toEqualTypeOf<Promise<Root.Delivery>>();
    expectTypeOf<Root.Sandbox['emittedEvents']>().returns.toEqualTypeOf<Root.ServiceEvent[]>();
    expectTypeOf<Root.Sandbox['runScenario']>().returns.toEqualTypeOf<Promise<Root.ScenarioReport>>();
    expectTypeOf<Root.Delivery['state']>().toEqualTypeOf<Root.DeliveryState>();
  });

  it('snapshots are typed by scope: the whole server, or one tenant', () => {
    expectTypeOf<Root.Sandbox['snapshot']>().toBeCallableWith();
    expectTypeOf<ReturnType<Root.Sandbox['snapshot']>>().toMatchTypeOf<Root.SandboxSnapshot>();
    expectTypeOf<Root.ServerSnapshot>().toMatchTypeOf<Root.SandboxSnapshot>();
    expectTypeOf<Root.TenantSnapshot>().toMatchTypeOf<Root.SandboxSnapshot>();
    expectTypeOf<Root.Sandbox['restore']>().parameters.toEqualTypeOf<[snapshot: unknown, options?: { apiKey?: string }]>();
  });

  it('events are a union narrowed by type', () => {
    expectTypeOf<Root.ServiceEvent>().toEqualTypeOf<Root.ObjectChangeEvent | Root.StatusChangeEvent>();
    expectTypeOf<Root.ObjectChangeEvent['type']>().toEqualTypeOf<'OBJECT_CHANGE'>();
    expectTypeOf<Root.StatusChangeEvent['data']['status']>().toEqualTypeOf<Root.ConnectionStatus>();
    expectTypeOf<Root.CrmObjectType>().toEqualTypeOf<(typeof Root.CRM_OBJECT_TYPES)[number]>();
    expectTypeOf<Root.IntegrationId>().toEqualTypeOf<(typeof Root.INTEGRATION_IDS)[number]>();
  });

  it('verifySignature checks a delivery as a receiver gets it', () => {
    expectTypeOf<typeof Root.verifySignature>().parameters.toEqualTypeOf<[input: Root.VerifySignatureInput]>();
    expectTypeOf<typeof Root.verifySignature>().returns.toEqualTypeOf<boolean>();
    expectTypeOf<Root.VerifySignatureInput['body']>().toEqualTypeOf<string | Uint8Array>();
    expectTypeOf<typeof Root.signPayload>().returns.toEqualTypeOf<string>();
  });

  it('errors carry the documented body', () => {
    expectTypeOf<Root.ApiError>().toMatchTypeOf<Error>();
    expectTypeOf<Root.ErrorBody>().toMatchTypeOf<{ message: string }>();
    expectTypeOf<typeof Root.parseDuration>().returns.toEqualTypeOf<number>();
  });
});

describe('crm-sandbox/msw', () => {
  it('createHandlers turns a sandbox into MSW handlers; onUnhandled gives setupServer options', () => {
    expectTypeOf<typeof Msw.createHandlers>().parameters.toEqualTypeOf<[sandbox: Root.Sandbox, options?: Msw.CreateHandlersOptions]>();
    expectTypeOf<typeof Msw.createHandlers>().returns.toEqualTypeOf<HttpHandler[]>();
    expectTypeOf<ReturnType<typeof Msw.onUnhandled>>().toMatchTypeOf<{ onUnhandledRequest: 'bypass' | 'warn' | 'error' }>();
    expectTypeOf<typeof Msw.DEFAULT_BASE_URL>().toEqualTypeOf<'http://127.0.0.1:4010'>();
  });
});

describe('crm-sandbox/server', () => {
  it('starts a dev server, or gives a node:http listener, or an express-compatible app', () => {
    expectTypeOf<typeof Server.startDevServer>().returns.toEqualTypeOf<Promise<Server.DevServer>>();
    expectTypeOf<Server.DevServer['url']>().toEqualTypeOf<string>();
    expectTypeOf<Server.DevServer['close']>().returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf<typeof Server.createRequestListener>().returns.toEqualTypeOf<RequestListener>();
    expectTypeOf<Server.SandboxApp>().toBeCallableWith({} as IncomingMessage, {} as ServerResponse);
  });
});

describe('crm-sandbox/testing and crm-sandbox/testing/vitest', () => {
  it('createTestSandbox starts a sandbox for a suite; links connections and waits for events', () => {
    expectTypeOf<typeof Testing.createTestSandbox>().returns.toEqualTypeOf<Testing.TestSandbox>();
    expectTypeOf<Testing.TestSandbox['start']>().returns.toEqualTypeOf<Promise<Testing.TestSandbox>>();
    expectTypeOf<Testing.TestSandbox['linkConnection']>().returns.toEqualTypeOf<Promise<Root.ExchangeResult>>();
    expectTypeOf<Testing.TestSandbox['waitForEvent']>().returns.toEqualTypeOf<Promise<Testing.CapturedEvent>>();
    expectTypeOf<Testing.TestSandbox['sandbox']>().toEqualTypeOf<Root.Sandbox>();
    expectTypeOf<Testing.TestSandboxOptions['transport']>().toEqualTypeOf<'msw' | 'server' | undefined>();
  });

  it("reads and writes a connection's unified records, typed by object", () => {
    expectTypeOf<Testing.TestSandbox['unified']>().returns.toEqualTypeOf<Testing.UnifiedClient>();
    expectTypeOf<typeof Testing.unified>().parameters.toEqualTypeOf<[sandbox: Root.Sandbox, connectionId: string]>();
    expectTypeOf<Testing.UnifiedPage<'Contact'>['contacts']>().toEqualTypeOf<Root.Contact[]>();
    expectTypeOf<Testing.UnifiedPage<'EventAttendee'>['eventAttendees']>().toEqualTypeOf<Root.EventAttendee[]>();
    expectTypeOf<Testing.UnifiedPage<'Deal'>['nextPageCursor']>().toEqualTypeOf<string | null>();
    expectTypeOf<Awaited<ReturnType<typeof unifiedClient.get<'Deal'>>>>().toEqualTypeOf<Root.Deal>();
    expectTypeOf<Awaited<ReturnType<typeof unifiedClient.all<'Email'>>>>().toEqualTypeOf<Root.Email[]>();
    expectTypeOf<Awaited<ReturnType<Testing.UnifiedClient['create']>>>().toEqualTypeOf<{ id: string }>();
    // Users are read only: no create or update.
    expectTypeOf<Parameters<Testing.UnifiedClient['create']>[0]>().toEqualTypeOf<Exclude<Root.CrmObjectType, 'User'>>();
  });

  it('useSandbox gives the same test sandbox, run by vitest hooks', () => {
    expectTypeOf<typeof TestingVitest.useSandbox>().returns.toEqualTypeOf<Testing.TestSandbox>();
    expectTypeOf<typeof TestingVitest.createTestSandbox>().toEqualTypeOf<typeof Testing.createTestSandbox>();
  });
});

describe('crm-sandbox/testcontainers', () => {
  it('is a GenericContainer of the image given, whose start() gives the started sandbox with its URL, key and calls', () => {
    expectTypeOf<Testcontainers.CrmSandboxContainer>().toMatchTypeOf<GenericContainer>();
    expectTypeOf<typeof Testcontainers.CrmSandboxContainer>().constructorParameters.toEqualTypeOf<[image: string]>();
    expectTypeOf<Testcontainers.CrmSandboxContainer['withApiKey']>().returns.toEqualTypeOf<Testcontainers.CrmSandboxContainer>();
    expectTypeOf<Testcontainers.CrmSandboxContainer['withStateFile']>().parameters.toEqualTypeOf<[path: string | null]>();
    expectTypeOf<Testcontainers.CrmSandboxContainer['start']>().returns.toEqualTypeOf<Promise<Testcontainers.StartedCrmSandboxContainer>>();
    expectTypeOf<Testcontainers.StartedCrmSandboxContainer>().toMatchTypeOf<StartedTestContainer>();
    expectTypeOf<Testcontainers.StartedCrmSandboxContainer['getBaseUrl']>().returns.toEqualTypeOf<string>();
    expectTypeOf<Awaited<ReturnType<Testcontainers.StartedCrmSandboxContainer['linkConnection']>>['accessToken']>().toEqualTypeOf<string>();
    expectTypeOf<Testcontainers.LinkConnectionOptions['status']>().toEqualTypeOf<'NEW_CONNECTION' | 'INITIAL_SYNCED' | 'READY' | undefined>();
  });
});
