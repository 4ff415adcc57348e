/**
 * crm-sandbox/testing: a sandbox for a test suite in one call, runner-neutral.
 *
 * @example
 * import { createTestSandbox } from 'crm-sandbox/testing';
 * const crm = await createTestSandbox().start();
 * const { connectionId } = await crm.linkConnection({ integrationId: 'salesforce', status: 'READY' });
 * await crm.expectEvents([{ status: 'NEW_CONNECTION' }, { status: 'READY' }], { connectionId });
 */

import * as clientCheckCode from '../client-check/code.js';
import { provideClientCheckCode } from '../core/client-check-slot.js';

// client-check's code, for testSandbox.sandbox.startClientCheck() (src/core/client-check-slot.ts).
provideClientCheckCode(clientCheckCode);

export type { EventMatch } from './event-match.js';
export { type CapturedEvent, EventReceiver, type RejectedDelivery } from './receiver.js';
export {
  createTestSandbox,
  DEFAULT_TEST_BASE_URL,
  type LinkConnectionOptions,
  MSW_RECEIVER_URL,
  TestSandbox,
  type TestSandboxOptions,
  type WaitOptions,
} from './test-sandbox.js';
export {
  UnifiedClient,
  type UnifiedFields,
  type UnifiedFilters,
  type UnifiedKeys,
  type UnifiedPage,
  type UnifiedPageOptions,
  unified,
  type WritableUnifiedType,
} from './unified.js';
