import { describe, expect, it } from 'vitest';
import { pascal } from './pascal-case.js';

describe('pascal', () => {
  it('capitalises the first letter of an identifier and keeps the rest', () => {
    expect(pascal('listCrmContacts')).toBe('ListCrmContacts');
    expect(pascal('eventAttendees')).toBe('EventAttendees');
  });

  it('drops each dash before a letter and capitalises that letter', () => {
    expect(pascal('call-logs')).toBe('CallLogs');
    expect(pascal('sequence-step-runs')).toBe('SequenceStepRuns');
  });

  it('leaves what starts with a capital, a digit or a dash before no letter as it is', () => {
    expect(pascal('User')).toBe('User');
    expect(pascal('v2-3')).toBe('V2-3');
    expect(pascal('')).toBe('');
  });
});
