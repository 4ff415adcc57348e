import { parseDuration } from '../shared/duration.js';
import { ApiError } from '../shared/errors.js';
import { Random } from '../shared/random.js';
import type { CrmObjectType } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';
import type { ChaosSettings } from '../webhooks/chaos.js';
import type { Delivery } from '../webhooks/dispatcher.js';
import { createHttpTransport, type HttpTransport } from '../webhooks/http-transport.js';
import { checkDeliveries, checkEvents, checkReceiver as checkReceiverAnswers, type Verdict } from './expect.js';
import type { Scenario } from './load.js';
import { checkReceiver } from './receiver-check.js';
import { RefError, resolveRefs } from './refs.js';
import { summarize, transcriptEvent, type CheckResult, type ProbeResult, type ScenarioReport } from './report.js';
import type { ScenarioStep, StepKind } from './schema.js';
import type { RunConnection, ScenarioTarget } from './target.js';

import { DEFAULT_MAX_WAIT } from './defaults.js';

export interface RunOptions {
  /** Where the main connection's webhook (and `link` steps' webhooks) point, unless the file says. */
  webhookUrl?: string | undefined;
  /** Use this existing connection as `main` instead of linking one. */
  connectionId?: string | undefined;
  /** Fix the accessToken the main connection gets (`access_` + 40 hex), so a receiver can be configured ahead. */
  accessToken?: string | undefined;
  /** Integration of the main connection (the file's `connection.integration` wins; default hubspot). */
  integrationId?: IntegrationId | undefined;
  /** nativeOrgId of the main connection (the file's wins). */
  nativeOrgId?: string | undefined;
  /** How long the end of the run waits for deliveries (sandbox time). Default {@link DEFAULT_MAX_WAIT}. */
  maxWait?: string | number | undefined;
  /** Seeds what the runner draws itself (probe event ids). */
  seed?: number | undefined;
  /** Shown in the report: `instant`, `realtime`, `10x`. */
  speedLabel?: string | undefined;
  /** Reported as the run's seed. */
  reportSeed?: number | null | undefined;
  /** Sends receiver probes (default: the same http transport as deliveries). */
  transport?: HttpTransport | undefined;
  /** Attempt timeout of the probes (ms). Default 10 s. */
  probeTimeoutMs?: number | undefined;
  /** Real time for probe timestamps. Default `Date.now`. */
  realNow?: (() => number) | undefined;
  onProgress?: ((progress: RunProgress) => void) | undefined;
}

/** Where a run is: for a progress line. */
export interface RunProgress {
  step: number;
  steps: number;
  kind: StepKind | 'link' | 'deliveries' | 'done';
  detail: string;
}

/** The connection a step acts on, by name. */
interface Named {
  connection: RunConnection;
  name: string;
}

/** Plays one scenario on a target and reports what happened. */
class Run {
  private readonly scope: Record<string, unknown> = {};
  private readonly connections = new Map<string, RunConnection>();
  /** Object type of each record name, for `update`/`delete` by `record`. */
  private readonly recordTypes = new Map<string, CrmObjectType>();
  /** Events that were there before the run (an adopted connection's): not the run's. */
  private readonly before = new Set<string>();
  /** Per connection, how many of its events `expect.events` already matched. */
  private readonly eventCursor = new Map<string, number>();
  private readonly excused = new Set<string>();
  private readonly checks: CheckResult[] = [];
  private readonly probes: ProbeResult[] = [];
  private readonly failures: string[] = [];
  private current = 'main';
  private linked = 0;
  private readonly random: Random;
  private readonly transport: HttpTransport;
  /** Checked before anything runs: a bad value is a SandboxConfigError (exit 2, or a 400). */
  private readonly maxWaitMs: number;

  constructor(
    private readonly scenario: Scenario,
    private readonly target: ScenarioTarget,
    private readonly options: RunOptions,
  ) {
    this.maxWaitMs = parseDuration(options.maxWait ?? DEFAULT_MAX_WAIT, 'maxWait');
    this.random = new Random(options.seed ?? scenario.definition.seed ?? 1).fork('scenario');
    this.transport = options.transport ?? createHttpTransport();
  }

  async play(): Promise<ScenarioReport> {
    const { definition } = this.scenario;
    const steps = definition.steps;
    const startTime = new Date(this.target.now()).toISOString();
    this.progress(0, 'link', 'linking the main connection');
    try {
      await this.linkMain();
    } catch (error) {
      this.fail(null, 'link', this.reason(error));
      return this.report(startTime);
    }
    for (const [index, step] of steps.entries()) {
      const kind = Object.keys(step)[0] as StepKind;
      this.progress(index + 1, kind, describeStep(kind, (step as Record<string, unknown>)[kind]));
      try {
        await this.runStep(index, kind, (step as Record<string, unknown>)[kind]);
      } catch (error) {
        this.fail(index, kind, `steps[${index}] (${kind}): ${this.reason(error)}`);
        break;
      }
    }
    this.progress(steps.length, 'deliveries', 'waiting for deliveries to finish');
    await this.target.passUntil(() => this.allFinished(), this.maxWaitMs);
    const report = await this.report(startTime);
    this.progress(steps.length, 'done', report.ok ? 'passed' : 'failed');
    return report;
  }

  private reason(error: unknown): string {
    if (error instanceof ApiError || error instanceof RefError) return error.message;
    throw error;
  }

  private fail(step: number | null, kind: string, message: string): void {
    this.checks.push({ step, kind, ok: false, message });
    this.failures.push(message);
  }

  private progress(step: number, kind: RunProgress['kind'], detail: string): void {
    this.options.onProgress?.({ step, steps: this.scenario.definition.steps.length, kind, detail });
  }

  private async linkMain(): Promise<void> {
    const settings = this.scenario.definition.connection ?? {};
    let main: RunConnection;
    if (this.options.connectionId !== undefined) {
      main = await this.target.adopt(this.options.connectionId);
      for (const delivery of await this.target.deliveries(main.connectionId)) this.before.add(delivery.eventId);
    } else {
      main = await this.target.link({
        integrationId: settings.integration ?? this.options.integrationId,
        nativeOrgId: settings.nativeOrgId ?? this.options.nativeOrgId,
        accessToken: this.options.accessToken,
      });
    }
    this.bind('main', main);
    const url = settings.webhook === false ? undefined : (settings.webhook ?? this.options.webhookUrl);
    if (main.webhookUrl === null && url !== undefined) await this.target.createWebhook(main, url);
  }

  private bind(name: string, connection: RunConnection): void {
    this.connections.set(name, connection);
    this.scope[name] = connection;
    this.current = name;
  }

  private on(name: string | undefined): Named {
    const key = name ?? this.current;
    const connection = this.connections.get(key);
    if (!connection) throw new RefError(`"${key}" is not a connection of this run`);
    return { connection, name: key };
  }

  private resolve<T>(value: T, extra: Record<string, unknown> = {}): T {
    return resolveRefs(value, { ...this.scope, ...extra }) as T;
  }

  private async runStep(index: number, kind: StepKind, raw: unknown): Promise<void> {
    const step = raw as Record<string, any>;
    const { target } = this;
    switch (kind) {
      case 'link': {
        const connection = await target.link({ integrationId: step.integration, nativeOrgId: step.nativeOrgId });
        this.bind(step.as ?? `connection${++this.linked + 1}`, connection);
        const url = step.webhook === false ? undefined : (step.webhook ?? this.options.webhookUrl);
        if (url !== undefined) await target.createWebhook(connection, url);
        return;
      }
      case 'webhook': {
        const { connection } = this.on(step.connection);
        if (step.delete) return target.deleteWebhook(connection);
        const url = step.url ?? this.options.webhookUrl;
        if (url === undefined) throw new RefError('no url given, and the run has no webhook URL (--webhook-url)');
        return target.createWebhook(connection, url);
      }
      case 'status': {
        const { status, connection } = typeof raw === 'string' ? { status: raw, connection: undefined } : step;
        return target.setStatus(this.on(connection).connection, status);
      }
      case 'advance':
        return target.pass(parseDuration(typeof raw === 'object' ? step.by : (raw as string | number), 'advance'));
      case 'wait': {
        const max = typeof raw === 'object' && step.max !== undefined ? parseDuration(step.max, 'wait.max') : this.maxWaitMs;
        await target.passUntil(() => this.allFinished(), max);
        return;
      }
      case 'create': {
        const { connection } = this.on(step.connection);
        const count = step.repeat ?? 1;
        for (let i = 0; i < count; i++) {
          const record = await target.create(connection, step.type, this.resolve(step.fields ?? {}, { i }));
          if (step.as) this.name(step.as, step.type, record);
          if (count > 1 && (i + 1) % 500 === 0) this.progress(index + 1, 'create', `created ${i + 1} of ${count} ${step.type} records`);
        }
        return;
      }
      case 'update': {
        const { connection } = this.on(step.connection);
        const [type, id] = this.recordOf(step);
        const record = await target.update(connection, type, id, this.resolve(step.fields));
        const name = step.as ?? step.record;
        if (name) this.name(name, type, record);
        return;
      }
      case 'delete': {
        const { connection } = this.on(step.connection);
        const [type, id] = this.recordOf(step);
        return target.remove(connection, type, id);
      }
      case 'passthrough': {
        const { connection } = this.on(step.connection);
        const call = this.resolve({ method: step.method, path: step.path, body: step.body, query: step.query });
        const answer = await target.passthrough(connection, call);
        if (step.as) this.scope[step.as] = answer;
        if (step.expectStatus !== undefined) {
          const ok = answer.statusCode === step.expectStatus;
          this.verdict(index, { kind: 'passthrough', ok, message: `${call.method} ${call.path} answered ${answer.statusCode}${ok ? '' : `, expected ${step.expectStatus}: ${JSON.stringify(answer.body).slice(0, 200)}`}` });
        }
        return;
      }
      case 'chaos': {
        const { connection: name, ...settings } = step as ChaosSettings & { connection?: string };
        return target.setChaos(this.on(name).connection, settings);
      }
      case 'expect':
        return this.expect(index, step);
      case 'receiverCheck': {
        await this.settle();
        const { connection } = this.on(step.connection);
        const webhookUrl = connection.webhookUrl ?? this.options.webhookUrl;
        if (webhookUrl === undefined) throw new RefError('the connection has no webhook and the run has no webhook URL (--webhook-url) to probe');
        const results = await checkReceiver({
          webhookUrl,
          connectionId: connection.connectionId,
          accessToken: connection.accessToken,
          probes: step.probes,
          transport: this.transport,
          realNow: this.options.realNow ?? Date.now,
          random: this.random,
          timeoutMs: this.options.probeTimeoutMs ?? 10_000,
        });
        this.probes.push(...results);
        for (const result of results) {
          const message = `probe ${result.probe}: expected ${result.expected}, got ${result.got}`;
          this.checks.push({ step: index, kind: `probe ${result.probe}`, ok: result.ok, message });
          if (!result.ok) this.failures.push(`steps[${index}] (receiverCheck): ${message}; fix: ${result.fix}`);
        }
        return;
      }
    }
  }

  private name(name: string, type: CrmObjectType, record: unknown): void {
    this.scope[name] = record;
    this.recordTypes.set(name, type);
  }

  private recordOf(step: Record<string, any>): [CrmObjectType, string] {
    if (step.record !== undefined) {
      const type = this.recordTypes.get(step.record);
      const record = this.scope[step.record] as { id?: string } | undefined;
      if (!type || !record?.id) throw new RefError(`"${step.record}" does not name a record`);
      return [type, record.id];
    }
    return [step.type, this.resolve(step.id as string)];
  }

  /**
   * Lets due work finish before a check. In process that is the clock's settle; a remote server
   * runs its own clock, so the run polls until none of its deliveries is in flight (or queued
   * with nothing holding it back), for at most the attempt timeout.
   */
  private async settle(): Promise<void> {
    await this.target.settle();
    if (this.target.kind !== 'server') return;
    const settled = async () => {
      for (const connection of new Set(this.connections.values())) {
        if (connection.webhookUrl === null) continue;
        const states = new Set((await this.runDeliveries(connection)).map((delivery) => delivery.state));
        if (states.has('delivering') || (states.has('pending') && !states.has('retrying'))) return false;
      }
      return true;
    };
    await this.target.passUntil(settled, this.options.probeTimeoutMs ?? 10_000);
  }

  private async expect(index: number, step: Record<string, any>): Promise<void> {
    await this.settle();
    const { connection } = this.on(step.connection);
    const deliveries = await this.runDeliveries(connection);
    if (step.events) {
      const from = this.eventCursor.get(connection.connectionId) ?? 0;
      const since = deliveries.slice(from);
      const counted = step.of === undefined ? since : since.filter((delivery) => delivery.type === step.of);
      this.verdict(index, checkEvents(this.resolve(step.events), counted));
      this.eventCursor.set(connection.connectionId, from + since.length);
    }
    if (step.deliveries) this.verdict(index, checkDeliveries(step.deliveries, deliveries));
    if (step.receiver) this.verdict(index, checkReceiverAnswers(step.receiver, deliveries));
  }

  private verdict(step: number, verdict: Verdict): void {
    const message = verdict.ok ? verdict.message : `steps[${step}] (expect ${verdict.kind}): ${verdict.message}`;
    this.checks.push({ step, kind: verdict.kind, ok: verdict.ok, message });
    if (!verdict.ok) this.failures.push(message);
    for (const eventId of verdict.excused ?? []) this.excused.add(eventId);
  }

  /** The run's deliveries of a connection, oldest first. */
  private async runDeliveries(connection: RunConnection): Promise<Delivery[]> {
    const all = await this.target.deliveries(connection.connectionId);
    return this.before.size === 0 ? all : all.filter((delivery) => !this.before.has(delivery.eventId));
  }

  /** Every event of the run has an outcome (or waits for a webhook its connection does not have). */
  private async allFinished(): Promise<boolean> {
    for (const connection of new Set(this.connections.values())) {
      if (connection.webhookUrl === null) continue;
      for (const delivery of await this.runDeliveries(connection)) {
        if (delivery.state !== 'succeeded' && delivery.state !== 'failed') return false;
      }
    }
    return true;
  }

  private async report(startTime: string): Promise<ScenarioReport> {
    const events = [];
    for (const connection of new Set(this.connections.values())) {
      for (const delivery of await this.runDeliveries(connection)) {
        events.push(transcriptEvent(delivery, connection.accessToken));
        if (connection.webhookUrl === null || this.excused.has(delivery.eventId) || delivery.state === 'succeeded') continue;
        const last = delivery.attempts.at(-1);
        const answer = last ? (last.status ?? last.error) : 'no attempt';
        const message =
          delivery.state === 'failed'
            ? `the receiver never accepted ${summarize(delivery.event)} (${delivery.eventId}): ${delivery.failureReason}; last answer: ${answer}`
            : `${summarize(delivery.event)} (${delivery.eventId}) was still ${delivery.state} when the run ended (last answer: ${answer}); raise --max-wait or shorten --retry-schedule`;
        this.checks.push({ step: null, kind: 'delivery', ok: false, message });
        this.failures.push(message);
      }
    }
    const main = this.connections.get('main');
    const ok = this.failures.length === 0;
    return {
      scenario: this.scenario.name,
      description: this.scenario.description,
      ok,
      exitCode: ok ? 0 : 1,
      seed: this.options.reportSeed ?? null,
      speed: this.options.speedLabel ?? 'instant',
      startTime,
      connection: main ?? { connectionId: '', accessToken: '', integrationId: 'hubspot', nativeOrgId: '', webhookUrl: null },
      connections: Object.fromEntries(this.connections),
      steps: this.scenario.definition.steps.length,
      events,
      checks: this.checks,
      probes: this.probes,
      failures: this.failures,
    };
  }
}

/** A step in a few words, for the progress line. */
function describeStep(kind: StepKind, value: unknown): string {
  const step = value as Record<string, unknown>;
  switch (kind) {
    case 'create':
      return `create ${step.repeat ? `${step.repeat} × ` : ''}${step.type}`;
    case 'update':
    case 'delete':
      return `${kind} ${step.record ?? `${step.type} ${step.id}`}`;
    case 'status':
      return `status ${typeof value === 'string' ? value : step.status}`;
    case 'advance':
      return `advance ${typeof value === 'object' ? step.by : value}`;
    case 'passthrough':
      return `passthrough ${step.method} ${step.path}`;
    default:
      return kind;
  }
}

/**
 * Plays a scenario on a target and resolves with its report. Never throws for what the
 * scenario does: refused steps, unmet expectations and undelivered events are in the report.
 */
export function runScenarioOn(scenario: Scenario, target: ScenarioTarget, options: RunOptions = {}): Promise<ScenarioReport> {
  return new Run(scenario, target, options).play();
}

