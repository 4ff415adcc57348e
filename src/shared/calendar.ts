/**
 * Whether an ISO-8601 date or date-time names a real instant. `Date.parse` rolls days 29–31 of any
 * month over into the next (`2025-02-30` is read as March 2), and takes `24:00`; Salesforce,
 * HubSpot, Pipedrive, Zoho and the service refuse them. The one check that every date a request
 * gives goes through — writes (`parseTime`, native and unified alike), the unified search filters
 * and SOQL's date literals — each before its own `Date.parse`.
 */

// Year, month, day; then hour, minute, second where given; then an offset's sign, hours and minutes.
const PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?(?:[^+-]*([+-])(\d{2}):?(\d{2}))?/;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Days in a month of the proleptic Gregorian calendar (`month` 1–12). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * What makes a date or date-time that reads as ISO-8601 no real instant (`February 2025 has no day 30`,
 * `hour 25 is past 23`), or undefined when it is one, or when it does not start as an ISO date at all
 * (the caller's own format check refuses those).
 *
 * @example calendarMistake('2025-02-30T10:00:00Z') // 'February 2025 has no day 30'
 */
export function calendarMistake(text: string): string | undefined {
  const m = PARTS.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12) return `there is no month ${m[2]}`;
  if (day < 1 || day > daysInMonth(year, month)) return `${MONTHS[month - 1]} ${m[1]} has no day ${m[3]}`;
  if (m[4] !== undefined && Number(m[4]) > 23) return `hour ${m[4]} is past 23`;
  if (m[5] !== undefined && Number(m[5]) > 59) return `minute ${m[5]} is past 59`;
  if (m[6] !== undefined && Number(m[6]) > 59) return `second ${m[6]} is past 59`;
  if (m[8] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return `the offset ${m[7]}${m[8]}:${m[9]} is no time zone’s`;
  return undefined;
}

/** Whether an ISO-8601 date or date-time is a real instant (see {@link calendarMistake}). */
export const isRealInstant = (text: string): boolean => calendarMistake(text) === undefined;
