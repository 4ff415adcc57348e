import { describe, expect, it } from 'vitest';
import { calendarMistake, daysInMonth, isRealInstant } from './calendar.js';

describe('calendarMistake', () => {
  it('names what makes a date or date-time no real instant', () => {
    expect(calendarMistake('2025-02-30')).toBe('February 2025 has no day 30');
    expect(calendarMistake('2025-02-30T10:00:00Z')).toBe('February 2025 has no day 30');
    expect(calendarMistake('2025-06-31')).toBe('June 2025 has no day 31');
    expect(calendarMistake('2023-02-29')).toBe('February 2023 has no day 29');
    expect(calendarMistake('1900-02-29')).toBe('February 1900 has no day 29');
    expect(calendarMistake('2025-13-01')).toBe('there is no month 13');
    expect(calendarMistake('2025-00-10')).toBe('there is no month 00');
    expect(calendarMistake('2025-01-00')).toBe('January 2025 has no day 00');
    expect(calendarMistake('2025-01-01T25:00:00Z')).toBe('hour 25 is past 23');
    expect(calendarMistake('2025-01-01T24:00:00Z')).toBe('hour 24 is past 23');
    expect(calendarMistake('2025-01-01 10:60')).toBe('minute 60 is past 59');
    expect(calendarMistake('2025-01-01T10:00:60.5Z')).toBe('second 60 is past 59');
    expect(calendarMistake('2025-01-01T10:00:00+24:00')).toBe('the offset +24:00 is no time zone’s');
  });

  it('passes real instants, and leaves what is not an ISO date to the caller', () => {
    for (const text of ['2024-02-29', '2000-02-29', '2025-12-31T23:59:59.999Z', '2025-01-01T00:00', '2025-06-30 10:00:00-0800', '2025-01-01T10:00:00+14:00']) {
      expect(isRealInstant(text), text).toBe(true);
    }
    expect(calendarMistake('yesterday')).toBeUndefined();
    expect(calendarMistake('1735689600000')).toBeUndefined();
  });

  it('knows every month’s length, leap years included', () => {
    for (let year = 1999; year <= 2401; year++) {
      for (let month = 1; month <= 12; month++) {
        // Day 0 of the next month is the last of this one.
        expect(daysInMonth(year, month)).toBe(new Date(Date.UTC(year, month, 0)).getUTCDate());
      }
    }
  });
});
