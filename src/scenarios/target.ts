import type { Clock } from '../clock/clock.js';
import type { ConnectionStatus } from '../model/connection.js';
import type { CrmObjectType, CrmRecord } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';
import type { Platform } from '../model/platform.js';
import type { SandboxRequest, SandboxResponse } from '../model/request.js';
import type { ChaosSettings } from '../webhooks/chaos.js';
import type { Delivery } from '../webhooks/delivery.js';

/**
 * What a scenario needs of a sandbox in this process (the core's `Sandbox` has it): said here so
 * that the scenario engine sits below the core, which loads it.
 */
export interface ScenarioSandbox {
  readonly options: { readonly apiKeys: readonly string[]; readonly seed: number; readonly webhookCa: string | undefined };
  /** Makes the transport of receiver probes, as the sandbox's deliveries have theirs. */
  readonly platform: Pick<Platform, 'createTransport'>;
  readonly parts: {
    readonly clock: Clock;
    readonly dispatcher: {
      unfinished(connectionId: string): string[];
      get(eventId: string): Delivery | undefined;
      list(connectionId?: string): Delivery[];
      listInPieces(connectionId?: string): Generator<void, Delivery[], void>;
      eventJson(eventId: string): string | undefined;
    };
  };
  handle(request: SandboxRequest): Promise<SandboxResponse>;
  deliveries(connectionId?: string): Delivery[];
  settle(): Promise<void>;
}

/** A connection a run acts on, with what a receiver needs to verify its events. */
export interface RunConnection {
  connectionId: string;
  accessToken: string;
  integrationId: IntegrationId;
  nativeOrgId: string;
  /** The webhook URL its events go to, once it has one. */
  webhookUrl: string | null;
}

export interface PassthroughCall {
  method: string;
  path: string;
  body?: Record<string, unknown> | unknown[] | undefined;
  query?: Record<string, string | number | boolean | Array<string | number | boolean>> | undefined;
}

export interface PassthroughAnswer {
  statusCode: number;
  headers: Record<string, string>;
  url: string;
  body: unknown;
}

/**
 * What a scenario acts through: the same operations as the control API, on a sandbox in this
 * process or on a running dev server. Failures throw an `ApiError` (or the server's error body
 * as one), which the runner reports against the step.
 */
export interface ScenarioTarget {
  /** `in-process` runs on a sandbox object; `server` over HTTP. */
  readonly kind: 'in-process' | 'server';
  /** Whether sandbox time passes in real time here (a real clock, a paced virtual one, a server), rather than jumping. */
  readonly realTime: boolean;
  link(request: { integrationId?: IntegrationId | undefined; nativeOrgId?: string | undefined; accessToken?: string | undefined }): Promise<RunConnection>;
  /** An existing connection of the API token (one the user's app linked itself). */
  adopt(connectionId: string): Promise<RunConnection>;
  createWebhook(connection: RunConnection, url: string): Promise<void>;
  deleteWebhook(connection: RunConnection): Promise<void>;
  setStatus(connection: RunConnection, status: ConnectionStatus): Promise<void>;
  create(connection: RunConnection, type: CrmObjectType, fields: Record<string, unknown>): Promise<CrmRecord>;
  update(connection: RunConnection, type: CrmObjectType, id: string, fields: Record<string, unknown>): Promise<CrmRecord>;
  remove(connection: RunConnection, type: CrmObjectType, id: string): Promise<void>;
  passthrough(connection: RunConnection, call: PassthroughCall): Promise<PassthroughAnswer>;
  setChaos(connection: RunConnection, settings: ChaosSettings): Promise<void>;
  /** Lets `ms` of sandbox time pass, running what falls due. */
  pass(ms: number): Promise<void>;
  /** Runs what is due now and waits for deliveries in flight. */
  settle(): Promise<void>;
  /**
   * The delivery log of a connection, oldest first. `inTurns`: read with turns of the event loop
   * between deliveries (in process, for the report of a long run; each is read as it stands then).
   */
  deliveries(connectionId: string, options?: { inTurns?: boolean }): Promise<Delivery[]>;
  /** The eventIds of a connection's deliveries not yet succeeded or failed, oldest first. */
  unfinished(connectionId: string): Promise<string[]>;
  /**
   * `JSON.stringify(delivery.event)` of a delivery, when the target has it without parsing and
   * writing the event again (in process): a transcript of 10,000 events then writes none anew.
   */
  eventJson?(eventId: string): string | undefined;
  /** One delivery of the log, if it is still there. */
  delivery(eventId: string): Promise<Delivery | undefined>;
  /**
   * Lets time pass until `done()` holds after a settle, for at most `maxMs` of sandbox time (or
   * until the run is stopped). Resolves with whether it held.
   */
  passUntil(done: () => Promise<boolean>, maxMs: number): Promise<boolean>;
  /** Sandbox time, ms. */
  now(): number;
}

/** Real-time wait, for real clocks and remote servers; a stopped run (`signal`) stops waiting at once. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

// Moved to shared/ (the core seeds a data set in pieces with it too); said here for the scenario engine's modules.
export { BREATH_SLICE_MS, Breather } from '../shared/pieces.js';
