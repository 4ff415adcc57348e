import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Real servers and spawned CLIs: generous timeouts, but no test asserts on time.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
