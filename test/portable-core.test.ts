import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Everything but Node's own parts runs in browsers: no `node:` module and no Buffer there. What
// needs Node lives in src/node/ (the platform the Node entry passes to its sandboxes: file
// reading, the node:http transport; and the dev server), besides the parts that are Node
// programs by nature: the CLI, crm-sandbox/testing (its receiver is a node:http server), the
// CLI's MCP server (src/mcp: stdio, the SDK's, and the package's own scenario files) and
// crm-sandbox/testcontainers (Testcontainers runs in Node; it reads scenario files).
const root = new URL('../', import.meta.url).pathname;
const NODE_ONLY_FOLDERS = new Set(['src/node', 'src/cli', 'src/testing', 'src/mcp', 'src/testcontainers']);
/** The Node entries (`crm-sandbox` under the node condition, `crm-sandbox/server`); src/browser.ts and src/api.ts are portable. */
const NODE_ENTRIES = new Set(['src/index.ts', 'src/server.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return NODE_ONLY_FOLDERS.has(path) ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !NODE_ENTRIES.has(path) ? [path] : [];
  });
}

/** Each offending line, as `file:line: text`. */
function offences(file: string): string[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  return lines.flatMap((line, index) => {
    // Comments may name Buffer (to say what replaced it); code may not.
    const code = /^\s*(\*|\/\*)/.test(line) ? '' : line.replace(/\/\/.*$/, '');
    const nodeImport = /(?:from\s+|import\s*\(\s*|import\s+|require\s*\(\s*)['"](node:[^'"]+|fs|path|http|https|url|module|crypto|os|net)['"]/.test(code);
    const buffer = /\bBuffer\b/.test(code);
    return nodeImport || buffer ? [`${file}:${index + 1}: ${line.trim()}`] : [];
  });
}

describe('the portable core', () => {
  it('imports no node: module and uses no Buffer outside src/node, src/cli, src/testing, src/mcp, src/testcontainers and the Node entries', () => {
    const files = sourceFiles('src');
    // Every folder of src/ but the Node-only ones, the browser entry and the API it shares.
    for (const folder of ['adapters', 'client-check', 'clock', 'core', 'downstream', 'events', 'model', 'scenarios', 'shared', 'store', 'webhooks']) {
      expect(
        files.some((file) => file.startsWith(`src/${folder}/`)),
        folder,
      ).toBe(true);
    }
    expect(files).toEqual(expect.arrayContaining(['src/browser.ts', 'src/api.ts', 'src/scenarios/load.ts', 'src/adapters/msw.ts']));
    expect(files.filter((file) => file.startsWith('src/node/') || NODE_ENTRIES.has(file))).toEqual([]);
    expect(files.flatMap(offences)).toEqual([]);
  });

  it('catches an offending line (the scan is not vacuous)', () => {
    expect(offences('src/node/http-transport.ts').some((line) => line.includes("from 'node:http'"))).toBe(true);
    expect(offences('src/node/fixture-files.ts').length).toBeGreaterThan(0);
    expect(offences('src/node/dev-server.ts').some((line) => line.includes('Buffer'))).toBe(true);
  });
});
