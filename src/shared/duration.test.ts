import { describe, expect, it } from 'vitest';
import { formatDuration, formatTimeLeft, parseDuration, parseDurationList, requireUnit, splitList } from './duration.js';
import { SandboxConfigError } from './errors.js';

describe('parseDuration', () => {
  it('reads every unit, and 0 alone', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('3s')).toBe(3_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('12h')).toBe(43_200_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1.5s')).toBe(1_500);
    expect(parseDuration(' 250ms ')).toBe(250);
    expect([parseDuration('0'), parseDuration(0), parseDuration('0s')]).toEqual([0, 0, 0]);
  });

  it('refuses a bare number, text or not, with the unit to add: the one grammar of every entry (decision 0032)', () => {
    expect(() => parseDuration('10', '--ready-delay')).toThrow(new SandboxConfigError('--ready-delay needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"'));
    expect(() => parseDuration(10, 'readyDelay')).toThrow(new SandboxConfigError('readyDelay needs a unit: 10ms, 10s, 10m, 10h or 10d; got 10'));
    expect(() => parseDuration(1.5, 'advance()')).toThrow(/advance\(\) needs a unit: 1.5ms, 1.5s/);
    expect(() => parseDuration(true, 'advance()')).toThrow(
      new SandboxConfigError('advance() must be a duration such as 500ms, 3s, 2m, 1h or 1d, got a boolean'),
    );
    expect(() => parseDuration(undefined, 'x')).toThrow(new SandboxConfigError('x must be a duration such as 500ms, 3s, 2m, 1h or 1d, got undefined'));
  });

  it('refuses what it cannot read, naming the option', () => {
    expect(() => parseDuration('3 seconds', 'readyDelay')).toThrow(SandboxConfigError);
    expect(() => parseDuration('3 seconds', 'readyDelay')).toThrow(/readyDelay/);
    expect(() => parseDuration('-1s')).toThrow(SandboxConfigError);
    expect(() => parseDuration(-5)).toThrow(SandboxConfigError);
    expect(() => parseDuration(Number.NaN)).toThrow(SandboxConfigError);
  });

  it('reads comma-separated lists and formats back', () => {
    expect(parseDurationList('10s,1m, 5m')).toEqual([10_000, 60_000, 300_000]);
    expect(parseDurationList('')).toEqual([]);
    expect(() => parseDurationList('10s,x', 'retrySchedule')).toThrow(/retrySchedule\[1\]/);
    expect(() => parseDurationList('10s,,1m', 'retrySchedule')).toThrow(new SandboxConfigError('retrySchedule: item 2 of "10s,,1m" is empty'));
    expect(() => parseDurationList('10s,1m,', 'retrySchedule')).toThrow(/item 3 of "10s,1m," is empty/);
    expect(['10s', '1m', '2h', '1d', '1500ms'].map((text) => formatDuration(parseDuration(text)))).toEqual(['10s', '1m', '2h', '1d', '1500ms']);
  });

  it('formats a time left to wait to the nearest second, in units', () => {
    // Exact schedule delays read as they are written; a real clock's remainders read as a person says them.
    expect([10_000, 60_000, 300_000, 1_800_000, 86_400_000].map(formatTimeLeft)).toEqual(['10s', '1m', '5m', '30m', '1d']);
    expect([9_796, 59_664, 1_673_981, 90_061_000].map(formatTimeLeft)).toEqual(['10s', '1m', '27m54s', '1d1h1m1s']);
    expect([0, 998, -5].map(formatTimeLeft)).toEqual(['0ms', '998ms', '0ms']);
  });
});

describe('command-line durations', () => {
  it('need a unit, except 0, on each end of a range', () => {
    expect(() => requireUnit('10', '--ready-delay')).toThrow(new SandboxConfigError('--ready-delay needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"'));
    expect(() => requireUnit('100-2s', '--latency')).toThrow(/--latency needs a unit: 100ms, .*; got "100-2s"/);
    expect(() => requireUnit('50ms-400', '--latency')).toThrow(/400ms/);
    for (const text of ['10s', '0', '1.5m', '50ms-400ms', 'soon']) expect(() => requireUnit(text, 'x')).not.toThrow();
  });

  it('lists split on commas, trimmed, refusing empty items', () => {
    expect(splitList(' k1 , k2', 'apiKeys')).toEqual(['k1', 'k2']);
    expect(splitList('  ', 'apiKeys')).toEqual([]);
    expect(() => splitList(',k2', 'apiKeys')).toThrow(new SandboxConfigError('apiKeys: item 1 of ",k2" is empty'));
  });
});
