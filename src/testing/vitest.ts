import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTestSandbox, type TestSandbox, type TestSandboxOptions } from './test-sandbox.js';

export * from './index.js';

/**
 * A {@link TestSandbox} wired into vitest's hooks: started in `beforeAll`, reset in `afterEach`
 * (fresh state, ids as in a fresh sandbox, no events kept), closed in `afterAll`. Call it at the
 * top of a test file or a `describe`.
 *
 * @example
 * const crm = useSandbox();
 * it('links', async () => {
 *   const { connectionId } = await crm.linkConnection({ integrationId: 'hubspot', status: 'READY' });
 *   await crm.waitForEvent({ status: 'READY', connectionId });
 * });
 */
export function useSandbox(options: TestSandboxOptions = {}): TestSandbox {
  const crm = createTestSandbox(options);
  beforeAll(() => crm.start().then(() => undefined));
  afterEach(() => crm.reset());
  afterAll(() => crm.close());
  return crm;
}
