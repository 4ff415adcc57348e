import { afterEach, describe, expect, it } from 'vitest';
import { type Cli, eventually, killAll, runCli } from './helpers/cli.js';

const spawned: Cli[] = [];
afterEach(() => killAll(spawned));

describe('crm-sandbox mcp, a stray line', () => {
  it('answers a line that is not JSON with a JSON-RPC parse error, and one that is no JSON-RPC message as an invalid request, then keeps serving', async () => {
    const cli = runCli(['mcp'], spawned);
    const answers = () =>
      cli
        .output()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { id: unknown; error?: { code: number; message: string }; result?: unknown });
    cli.child.stdin.write('hello there\n');
    cli.child.stdin.write('{"hello":1}\n');
    cli.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    cli.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
    await eventually(() => answers().length >= 4);
    const [parse, invalid, initialized, tools] = answers();
    expect(parse).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: a line that is not JSON \(/) } });
    expect(invalid).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) } });
    expect(initialized).toMatchObject({ id: 1, result: { serverInfo: { name: 'crm-sandbox' } } });
    expect((tools!.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toContain('link_connection');
    cli.child.stdin.end();
    expect(await cli.exited).toBe(0);
  });
});
