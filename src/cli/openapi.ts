import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { readUrl } from './flags.js';

/** Writes and waits until it is flushed, so a piped document is never cut by the exit. */
const write = (text: string) => new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));

const builder = (yargs: Argv) =>
  yargs
    .option('server-url', {
      type: 'string',
      requiresArg: true,
      default: 'http://127.0.0.1:4010',
      describe: "The document's servers[0].url: where your dev server listens",
      coerce: (value) => readUrl('server-url', value),
    })
    .option('compact', { type: 'boolean', default: false, describe: 'One line of JSON instead of indented JSON' })
    .example('$0 openapi > openapi.json', 'Save the document, e.g. for a client generator or an API tool import')
    .example('$0 openapi --server-url http://127.0.0.1:8080', 'For a dev server on another port');

type OpenApiArgs = ReturnType<typeof builder> extends Argv<infer T> ? T : never;

/**
 * `crm-sandbox openapi`: prints the OpenAPI 3.1 document (the same as `GET /openapi.json`).
 * The document's module is imported here, in the handler, so `serve` never loads it.
 *
 * @example crm-sandbox openapi > openapi.json
 */
export const openApiCommand: CommandModule<object, OpenApiArgs> = {
  command: 'openapi',
  describe: 'Print the OpenAPI 3.1 document of the endpoints, the control API and the webhook events',
  builder,
  handler: async (args: ArgumentsCamelCase<OpenApiArgs>) => {
    const { buildOpenApiDocument } = await import('../core/openapi/build-document.js');
    const document = buildOpenApiDocument({ serverUrl: args.serverUrl });
    await write(`${JSON.stringify(document, null, args.compact ? undefined : 2)}\n`);
  },
};
