import { describe, expect, it } from 'vitest';
import { SandboxConfigError } from '../shared/errors.js';
import { createSandbox } from './sandbox.js';

describe('createSandbox options', () => {
  it('refuses an empty item in retrySchedule, naming the option; numbers stay milliseconds', () => {
    expect(() => createSandbox({ retrySchedule: '10s,,1m' })).toThrow(new SandboxConfigError('retrySchedule: item 2 of "10s,,1m" is empty'));
    const sandbox = createSandbox({ clock: 'virtual', retrySchedule: [250, '1s'], readyDelay: 10, initialSyncDelay: 5 });
    expect([sandbox.options.retryScheduleMs, sandbox.options.readyDelayMs]).toEqual([[250, 1000], 10]);
    sandbox.close();
  });
});
