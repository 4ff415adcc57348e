// The MCP SDK's low-level server, not its McpServer: McpServer checks a tool's arguments itself
// and answers a bad one with zod's issues as text, where these tools answer the API's own 400
// (message, errorCode, the field named) through callTool. The SDK is bundled into a chunk of the
// CLI that only `crm-sandbox mcp` loads (scripts/bundle.mjs).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { SandboxApi } from './api.js';
import { listResources, readResource, UnknownResource } from './resources.js';
import { callTool, inputJsonSchema, type ToolContext } from './tool.js';
import { TOOLS } from './tools.js';

/** MCP's error code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A JSON-RPC error answered as is (the SDK sends a thrown error's `code`, `message` and `data`):
 * the SDK's McpError would put "MCP error -32602:" in the message, and clients add it again.
 */
class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** What an agent is told when it connects (the `instructions` of `initialize`). */
const INSTRUCTIONS = [
  'crm-sandbox: a local sandbox of a unified CRM and engagement integration service, for the code you write against that service.',
  'Every tool acts through the sandbox HTTP API with one API key (sandbox_info says which, and the URL your app calls) and answers what the API answers; an error is the API error body { status, message, errorCode, metadata }.',
  'Start with link_connection (or list_connections). Each record change and status move becomes a signed webhook event delivered to the webhook URL: list_deliveries, get_delivery and redeliver show and replay them.',
  'In-process the clock is virtual unless --port serves HTTP: time moves only with advance_clock (a new connection is READY after 10s; retries wait 10s, 1m, 5m, 30m, 2h, 6h, 12h on the virtual clock; 1s up to 5m on a real one, with --port).',
  'Resources: the OpenAPI document (every route and record schema), the scenario JSON Schema, the built-in scenarios.',
].join('\n');

export interface McpServerOptions {
  version: string;
  /** The URL the app calls, when the sandbox is served over HTTP. */
  url?: string | undefined;
  /** Why there is no sandbox to act on (every tool then answers it too): said first in `initialize`'s instructions. */
  problem?: string | undefined;
}

/** The MCP server of the tools and resources, acting through `api`. */
export function createMcpServer(api: SandboxApi, options: McpServerOptions): Server {
  const context: ToolContext = { api, snapshots: new Map(), url: options.url };
  const tools = new Map(TOOLS.map((tool) => [tool.name, tool]));
  const server = new Server(
    { name: 'crm-sandbox', title: 'crm-sandbox', version: options.version },
    // A server with no sandbox says why first, where a client shows the server's instructions.
    { capabilities: { tools: {}, resources: {} }, instructions: options.problem === undefined ? INSTRUCTIONS : `${options.problem}\n${INSTRUCTIONS}` },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputJsonSchema(tool),
      annotations: tool.annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.get(request.params.name);
    if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(request.params.name)}; tools: ${[...tools.keys()].join(', ')}`);
    return callTool(tool, request.params.arguments, context);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await listResources(api)).map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      const { resource, text } = await readResource(api, request.params.uri);
      return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text }] };
    } catch (error) {
      if (error instanceof UnknownResource) throw new ProtocolError(RESOURCE_NOT_FOUND, error.message, { uri: request.params.uri });
      throw error;
    }
  });
  return server;
}

/** Serves the tools over this process's stdin and stdout (which then carry nothing else). */
export async function serveOverStdio(api: SandboxApi, options: McpServerOptions): Promise<Server> {
  const server = createMcpServer(api, options);
  const transport = new StdioServerTransport();
  transport.onerror = (error) => answerUnreadable(transport, error);
  await server.connect(transport);
  return server;
}

/** JSON-RPC's codes for a line that is no JSON, and for JSON that is no JSON-RPC message. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * A line the transport could not read is answered as JSON-RPC 2.0 says (id null), and the server
 * goes on reading the next line: the SDK only reports it to `onerror` and answers nothing, so a
 * client that sent a stray line would wait forever.
 */
function answerUnreadable(transport: StdioServerTransport, error: Error): void {
  const answer = (code: number, message: string) => void transport.send({ jsonrpc: '2.0', id: null, error: { code, message } } as never).catch(() => undefined);
  if (error instanceof SyntaxError) answer(PARSE_ERROR, `Parse error: a line that is not JSON (${error.message}); send one JSON-RPC 2.0 message per line`);
  else if (error.name === 'ZodError')
    answer(INVALID_REQUEST, 'Invalid Request: a line of JSON that is not a JSON-RPC 2.0 message ({ jsonrpc: "2.0", id, method, params })');
}
