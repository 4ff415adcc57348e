import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without types
import { inspectorBundle } from '../scripts/build-ui.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The inspector's bundle as the build makes it (scripts/build-ui.mjs), in memory: its text and the files it took in. */
async function bundle(): Promise<{ text: string; inputs: string[] }> {
  const result = await build({ ...inspectorBundle, write: false, metafile: true, outfile: 'inspector.js', absWorkingDir: root });
  return { text: result.outputFiles![0]!.text, inputs: Object.keys(result.metafile!.inputs).map((input) => relative(root, input).split('\\').join('/')) };
}

describe("the inspector's browser bundle (dist/ui/inspector.js)", () => {
  it("takes in its own modules and the model's plain constant modules only: no zod, no package at all", async () => {
    const { text, inputs } = await bundle();
    expect(inputs).toContain('src/ui/inspector/main.ts');
    expect(inputs).toContain('src/model/crm-object-types.ts');
    expect(inputs).toContain('src/model/connection-statuses.ts');
    expect(inputs.filter((input) => !input.startsWith('src/ui/inspector/') && !input.startsWith('src/model/'))).toEqual([]);
    expect(inputs.filter((input) => input.includes('node_modules') || input.includes('zod'))).toEqual([]);
    expect(text).not.toMatch(/zod/i);
  });
});
