import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // examples/ are the copyable suites of the README; they import the built package (npm test builds first).
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Real servers and spawned CLIs: generous timeouts, but no test asserts on time.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
