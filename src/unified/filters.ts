import { calendarMistake } from '../shared/calendar.js';
import { ApiError } from '../shared/errors.js';
import type { FilterField, FilterKind } from './crm-objects.js';

/**
 * The `filters` of a search (`POST /crm/contacts/search`): per field, an object of operators, as
 * the document's StringFilter, NumberFilter, DateFilter, BooleanFilter and StringListFilter have
 * them. Every field's operators must hold (and every field's): `{ email: { endsWith: '@acme.example' },
 * createdTime: { gte: '2024-01-01T00:00:00Z' } }`. Comparisons are exact and case-sensitive, as
 * in the database a unified cache is kept in. An empty field matches no operator but
 * `isEmpty` (a list's), as SQL's NULL matches no comparison.
 */

/** The operators of each filter kind, in the document's order. */
export const OPERATORS: Record<FilterKind, readonly string[]> = {
  string: ['equals', 'contains', 'startsWith', 'endsWith', 'not', 'in', 'notIn'],
  number: ['equals', 'gt', 'lt', 'lte', 'gte', 'not', 'in', 'notIn'],
  date: ['equals', 'gt', 'lt', 'lte', 'gte', 'not', 'in', 'notIn'],
  boolean: ['equals', 'not'],
  stringList: ['has', 'hasEvery', 'hasSome', 'isEmpty'],
};

/** A compiled search: whether a record (as the unified reads answer it) matches. */
export type RecordFilter = (record: Record<string, unknown>) => boolean;

type Test = (value: unknown) => boolean;

const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Compiles `filters` for an object's filterable fields, or throws a 400 naming the first bad part
 * (`filters.email.contain`) and what is allowed there. `undefined` or `{}` match every record.
 *
 * @example compileFilters({ lastName: { in: ['Hopper', 'Lovelace'] } }, contactFilters)(record)
 */
export function compileFilters(filters: unknown, fields: readonly FilterField[], at = 'filters'): RecordFilter {
  if (filters === undefined || filters === null) return () => true;
  if (!isObject(filters)) throw ApiError.invalidField(at, `${at} must be an object of field filters, got ${typeName(filters)}`);
  const tests: Array<{ path: string; test: Test }> = [];
  for (const [key, condition] of Object.entries(filters)) {
    const field = fields.find((candidate) => candidate.key === key);
    if (!field) {
      throw ApiError.invalidField(`${at}.${key}`, `${at}.${key} is not a filter of this object; allowed: ${fields.map((item) => item.key).join(', ')}`, {
        allowed: fields.map((item) => item.key),
      });
    }
    if (!isObject(condition)) {
      throw ApiError.invalidField(
        `${at}.${key}`,
        `${at}.${key} must be an object of operators (${OPERATORS[field.kind].join(', ')}), got ${typeName(condition)}`,
      );
    }
    for (const [operator, operand] of Object.entries(condition)) {
      tests.push({ path: field.path ?? field.key, test: operatorTest(field.kind, operator, operand, `${at}.${key}.${operator}`) });
    }
  }
  if (tests.length === 0) return () => true;
  return (record) => tests.every(({ path, test }) => test(valueAt(record, path)));
}

function valueAt(record: Record<string, unknown>, path: string): unknown {
  if (!path.includes('.')) return record[path];
  let value: unknown = record;
  for (const key of path.split('.')) value = isObject(value) ? value[key] : undefined;
  return value;
}

function operatorTest(kind: FilterKind, operator: string, operand: unknown, at: string): Test {
  const allowed = OPERATORS[kind];
  if (!allowed.includes(operator)) {
    throw ApiError.invalidField(at, `${at} is not an operator of a ${kindName(kind)} filter; allowed: ${allowed.join(', ')}`, { allowed: [...allowed] });
  }
  switch (kind) {
    case 'string':
      return stringTest(operator, operand, at);
    case 'number':
      return orderedTest(operator, operand, at, numberOperand, toNumber);
    case 'date':
      return orderedTest(operator, operand, at, dateOperand, toTime);
    case 'boolean': {
      if (typeof operand !== 'boolean') throw ApiError.invalidField(at, `${at} must be true or false, got ${typeName(operand)}`);
      return operator === 'equals' ? (value) => value === operand : (value) => typeof value === 'boolean' && value !== operand;
    }
    case 'stringList':
      return listTest(operator, operand, at);
  }
}

const kindName = (kind: FilterKind) => (kind === 'stringList' ? 'string list' : kind);

function stringOperand(operand: unknown, at: string): string {
  if (typeof operand !== 'string') throw ApiError.invalidField(at, `${at} must be a string, got ${typeName(operand)}`);
  return operand;
}

function listOperand<T>(operand: unknown, at: string, item: (value: unknown, at: string) => T): T[] {
  if (!Array.isArray(operand)) throw ApiError.invalidField(at, `${at} must be an array, got ${typeName(operand)}`);
  return operand.map((value, index) => item(value, `${at}[${index}]`));
}

function stringTest(operator: string, operand: unknown, at: string): Test {
  if (operator === 'in' || operator === 'notIn') {
    const values = new Set(listOperand(operand, at, stringOperand));
    return operator === 'in' ? (value) => typeof value === 'string' && values.has(value) : (value) => typeof value === 'string' && !values.has(value);
  }
  const text = stringOperand(operand, at);
  const is = (value: unknown): value is string => typeof value === 'string';
  switch (operator) {
    case 'equals':
      return (value) => value === text;
    case 'not':
      return (value) => is(value) && value !== text;
    case 'contains':
      return (value) => is(value) && value.includes(text);
    case 'startsWith':
      return (value) => is(value) && value.startsWith(text);
    default:
      return (value) => is(value) && value.endsWith(text);
  }
}

/** A number operand; a date operand is an ISO-8601 date or date-time, compared as a point in time. */
function numberOperand(operand: unknown, at: string): number {
  if (typeof operand !== 'number' || !Number.isFinite(operand)) throw ApiError.invalidField(at, `${at} must be a number, got ${typeName(operand)}`);
  return operand;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function dateOperand(operand: unknown, at: string): number {
  const shaped = typeof operand === 'string' && ISO_DATE.test(operand);
  // Date.parse rolls an impossible day over (2025-02-30 → March 2): such a date is refused, as in a write.
  const mistake = shaped ? calendarMistake(operand) : undefined;
  const time = shaped && !mistake ? Date.parse(operand.length === 10 ? `${operand}T00:00:00Z` : operand) : Number.NaN;
  if (Number.isNaN(time)) {
    throw ApiError.invalidField(
      at,
      `${at} must be an ISO-8601 date or date-time such as 2024-05-01T12:00:00Z, got ${JSON.stringify(operand)}${mistake ? `: ${mistake}` : ''}`,
    );
  }
  return time;
}

/** A record's number: numbers, and decimal strings (a deal's probability, "0.4"). */
function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function toTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
}

function orderedTest(
  operator: string,
  operand: unknown,
  at: string,
  parse: (operand: unknown, at: string) => number,
  read: (value: unknown) => number | undefined,
): Test {
  if (operator === 'in' || operator === 'notIn') {
    const values = new Set(listOperand(operand, at, parse));
    const wanted = operator === 'in';
    return (value) => {
      const n = read(value);
      return n !== undefined && values.has(n) === wanted;
    };
  }
  const target = parse(operand, at);
  const compare: (n: number) => boolean =
    operator === 'equals'
      ? (n) => n === target
      : operator === 'not'
        ? (n) => n !== target
        : operator === 'gt'
          ? (n) => n > target
          : operator === 'gte'
            ? (n) => n >= target
            : operator === 'lt'
              ? (n) => n < target
              : (n) => n <= target;
  return (value) => {
    const n = read(value);
    return n !== undefined && compare(n);
  };
}

function listTest(operator: string, operand: unknown, at: string): Test {
  const list = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : []);
  if (operator === 'isEmpty') {
    if (typeof operand !== 'boolean') throw ApiError.invalidField(at, `${at} must be true or false, got ${typeName(operand)}`);
    return (value) => (list(value).length === 0) === operand;
  }
  if (operator === 'has') {
    const text = stringOperand(operand, at);
    return (value) => list(value).includes(text);
  }
  const wanted = listOperand(operand, at, stringOperand);
  return operator === 'hasEvery' ? (value) => wanted.every((item) => list(value).includes(item)) : (value) => wanted.some((item) => list(value).includes(item));
}
