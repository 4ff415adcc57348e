import { afterEach, describe, expect, it } from 'vitest';
import { SandboxConfigError } from '../shared/errors.js';
import {
  envName,
  flagName,
  onCommandLine,
  readChoice,
  readDuration,
  readDurationList,
  readInteger,
  readLimit,
  readList,
  readNumber,
  readText,
  readUrl,
  setCommandLine,
} from './flags.js';

afterEach(() => setCommandLine([], {}));

/** The message a reader refuses with (and that it is a SandboxConfigError: exit 2). */
function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxConfigError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('flag names', () => {
  it('name the environment variable when the value came from there, else the flag', () => {
    expect(envName('ready-delay')).toBe('CRM_SANDBOX_READY_DELAY');
    setCommandLine(['serve'], { CRM_SANDBOX_READY_DELAY: '10' });
    expect(flagName('ready-delay')).toBe('CRM_SANDBOX_READY_DELAY');
    expect(flagName('port')).toBe('--port');
    // The command line wins over the environment, in yargs and in the message.
    for (const args of [
      ['serve', '--ready-delay', '9'],
      ['serve', '--ready-delay=9'],
      ['serve', '--readyDelay', '9'],
    ]) {
      setCommandLine(args, { CRM_SANDBOX_READY_DELAY: '10' });
      expect(flagName('ready-delay'), args.join(' ')).toBe('--ready-delay');
    }
    expect(onCommandLine('fixtures', ['serve', '--no-fixtures'])).toBe(true);
    expect(onCommandLine('port', ['scenario', 'run', 'x', '--', '--port'])).toBe(false);
  });
});

describe('flag readers', () => {
  it('read integers and numbers in a range, quoting what was given', () => {
    expect(readInteger('port', '4010', { min: 0, max: 65535 })).toBe(4010);
    expect(readInteger('port', 4010, { min: 0, max: 65535 })).toBe(4010); // a default
    expect(refusal(() => readInteger('port', 'abc', { min: 0, max: 65535 }))).toBe('--port must be an integer from 0 to 65535, got "abc"');
    expect(refusal(() => readInteger('port', '70000', { min: 0, max: 65535 }))).toBe('--port must be an integer from 0 to 65535, got "70000"');
    expect(refusal(() => readInteger('seed', '1.5', { min: 0 }))).toBe('--seed must be an integer of 0 or more, got "1.5"');
    expect(refusal(() => readInteger('connection-limit', '', { min: 1 }))).toBe(
      '--connection-limit was given an empty value (an unset variable, likely): give it one',
    );
    expect(readNumber('error-rate', '0.05', { min: 0, max: 1 })).toBe(0.05);
    expect(readNumber('error-rate', '.5', { min: 0, max: 1 })).toBe(0.5);
    expect(refusal(() => readNumber('error-rate', '2', { min: 0, max: 1 }))).toBe('--error-rate must be a number from 0 to 1, got "2"');
    expect(refusal(() => readNumber('error-rate', '0x1', { min: 0, max: 1 }))).toBe('--error-rate must be a number from 0 to 1, got "0x1"');
  });

  it('read a cap: an integer of 1 or more, or none for no cap', () => {
    expect(readLimit('record-limit', '5000')).toBe(5000);
    expect(readLimit('record-limit', 100_000)).toBe(100_000); // a default
    expect(readLimit('record-limit', 'none')).toBeNull();
    expect(refusal(() => readLimit('record-limit', '0'))).toBe('--record-limit must be an integer of 1 or more, or none, got "0"');
    expect(refusal(() => readLimit('record-limit', 'unlimited'))).toBe('--record-limit must be an integer of 1 or more, or none, got "unlimited"');
    setCommandLine(['serve'], { CRM_SANDBOX_RECORD_LIMIT: '-1' });
    expect(refusal(() => readLimit('record-limit', '-1'))).toBe('CRM_SANDBOX_RECORD_LIMIT must be an integer of 1 or more, or none, got "-1"');
  });

  it('refuse a repeated flag and a flag without its value', () => {
    expect(refusal(() => readText('port', ['1', '2']))).toBe('--port is given 2 times ("1", "2"); give it once');
    expect(refusal(() => readText('latency', true))).toBe('--latency needs a value');
  });

  it('read durations only with their unit (0 needs none), and lists of them without empty items', () => {
    expect(readDuration('ready-delay', '10s')).toBe(10_000);
    expect(readDuration('ready-delay', '0')).toBe(0);
    expect(refusal(() => readDuration('ready-delay', '10'))).toBe('--ready-delay needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"');
    expect(refusal(() => readDuration('ready-delay', 'soon'))).toBe('--ready-delay must look like 500ms, 3s, 2m, 1h or 1d, got "soon"');
    expect(refusal(() => readDuration('attempt-timeout', '0s', { min: 1 }))).toBe('--attempt-timeout must be at least 1ms, got "0s"');
    expect(readDurationList('retry-schedule', '10s, 1m,5m')).toEqual([10_000, 60_000, 300_000]);
    expect(readDurationList('retry-schedule', '')).toEqual([]);
    expect(refusal(() => readDurationList('retry-schedule', '10s,,1m'))).toBe('--retry-schedule: item 2 of "10s,,1m" is empty');
    expect(refusal(() => readDurationList('retry-schedule', '10s,10'))).toBe('--retry-schedule item 2 needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"');
    setCommandLine(['serve'], { CRM_SANDBOX_READY_DELAY: '10' });
    expect(refusal(() => readDuration('ready-delay', '10'))).toBe('CRM_SANDBOX_READY_DELAY needs a unit: 10ms, 10s, 10m, 10h or 10d; got "10"');
  });

  it('read lists from repeated flags and from commas, trimmed, refusing empty items', () => {
    expect(readList('api-key', ['k1', 'k2'])).toEqual(['k1', 'k2']);
    expect(readList('api-key', ['k1, k2', 'k3'])).toEqual(['k1', 'k2', 'k3']);
    setCommandLine(['serve'], { CRM_SANDBOX_API_KEY: 'k1,' });
    expect(refusal(() => readList('api-key', ['k1,']))).toBe('CRM_SANDBOX_API_KEY: item 2 of "k1," is empty');
    expect(refusal(() => readList('api-key', ['k1', ' ']))).toBe('CRM_SANDBOX_API_KEY is set but empty: give it a value, or unset it');
    setCommandLine(['serve', '--port', '']);
    expect(refusal(() => readInteger('port', '', { min: 0 }))).toBe('--port was given an empty value (an unset variable, likely): give it one');
  });

  it('read URLs and choices', () => {
    expect(readUrl('server-url', 'http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(refusal(() => readUrl('server-url', 'notaurl'))).toBe('--server-url must be an absolute http or https URL, got "notaurl"');
    expect(refusal(() => readUrl('server-url', 'ftp://host/'))).toBe('--server-url must be an absolute http or https URL, got "ftp://host/"');
    expect(readChoice('integration', 'hubspot', ['hubspot', 'zoho'])).toBe('hubspot');
    expect(refusal(() => readChoice('integration', 'sap', ['hubspot', 'zoho']))).toBe('--integration must be one of hubspot, zoho; got "sap"');
  });
});
