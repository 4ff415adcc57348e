import * as z from 'zod';
import { ApiError } from '../shared/errors.js';
import { parseOrThrow } from '../shared/validation.js';
import { type ApiAnswer, type SandboxApi, ToolError } from './api.js';

/** What a tool answers: JSON text, and whether a client also gets it parsed as `structuredContent`. */
export interface ToolAnswer {
  text: string;
  /** False for the big answers (a snapshot, a scenario report), which a client should not get twice. */
  structured: boolean;
}

/** What every tool call may use besides its arguments. */
export interface ToolContext {
  api: SandboxApi;
  /** Snapshots kept in this MCP server by name (`snapshot` with a name, `restore` by name). */
  snapshots: Map<string, unknown>;
  /** The URL the in-process sandbox is also served on (`--port`), or the `--server` URL. */
  url: string | undefined;
}

/** What MCP's `tools/call` answers: a CallToolResult. */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** The arguments: a strict object, so an unknown argument is named in a tool error. Its JSON Schema is the tool's inputSchema. */
  input: z.ZodObject;
  /** Hints for clients (MCP tool annotations): reads are safe to run without asking. */
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: false };
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolAnswer>;
}

/** A tool, typed by its arguments' schema. */
export function defineTool<S extends z.ZodObject>(definition: {
  name: string;
  title: string;
  description: string;
  input: S;
  /** A read: changes nothing. Otherwise a write, after which the in-process sandbox settles (see {@link callTool}). */
  readOnly?: boolean;
  /** Drops or replaces state (reset, restore, delete). */
  destructive?: boolean;
  run(args: z.infer<S>, context: ToolContext): Promise<ToolAnswer>;
}): Tool {
  const { readOnly = false, destructive, run, ...rest } = definition;
  return {
    ...rest,
    annotations: { readOnlyHint: readOnly, ...(readOnly ? {} : { destructiveHint: destructive ?? false }), openWorldHint: false },
    run: run as Tool['run'],
  };
}

/** The JSON of an answer, or its error as a {@link ToolError} (the API's status and error body). */
export function jsonOf(answer: ApiAnswer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(answer.text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ToolError(answer.status, {
      message: `the API answered ${answer.status} with something that is not a JSON object: ${JSON.stringify(answer.text.slice(0, 200))}`,
      errorCode: 'UNEXPECTED_ANSWER',
    });
  }
  const body = value as Record<string, unknown>;
  if (answer.status < 200 || answer.status > 299) {
    const { message, errorCode, metadata } = body as { message?: unknown; errorCode?: unknown; metadata?: Record<string, unknown> };
    throw new ToolError(answer.status, {
      message: typeof message === 'string' ? message : `the API answered ${answer.status}`,
      ...(typeof errorCode === 'string' ? { errorCode } : {}),
      ...(metadata === undefined ? {} : { metadata }),
    });
  }
  return body;
}

/** A 2xx answer passed on as sent (the very text the HTTP API answers); another is a {@link ToolError}. */
export function passOn(answer: ApiAnswer, structured = true): ToolAnswer {
  jsonOf(answer);
  return { text: answer.text, structured };
}

/** A value of the tool's own, as JSON text. */
export function answerWith(value: Record<string, unknown>, structured = true): ToolAnswer {
  return { text: JSON.stringify(value), structured };
}

/** A path segment: ids go into paths encoded, so `../x` is an id that does not exist, not another route. */
export const segment = (value: string) => encodeURIComponent(value);

/**
 * Runs a tool call and answers it as MCP's CallToolResult; it never throws. Arguments are checked
 * against the tool's schema first, with the API's own checker: a bad one is the 400
 * `INVALID_FIELD_VALUE` the API answers for a bad field, naming it. Every failure is a tool error
 * (`isError: true`) whose text is the API's error body (and its status): a bad argument, an
 * error the API answered, a server out of reach; a bug is an `INTERNAL_ERROR` (and its stack on
 * stderr). After a write, an in-process sandbox settles (the deliveries it started have made
 * their attempt), so the next call sees what the receiver answered.
 */
export async function callTool(tool: Tool, args: unknown, context: ToolContext): Promise<ToolResult> {
  try {
    const parsed = parseOrThrow(tool.input, args ?? {});
    let answer: ToolAnswer;
    try {
      answer = await tool.run(parsed, context);
    } finally {
      if (!tool.annotations.readOnlyHint) await context.api.sandbox?.settle();
    }
    return {
      content: [{ type: 'text', text: answer.text }],
      ...(answer.structured ? { structuredContent: JSON.parse(answer.text) as Record<string, unknown> } : {}),
    };
  } catch (error) {
    const text = asToolError(error).toJson();
    return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown>, isError: true };
  }
}

function asToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof ApiError) return new ToolError(error.status, error.toBody());
  console.error('crm-sandbox mcp: internal error:', error);
  return new ToolError(500, ApiError.internal().toBody());
}

/** The JSON Schema of a tool's arguments, as `tools/list` gives it (zod's draft 2020-12, without its `$schema`). */
export function inputJsonSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return schema;
}
