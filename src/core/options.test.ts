import { describe, expect, it } from 'vitest';
import { createSandbox } from '../index.js';
import { SandboxConfigError } from '../shared/errors.js';
import { DEFAULT_LIMITS } from './options.js';

describe('createSandbox options', () => {
  it('refuses an empty item in retrySchedule, naming the option; a duration needs its unit, as on the command line', () => {
    expect(() => createSandbox({ retrySchedule: '10s,,1m' })).toThrow(new SandboxConfigError('retrySchedule: item 2 of "10s,,1m" is empty'));
    const sandbox = createSandbox({ clock: 'virtual', retrySchedule: ['250ms', '1s'], readyDelay: '10ms', initialSyncDelay: '0' });
    expect([sandbox.options.retryScheduleMs, sandbox.options.readyDelayMs, sandbox.options.initialSyncDelayMs]).toEqual([[250, 1000], 10, 0]);
    sandbox.close();
    expect(() => createSandbox({ readyDelay: '10' })).toThrow(new SandboxConfigError('readyDelay needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"'));
    expect(() => createSandbox({ readyDelay: 10 as unknown as string })).toThrow(
      new SandboxConfigError('readyDelay needs a unit: 10ms, 10s, 10m, 10h or 10d; got 10'),
    );
    expect(() => createSandbox({ retrySchedule: ['1s', '5'] })).toThrow(
      new SandboxConfigError('retrySchedule[1] needs a unit: 5ms, 5s, 5m, 5h or 5d; got "5"'),
    );
  });

  it('caps connections, records, pending deliveries and HTTP scenario runs by default; null turns a cap off; a bad cap is named', () => {
    const sandbox = createSandbox({ clock: 'virtual' });
    const { connectionLimit, recordLimit, pendingDeliveryLimit, scenarioRepeatLimit, scenarioFieldBytesLimit } = sandbox.options;
    expect({ connectionLimit, recordLimit, pendingDeliveryLimit, scenarioRepeatLimit, scenarioFieldBytesLimit }).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS).toEqual({
      connectionLimit: 1000,
      recordLimit: 100_000,
      pendingDeliveryLimit: 20_000,
      scenarioRepeatLimit: 10_000,
      scenarioFieldBytesLimit: 16_777_216,
    });
    sandbox.close();
    const open = createSandbox({
      clock: 'virtual',
      connectionLimit: null,
      recordLimit: null,
      pendingDeliveryLimit: null,
      scenarioRepeatLimit: null,
      scenarioFieldBytesLimit: null,
    });
    const { options } = open;
    expect([options.connectionLimit, options.recordLimit, options.pendingDeliveryLimit, options.scenarioRepeatLimit, options.scenarioFieldBytesLimit]).toEqual([
      Infinity,
      Infinity,
      Infinity,
      Infinity,
      Infinity,
    ]);
    open.close();
    expect(() => createSandbox({ recordLimit: 0 })).toThrow(new SandboxConfigError('recordLimit must be a positive integer or null (no cap), got 0'));
    expect(() => createSandbox({ connectionLimit: 1.5 })).toThrow(
      new SandboxConfigError('connectionLimit must be a positive integer or null (no cap), got 1.5'),
    );
  });

  it('refuses an exchange over the connection cap with the original message; the metadata names the cap and its flag', () => {
    const sandbox = createSandbox({ clock: 'virtual', connectionLimit: 2, apiKeys: ['a', 'b'] });
    sandbox.connect({ apiKey: 'a' });
    sandbox.connect({ apiKey: 'a' });
    expect(() => sandbox.connect({ apiKey: 'a' })).toThrow(
      expect.objectContaining({
        status: 400,
        errorCode: 'CONNECTION_LIMIT_REACHED',
        message: 'Maximum number of connections reached for development account',
        metadata: { limit: 2, option: 'connectionLimit', flag: '--connection-limit' },
      }),
    );
    // Per API token: the other tenant still links.
    expect(sandbox.connect({ apiKey: 'b' }).connectionId).toMatch(/^[0-9a-f]{32}$/);
    sandbox.close();
  });
});
