import { readdirSync, readFileSync, type Stats, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FixtureFileContent } from '../model/platform.js';
import { SandboxConfigError } from '../shared/errors.js';

/** The fixtures shipped with the package (`fixtures/` at its root). */
export const BUNDLED_FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/**
 * Reads a fixture path for the core: every `*.json` of a directory (by name), or one file,
 * parsed. A missing path or bad JSON throws a SandboxConfigError naming the file.
 *
 * @example loadFixtures(['./fixtures'], readFixturePath)
 */
export function readFixturePath(path: string): FixtureFileContent[] {
  return jsonFilesIn(path).map((file) => {
    try {
      return { source: displayPath(file), content: JSON.parse(readFileSync(file, 'utf8')) as unknown };
    } catch (error) {
      throw new SandboxConfigError(`fixture ${displayPath(file)}: not valid JSON (${(error as Error).message})`);
    }
  });
}

function jsonFilesIn(path: string): string[] {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    throw new SandboxConfigError(`fixtures: no such file or directory: ${path}`);
  }
  if (!stats.isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(path, name));
}

function displayPath(file: string): string {
  const fromCwd = relative(process.cwd(), file);
  return fromCwd.startsWith('..') ? file : fromCwd;
}
