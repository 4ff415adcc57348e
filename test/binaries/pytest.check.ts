import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { writePytestRecipe } from '../helpers/pytest-recipe.js';
import { binaryPath, pathWithoutNode } from './binaries.js';

/**
 * docs/other-languages.md, section "pytest": its conftest.py and test_crm.py as written, run with
 * Debian's python3-pytest against the linux-x64 binary (CRM_SANDBOX_BIN), no node on PATH.
 */
describe('the pytest recipe with the linux-x64 binary', () => {
  it('starts the binary, waits for health, passes both tests and stops it', () => {
    const { dir, files } = writePytestRecipe();
    expect(files).toEqual(['conftest.py', 'test_crm.py']);
    const ran = spawnSync('/usr/bin/python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], {
      cwd: dir,
      env: { PATH: pathWithoutNode(), HOME: dir, CRM_SANDBOX_BIN: binaryPath('linux-x64') },
      encoding: 'utf8',
    });
    expect(ran.status, `${ran.stdout}${ran.stderr}`).toBe(0);
    expect(ran.stdout).toMatch(/^2 passed in /m);
  });
});
