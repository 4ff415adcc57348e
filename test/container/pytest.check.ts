import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { writePytestRecipe } from '../helpers/pytest-recipe.js';
import { IMAGE, podman } from './podman.js';

/**
 * docs/other-languages.md, section "pytest": its conftest.py and test_crm.py as written, run with
 * Debian's python3-pytest against the image (CRM_SANDBOX_IMAGE, CONTAINER_CLI=podman): it runs the
 * container on a loopback port, waits for health, passes both tests and stops the container.
 */
describe('the pytest recipe with the image', () => {
  it('runs the image, passes both tests, and leaves no container behind', async () => {
    const before = (await podman('ps', '-aq')).stdout;
    const { dir } = writePytestRecipe();
    const ran = spawnSync('/usr/bin/python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], {
      cwd: dir,
      env: { ...process.env, CRM_SANDBOX_IMAGE: IMAGE, CONTAINER_CLI: 'podman' },
      encoding: 'utf8',
    });
    expect(ran.status, `${ran.stdout}${ran.stderr}`).toBe(0);
    expect(ran.stdout).toMatch(/^2 passed in /m);
    expect((await podman('ps', '-aq')).stdout).toBe(before);
  });
});
