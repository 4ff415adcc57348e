import { defineConfig } from 'vitest/config';

/**
 * The checks of the single executables (`.ci/run` runs them after `npm run build:binaries`): not
 * part of `npm test`, whose pattern (*.test.ts) they do not match, since they need the binaries
 * built (test/binaries/binaries.ts says which and where). One file at a time: a binary under qemu
 * takes a core of the two.
 */
export default defineConfig({
  test: {
    include: ['test/binaries/*.check.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
