import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN } from './cli.js';

/** A tool's answer: its text, parsed, and whether it is a tool error. */
export interface ToolCall {
  isError: boolean;
  text: string;
  json: any;
  structuredContent: unknown;
}

/** `crm-sandbox mcp` spawned as an MCP client does (`node bin/crm-sandbox.js mcp …` over stdio), with the SDK's own client. */
export interface McpSession {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  /** Errors the client met reading the server (a line on stdout that is not the protocol's would be one). */
  errors: Error[];
  call(name: string, args?: Record<string, unknown>): Promise<ToolCall>;
  /** Closes stdin, as a client does when it stops; the server should exit by itself. */
  close(): Promise<void>;
}

/** How the client starts the server: by default this checkout's built CLI (`node bin/crm-sandbox.js mcp`). */
export interface McpCommand {
  command: string;
  /** The arguments before startMcp's own. */
  args: string[];
  cwd?: string;
}

export async function startMcp(
  args: string[],
  env: Record<string, string> = {},
  launch: McpCommand = { command: process.execPath, args: [BIN, 'mcp'] },
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: launch.command,
    args: [...launch.args, ...args],
    ...(launch.cwd ? { cwd: launch.cwd } : {}),
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'crm-sandbox-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`crm-sandbox mcp did not start: ${(error as Error).message}\n${stderr}`);
  }
  return {
    client,
    stderr: () => stderr,
    errors,
    async call(name, callArgs = {}) {
      const result = await client.callTool({ name, arguments: callArgs });
      const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
      return { isError: result.isError === true, text, json: JSON.parse(text), structuredContent: result.structuredContent };
    },
    close: () => client.close(),
  };
}

/** One request to a dev server, answered as status and JSON text (as a tool passes it on). */
export async function httpCall(url: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
  const response = await fetch(url + path, {
    method,
    headers: { 'service-api-token': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) };
}

/** The error a tool answers for an HTTP error answer: its status, then the API's error body. */
export const errorOf = (answer: { status: number; json: Record<string, unknown> }) => ({ status: answer.status, ...answer.json });
