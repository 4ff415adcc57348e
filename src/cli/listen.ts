import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { DEFAULT_API_KEY } from '../core/options.js';
import { closest } from '../shared/closest.js';
import { SandboxConfigError } from '../shared/errors.js';
import type { FedAttempt } from '../webhooks/attempt-feed.js';
import { attemptLine } from './delivery-line.js';
import { flagName, readList, readText, readUrl } from './flags.js';
import { ServerClient, ServerUnreachable } from './server-client.js';

/** The options of the commands that drive a running dev server (`listen`, `trigger`). */
export const SERVER_CLIENT_OPTIONS = {
  server: {
    requiresArg: true,
    default: 'http://127.0.0.1:4010',
    describe: 'The running dev server (crm-sandbox serve)',
    coerce: (value: unknown) => readUrl('server', value).replace(/\/+$/, ''),
  },
  'api-key': {
    requiresArg: true,
    default: DEFAULT_API_KEY,
    describe: 'service-api-token to act as (of a comma-separated list, the first)',
    coerce: (value: unknown) => readList('api-key', value)[0]!,
  },
} as const;

/** `--connection ID`, with what it means in the command. */
export const connectionOption = (describe: string) =>
  ({ requiresArg: true, type: 'string', describe, coerce: (value: unknown) => readText('connection', value).trim() }) as const;

/** How long one read of the attempts waits on the server for a new one (it answers at once when there is one). */
const WAIT = '25s';
/** How often `--forward-to` looks for connections linked since it started. */
const NEW_CONNECTIONS_EVERY_MS = 1_000;
/** How often a lost server is tried again. */
const RETRY_EVERY_MS = 1_000;

const builder = (yargs: Argv) =>
  yargs
    .options(SERVER_CLIENT_OPTIONS)
    .option('connection', connectionOption("Only this connection's deliveries [default: every connection of the API key]"))
    .option('forward-to', {
      requiresArg: true,
      type: 'string',
      describe:
        "Point the webhook of the connection (or of every one, those linked while it runs too) at this URL, your receiver's: the events go there, and each attempt is printed",
      coerce: (value: unknown) => readUrl('forward-to', value),
    })
    .option('json', { type: 'boolean', default: false, describe: 'One JSON object per attempt (GET /sandbox/attempts), for tools' })
    .example('$0 listen', 'Print every delivery attempt of the dev server on http://127.0.0.1:4010, as it happens')
    .example('$0 listen --forward-to http://127.0.0.1:3000/webhooks', "Send every connection's events to your receiver, and print each attempt")
    .example('$0 listen --connection <id> --json', "One connection's attempts as lines of JSON")
    .epilogue('Each line: time, event, eventId and connection (short), the answer and its time, and the attempt with what comes next. Ctrl+C stops.');

type ListenArgs = ReturnType<typeof builder> extends Argv<infer T> ? T : never;

interface Connection {
  connectionId: string;
  integrationId: string;
  webhook: { webhookUrl: string } | null;
}

/** `HH:MM:SS` of now, local time, as a terminal shows it. */
const clockTime = () => new Date().toTimeString().slice(0, 8);

/**
 * `crm-sandbox listen`: what the dev server delivers, a line per attempt as it happens, read from
 * its attempt feed (GET /sandbox/attempts, which waits for the next one); with `--forward-to`,
 * first points the webhooks at your receiver. Lines go to stdout, what it does to stderr.
 */
export const listenCommand: CommandModule<object, ListenArgs> = {
  command: 'listen',
  describe: "Print each webhook delivery attempt of a running dev server as it happens; --forward-to points the connections' webhooks at your receiver",
  builder,
  handler: async (args: ArgumentsCamelCase<ListenArgs>) => {
    const client = new ServerClient(args.server, args.apiKey);
    const say = (line: string) => process.stderr.write(`${line}\n`);
    const { connections } = (await client.ok('GET', '/sandbox/connections')) as { connections: Connection[] };
    if (args.connection !== undefined && !connections.some((connection) => connection.connectionId === args.connection)) {
      const near = closest(
        args.connection,
        connections.map((connection) => connection.connectionId),
      );
      const known = connections.length === 0 ? 'it has none yet' : `its connections: ${connections.map((connection) => connection.connectionId).join(', ')}`;
      throw new SandboxConfigError(
        `${flagName('connection')} ${args.connection} is no connection of API key ${args.apiKey} on ${args.server}${near ? `; did you mean ${near}?` : ''} (${known})`,
      );
    }
    const forwarded = new Set<string>();
    const forward = async (list: Connection[]) => {
      if (args.forwardTo === undefined) return;
      for (const connection of list) {
        if (forwarded.has(connection.connectionId) || (args.connection !== undefined && connection.connectionId !== args.connection)) continue;
        forwarded.add(connection.connectionId);
        const before = connection.webhook?.webhookUrl;
        if (before === args.forwardTo) {
          say(`connection ${connection.connectionId} (${connection.integrationId}) already delivers to ${args.forwardTo}`);
          continue;
        }
        const { connection: full } = await client.ok('GET', `/sandbox/connections/${connection.connectionId}`);
        await client.ok('POST', '/connection/webhook', { accessToken: full.accessToken, webhook: { webhookUrl: args.forwardTo } });
        say(
          `forwarding connection ${connection.connectionId} (${connection.integrationId}) to ${args.forwardTo}${before ? ` (its webhook was ${before})` : ''}`,
        );
      }
    };
    await forward(connections);
    const which = args.connection === undefined ? 'every connection' : `connection ${args.connection}`;
    say(`listening to ${args.server} for the deliveries of ${which} of API key ${args.apiKey}; Ctrl+C stops`);

    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    // Connections linked while it runs get the webhook too.
    const watcher =
      args.forwardTo !== undefined && args.connection === undefined
        ? setInterval(() => {
            client.call('GET', '/sandbox/connections').then(
              (answer) => (answer.status === 200 ? forward(answer.body.connections) : undefined),
              () => undefined,
            );
          }, NEW_CONNECTIONS_EVERY_MS)
        : undefined;
    const query = args.connection === undefined ? '' : `&connectionId=${encodeURIComponent(args.connection)}`;
    try {
      await follow(
        client,
        query,
        stop.signal,
        (attempt) => {
          process.stdout.write(args.json ? `${JSON.stringify(attempt)}\n` : `${clockTime()}  ${attemptLine(attempt)}\n`);
        },
        say,
      );
    } finally {
      clearInterval(watcher);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

/**
 * Reads the server's attempt feed from now until `signal` aborts, handing each attempt to `print`:
 * each read waits on the server for the next attempt. A server that stops answering is tried again
 * every second (said once, and again when it is back); one that was restarted is read from its start.
 */
async function follow(client: ServerClient, query: string, signal: AbortSignal, print: (attempt: FedAttempt) => void, say: (line: string) => void) {
  // Where the feed stands when listen starts: the first read, which a server lost meanwhile makes wait for it like any other.
  let after: number | undefined;
  let lost = false;
  while (!signal.aborted) {
    let answer: { status: number; body: { attempts: FedAttempt[]; next: number; missed: number } };
    try {
      // Back from a lost server, the first read waits for nothing: the line that says so comes at once.
      const path = after === undefined ? '/sandbox/attempts' : `/sandbox/attempts?after=${after}${lost ? '' : `&wait=${WAIT}`}${query}`;
      answer = await client.call('GET', path, undefined, signal);
    } catch (error) {
      if (signal.aborted) return;
      if (!(error instanceof ServerUnreachable)) throw error;
      if (!lost) say(`lost the server at ${client.url} (${error.code}); trying again every second`);
      lost = true;
      await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
      continue;
    }
    if (answer.status !== 200)
      throw new SandboxConfigError(`GET /sandbox/attempts answered ${answer.status}: ${(answer.body as { message?: string }).message ?? ''}`);
    if (lost) say(`the server at ${client.url} answers again`);
    lost = false;
    const { attempts, next, missed } = answer.body;
    if (after !== undefined) {
      if (missed > 0) say(`… ${missed} attempt${missed === 1 ? '' : 's'} not shown: more were made since the last read than the server keeps`);
      for (const attempt of attempts) print(attempt);
    }
    after = next;
  }
}
