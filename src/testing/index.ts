/**
 * crm-sandbox/testing: a sandbox for a test suite in one call, runner-neutral.
 *
 * @example
 * import { createTestSandbox } from 'crm-sandbox/testing';
 * const crm = await createTestSandbox().start();
 * const { connectionId } = await crm.linkConnection({ integrationId: 'salesforce', status: 'READY' });
 * await crm.expectEvents([{ status: 'NEW_CONNECTION' }, { status: 'READY' }], { connectionId });
 */
export {
  DEFAULT_TEST_BASE_URL,
  MSW_RECEIVER_URL,
  TestSandbox,
  createTestSandbox,
  type LinkConnectionOptions,
  type TestSandboxOptions,
  type WaitOptions,
} from './test-sandbox.js';
export type { EventMatch } from './event-match.js';
export { EventReceiver, type CapturedEvent, type RejectedDelivery } from './receiver.js';
