import { defineConfig } from 'vitest/config';

/**
 * The container checks (`.ci/container` runs them after building the images): not part of
 * `npm test`, whose pattern (*.test.ts) they do not match. One file at a time: each starts
 * containers of its own and they share the machine's two cores with the image builds.
 */
export default defineConfig({
  test: {
    include: ['test/container/*.check.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
