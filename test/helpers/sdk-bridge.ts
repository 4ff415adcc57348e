import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { onUnhandled } from '../../src/adapters/msw.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/index.js';
import { INTEGRATIONS, type IntegrationId } from '../../src/model/integrations.js';

/**
 * A vendor's official SDK driven unchanged against the sandbox, as a team's own bridge would:
 * MSW intercepts the native hosts the SDK calls (node:http, https and fetch alike, so axios- and
 * fetch-based SDKs both) and turns each request into a `POST /crm/passthrough` call of a linked,
 * READY connection; the passthrough's answer `{ statusCode, headers, body }` becomes the native
 * response. Everything stays in process: any request to a host not bridged fails (MSW's
 * `onUnhandled('error')`: msw 2's `onUnhandledRequest`, msw 3's `onUnhandledFrame`).
 *
 * How a native request becomes a passthrough call:
 * - `path`: the URL's path, less the path of the integration's API base URL when it starts with it
 *   (`https://www.zohoapis.com/crm/v3/Leads` → `Leads`; HubSpot, Pipedrive and Salesforce have
 *   none: `https://api.hubapi.com/crm/v3/objects/contacts` → `crm/v3/objects/contacts`,
 *   `https://acme.my.salesforce.com/services/data/v59.0/query` → `services/data/v59.0/query`,
 *   `https://api.pipedrive.com/api/v2/deals` → `api/v2/deals`). A host other than the base URL's
 *   (e.g. Pipedrive's OAuth `api_domain`, `https://acme.pipedrive.com/api/v1/…`) keeps its whole
 *   path. `mapPath` replaces this rule where a test needs another.
 * - `query`: the URL's search parameters; a repeated key becomes an array, in order
 *   (`properties=email&properties=firstname` → `{ properties: ['email', 'firstname'] }`).
 *   `api_token` (Pipedrive's key-in-the-query) is a credential, not a parameter: it is removed.
 * - `accessToken`: the SDK's credential — `Authorization: Bearer …`, else the `api_token`
 *   parameter — else the connection's. So an SDK configured with `bridge.accessToken` calls
 *   as that connection, and one with another token gets the service's 401.
 * - `body`: the request's JSON, whatever JSON value it is; absent when the request has none.
 *   A body that is not JSON cannot be carried: the bridge answers 415 and records no call.
 * - The answer: the passthrough's `statusCode`, `headers` and `body` (JSON; none when `null`).
 *   If the service itself refuses the call (not 200: a bad passthrough request, a bad token),
 *   the SDK gets the service's status and error body as they are, so the test sees them.
 */

export interface SdkBridgeOptions {
  integrationId: IntegrationId;
  /** Origins to intercept (`https://api.hubapi.com`). Default: the origin of the connection's API base URL. */
  hosts?: string[];
  /** The passthrough path of a native URL, where the default rule above does not fit. */
  mapPath?: (url: URL, defaultPath: string) => string;
  /** Options of the sandbox; default a virtual clock, seed 11. */
  sandbox?: SandboxOptions;
}

/** One `POST /crm/passthrough` call the bridge made, and what the service answered. */
export interface BridgedCall {
  request: { accessToken: string; method: string; path: string; query?: Record<string, string | string[]>; body?: unknown };
  /** The service's HTTP status (200 unless it refused the passthrough call itself). */
  status: number;
  /** The service's answer: `{ statusCode, headers, url, body }` when `status` is 200, else its error body. */
  answer: any;
}

export interface SdkBridge {
  sandbox: Sandbox;
  connectionId: string;
  accessToken: string;
  /** The connection's API base URL as the service defines it (Salesforce: the instance URL). */
  baseUrl: string;
  /** Every passthrough call made, in order. */
  calls: BridgedCall[];
  /** Stops intercepting and closes the sandbox. */
  close(): Promise<void>;
}

export const BRIDGE_API_KEY = 'sdk-bridge-key';

/** Search parameters as the passthrough's `query`: a repeated key as an array of its values, in order. */
export function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

export async function startSdkBridge(options: SdkBridgeOptions): Promise<SdkBridge> {
  const sandbox = createSandbox({ seed: 11, clock: 'virtual', ...options.sandbox, apiKeys: [BRIDGE_API_KEY] });
  const { accessToken, connectionId } = sandbox.connect({ integrationId: options.integrationId });
  await sandbox.advance('10s');
  const status = sandbox.connections().find((connection) => connection.connectionId === connectionId)?.status;
  if (status !== 'READY') throw new Error(`sdk-bridge: the ${options.integrationId} connection is ${status}, not READY, after 10s`);
  const baseUrl = new URL(INTEGRATIONS[options.integrationId].apiBaseUrl(sandbox.parts.registry.find(connectionId)!.org));
  const basePath = baseUrl.pathname.replace(/\/$/, '');
  const calls: BridgedCall[] = [];

  const defaultPath = (url: URL) => {
    const own = url.origin === baseUrl.origin && basePath !== '' && url.pathname.startsWith(`${basePath}/`);
    return (own ? url.pathname.slice(basePath.length) : url.pathname).replace(/^\//, '');
  };

  const bridge = async ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    const text = await request.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      return HttpResponse.json(
        { message: `sdk-bridge: the passthrough carries JSON bodies only, got ${request.headers.get('content-type')}` },
        { status: 415 },
      );
    }
    const bearer = /^Bearer (.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    const apiToken = url.searchParams.get('api_token') ?? undefined;
    url.searchParams.delete('api_token');
    const path = options.mapPath ? options.mapPath(url, defaultPath(url)) : defaultPath(url);
    const query = queryOf(url.searchParams);
    const passthrough: BridgedCall['request'] = {
      accessToken: bearer ?? apiToken ?? accessToken,
      method: request.method,
      path,
      ...(Object.keys(query).length > 0 ? { query } : {}),
      ...(body === undefined ? {} : { body }),
    };
    const response = await sandbox.fetch('/crm/passthrough', {
      method: 'POST',
      headers: { 'service-api-token': BRIDGE_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(passthrough),
    });
    const answer = await response.json();
    calls.push({ request: passthrough, status: response.status, answer });
    if (response.status !== 200) return HttpResponse.json(answer, { status: response.status });
    const noBody = answer.body === null || answer.body === undefined;
    const headers = new Headers(answer.headers);
    if (!noBody && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return new HttpResponse(noBody ? null : JSON.stringify(answer.body), { status: answer.statusCode, headers });
  };

  const hosts = options.hosts ?? [baseUrl.origin];
  const server = setupServer(...hosts.map((host) => http.all(`${host.replace(/\/$/, '')}/*`, bridge)));
  server.listen(onUnhandled('error'));
  return {
    sandbox,
    connectionId,
    accessToken,
    baseUrl: baseUrl.href.replace(/\/$/, ''),
    calls,
    close: async () => {
      server.close();
      sandbox.close();
    },
  };
}
