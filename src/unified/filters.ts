import { calendarMistake } from '../shared/calendar.js';
import { ApiError } from '../shared/errors.js';
import { needleFinder } from '../shared/needles.js';
import { type Pieces, runToEnd } from '../shared/pieces.js';
import { chargeWork, LOOKUP_WORK, WORK_PIECE, workDone } from '../shared/work.js';
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
  return runToEnd(compileFiltersInPieces(filters, fields, at));
}

/**
 * {@link compileFilters} in pieces: a list operand of a 1 MiB body holds tens of thousands of values (each date
 * parsed and checked), about 40 ms at once; in pieces it stops every {@link WORK_PIECE} units of work, so a search
 * that runs it with turns between (src/core/routes/unified-shared.ts) holds the event loop a piece at a time.
 */
export function* compileFiltersInPieces(filters: unknown, fields: readonly FilterField[], at = 'filters'): Pieces<RecordFilter> {
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
      tests.push({ path: field.path ?? field.key, test: yield* operatorTest(field.kind, operator, operand, `${at}.${key}.${operator}`) });
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

function* operatorTest(kind: FilterKind, operator: string, operand: unknown, at: string): Pieces<Test> {
  const allowed = OPERATORS[kind];
  if (!allowed.includes(operator)) {
    throw ApiError.invalidField(at, `${at} is not an operator of a ${kindName(kind)} filter; allowed: ${allowed.join(', ')}`, { allowed: [...allowed] });
  }
  switch (kind) {
    case 'string':
      return yield* stringTest(operator, operand, at);
    case 'number':
      return yield* orderedTest(operator, operand, at, numberOperand, toNumber);
    case 'date':
      return yield* orderedTest(operator, operand, at, dateOperand, toTime);
    case 'boolean': {
      if (typeof operand !== 'boolean') throw ApiError.invalidField(at, `${at} must be true or false, got ${typeName(operand)}`);
      return operator === 'equals' ? (value) => value === operand : (value) => typeof value === 'boolean' && value !== operand;
    }
    case 'stringList':
      return yield* listTest(operator, operand, at);
  }
}

const kindName = (kind: FilterKind) => (kind === 'stringList' ? 'string list' : kind);

function stringOperand(operand: unknown, at: string): string {
  if (typeof operand !== 'string') throw ApiError.invalidField(at, `${at} must be a string, got ${typeName(operand)}`);
  return operand;
}

/** Work a list operand's value costs to check and keep in a set (a new string's first hash: LOOKUP_WORK), besides its characters. */
const ITEM_WORK = { plain: LOOKUP_WORK, date: LOOKUP_WORK + 400 };

/**
 * A list operand's values, each checked by `item`, as a set: stops every {@link WORK_PIECE} units of work. A bad
 * value is a 400 naming its place (`filters.id.in[3]`), the place worked out only then.
 */
function* listOperand<T>(operand: unknown, at: string, item: (value: unknown, at: string) => T, work = ITEM_WORK.plain): Pieces<Set<T>> {
  if (!Array.isArray(operand)) throw ApiError.invalidField(at, `${at} must be an array, got ${typeName(operand)}`);
  const values = new Set<T>();
  let since = workDone();
  for (let index = 0; index < operand.length; index++) {
    const value: unknown = operand[index];
    let made: T;
    try {
      made = item(value, at);
    } catch {
      item(value, `${at}[${index}]`);
      throw ApiError.invalidField(at, `${at}[${index}] is not valid`);
    }
    values.add(made);
    chargeWork(work + (typeof value === 'string' ? value.length : 0));
    if (workDone() - since >= WORK_PIECE) {
      yield;
      since = workDone();
    }
  }
  return values;
}

function* stringTest(operator: string, operand: unknown, at: string): Pieces<Test> {
  if (operator === 'in' || operator === 'notIn') {
    const values = yield* listOperand(operand, at, stringOperand);
    const wanted = operator === 'in';
    return (value) => {
      if (typeof value !== 'string') return false;
      chargeWork(LOOKUP_WORK + value.length);
      return values.has(value) === wanted;
    };
  }
  const text = stringOperand(operand, at);
  switch (operator) {
    case 'equals':
      return (value) => {
        if (typeof value === 'string') chargeWork(Math.min(value.length, text.length));
        return value === text;
      };
    case 'not':
      return (value) => {
        if (typeof value !== 'string') return false;
        chargeWork(Math.min(value.length, text.length));
        return value !== text;
      };
    case 'contains': {
      // Linear in the value and the text (`includes` is not, on some long texts: src/shared/needles.ts).
      const find = needleFinder(text);
      // The finder counts the work it does.
      return (value) => typeof value === 'string' && find(value) !== -1;
    }
    case 'startsWith':
      return (value) => {
        if (typeof value !== 'string') return false;
        chargeWork(Math.min(value.length, text.length));
        return value.startsWith(text);
      };
    default:
      return (value) => {
        if (typeof value !== 'string') return false;
        chargeWork(Math.min(value.length, text.length));
        return value.endsWith(text);
      };
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

function* orderedTest(
  operator: string,
  operand: unknown,
  at: string,
  parse: (operand: unknown, at: string) => number,
  read: (value: unknown) => number | undefined,
): Pieces<Test> {
  if (operator === 'in' || operator === 'notIn') {
    const values = yield* listOperand(operand, at, parse, parse === dateOperand ? ITEM_WORK.date : ITEM_WORK.plain);
    const wanted = operator === 'in';
    return (value) => {
      chargeWork(LOOKUP_WORK);
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

/**
 * A string list's operators, each in time linear in the list: `hasSome` looks each entry up in a set of the wanted
 * values, `hasEvery` the wanted values in a set of the entries (and fails at once when there are fewer entries than
 * wanted values), where comparing every wanted value with every entry took 30,000 × the list's length a record.
 */
function* listTest(operator: string, operand: unknown, at: string): Pieces<Test> {
  const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
  if (operator === 'isEmpty') {
    if (typeof operand !== 'boolean') throw ApiError.invalidField(at, `${at} must be true or false, got ${typeName(operand)}`);
    return (value) => (list(value).length === 0) === operand;
  }
  if (operator === 'has') {
    const text = stringOperand(operand, at);
    return (value) => {
      const entries = list(value);
      chargeWork(entries.length);
      return entries.includes(text);
    };
  }
  const wanted = yield* listOperand(operand, at, stringOperand);
  if (operator === 'hasSome') {
    return (value) => {
      const entries = list(value);
      chargeWork(LOOKUP_WORK * entries.length);
      for (const entry of entries) if (wanted.has(entry as string)) return true;
      return false;
    };
  }
  return (value) => {
    const entries = list(value);
    chargeWork(entries.length);
    if (wanted.size > entries.length) return false;
    if (wanted.size === 0) return true;
    const present = new Set(entries);
    chargeWork(LOOKUP_WORK * (entries.length + wanted.size));
    for (const item of wanted) if (!present.has(item)) return false;
    return true;
  };
}
