import { describe, expect, it } from 'vitest';
import { ApiError, SandboxConfigError } from '../shared/errors.js';
import { parseChaos, parseChaosFlag, parseDelayRange, resolveChaos } from './chaos.js';

describe('delivery chaos settings', () => {
  it('reads delay ranges and the serve flag', () => {
    expect(parseDelayRange('100ms-2s')).toEqual({ min: 100, max: 2000 });
    expect(parseDelayRange('1s')).toEqual({ min: 1000, max: 1000 });
    expect(() => parseDelayRange('2s-1s')).toThrow(SandboxConfigError);
    expect(parseChaosFlag('duplicate=0.25,delay=100ms-2s,reorder,outage=5m')).toEqual({ duplicate: 0.25, delay: '100ms-2s', reorder: true, outage: '5m' });
    expect(() => parseChaosFlag('duplicate=2')).toThrow(/cannot read "duplicate=2"/);
    expect(() => parseChaosFlag('delay=soon')).toThrow(SandboxConfigError);
  });

  it('refuses bad settings with a 400 naming the field', () => {
    const refused = (value: unknown) => {
      try {
        parseChaos(value);
      } catch (error) {
        return (error as ApiError).metadata?.field;
      }
      return 'accepted';
    };
    expect(refused({ duplicate: 1.5 })).toBe('duplicate');
    expect(refused({ delay: '5s-1s' })).toBe('delay');
    expect(refused({ outage: 'a while' })).toBe('outage');
    expect(refused({ shuffle: true })).toBe('shuffle');
    expect(refused({ duplicate: 0.5, reorder: false })).toBe('accepted');
  });

  it('counts settings that do nothing as no chaos, and dates an outage from now', () => {
    expect(resolveChaos({}, 0)).toBeNull();
    expect(resolveChaos({ duplicate: 0, reorder: false, delay: '0ms' }, 0)).toBeNull();
    expect(resolveChaos({ outage: '1m' }, 1000)?.outageUntil).toBe(61_000);
  });
});
