import { type CrmObjectType, withEmptyFields } from '../model/crm.js';
import type { IntegrationId } from '../model/integrations.js';
import { type Duration, formatTimeLeft, parseDuration } from '../shared/duration.js';
import { ApiError } from '../shared/errors.js';
import { Random } from '../shared/random.js';
import { utf8ByteLength } from '../shared/text-codec.js';
import type { ChaosSettings } from '../webhooks/chaos.js';
import type { Delivery } from '../webhooks/delivery.js';
import type { HttpTransport } from '../webhooks/transport.js';
import { DEFAULT_MAX_WAIT, DEFAULT_REAL_MAX_WAIT } from './defaults.js';
import { checkDeliveries, checkEvents, checkReceiver as checkReceiverAnswers, type EventsVerdict, type Verdict } from './expect.js';
import type { Scenario } from './load.js';
import { checkReceiver } from './receiver-check.js';
import { RefError, resolveRefs } from './refs.js';
import { type CheckResult, type ProbeResult, type ScenarioReport, summarize, transcriptEvent } from './report.js';
import type { StepKind } from './schema.js';
import { Breather, type RunConnection, type ScenarioTarget, sleep } from './target.js';
import { networkAdvice, notFoundHint, unreachableReceiver } from './unreachable.js';

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
  /**
   * How long an expectation, a `wait` step and the end of the run let sandbox time pass for
   * deliveries. Default {@link DEFAULT_MAX_WAIT} when time jumps, {@link DEFAULT_REAL_MAX_WAIT}
   * when it passes in real time.
   */
  maxWait?: Duration | undefined;
  /** Seeds what the runner draws itself (probe event ids). */
  seed?: number | undefined;
  /** Shown in the report: `instant`, `realtime`, `10x`. */
  speedLabel?: string | undefined;
  /** Reported as the run's seed. */
  reportSeed?: number | null | undefined;
  /** Sends receiver probes: a transport like the deliveries' (the platform's), so a probe reaches what an event reaches. */
  transport: HttpTransport;
  /** Attempt timeout of the probes (ms). Default 10 s. */
  probeTimeoutMs?: number | undefined;
  /** Real time for probe timestamps. Default `Date.now`. */
  realNow?: (() => number) | undefined;
  onProgress?: ((progress: RunProgress) => void) | undefined;
  /**
   * Said at once, while the run goes on: a receiver answering a correctly signed event with 401
   * or 403 (it almost always verifies with another accessToken).
   */
  onWarning?: ((message: string) => void) | undefined;
  /** Stops the run (Ctrl+C, a time bound): it ends at once and reports what happened so far; the reason is a failure. */
  signal?: AbortSignal | undefined;
  /**
   * Most bytes of record fields (as JSON, UTF-8) the run's creates may write, counted as the
   * references in them resolve; the create that goes over fails the run. A run through the
   * control API has the sandbox's `scenarioFieldBytesLimit`; default: no cap.
   */
  fieldBytesLimit?: number | undefined;
}

/** Where a run is: for a progress line. */
export interface RunProgress {
  step: number;
  steps: number;
  kind: StepKind | 'link' | 'deliveries' | 'done';
  detail: string;
  /** While the run lets time pass for deliveries: what it waits on (event, attempt, last answer). */
  waiting?: string | undefined;
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
  /** Events an `events` check used up: the next check starts after them. */
  private readonly consumed = new Set<string>();
  /**
   * Events emitted while an expectation let time pass to wait for its own (a status move falling
   * due while a retry was awaited): early for the steps that follow, so no check counts them as
   * one too many; they match the check that expects them.
   */
  private readonly early = new Set<string>();
  /** A 401/403 answer was reported already (once per run is enough). */
  private warnedRejection = false;
  /** The step the run is at, for the progress line while it waits. */
  private at: { step: number; kind: RunProgress['kind']; detail: string } = { step: 0, kind: 'link', detail: '' };
  private readonly excused = new Set<string>();
  private readonly checks: CheckResult[] = [];
  private readonly probes: ProbeResult[] = [];
  private readonly failures: string[] = [];
  /**
   * Failures that follow from deliveries not arriving (an `expect` of deliveries, of the
   * receiver's answers, an event not delivered), by connection: when its receiver never answered
   * at all, the report names that once instead (the checks keep them).
   */
  private readonly deliveryFailures = new Map<string, string>();
  private current = 'main';
  private linked = 0;
  private readonly random: Random;
  private readonly transport: HttpTransport;
  /** Checked before anything runs: a bad value is a SandboxConfigError (exit 2, or a 400). */
  private readonly maxWaitMs: number;
  /** Between steps, creates and transcript events: a long run never holds a server's event loop for long. */
  private readonly breather = new Breather();
  /** Bytes of record fields the run's creates have written so far (for {@link RunOptions.fieldBytesLimit}). */
  private fieldBytes = 0;

  constructor(
    private readonly scenario: Scenario,
    private readonly target: ScenarioTarget,
    private readonly options: RunOptions,
  ) {
    this.maxWaitMs = parseDuration(options.maxWait ?? (target.realTime ? DEFAULT_REAL_MAX_WAIT : DEFAULT_MAX_WAIT), 'maxWait');
    this.random = new Random(options.seed ?? scenario.definition.seed ?? 1).fork('scenario');
    this.transport = options.transport;
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
      await this.breather.breathe();
      // In process, work in flight (a delivery attempt waiting on its receiver) finishes before the
      // next step, as a virtual clock runs tasks one after another: how fast a receiver answers
      // must not decide whether a step (a chaos setting, a webhook change) comes before or after it.
      if (this.target.kind === 'in-process') await this.target.settle();
      await this.warnOfRejections();
      if (this.stopped(index, kind)) break;
      this.progress(index + 1, kind, describeStep(kind, (step as Record<string, unknown>)[kind]));
      try {
        await this.runStep(index, kind, (step as Record<string, unknown>)[kind]);
      } catch (error) {
        this.fail(index, kind, `steps[${index}] (${kind}): ${this.reason(error)}`);
        break;
      }
      if (this.stopped(index, kind)) break;
    }
    if (!this.stopped(null, 'deliveries')) {
      this.progress(steps.length, 'deliveries', 'waiting for deliveries to finish');
      await this.target.passUntil(() => this.allFinished(), this.maxWaitMs);
      this.stopped(null, 'deliveries');
    }
    const report = await this.report(startTime);
    // A stopped run's last line stays at the step it reached: `[2/5] stopped`, not `[5/5] failed`.
    const stopped = this.checks.some((check) => check.kind === 'stopped');
    this.progress(stopped ? this.at.step : steps.length, 'done', stopped ? 'stopped' : report.ok ? 'passed' : 'failed');
    return report;
  }

  /** Adds a create's fields to the run's bytes: over {@link RunOptions.fieldBytesLimit} the step fails, before the record is made. */
  private countFieldBytes(fields: unknown): void {
    const limit = this.options.fieldBytesLimit;
    if (limit === undefined || limit === Infinity) return;
    this.fieldBytes += utf8ByteLength(JSON.stringify(fields));
    if (this.fieldBytes > limit) throw new RefError(fieldBytesOver(limit));
  }

  private reason(error: unknown): string {
    if (error instanceof ApiError || error instanceof RefError) return error.message;
    throw error;
  }

  private fail(step: number | null, kind: string, message: string): void {
    this.checks.push({ step, kind, ok: false, message });
    this.failures.push(message);
  }

  /** Whether the run was told to stop; the first time it is seen, the reason becomes a failure naming where the run was. */
  private stopped(step: number | null, kind: string): boolean {
    const signal = this.options.signal;
    if (!signal?.aborted) return false;
    if (!this.checks.some((check) => check.kind === 'stopped')) {
      const where = step === null ? 'while it waited for the last deliveries' : `at steps[${step}] (${kind})`;
      this.fail(step, 'stopped', `the run was stopped ${where}: ${String(signal.reason ?? 'aborted')}; the report shows what happened until then`);
    }
    return true;
  }

  private progress(step: number, kind: RunProgress['kind'], detail: string): void {
    this.at = { step, kind, detail };
    this.options.onProgress?.({ step, steps: this.scenario.definition.steps.length, kind, detail });
  }

  /** The progress line while time passes for deliveries: what is awaited, and the receiver's last answer. */
  private async waitingProgress(): Promise<void> {
    if (!this.options.onProgress) return;
    const waiting = await this.waitingOn();
    if (waiting === undefined) return;
    this.options.onProgress({ step: this.at.step, steps: this.scenario.definition.steps.length, kind: this.at.kind, detail: this.at.detail, waiting });
  }

  /** The oldest unfinished delivery of the run, in words: `Contact CREATE (3f2a…): retrying, attempt 3 answered 503; next attempt in 5m`. */
  private async waitingOn(): Promise<string | undefined> {
    for (const connection of new Set(this.connections.values())) {
      if (connection.webhookUrl === null) continue;
      const unfinished = (await this.target.unfinished(connection.connectionId)).filter((eventId) => !this.before.has(eventId));
      const first = unfinished[0];
      if (first === undefined) continue;
      const delivery = await this.target.delivery(first);
      if (!delivery) continue;
      this.warnIfRejected(delivery);
      const last = delivery.attempts.at(-1);
      const answer = last ? `attempt ${last.attempt} answered ${last.status ?? last.error}` : 'no attempt yet';
      const next =
        delivery.nextAttemptTime === null ? '' : `; next attempt in ${formatTimeLeft(Date.parse(delivery.nextAttemptTime) - this.target.now())} (sandbox time)`;
      const behind = unfinished.length > 1 ? `; ${unfinished.length - 1} more behind it` : '';
      return `waiting on ${summarize(delivery.event)} (${delivery.eventId.slice(0, 8)}…): ${delivery.state}, ${answer}${next}${behind}`;
    }
    return undefined;
  }

  /** Between steps: has the receiver rejected the oldest event still unfinished? (Said at once, not at the end.) */
  private async warnOfRejections(): Promise<void> {
    if (this.warnedRejection || !this.options.onWarning) return;
    for (const connection of new Set(this.connections.values())) {
      if (connection.webhookUrl === null) continue;
      const first = (await this.target.unfinished(connection.connectionId)).find((eventId) => !this.before.has(eventId));
      const delivery = first === undefined ? undefined : await this.target.delivery(first);
      if (delivery) this.warnIfRejected(delivery);
    }
  }

  /**
   * A correctly signed event answered 401 or 403 is almost always a receiver that verifies with
   * another accessToken: said at once (the run goes on), naming how to give it the right one.
   */
  private warnIfRejected(delivery: Delivery): void {
    if (this.warnedRejection) return;
    const notFound = delivery.attempts.find((attempt) => attempt.status === 404);
    if (notFound) {
      this.warnedRejection = true;
      this.options.onWarning?.(`the receiver answered 404 to ${summarize(delivery.event)} (${delivery.eventId}): ${notFoundHint(notFound.webhookUrl)}`);
      return;
    }
    const rejected = delivery.attempts.find((attempt) => attempt.status === 401 || attempt.status === 403);
    if (!rejected) return;
    this.warnedRejection = true;
    this.options.onWarning?.(
      `the receiver answered ${rejected.status} to ${summarize(delivery.event)} (${delivery.eventId}), which was signed correctly. ${this.rejectionHint(delivery.connectionId)}`,
    );
  }

  /** What to do about a receiver that answers 401/403 to a connection's correctly signed events, from what the run knows of its token. */
  private rejectionHint(connectionId: string): string {
    const main = this.connections.get('main');
    const accessToken = [...this.connections.values()].find((connection) => connection.connectionId === connectionId)?.accessToken ?? '';
    const origin =
      main?.connectionId !== connectionId
        ? 'drawn'
        : this.options.connectionId !== undefined
          ? 'adopted'
          : this.options.accessToken !== undefined
            ? 'given'
            : 'drawn';
    return rejectionHint(connectionId, accessToken, origin);
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
    // biome-ignore lint/suspicious/noExplicitAny: a step checked by the scenario schema, its fields read by kind below
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
        return target.pass(parseDuration(typeof raw === 'object' ? step.by : raw, 'advance'));
      case 'wait': {
        const max = typeof raw === 'object' && step.max !== undefined ? parseDuration(step.max, 'wait.max') : this.maxWaitMs;
        await target.passUntil(() => this.allFinished(), max);
        return;
      }
      case 'create': {
        const { connection } = this.on(step.connection);
        const count = step.repeat ?? 1;
        for (let i = 0; i < count; i++) {
          await this.breather.breathe();
          if (this.options.signal?.aborted) return;
          const fields = this.resolve(step.fields ?? {}, { i });
          this.countFieldBytes(fields);
          const record = await target.create(connection, step.type, fields);
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
          this.verdict(
            index,
            {
              kind: 'passthrough',
              ok,
              final: true,
              message: `${call.method} ${call.path} answered ${answer.statusCode}${ok ? '' : `, expected ${step.expectStatus}: ${JSON.stringify(answer.body).slice(0, 200)}`}`,
            },
            connection.connectionId,
          );
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
          sleep: (ms) => sleep(ms, this.options.signal),
        });
        this.probes.push(...results);
        // No probe answered over HTTP: one failure naming why, not one per probe (the table shows each).
        const sent = results.filter((result) => result.probe !== 'answers-in-time');
        const unanswered = sent.length > 0 && sent.every((result) => !/^\d+$/.test(result.got));
        if (unanswered) {
          const error = sent[0]!.got;
          this.failures.push(`steps[${index}] (receiverCheck): no probe was answered: ${networkAdvice(webhookUrl, error)}`);
        }
        for (const result of results) {
          const message = `probe ${result.probe}: expected ${result.expected}, got ${result.got}`;
          this.checks.push({ step: index, kind: `probe ${result.probe}`, ok: result.ok, message });
          if (!result.ok && !unanswered) this.failures.push(`steps[${index}] (receiverCheck): ${message}; fix: ${result.fix}`);
        }
        return;
      }
    }
  }

  private name(name: string, type: CrmObjectType, record: unknown): void {
    // Records answer without their empty fields; a reference to one reads null, as the schema that checked it has the field.
    this.scope[name] = withEmptyFields(type, record as Record<string, unknown>);
    this.recordTypes.set(name, type);
  }

  // biome-ignore lint/suspicious/noExplicitAny: a step checked by the scenario schema
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

  /**
   * Checks an expectation as soon as it can hold: when it does not yet, sandbox time passes (on
   * a virtual clock, from one due retry or status move to the next; on a real clock, waiting)
   * until it holds, can no longer hold, or the run's --max-wait is used up.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a step checked by the scenario schema
  private async expect(index: number, step: Record<string, any>): Promise<void> {
    await this.settle();
    const { connection } = this.on(step.connection);
    const existing = new Set((await this.runDeliveries(connection)).map((delivery) => delivery.eventId));
    const matchers = step.events ? this.resolve(step.events) : undefined;
    let verdicts: Verdict[] = [];
    let events: EventsVerdict | undefined;
    let other: string[] = [];
    const evaluate = async (): Promise<boolean> => {
      const deliveries = await this.runDeliveries(connection);
      for (const delivery of deliveries) if (!existing.has(delivery.eventId)) this.early.add(delivery.eventId);
      verdicts = [];
      if (matchers) {
        const window = deliveries.filter((delivery) => !this.consumed.has(delivery.eventId));
        const counted = step.of === undefined ? window : window.filter((delivery) => delivery.type === step.of);
        events = checkEvents(matchers, counted, this.early);
        // Events of the type `of` passes over are used up with the ones it counts (early ones stay for later checks).
        other = window
          .filter((delivery) => delivery.type !== (step.of ?? delivery.type) && !this.early.has(delivery.eventId))
          .map((delivery) => delivery.eventId);
        verdicts.push(events);
      }
      if (step.deliveries) verdicts.push(checkDeliveries(step.deliveries, deliveries));
      if (step.receiver) verdicts.push(checkReceiverAnswers(step.receiver, deliveries));
      const done = verdicts.every((verdict) => verdict.ok) || verdicts.some((verdict) => !verdict.ok && verdict.final);
      if (!done) {
        for (const delivery of deliveries) this.warnIfRejected(delivery);
        await this.waitingProgress();
      }
      return done;
    };
    if (!(await evaluate())) await this.target.passUntil(evaluate, this.maxWaitMs);
    // Stopped while it waited: what it saw is no verdict; the stop is the failure.
    if (this.options.signal?.aborted && !verdicts.every((verdict) => verdict.ok)) return;
    for (const eventId of [...(events?.consumed ?? []), ...other]) this.consumed.add(eventId);
    for (const verdict of verdicts) this.verdict(index, verdict, connection.connectionId);
  }

  private verdict(step: number, verdict: Verdict, connectionId: string): void {
    const message = verdict.ok ? verdict.message : `steps[${step}] (expect ${verdict.kind}): ${verdict.message}`;
    this.checks.push({ step, kind: verdict.kind, ok: verdict.ok, message });
    if (!verdict.ok) this.failures.push(message);
    const undelivered =
      verdict.kind === 'deliveries' || verdict.kind === 'receiver' || (verdict.kind === 'events' && verdict.message.includes(' is not delivered: '));
    if (!verdict.ok && undelivered) this.deliveryFailures.set(message, connectionId);
    for (const eventId of verdict.excused ?? []) this.excused.add(eventId);
  }

  /** The run's deliveries of a connection, oldest first (`inTurns`: read with turns of the event loop between them). */
  private async runDeliveries(connection: RunConnection, inTurns = false): Promise<Delivery[]> {
    const all = await this.target.deliveries(connection.connectionId, { inTurns });
    return this.before.size === 0 ? all : all.filter((delivery) => !this.before.has(delivery.eventId));
  }

  /** Every event of the run has an outcome (or waits for a webhook its connection does not have). */
  private async allFinished(): Promise<boolean> {
    for (const connection of new Set(this.connections.values())) {
      if (connection.webhookUrl === null) continue;
      const unfinished = await this.target.unfinished(connection.connectionId);
      if (unfinished.some((eventId) => !this.before.has(eventId))) {
        await this.waitingProgress();
        return false;
      }
    }
    return true;
  }

  private async report(startTime: string): Promise<ScenarioReport> {
    const events = [];
    // A receiver that never answered over HTTP is one failure, named first: its URL, the network error, what to do.
    const unreachable: string[] = [];
    const unreachableIds = new Set<string>();
    for (const connection of new Set(this.connections.values())) {
      // 10,000 deliveries take 10-20 ms to copy: read with turns between, as the transcript is built.
      const deliveries = await this.runDeliveries(connection, true);
      // Failures the scenario expects (excused) are no problem to name.
      const expected = deliveries.filter((delivery) => !this.excused.has(delivery.eventId));
      const line =
        connection.webhookUrl === null || expected.every((delivery) => delivery.state === 'succeeded')
          ? undefined
          : unreachableReceiver(connection.webhookUrl, expected);
      if (line !== undefined) {
        unreachable.push(line);
        unreachableIds.add(connection.connectionId);
      }
      // The oldest event of the connection still unfinished: one connection's events go in order, so the later ones wait behind it.
      let holder: Delivery | undefined;
      for (const delivery of deliveries) {
        await this.breather.breathe();
        // The log's text of the event where the target has it: no event parsed and written again (10 MB for 10,000).
        events.push(transcriptEvent(delivery, connection.accessToken, this.target.eventJson?.(delivery.eventId)));
        if (connection.webhookUrl === null || this.excused.has(delivery.eventId) || delivery.state === 'succeeded') continue;
        const last = delivery.attempts.at(-1);
        const answer = last ? (last.status ?? last.error) : 'no attempt';
        const rejected =
          last?.status === 401 || last?.status === 403
            ? ` — ${this.rejectionHint(delivery.connectionId)}`
            : last?.status === 404
              ? ` — ${notFoundHint(last.webhookUrl)}`
              : '';
        const behind = holder && delivery.attempts.length === 0 && delivery.state === 'pending' ? holder : undefined;
        if (delivery.state !== 'failed') holder ??= delivery;
        const message =
          delivery.state === 'failed'
            ? `the receiver never accepted ${summarize(delivery.event)} (${delivery.eventId}): ${delivery.failureReason}; last answer: ${answer}${rejected}`
            : behind
              ? `${summarize(delivery.event)} (${delivery.eventId}) was never sent: it waited behind ${summarize(behind.event)} (${behind.eventId}), which the receiver had not accepted (one connection's events go out in order)`
              : this.options.signal?.aborted
                ? `${summarize(delivery.event)} (${delivery.eventId}) was still ${delivery.state} when the run was stopped (last answer: ${answer})${rejected}`
                : `${summarize(delivery.event)} (${delivery.eventId}) was still ${delivery.state} when the run ended (last answer: ${answer})${rejected || '; raise --max-wait or shorten --retry-schedule'}`;
        this.checks.push({ step: null, kind: 'delivery', ok: false, message });
        if (line === undefined) this.failures.push(message);
      }
    }
    const failures = [...unreachable, ...this.failures.filter((failure) => !unreachableIds.has(this.deliveryFailures.get(failure) ?? ''))];
    const main = this.connections.get('main');
    const ok = failures.length === 0;
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
      failures,
    };
  }
}

/**
 * What to do about a receiver that answers 401/403 to correctly signed events, by where the
 * connection's token came from: drawn by the run, given with --access-token, or the token of a
 * server's connection the run plays on (--connection-id).
 */
function rejectionHint(connectionId: string, accessToken: string, origin: 'drawn' | 'given' | 'adopted'): string {
  const signs = `connection ${connectionId} signs with ${accessToken}`;
  if (origin === 'given') {
    return (
      `This run's ${signs}, the --access-token given, so your receiver verified with another token. ` +
      `If it looks tokens up by the x-service-connection-id header, it holds another one for ${connectionId}; if it falls back to one from its environment ` +
      "(the README's receiver reads WEBHOOK_TOKEN), that variable is not this token in the receiver's own terminal: export it there and restart the receiver."
    );
  }
  if (origin === 'adopted') {
    return `The server's ${signs} (GET /sandbox/connections/${connectionId} shows it): your receiver verifies with another, so it did not store this one for ${connectionId} at exchange.`;
  }
  return (
    `A receiver that rejects a correctly signed event almost always verifies with another accessToken: this run's ${signs}. ` +
    'Give the run the token your receiver verifies with (--access-token), or play on the connection your app linked itself (--server URL --connection-id ID).'
  );
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
export function runScenarioOn(scenario: Scenario, target: ScenarioTarget, options: RunOptions): Promise<ScenarioReport> {
  return new Run(scenario, target, options).play();
}

/** The failure of a run whose creates write more field bytes than a run through the control API may. */
export function fieldBytesOver(limit: number): string {
  return (
    `its records' fields come to more than ${limit} bytes (as JSON), the most a scenario run through the control API writes ` +
    "(the sandbox's cap: scenarioFieldBytesLimit, --scenario-field-bytes-limit); play it with the CLI (crm-sandbox scenario run, which --server can point at this server) or raise the cap"
  );
}
