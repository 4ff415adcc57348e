import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { CRM_OBJECT_TYPES, type CrmObjectType } from '../model/crm.js';
import { INTEGRATION_IDS } from '../model/integrations.js';
import { notFoundHint } from '../scenarios/unreachable.js';
import { closest } from '../shared/closest.js';
import { SandboxConfigError } from '../shared/errors.js';
import { eventSummary } from '../webhooks/attempt-feed.js';
import type { Delivery } from '../webhooks/delivery.js';
import { eventWords } from './delivery-line.js';
import { flagName, readChoice, readDuration, readText } from './flags.js';
import { connectionOption, SERVER_CLIENT_OPTIONS } from './listen.js';
import { ServerClient } from './server-client.js';

/** What a trigger does: a record written through the control API, or a connection's status. */
export type Trigger =
  | { kind: 'record'; type: CrmObjectType; change: 'created' | 'updated' | 'deleted' }
  | { kind: 'status'; status: 'INITIAL_SYNCED' | 'READY' }
  | { kind: 'link' };

/** `EventAttendee` → `event-attendee`. */
const kebab = (type: string) => type.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();

/** Every trigger by name, in `--list`'s order, with its line there. */
export const TRIGGERS: ReadonlyMap<string, { trigger: Trigger; describe: string }> = new Map([
  ...CRM_OBJECT_TYPES.flatMap((type) =>
    (['created', 'updated', 'deleted'] as const).map((change): [string, { trigger: Trigger; describe: string }] => [
      `${kebab(type)}.${change}`,
      {
        trigger: { kind: 'record', type, change },
        describe: `OBJECT_CHANGE ${type} ${change === 'created' ? 'CREATE: a new record' : change === 'updated' ? 'UPDATE: a field of a record changed' : 'DELETE: a record deleted'}${type === 'Email' ? ' (an event only with serve --email-events)' : ''}`,
      },
    ]),
  ),
  ['connection.new', { trigger: { kind: 'link' }, describe: 'STATUS_CHANGE NEW_CONNECTION: a new connection linked (INITIAL_SYNCED and READY follow)' }],
  ['connection.initial-synced', { trigger: { kind: 'status', status: 'INITIAL_SYNCED' }, describe: 'STATUS_CHANGE INITIAL_SYNCED: the status moved' }],
  ['connection.ready', { trigger: { kind: 'status', status: 'READY' }, describe: 'STATUS_CHANGE READY: the status moved' }],
]);

/** The field an `updated` trigger changes, per type, and its new value. */
function updateOf(type: CrmObjectType, record: Record<string, unknown>, stamp: string): Record<string, unknown> {
  const text = `Updated by crm-sandbox trigger at ${stamp}`;
  switch (type) {
    case 'User':
      return { lastName: text };
    case 'Contact':
    case 'Lead':
      return { jobTitle: text };
    case 'Account':
    case 'Event':
      return { description: text };
    case 'Deal':
      return { name: text };
    case 'Note':
      return { content: text };
    case 'Task':
    case 'Email':
      return { subject: text };
    case 'EventAttendee':
      return { status: record.status === 'Tentative' ? 'Confirmed' : 'Tentative' };
  }
}

/** How often the delivery's outcome is read while waiting for it. */
const POLL_MS = 100;
/** How often a refused event is retried now while trigger waits for the receiver. */
const RETRY_EVERY_MS = 2_000;

const builder = (yargs: Argv) =>
  yargs
    .positional('what', { type: 'string', describe: 'What to fire: contact.created, deal.updated, note.deleted, connection.ready… (--list shows them all)' })
    .options(SERVER_CLIENT_OPTIONS)
    .option('connection', connectionOption('The connection the event is about [default: the newest of the API key]'))
    .option('id', {
      requiresArg: true,
      type: 'string',
      describe: 'The record an .updated or .deleted trigger changes [default: the first of its type]',
      coerce: (value: unknown) => readText('id', value).trim(),
    })
    .option('integration', {
      requiresArg: true,
      default: 'salesforce',
      describe: 'connection.new: the integration of the new connection',
      coerce: (value: unknown) => readChoice('integration', value, INTEGRATION_IDS),
    })
    .option('wait', {
      requiresArg: true,
      default: '10s',
      describe: "How long to wait for the receiver's answer (0s: fire and exit)",
      coerce: (value: unknown) => readDuration('wait', value),
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print the event and its delivery as JSON' })
    .option('list', { type: 'boolean', default: false, describe: 'List every trigger' })
    .example('$0 trigger contact.created', 'A new contact on the newest connection: its CREATE event, and what the receiver answered')
    .example('$0 trigger deal.updated --connection <id>', 'A change to a deal of that connection')
    .example('$0 trigger connection.ready', 'Move the newest connection to READY: its STATUS_CHANGE')
    .epilogue(
      'Records are written through the control API, so reads agree with the event. Exit 0 when the receiver accepted the event, 1 when it was not accepted within --wait (why is printed), 2 for a mistake.',
    );

type TriggerArgs = ReturnType<typeof builder> extends Argv<infer T> ? T : never;

interface Fired {
  connectionId: string;
  integrationId: string;
  /** The record written (its id), for an object trigger. */
  recordId?: string;
  /** Which delivery of the connection's log is this event's. */
  matches: (delivery: Delivery) => boolean;
}

/**
 * `crm-sandbox trigger <what>`: one event of a running dev server in one command, from a real
 * write (a record through the control API, a status, a new link), then what its delivery got. An
 * event held behind a retrying one is not left to wait: that one is retried now (as the
 * inspector's Retry now), and the rest follow once the receiver accepts it.
 */
export const triggerCommand: CommandModule<object, TriggerArgs> = {
  command: 'trigger [what]',
  describe: 'Fire one webhook event on a running dev server (contact.created, deal.updated, connection.ready…) and print what the receiver answered',
  builder,
  handler: async (args: ArgumentsCamelCase<TriggerArgs>) => {
    if (args.list) {
      const width = Math.max(...[...TRIGGERS.keys()].map((name) => name.length));
      process.stdout.write(`${[...TRIGGERS].map(([name, { describe }]) => `${name.padEnd(width)}  ${describe}`).join('\n')}\n`);
      return;
    }
    const what = args.what === undefined ? undefined : String(args.what);
    if (what === undefined)
      throw new SandboxConfigError('trigger needs what to fire: contact.created, deal.updated, connection.ready… (crm-sandbox trigger --list)');
    const found = TRIGGERS.get(what);
    if (!found) {
      const near = closest(what, TRIGGERS.keys());
      throw new SandboxConfigError(`unknown trigger ${what}${near ? `; did you mean ${near}?` : ''} See crm-sandbox trigger --list`);
    }
    const client = new ServerClient(args.server, args.apiKey);
    const { fired, delivery } = await fireAndFollow(client, found.trigger, args, (line) => process.stderr.write(`${line}\n`));
    if (args.json) {
      process.stdout.write(
        `${JSON.stringify({ trigger: what, connectionId: fired.connectionId, recordId: fired.recordId ?? null, delivery: delivery ?? null }, null, 2)}\n`,
      );
    }
    process.exitCode = delivery?.state === 'succeeded' ? 0 : 1;
  },
};

/** Makes the write, and says which event it fired. */
/** What a trigger's write and its following read of the options. */
export interface TriggerOptions {
  connection?: string | undefined;
  id?: string | undefined;
  integration: string;
  wait: number;
}

/** Fires `trigger` on the server and follows its delivery (what `crm-sandbox trigger` does, its lines to `say`). */
export async function fireAndFollow(
  client: ServerClient,
  trigger: Trigger,
  options: TriggerOptions,
  say: (line: string) => void,
): Promise<{ fired: Fired; delivery: Delivery | undefined }> {
  const fired = await fire(client, trigger, options, say);
  return { fired, delivery: await outcome(client, fired, options.wait, say) };
}

async function fire(client: ServerClient, trigger: Trigger, args: TriggerOptions, say: (line: string) => void): Promise<Fired> {
  if (trigger.kind === 'link') {
    const { publicToken } = await client.ok('POST', '/sandbox/public-token', { integrationId: args.integration });
    const connection = await client.ok('POST', '/link/exchange', { publicToken });
    say(`linked connection ${connection.connectionId} (${connection.integrationId}), accessToken ${connection.accessToken}`);
    return {
      connectionId: connection.connectionId,
      integrationId: connection.integrationId,
      matches: ({ event }) => event.type === 'STATUS_CHANGE' && event.data.status === 'NEW_CONNECTION',
    };
  }
  const connection = await pickConnection(client, args.connection);
  const path = `/sandbox/connections/${connection.connectionId}`;
  if (trigger.kind === 'status') {
    // The newest event of that status from the server's log made since the move was asked for (a move to the status it has makes none).
    const since = Date.now() - 1_000;
    await client.ok('POST', `${path}/status`, { status: trigger.status });
    return {
      ...connection,
      matches: ({ event, createdTime }) => event.type === 'STATUS_CHANGE' && event.data.status === trigger.status && Date.parse(createdTime) >= since,
    };
  }
  const { type, change } = trigger;
  const records = `${path}/records/${type}`;
  let recordId: string;
  if (change === 'created') {
    recordId = (await client.ok('POST', records, await createFields(client, path, type))).record.id;
  } else {
    const record =
      args.id === undefined
        ? (await client.ok('GET', `${records}?limit=1`)).records[0]
        : (await client.ok('GET', `${records}/${encodeURIComponent(args.id)}`)).record;
    if (!record)
      throw new SandboxConfigError(
        `connection ${connection.connectionId} has no ${type} record to ${change === 'updated' ? 'update' : 'delete'}: try ${kebab(type)}.created first`,
      );
    recordId = record.id;
    if (change === 'updated') await client.ok('PATCH', `${records}/${encodeURIComponent(recordId)}`, updateOf(type, record, new Date().toISOString()));
    else await client.ok('DELETE', `${records}/${encodeURIComponent(recordId)}`);
  }
  const eventType = { created: 'CREATE', updated: 'UPDATE', deleted: 'DELETE' }[change];
  return {
    ...connection,
    recordId,
    matches: ({ event }) =>
      event.type === 'OBJECT_CHANGE' && event.data.objectType === type && event.data.eventType === eventType && event.data.record.id === recordId,
  };
}

/** The fields a `created` trigger gives: none (generated), but an attendee's event, which it cannot be without. */
async function createFields(client: ServerClient, path: string, type: CrmObjectType): Promise<Record<string, unknown>> {
  if (type !== 'EventAttendee') return {};
  const [event] = (await client.ok('GET', `${path}/records/Event?limit=1`)).records;
  if (!event) throw new SandboxConfigError('an EventAttendee belongs to an Event, and this connection has none: trigger event.created first');
  return { associations: { eventId: event.id } };
}

/** The connection named, or the API key's newest. */
async function pickConnection(client: ServerClient, given: string | undefined): Promise<{ connectionId: string; integrationId: string }> {
  const { connections } = (await client.ok('GET', '/sandbox/connections')) as { connections: Array<{ connectionId: string; integrationId: string }> };
  if (given === undefined) {
    const newest = connections.at(-1);
    if (!newest) {
      throw new SandboxConfigError(
        `API key ${client.apiKey} has no connection on ${client.url} yet: link one (crm-sandbox trigger connection.new, or the README's curl session)`,
      );
    }
    return newest;
  }
  const connection = connections.find((candidate) => candidate.connectionId === given);
  if (!connection) {
    const near = closest(
      given,
      connections.map((candidate) => candidate.connectionId),
    );
    throw new SandboxConfigError(
      `${flagName('connection')} ${given} is no connection of API key ${client.apiKey} on ${client.url}${near ? `; did you mean ${near}?` : ''}`,
    );
  }
  return connection;
}

/**
 * Finds the event the write made in its connection's log, says it, and follows its delivery for
 * `waitMs`: accepted, failed, or waiting (for a webhook; or on a retry, its own or that of the event
 * it waits behind, which is then retried now, again every {@link RETRY_EVERY_MS} while it is
 * refused: a receiver being started or fixed meanwhile gets it). Resolves with the delivery as it
 * last stood.
 */
async function outcome(client: ServerClient, fired: Fired, waitMs: number, say: (line: string) => void): Promise<Delivery | undefined> {
  const deliveries = async () => (await client.ok('GET', `/sandbox/connections/${fired.connectionId}/deliveries`)).deliveries as Delivery[];
  const mine = (await deliveries()).findLast(fired.matches);
  const on = `on connection ${fired.connectionId} (${fired.integrationId})${fired.recordId ? `: record ${fired.recordId}` : ''}`;
  if (!mine) {
    say(`no event fired ${on}: the server emits Email changes only when it runs with --email-events`);
    return undefined;
  }
  say(`fired ${eventWords(eventSummary(mine.event))} ${mine.eventId} ${on}`);
  const deadline = Date.now() + waitMs;
  const told = new Set<string>();
  const once = (line: string) => {
    if (!told.has(line)) say(line);
    told.add(line);
  };
  let retriedAt = Number.NEGATIVE_INFINITY;
  let delivery = mine;
  for (;;) {
    const last = delivery.attempts.at(-1);
    if (delivery.state === 'succeeded' && last) {
      say(`delivered to ${last.webhookUrl}: ${last.status} in ${last.durationMs}ms (attempt ${last.attempt}${last.trigger === 'schedule' ? '' : ', by hand'})`);
      return delivery;
    }
    if (delivery.state === 'failed') {
      say(`not accepted by ${last?.webhookUrl ?? 'the receiver'}: ${delivery.failureReason}; last answer ${last?.status ?? last?.error}`);
      return delivery;
    }
    // What it waits on: its own retry, or the retrying event it waits behind.
    let held: Delivery | undefined;
    if (delivery.state === 'retrying') {
      held = delivery;
      once(`not accepted: ${last?.status ?? last?.error} (attempt ${last?.attempt})${last?.status === 404 ? `; ${notFoundHint(last.webhookUrl)}` : ''}`);
    } else if (delivery.state === 'pending') {
      const why = await heldBy(client, fired.connectionId, delivery.eventId);
      if (why === 'no webhook') {
        say(
          `waits: connection ${fired.connectionId} has no webhook yet (crm-sandbox listen --forward-to URL points it at your receiver, or POST /connection/webhook)`,
        );
        return delivery;
      }
      held = why;
      if (held) once(`waits behind ${held.eventId}, which ${retryStory(held)}`);
    }
    if (held && Date.now() - retriedAt >= RETRY_EVERY_MS && Date.now() < deadline) {
      retriedAt = Date.now();
      const { deliveries: retried } = (await client.ok('POST', `/sandbox/connections/${fired.connectionId}/deliveries/retry`)) as { deliveries: Delivery[] };
      for (const again of retried) {
        const answer = again.attempts.at(-1);
        say(`retried ${again.eventId} now: ${answer?.status ?? answer?.error}${again.state === 'succeeded' ? ', accepted' : ''}`);
      }
    }
    if (Date.now() >= deadline) {
      say(
        `not accepted within ${flagName('wait')} ${waitMs}ms: ${delivery.eventId} is ${delivery.state}${held && held !== delivery ? ` behind ${held.eventId}` : ''} (fix the receiver, then trigger again, or the inspector's Retry now)`,
      );
      return delivery;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    delivery = (await client.ok('GET', `/sandbox/deliveries/${delivery.eventId}`)).delivery as Delivery;
  }
}

/** What holds a pending event back: no webhook, the retrying event it waits behind, or nothing yet (it is next). */
async function heldBy(client: ServerClient, connectionId: string, eventId: string): Promise<'no webhook' | Delivery | undefined> {
  const { connection } = await client.ok('GET', `/sandbox/connections/${connectionId}`);
  if (!connection.webhook) return 'no webhook';
  const { deliveries } = (await client.ok('GET', `/sandbox/connections/${connectionId}/deliveries?state=retrying`)) as { deliveries: Delivery[] };
  return deliveries.find((delivery) => delivery.eventId !== eventId);
}

/** `failed 3 times (last answer 401)`. */
function retryStory(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  const times = delivery.attempts.length === 1 ? 'once' : `${delivery.attempts.length} times`;
  return `failed ${times}${last ? ` (last answer ${last.status ?? last.error})` : ''}`;
}
