import * as z from 'zod';
import { type EngagementObject, engagementObjectOf } from '../unified/engagement-objects.js';
import type { SandboxApi } from './api.js';
import { defineTool, jsonOf, passOn, segment, type Tool } from './tool.js';

/**
 * Tools over the unified engagement objects a coding agent scripts: contacts (list, search, get,
 * create, update), sequences (list, start) and the mailboxes a start sends from, each declared
 * from the object's description (src/unified/engagement-objects.ts) and calling its route with the
 * connection's accessToken, so it answers what the HTTP API answers.
 */

const connectionId = z.string().min(1).describe('A connectionId of this API key, of an Outreach, Salesloft or Apollo connection');
const id = z.string().min(1).describe('The record’s id: 32 hex characters');
const limit = z.number().int().optional().describe('Page size, 1 to 200 (default 100)');
const cursor = z.string().optional().describe("The previous page's nextPageCursor (null on the last page)");
const allFields = z.boolean().optional().describe('Also answer each record in its platform’s native shape, as additional');

async function accessTokenOf(api: SandboxApi, connection: string): Promise<string> {
  return (jsonOf(await api.request('GET', `/sandbox/connections/${segment(connection)}`)).connection as { accessToken: string }).accessToken;
}

/** The object's fields, for the descriptions: what a write takes. */
const writable = (object: EngagementObject, mode: 'create' | 'update') => [...(object[mode] ?? []).map((input) => input.key), 'additional'].join(', ');

function toolsOf(object: EngagementObject): Tool[] {
  const tools: Tool[] = [];
  const has = (operation: string) => object.operations.includes(operation as never);
  const path = (segment: string) => `/engagement/${segment}`;
  if (has('list')) {
    tools.push(
      defineTool({
        name: `list_engagement_${object.listKey}`,
        title: `List engagement ${object.listKey}`,
        description: `GET ${path(object.many)}: a page of the connection's ${object.listKey}, oldest first: { ${object.listKey}, nextPageCursor } (null on the last page; pass it as cursor).`,
        input: z.strictObject({ connectionId, limit, cursor, allFields }),
        readOnly: true,
        run: async (args, { api }) =>
          passOn(
            await api.request('GET', path(object.many), {
              query: {
                accessToken: await accessTokenOf(api, args.connectionId),
                limit: args.limit,
                cursor: args.cursor,
                allFields: args.allFields === undefined ? undefined : String(args.allFields),
              },
            }),
          ),
      }),
    );
  }
  if (has('search')) {
    tools.push(
      defineTool({
        name: `search_engagement_${object.listKey}`,
        title: `Search engagement ${object.listKey}`,
        description:
          `POST ${path(`${object.many}/search`)}: the ${object.listKey} that match every filter, e.g. { "emails": { "address": { "equals": "ada@acme.example" } } } or { "lastName": { "startsWith": "Lo" } }. ` +
          `Filters: ${[...(object.filters ?? []), ...(object.listFilters ?? [])].map((filter) => filter.key).join(', ')}. Answers { ${object.listKey}, nextPageCursor }.`,
        input: z.strictObject({ connectionId, filters: z.record(z.string(), z.unknown()).describe('Per field, an object of operators'), limit, cursor }),
        readOnly: true,
        run: async (args, { api }) =>
          passOn(
            await api.request('POST', path(`${object.many}/search`), {
              body: { accessToken: await accessTokenOf(api, args.connectionId), filters: args.filters, limit: args.limit, cursor: args.cursor },
            }),
          ),
      }),
    );
  }
  if (has('get')) {
    tools.push(
      defineTool({
        name: `get_engagement_${object.key}`,
        title: `Get an engagement ${object.key}`,
        description: `GET ${path(object.one!)}: one ${object.name} by id. Answers { ${object.key} }.`,
        input: z.strictObject({ connectionId, id, allFields }),
        readOnly: true,
        run: async (args, { api }) =>
          passOn(
            await api.request('GET', path(object.one!), {
              query: {
                accessToken: await accessTokenOf(api, args.connectionId),
                id: args.id,
                allFields: args.allFields === undefined ? undefined : String(args.allFields),
              },
            }),
          ),
      }),
    );
  }
  for (const mode of ['create', 'update'] as const) {
    if (!has(mode)) continue;
    const fields = z.record(z.string(), z.unknown()).describe(`The ${object.name}'s fields: ${writable(object, mode)}`);
    tools.push(
      defineTool({
        name: `${mode}_engagement_${object.key}`,
        title: `${mode === 'create' ? 'Create' : 'Update'} an engagement ${object.key}`,
        description:
          `${mode === 'create' ? 'POST' : 'PATCH'} ${path(object.one!)}: ${mode === 'create' ? 'creates' : 'changes'} a ${object.name} in the platform (natively visible; a contact's write is an OBJECT_CHANGE event). ` +
          'Answers { id }; fields not written are named in the answer header x-sandbox-ignored-fields.',
        input: mode === 'create' ? z.strictObject({ connectionId, fields }) : z.strictObject({ connectionId, id, fields }),
        run: async (args, { api }) => {
          const accessToken = await accessTokenOf(api, args.connectionId);
          const body = { accessToken, ...('id' in args ? { id: args.id } : {}), [object.key]: args.fields };
          return passOn(await api.request(mode === 'create' ? 'POST' : 'PATCH', path(object.one!), { body }));
        },
      }),
    );
  }
  if (has('start')) {
    tools.push(
      defineTool({
        name: `start_engagement_${object.key}`,
        title: 'Start a contact on a sequence',
        description:
          `POST ${path(`${object.one}/start`)}: starts a contact on the sequence, sending from a mailbox (list_engagement_mailboxes), as the platform enrols it (an Outreach sequence state, a Salesloft cadence membership, an Apollo contact campaign status). ` +
          'A disabled sequence, an unknown contact or mailbox, a contact already in it: a 400 naming the field. Answers { id } of the new sequence state (an action).',
        input: z.strictObject({
          connectionId,
          sequenceId: id.describe('The sequence (list_engagement_sequences)'),
          contactId: id.describe('The contact'),
          mailboxId: id.describe('The mailbox it sends from'),
        }),
        run: async (args, { api }) =>
          passOn(
            await api.request('POST', path(`${object.one}/start`), {
              body: {
                accessToken: await accessTokenOf(api, args.connectionId),
                id: args.sequenceId,
                fields: { contactId: args.contactId, mailboxId: args.mailboxId },
              },
            }),
          ),
      }),
    );
  }
  return tools;
}

/** The engagement tools, in the order `tools/list` gives them. */
export const ENGAGEMENT_TOOLS: readonly Tool[] = ['Contact', 'Sequence', 'Mailbox'].flatMap((name) => toolsOf(engagementObjectOf(name)));
