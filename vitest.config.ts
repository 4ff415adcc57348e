import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// examples/ are the copyable suites of the README; they import the built package (npm test builds first).
const ALL = ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'];

/**
 * Test files that change what a later file in the same worker would see, so each keeps a worker of
 * its own (vitest's default isolation): module mocks, spies on shared prototypes, stubbed globals
 * and `vi.resetModules`, MSW's patched fetch and node:http (`setupServer`, `useSandbox`), the CLI's
 * command line and environment, and openapi-traffic, which imports other test files again. Every
 * other file shares its worker with the files before it (`isolate: false`): they import the same
 * modules, and evaluating them once per worker instead of once per file took a third of the time
 * of src/'s tests (CONTRIBUTING.md, "Tests": the figures).
 */
const ISOLATED = [
  'examples/vitest/contacts.test.ts',
  'examples/vitest/dev-server.test.ts',
  'src/adapters/msw.test.ts',
  'src/cli/flags.test.ts',
  'src/cli/plain-args.test.ts',
  'src/clock/clock.test.ts',
  'src/core/passthrough-cache.test.ts',
  'src/shared/pieces.test.ts',
  'src/store/seed/seed-engagement-activity.test.ts',
  'src/store/seed/seed-engagement-objects.test.ts',
  'src/testing/test-sandbox.test.ts',
  'src/testing/unified.test.ts',
  'test/browser-msw.test.ts',
  'test/code-api-validation.test.ts',
  'test/openapi-traffic.test.ts',
  'test/sdk/bridge.test.ts',
  'test/security/held.test.ts',
  'test/security/limits.test.ts',
  'test/security/server.test.ts',
  'test/serve-lazy.test.ts',
  'test/webhooks.test.ts',
];

/** Left out by `npm run test:quick` (`--mode quick`): the long walks over large data sets that check work done in pieces. */
const LONG = ['src/**/*-in-turns.test.ts'];

export default defineConfig(({ mode }) => {
  const left = mode === 'quick' ? LONG : [];
  return {
    test: {
      // Real servers and spawned CLIs: generous timeouts, but no test asserts on time.
      testTimeout: 30_000,
      hookTimeout: 30_000,
      // A worker per core, and two at least: most files wait on the servers, browsers and processes they start, and
      // vitest's own default on 2 cores is one (the suite ran in 11 minutes on one worker, 5.4 on two: CONTRIBUTING.md).
      maxWorkers: Math.max(2, availableParallelism()),
      projects: [
        { extends: true, test: { name: 'shared', include: ALL, exclude: [...configDefaults.exclude, ...ISOLATED, ...left], isolate: false } },
        { extends: true, test: { name: 'isolated', include: ISOLATED, exclude: [...configDefaults.exclude, ...left] } },
      ],
    },
  };
});
