import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // examples/ are the copyable suites of the README; they import the built package (npm test builds first).
    // Unit tests reach the core without an entry module: set Node's platform as the Node entry does.
    setupFiles: ['test/setup/node-platform.ts'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Real servers and spawned CLIs: generous timeouts, but no test asserts on time.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
