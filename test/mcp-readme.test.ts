import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { documentedFiles, fencedBlocks } from './helpers/markdown.js';
import { type McpSession, startMcp } from './helpers/mcp-client.js';
import { Receiver } from './helpers/receiver.js';

/**
 * The README's section "For coding agents: crm-sandbox mcp" and its page, docs/mcp.md, run: the
 * README's MCP client configuration starts the server (the built CLI instead of `npx crm-sandbox`,
 * and port 4010 as 0, as test/readme.test.ts moves fixed ports), and the page's conversation's
 * tool calls are made in order, each answer matched against the one shown (`…` stands for
 * anything), with a receiver in the place of "my app on port 3000" that answers 500 to the deal's
 * event until the user says it is fixed.
 */
const SECTION = 'For coding agents: crm-sandbox mcp';
/** The blocks this test runs (marked `tested-by test/mcp-readme.test.ts`), in the README and its pages, in their order. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const blocks = documentedFiles(ROOT)
  .flatMap((file) => fencedBlocks(file, readFileSync(join(ROOT, file), 'utf8')))
  .filter((block) => block.marker?.kind === 'tested-by' && block.marker.argument === 'test/mcp-readme.test.ts');

let session: McpSession | undefined;
let app: Receiver | undefined;
afterAll(async () => {
  await session?.close();
  await app?.stop();
});

/** `<name>`: the first value of the key `name` in the newest answer that has one. */
function fill(text: string, answers: unknown[]): string {
  return text.replace(/<(\w+)>/g, (whole, key: string) => {
    for (const answer of [...answers].reverse()) {
      const found = find(answer, key);
      if (found !== undefined) return String(found);
    }
    throw new Error(`nothing earlier answered ${whole}`);
  });
}
function find(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  if (!Array.isArray(value) && key in value) return (value as Record<string, unknown>)[key];
  for (const item of Object.values(value)) {
    const found = find(item, key);
    if (found !== undefined) return found;
  }
  return undefined;
}
/** A shown answer as a pattern of the whole answer text. */
const pattern = (shown: string) =>
  new RegExp(
    `^${shown
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*?')}$`,
    's',
  );

it(`runs "${SECTION}": the README's client configuration, then the conversation's calls in docs/mcp.md`, async () => {
  expect(blocks.map((block) => `${block.file} ${block.lang} ${block.heading}`)).toEqual([`README.md json ${SECTION}`, `docs/mcp.md  ${SECTION}`]);
  const [config, conversation] = blocks;
  const server = JSON.parse(config!.body).mcpServers['crm-sandbox'] as { command: string; args: string[] };
  expect(server.command).toBe('npx');
  expect(server.args.slice(0, 2)).toEqual(['crm-sandbox', 'mcp']);

  app = await new Receiver().start();
  let fixed = false;
  app.behaviour = (request) => (!fixed && request.json.data?.objectType === 'Deal' && request.json.data?.eventType === 'CREATE' ? 500 : 204);
  session = await startMcp(server.args.slice(2).map((arg) => (arg === '4010' ? '0' : arg)));
  const localize = (text: string) => text.replaceAll('127.0.0.1:3000', `127.0.0.1:${app!.port}`);

  const answers: unknown[] = [];
  let last = '';
  let calls = 0;
  for (const line of conversation!.body.trim().split('\n')) {
    if (line.startsWith('> ')) {
      if (/fixed/.test(line)) fixed = true;
      continue;
    }
    if (line.startsWith('→ ')) {
      expect(last, `the answer shown for the call before: ${line}`).toMatch(pattern(localize(line.slice(2))));
      continue;
    }
    const call = /^(\w+) (\{.*\})$/.exec(line);
    expect(call, line).not.toBeNull();
    const result = await session.call(call![1]!, JSON.parse(localize(fill(call![2]!, answers))));
    expect(result.isError, `${line}: ${result.text}`).toBe(false);
    answers.push(result.json);
    last = result.text;
    calls++;
  }
  expect(calls).toBe(5);
  // The app got the deal's event twice: refused, then accepted when it was sent again.
  expect(
    app
      .events()
      .filter((event) => event.data.objectType === 'Deal')
      .map((event) => event.data.eventType),
  ).toEqual(['CREATE', 'CREATE']);
});
