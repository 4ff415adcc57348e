import { describe, expect, it } from 'vitest';
import { type ApiError, SandboxConfigError } from '../shared/errors.js';
import { parseChaos, parseChaosFlag, parseDelayRange, resolveChaos } from './chaos.js';

describe('delivery chaos settings', () => {
  it('reads delay ranges and the serve flag', () => {
    expect(parseDelayRange('100ms-2s')).toEqual({ min: 100, max: 2000 });
    expect(parseDelayRange('1s')).toEqual({ min: 1000, max: 1000 });
    expect(() => parseDelayRange('2s-1s')).toThrow(SandboxConfigError);
    expect(parseChaosFlag('duplicate=0.25,delay=100ms-2s,reorder,outage=5m')).toEqual({ duplicate: 0.25, delay: '100ms-2s', reorder: true, outage: '5m' });
    expect(parseChaosFlag('reorder=false, delay=0')).toEqual({ reorder: false, delay: '0' });
    expect(parseChaosFlag('')).toEqual({});
  });

  it('says what is wrong with each setting of the serve flag, after the name it was given under', () => {
    const refusal = (text: string, name?: string) => {
      try {
        parseChaosFlag(text, name);
      } catch (error) {
        expect(error).toBeInstanceOf(SandboxConfigError);
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('duplicate=2')).toBe('--delivery-chaos: duplicate must be a number from 0 to 1, got "2"');
    expect(refusal('duplicate=lots', 'CRM_SANDBOX_DELIVERY_CHAOS')).toBe('CRM_SANDBOX_DELIVERY_CHAOS: duplicate must be a number from 0 to 1, got "lots"');
    expect(refusal('duplicate')).toBe('--delivery-chaos: duplicate needs a value, as in duplicate=0.2,delay=100ms-2s,reorder,outage=5m');
    expect(refusal('delay=soon')).toBe('--delivery-chaos: delay must look like 500ms, 3s, 2m, 1h or 1d, got "soon"');
    expect(refusal('delay=100-2s')).toBe('--delivery-chaos: delay needs a unit: 100ms, 100s, 100m, 100h or 100d; got "100-2s"');
    expect(refusal('delay=2s-1s')).toBe('--delivery-chaos: delay: the range 2s-1s ends before it starts');
    expect(refusal('outage=5')).toBe('--delivery-chaos: outage needs a unit: 5ms, 5s, 5m, 5h or 5d; got "5"');
    expect(refusal('outage=a while')).toBe('--delivery-chaos: outage must look like 500ms, 3s, 2m, 1h or 1d, got "a while"');
    expect(refusal('reorder=yes')).toBe('--delivery-chaos: reorder takes no value, or true or false; got "yes"');
    expect(refusal('shuffle')).toBe(
      '--delivery-chaos: unknown setting "shuffle"; the settings are duplicate, delay, reorder and outage: duplicate=0.2,delay=100ms-2s,reorder,outage=5m',
    );
    expect(refusal('reorder,,duplicate=0.1')).toBe('--delivery-chaos: item 2 of "reorder,,duplicate=0.1" is empty');
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
