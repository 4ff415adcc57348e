import type { SandboxOptions } from '../core/options.js';
import { Sandbox } from '../core/sandbox.js';
import { nodePlatform } from './platform.js';

/**
 * Creates a sandbox on Node's platform: fixture paths read from disk, webhooks over `node:http`
 * keep-alive connections, scenarios from files. What `createSandbox` of `crm-sandbox` is (the
 * CLI and `crm-sandbox/testing` use it too); `crm-sandbox/browser` has its own, on fetch.
 *
 * @example
 * const sandbox = createSandbox({ seed: 42, clock: 'virtual', apiKeys: ['test-key'] });
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new Sandbox(options, nodePlatform);
}
