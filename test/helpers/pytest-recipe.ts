import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks } from './markdown.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The section of docs/other-languages.md its checks read (the readme test holds them to it). */
export const PYTEST_SECTION = 'pytest';

/**
 * The pytest recipe of docs/other-languages.md, as written: each Python block of its "pytest"
 * section saved under the name its first line gives (`# conftest.py`), in a new folder. Returns
 * the folder and the file names.
 */
export function writePytestRecipe(): { dir: string; files: string[] } {
  const blocks = fencedBlocks('docs/other-languages.md', readFileSync(join(ROOT, 'docs/other-languages.md'), 'utf8')).filter(
    (block) => block.heading === PYTEST_SECTION && block.lang === 'python',
  );
  const dir = mkdtempSync(join(tmpdir(), 'crm-sandbox-pytest-'));
  const files = blocks.map((block) => {
    const name = /^# (\S+\.py)\n/.exec(block.body)?.[1];
    if (!name) throw new Error(`docs/other-languages.md:${block.line}: a pytest block starts with # <file>.py`);
    writeFileSync(join(dir, name), block.body);
    return name;
  });
  return { dir, files };
}
